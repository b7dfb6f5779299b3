-- thumbforge schema for PostgreSQL.
CREATE TABLE accounts (
    id           UUID PRIMARY KEY,
    name         TEXT NOT NULL,
    suspended    BOOLEAN NOT NULL DEFAULT FALSE,
    api_access   BOOLEAN NOT NULL DEFAULT FALSE,
    concurrency  INTEGER NOT NULL CHECK (concurrency >= 1),
    balance      BIGINT NOT NULL DEFAULT 0 CHECK (balance >= 0),
    topup_amount BIGINT NOT NULL DEFAULT 0 CHECK (topup_amount >= 0),
    created_at   TIMESTAMPTZ NOT NULL
);

CREATE TABLE api_keys (
    id         UUID PRIMARY KEY,
    account_id UUID NOT NULL REFERENCES accounts (id),
    prefix     TEXT NOT NULL,
    hash       BYTEA NOT NULL UNIQUE,
    status     TEXT NOT NULL CHECK (status IN ('active', 'inactive', 'deleted')),
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at);

CREATE TABLE reservations (
    id         UUID PRIMARY KEY,
    account_id UUID NOT NULL REFERENCES accounts (id),
    amount     BIGINT NOT NULL CHECK (amount >= 0),
    operation  TEXT NOT NULL,
    state      TEXT NOT NULL CHECK (state IN ('held', 'charged', 'released')),
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX reservations_held ON reservations (created_at) WHERE state = 'held';

CREATE TABLE ledger (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id UUID NOT NULL REFERENCES accounts (id),
    kind       TEXT NOT NULL,
    delta      BIGINT NOT NULL,
    amount     BIGINT NOT NULL,
    ref        TEXT NOT NULL,
    operation  TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX ledger_account ON ledger (account_id, id);

CREATE TABLE invoices (
    id         UUID PRIMARY KEY,
    account_id UUID NOT NULL REFERENCES accounts (id),
    amount     BIGINT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('open', 'paid', 'failed')),
    created_at TIMESTAMPTZ NOT NULL,
    settled_at TIMESTAMPTZ
);
CREATE INDEX invoices_account ON invoices (account_id, status);

CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE outputs (
    blob_key   TEXT PRIMARY KEY,
    account_id UUID NOT NULL REFERENCES accounts (id),
    expires_at TIMESTAMPTZ NOT NULL,
    created_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX outputs_expiry ON outputs (expires_at);

CREATE TABLE custom_models (
    id                   UUID PRIMARY KEY,
    account_id           UUID NOT NULL REFERENCES accounts (id),
    created_at           TIMESTAMPTZ NOT NULL,
    mode                 TEXT NOT NULL CHECK (mode IN ('persona', 'style')),
    name                 TEXT NOT NULL,
    status               TEXT NOT NULL,
    stage                TEXT NOT NULL,
    progress             INTEGER NOT NULL DEFAULT 0,
    special_instructions TEXT NOT NULL DEFAULT '',
    source               TEXT NOT NULL DEFAULT '',
    portrait_key         TEXT NOT NULL DEFAULT '',
    reference_keys       TEXT NOT NULL DEFAULT '[]',
    params               TEXT NOT NULL DEFAULT '',
    fail_reason          TEXT NOT NULL DEFAULT '',
    reservation_id       UUID,
    completed_at         TIMESTAMPTZ,
    UNIQUE (account_id, mode, name)
);

-- In-flight request slots shared by every replica (see Limiter); a lease whose holder
-- stops renewing it expires.
CREATE TABLE leases (
    id         UUID PRIMARY KEY,
    key        TEXT NOT NULL,
    expires_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX leases_key ON leases (key, expires_at);
