-- The tasks table: one row per task. Times are written by the store from
-- its injected clock (millisecond precision), never by now(). JSON values
-- (variables, results, error data) are kept as bytea so they come back
-- byte for byte as they were given.
CREATE TABLE mcptasks_tasks (
    id              text COLLATE "C" PRIMARY KEY,
    owner           text COLLATE "C" NOT NULL,
    method          text NOT NULL,
    status          text NOT NULL CHECK (status IN ('working', 'input_required', 'completed', 'failed', 'cancelled')),
    status_message  text NOT NULL,
    created_at      timestamptz NOT NULL,
    updated_at      timestamptz NOT NULL,
    ttl_ms          bigint,
    poll_ms         bigint NOT NULL,
    expires_at      timestamptz,
    version         bigint NOT NULL,
    variables       bytea,
    result          bytea,
    error_code      bigint,
    error_message   text,
    error_data      bytea,
    lease_until     timestamptz
);

-- Keyset pagination: an owner's tasks in (created_at, id) order.
CREATE INDEX mcptasks_tasks_owner_order ON mcptasks_tasks (owner, created_at, id);

-- Counting an owner's active tasks for the per-owner limit.
CREATE INDEX mcptasks_tasks_owner_active ON mcptasks_tasks (owner)
    WHERE status IN ('working', 'input_required');

-- DeleteExpired.
CREATE INDEX mcptasks_tasks_expiry ON mcptasks_tasks (expires_at)
    WHERE expires_at IS NOT NULL;

-- ReapExpiredLeases.
CREATE INDEX mcptasks_tasks_lease ON mcptasks_tasks (lease_until)
    WHERE lease_until IS NOT NULL AND status IN ('working', 'input_required');

-- Waiters LISTEN on mcptasks_task_changed. The notification is sent by the
-- very statement that changes the status, and only for the changes a
-- waiter blocks on: into input_required or into a terminal status.
CREATE FUNCTION mcptasks_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('mcptasks_task_changed', NEW.id);
    RETURN NULL;
END
$$;

CREATE TRIGGER mcptasks_tasks_notify
    AFTER UPDATE OF status ON mcptasks_tasks
    FOR EACH ROW
    WHEN (NEW.status IS DISTINCT FROM OLD.status
          AND NEW.status IN ('input_required', 'completed', 'failed', 'cancelled'))
    EXECUTE FUNCTION mcptasks_notify_change();
