-- Work leases: the process running a task's work keeps lease_until (Unix
-- ms) in the future; when it lapses the process is taken for dead and any
-- process's reaper ends the task as failed. NULL means no lease was ever
-- taken (the task is then never reaped).
ALTER TABLE tasks ADD COLUMN lease_until INTEGER;

-- Tasks left running by a version without leases get one minute from the
-- upgrade to be renewed by a live process; after that they are reaped.
UPDATE tasks SET lease_until = CAST(strftime('%s', 'now') AS INTEGER) * 1000 + 60000
	WHERE status IN ('working', 'input_required');

-- ReapExpiredLeases.
CREATE INDEX IF NOT EXISTS tasks_lease ON tasks (lease_until)
	WHERE lease_until IS NOT NULL AND status IN ('working', 'input_required');
