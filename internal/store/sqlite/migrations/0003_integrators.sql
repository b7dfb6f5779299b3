-- Idempotent retries: the first answer to a POST sent with an Idempotency-Key, kept per
-- account for 24 hours. A row is 'running' while its first request runs (a repeat then
-- answers 409), 'done' once its answer is stored (a repeat gets that answer back).
CREATE TABLE idempotency_keys (
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    idem_key     TEXT NOT NULL,
    fingerprint  BLOB NOT NULL,
    request_id   TEXT NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('running', 'done')),
    status       INTEGER NOT NULL DEFAULT 0,
    header       TEXT NOT NULL DEFAULT '{}',
    body         BLOB,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    PRIMARY KEY (account_id, idem_key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- Signed webhooks: one endpoint per account. The secret signs every delivery, so it is kept
-- as it is (like the link-signing secret); the previous one keeps signing beside it for
-- 24 hours after a rotation.
CREATE TABLE webhooks (
    account_id       TEXT PRIMARY KEY REFERENCES accounts (id),
    url              TEXT NOT NULL,
    secret           TEXT NOT NULL,
    previous_secret  TEXT NOT NULL DEFAULT '',
    previous_until   INTEGER,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);

-- Every delivery attempt, for `thumbforge webhooks deliveries`.
CREATE TABLE webhook_deliveries (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id  TEXT NOT NULL,
    event_id    TEXT NOT NULL,
    event_type  TEXT NOT NULL,
    url         TEXT NOT NULL,
    attempt     INTEGER NOT NULL,
    status      INTEGER NOT NULL,
    error       TEXT NOT NULL,
    duration_ms INTEGER NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX webhook_deliveries_account ON webhook_deliveries (account_id, id);
CREATE INDEX webhook_deliveries_time ON webhook_deliveries (created_at);
