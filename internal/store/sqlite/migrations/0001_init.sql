-- thumbforge schema for SQLite. Ids are UUID text; times are unix microseconds (UTC),
-- so they compare and sort as numbers.
CREATE TABLE accounts (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    suspended    INTEGER NOT NULL DEFAULT 0,
    api_access   INTEGER NOT NULL DEFAULT 0,
    concurrency  INTEGER NOT NULL CHECK (concurrency >= 1),
    balance      INTEGER NOT NULL DEFAULT 0 CHECK (balance >= 0),
    topup_amount INTEGER NOT NULL DEFAULT 0 CHECK (topup_amount >= 0),
    created_at   INTEGER NOT NULL
);

CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    prefix     TEXT NOT NULL,
    hash       BLOB NOT NULL UNIQUE,
    status     TEXT NOT NULL CHECK (status IN ('active', 'inactive', 'deleted')),
    created_at INTEGER NOT NULL
);
CREATE INDEX api_keys_account ON api_keys (account_id, created_at);

CREATE TABLE reservations (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    amount     INTEGER NOT NULL CHECK (amount >= 0),
    operation  TEXT NOT NULL,
    state      TEXT NOT NULL CHECK (state IN ('held', 'charged', 'released')),
    created_at INTEGER NOT NULL
);
CREATE INDEX reservations_held ON reservations (state, created_at);

CREATE TABLE ledger (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    kind       TEXT NOT NULL,
    delta      INTEGER NOT NULL,
    amount     INTEGER NOT NULL,
    ref        TEXT NOT NULL,
    operation  TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX ledger_account ON ledger (account_id, id);

CREATE TABLE invoices (
    id         TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    amount     INTEGER NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('open', 'paid', 'failed')),
    created_at INTEGER NOT NULL,
    settled_at INTEGER
);
CREATE INDEX invoices_account ON invoices (account_id, status);

CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE outputs (
    blob_key   TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    expires_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX outputs_expiry ON outputs (expires_at);

CREATE TABLE custom_models (
    id                   TEXT PRIMARY KEY,
    account_id           TEXT NOT NULL REFERENCES accounts (id),
    created_at           INTEGER NOT NULL,
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
    reservation_id       TEXT,
    completed_at         INTEGER,
    UNIQUE (account_id, mode, name)
);
