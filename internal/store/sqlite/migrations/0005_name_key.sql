-- Persona and style names compare by core.NameKey (NFKC, case folding, TR39 confusable
-- skeleton): the unique index makes a look-alike a conflict even when two creations race.
-- Rows from before this migration keep a NULL key (NULLs never conflict); the service's own
-- check still compares them by the key of their name.
ALTER TABLE custom_models ADD COLUMN name_key TEXT;
CREATE UNIQUE INDEX custom_models_name_key ON custom_models (account_id, mode, name_key);
