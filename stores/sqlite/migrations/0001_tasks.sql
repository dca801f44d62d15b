-- One row per task. Times are Unix milliseconds (UTC); NULL ttl_ms and
-- expires_at mean the task never expires. Outcome columns are NULL until
-- the task is terminal; result and err_data keep the exact JSON bytes.
CREATE TABLE IF NOT EXISTS tasks (
	id             TEXT    NOT NULL PRIMARY KEY,
	owner          TEXT    NOT NULL,
	method         TEXT    NOT NULL,
	status         TEXT    NOT NULL,
	status_message TEXT    NOT NULL,
	created_at     INTEGER NOT NULL,
	updated_at     INTEGER NOT NULL,
	ttl_ms         INTEGER,
	poll_ms        INTEGER NOT NULL,
	expires_at     INTEGER,
	version        INTEGER NOT NULL,
	variables      BLOB,
	result         BLOB,
	err_code       INTEGER,
	err_message    TEXT,
	err_data       BLOB
);

-- List order within an owner: the keyset (created_at, id).
CREATE INDEX IF NOT EXISTS tasks_owner_order ON tasks (owner, created_at, id);

-- Counting an owner's active tasks for the per-owner limit.
CREATE INDEX IF NOT EXISTS tasks_owner_active ON tasks (owner, expires_at)
	WHERE status IN ('working', 'input_required');

-- DeleteExpired.
CREATE INDEX IF NOT EXISTS tasks_expires ON tasks (expires_at)
	WHERE expires_at IS NOT NULL;
