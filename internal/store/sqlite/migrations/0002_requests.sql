-- Every credit hold has an owner the reconciler can check (core.Requests, core.Holds): a
-- paid request, recorded here in the transaction that holds its credits, or a persona or
-- style in training (custom_models). status is plain text so that later states need no
-- schema change; deadline is when the request's work must be over.
CREATE TABLE requests (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL REFERENCES accounts (id),
    operation      TEXT NOT NULL,
    status         TEXT NOT NULL,
    reservation_id TEXT,
    deadline       INTEGER NOT NULL,
    created_at     INTEGER NOT NULL,
    finished_at    INTEGER
);
CREATE INDEX requests_account ON requests (account_id, created_at);
CREATE INDEX requests_finished ON requests (finished_at) WHERE finished_at IS NOT NULL;

ALTER TABLE reservations ADD COLUMN owner_kind TEXT NOT NULL DEFAULT '';
ALTER TABLE reservations ADD COLUMN owner_id TEXT;
CREATE INDEX reservations_held_id ON reservations (id) WHERE state = 'held';
-- Training holds from before owners were recorded belong to the record naming them.
UPDATE reservations SET owner_kind = 'custom',
    owner_id = (SELECT m.id FROM custom_models m WHERE m.reservation_id = reservations.id)
WHERE EXISTS (SELECT 1 FROM custom_models m WHERE m.reservation_id = reservations.id);
