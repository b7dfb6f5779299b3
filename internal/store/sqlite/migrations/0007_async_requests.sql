-- Asynchronous requests and request lookup (GET /v2/requests/{id}): a request row keeps
-- what it answered for 24 hours. async marks a request accepted with Prefer:
-- respond-async, run by a job on the queue; key_id is the API key it counts against while
-- it runs; params is its validated input, kept only until it finishes; progress is 0..100;
-- result is the success body, error the public error ({code, message, details}), both
-- JSON and kept as written.
ALTER TABLE requests ADD COLUMN async INTEGER NOT NULL DEFAULT 0;
ALTER TABLE requests ADD COLUMN key_id TEXT;
ALTER TABLE requests ADD COLUMN progress INTEGER NOT NULL DEFAULT 0;
ALTER TABLE requests ADD COLUMN params BLOB;
ALTER TABLE requests ADD COLUMN result BLOB;
ALTER TABLE requests ADD COLUMN error BLOB;
-- Queue positions count the queued requests accepted before one.
CREATE INDEX requests_queued ON requests (created_at, id) WHERE status = 'queued';
-- Startup re-enqueues every open asynchronous request.
CREATE INDEX requests_open_async ON requests (id) WHERE async = 1 AND finished_at IS NULL;
