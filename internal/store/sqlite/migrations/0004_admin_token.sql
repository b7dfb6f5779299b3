-- The operator's admin token for /admin (thumbforge admin-token): only its SHA-256 is
-- kept, in a single row, so making a new token revokes the earlier one.
CREATE TABLE admin_token (
    id         INTEGER PRIMARY KEY CHECK (id = 1),
    hash       BLOB NOT NULL,
    created_at INTEGER NOT NULL
);
