-- What GET /v2/outputs and GET /v2/account/usage read: which request made an output and
-- what it was, and the ledger's charges by time.
ALTER TABLE outputs ADD COLUMN request_id TEXT NOT NULL DEFAULT '';
ALTER TABLE outputs ADD COLUMN operation TEXT NOT NULL DEFAULT '';
CREATE INDEX outputs_account ON outputs (account_id, created_at);
CREATE INDEX ledger_usage ON ledger (account_id, kind, created_at);
