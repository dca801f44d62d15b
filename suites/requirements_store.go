package suites

// Section prefixes shared by the store and server registries. The product
// requirements live in the doc comments of package tasks (secStore).
const (
	secTasks      = "basic/utilities/tasks.mdx"
	secPagination = "server/utilities/pagination.mdx"
	secSchema     = "schema.json#/$defs/TaskStatus"
	secStore      = "mcptasks tasks.Store contract"
)

// storeRequirements are the requirements the store specs test. Owned by the
// store half of the suite; server specs may reuse these ids. Summaries are
// our own wording.
var storeRequirements = []Requirement{
	// Catalog requirements a Store can be tested against.
	{ID: "TASKS-ID-001", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Behavior Requirements › Task ID Requirements", Feature: "core", Summary: "Task ids are non-empty strings."},
	{ID: "TASKS-ID-002", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Behavior Requirements › Task ID Requirements", Feature: "core", Summary: "The receiver, not the caller, chooses the id of a new task."},
	{ID: "TASKS-ID-003", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Behavior Requirements › Task ID Requirements", Feature: "core", Summary: "Ids are never reused between tasks of one receiver."},
	{ID: "TASKS-LIFE-001", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Behavior Requirements › Task Status Lifecycle", Feature: "core", Summary: "Every new task begins in working."},
	{ID: "TASKS-LIFE-002", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Behavior Requirements › Task Status Lifecycle", Feature: "core", Summary: "Only the listed status edges are ever taken; every other move is refused."},
	{ID: "TASKS-LIFE-003", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Behavior Requirements › Task Status Lifecycle", Feature: "core", Summary: "A working task can go to input_required, completed, failed or cancelled."},
	{ID: "TASKS-LIFE-004", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Behavior Requirements › Task Status Lifecycle", Feature: "core", Summary: "An input_required task can go to working, completed, failed or cancelled."},
	{ID: "TASKS-LIFE-005", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Behavior Requirements › Task Status Lifecycle", Feature: "core", Summary: "completed, failed and cancelled are final; nothing moves a task out of them."},
	{ID: "TASKS-TTL-002", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Behavior Requirements › TTL and Resource Management", Feature: "core", Summary: "lastUpdatedAt moves forward with every change of the task."},
	{ID: "TASKS-TTL-004", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Behavior Requirements › TTL and Resource Management", Feature: "core", Summary: "A task reports the retention actually applied, null meaning unlimited."},
	{ID: "TASKS-TTL-005", Level: LevelMay, Section: "basic/utilities/tasks.mdx § Behavior Requirements › TTL and Resource Management", Feature: "core", Summary: "Once its ttl has elapsed a task and its result may be dropped, in any status."},
	{ID: "TASKS-ERR-001", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Error Handling › Protocol Errors", Feature: "core", Summary: "An unknown task id is an invalid-params (-32602) error for get, result and cancel."},
	{ID: "TASKS-ERR-002", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Error Handling › Protocol Errors", Feature: "core", Summary: "A list cursor the receiver never issued is an invalid-params (-32602) error."},
	{ID: "TASKS-SEC-001", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Security Considerations › Task Isolation and Access Control", Feature: "core", Summary: "A task belongs to the authorization context that created it."},
	{ID: "TASKS-SEC-003", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Security Considerations › Task Isolation and Access Control", Feature: "core", Summary: "Task ids come from a secure random source with enough entropy that they cannot be guessed."},
	{ID: "TASKS-SEC-006", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Security Considerations › Task Isolation and Access Control", Feature: "core", Summary: "get, result and cancel on a task of another authorization context are refused."},
	{ID: "TASKS-SEC-007", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Security Considerations › Task Isolation and Access Control", Feature: "core", Summary: "Listing shows only the caller's own tasks."},
	{ID: "TASKS-RSRC-001", Level: LevelShould, Section: "basic/utilities/tasks.mdx § Security Considerations › Resource Management", Feature: "core", Summary: "The number of tasks one requestor runs at the same time is capped."},
	{ID: "TASKS-RSRC-002", Level: LevelShould, Section: "basic/utilities/tasks.mdx § Security Considerations › Resource Management", Feature: "core", Summary: "Requested ttl values are bounded by a maximum."},
	{ID: "TASKS-RSRC-003", Level: LevelShould, Section: "basic/utilities/tasks.mdx § Security Considerations › Resource Management", Feature: "core", Summary: "Expired tasks are cleaned up without delay."},
	{ID: "TASKS-PAGE-003", Level: LevelShould, Section: "server/utilities/pagination.mdx § Implementation Guidelines", Feature: "core", Summary: "Cursors stay valid as the data changes and bad cursors get a clean error."},
	{ID: "TASKS-RESULT-003", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Behavior Requirements › Result Retrieval", Feature: "core", Summary: "A terminal task hands back the final outcome of its request, result or error."},
	{ID: "TASKS-LIST-002", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Behavior Requirements › Task Listing", Feature: "core", Summary: "A page that is not the last carries a next cursor."},
	{ID: "TASKS-LIST-004", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Behavior Requirements › Task Listing", Feature: "core", Summary: "Every task the caller can get also shows up in the caller's listing."},
	{ID: "TASKS-CANCEL-001", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Behavior Requirements › Task Cancellation", Feature: "core", Summary: "Cancelling a task that already ended is refused as invalid params (-32602)."},
	{ID: "TASKS-CANCEL-003", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Behavior Requirements › Task Cancellation", Feature: "core", Summary: "A cancel answer is given only once the task is already cancelled."},
	{ID: "TASKS-CANCEL-004", Level: LevelMust, Section: "basic/utilities/tasks.mdx § Behavior Requirements › Task Cancellation", Feature: "core", Summary: "A cancelled task remains cancelled when its work later ends."},
	{ID: "TASKS-WIRE-STATUS-001", Level: LevelMust, Section: "schema.json § $defs/TaskStatus", Feature: "core", Summary: "A task status is always one of the five defined values."},

	// Product requirements of the mcptasks Store contract.
	{ID: "MCPT-LIFE-001", Level: LevelMust, Section: secStore + " § Record.Version", Feature: "core", Summary: "Version starts at 1 and grows with every change of a task."},
	{ID: "MCPT-LIFE-002", Level: LevelMust, Section: secStore + " § Create", Feature: "core", Summary: "Create keeps the method, the status message and the owner, with createdAt equal to lastUpdatedAt."},
	{ID: "MCPT-LIFE-003", Level: LevelMust, Section: secStore + " § Store", Feature: "core", Summary: "Records handed out are copies: changing one never changes the stored task."},
	{ID: "MCPT-LIFE-004", Level: LevelMust, Section: secStore + " § Transition", Feature: "core", Summary: "Transition never reaches a terminal status; only Complete and Cancel do."},
	{ID: "MCPT-LIFE-005", Level: LevelMust, Section: secStore + " § Complete", Feature: "core", Summary: "Complete accepts only completed or failed with a well-formed outcome, and a refused call changes nothing."},
	{ID: "MCPT-LIFE-006", Level: LevelMust, Section: secStore + " § Transition", Feature: "core", Summary: "A transition stores the new status message with the new status."},
	{ID: "MCPT-ISO-001", Level: LevelMust, Section: secStore + " § Store", Feature: "core", Summary: "On every method a task of another owner behaves exactly like a task that does not exist, and is left untouched."},
	{ID: "MCPT-TTL-001", Level: LevelMust, Section: secStore + " § Config.DefaultTTL", Feature: "core", Summary: "A task created without a ttl gets the configured default."},
	{ID: "MCPT-TTL-002", Level: LevelMust, Section: secStore + " § Config.EffectiveTTL", Feature: "core", Summary: "A requested ttl inside the bounds is kept as asked."},
	{ID: "MCPT-TTL-003", Level: LevelMust, Section: secStore + " § Config.MinTTL", Feature: "core", Summary: "A requested ttl below the minimum is raised to it, so no task vanishes on creation."},
	{ID: "MCPT-TTL-004", Level: LevelMust, Section: secStore + " § Config.DefaultTTL", Feature: "core", Summary: "With an unlimited default, tasks without a requested ttl have none and never expire."},
	{ID: "MCPT-TTL-005", Level: LevelMust, Section: secStore + " § Config.EffectiveTTL", Feature: "core", Summary: "A negative ttl is refused as invalid params and creates nothing."},
	{ID: "MCPT-TTL-006", Level: LevelMust, Section: secStore + " § Store", Feature: "core", Summary: "An expired task is invisible to every method even before it is deleted."},
	{ID: "MCPT-TTL-007", Level: LevelMust, Section: secStore + " § DeleteExpired", Feature: "core", Summary: "DeleteExpired removes exactly the expired tasks of all owners and says how many."},
	{ID: "MCPT-PAGE-001", Level: LevelMust, Section: secStore + " § List", Feature: "core", Summary: "Walking the pages yields each task exactly once, oldest first, whatever the page size."},
	{ID: "MCPT-PAGE-002", Level: LevelMust, Section: secStore + " § List", Feature: "core", Summary: "Tasks created during a listing never make an existing task repeat or go missing."},
	{ID: "MCPT-PAGE-003", Level: LevelMust, Section: secStore + " § ListOptions.Limit", Feature: "core", Summary: "Pages hold at most the requested number of tasks, and the configured default when none is asked."},
	{ID: "MCPT-VAR-001", Level: LevelMust, Section: secStore + " § SetVariables", Feature: "core", Summary: "Setting variables adds new keys and replaces existing ones, keeping the rest."},
	{ID: "MCPT-VAR-002", Level: LevelMust, Section: secStore + " § SetVariables", Feature: "core", Summary: "A JSON null value removes the variable."},
	{ID: "MCPT-VAR-003", Level: LevelMust, Section: secStore + " § Config.MaxVariablesBytes", Feature: "core", Summary: "Variables over the size limit are refused and the previous variables stay as they were."},
	{ID: "MCPT-VAR-004", Level: LevelMust, Section: secStore + " § SetVariables", Feature: "core", Summary: "Variables belong to one task; other tasks and owners never see them."},
	{ID: "MCPT-VAR-005", Level: LevelMust, Section: secStore + " § SetVariables", Feature: "core", Summary: "A variable that is not JSON, or has an empty name, is refused as invalid params without any change."},
	{ID: "MCPT-LIMIT-001", Level: LevelMust, Section: secStore + " § Config.MaxTasksPerOwner", Feature: "core", Summary: "Creating beyond the per-owner cap of active tasks fails with a limit error."},
	{ID: "MCPT-LIMIT-002", Level: LevelMust, Section: secStore + " § Config.MaxTasksPerOwner", Feature: "core", Summary: "Tasks that ended, or expired, no longer count against the cap."},
	{ID: "MCPT-LIMIT-003", Level: LevelMust, Section: secStore + " § Config.MaxTasksPerOwner", Feature: "core", Summary: "The cap is counted per owner: one owner at the cap does not block another."},
	{ID: "MCPT-CONC-001", Level: LevelMust, Section: secStore + " § Store", Feature: "core", Summary: "Of many concurrent attempts to end a task exactly one succeeds; the others get an invalid-transition error."},
	{ID: "MCPT-CONC-002", Level: LevelMust, Section: secStore + " § SetVariables", Feature: "core", Summary: "Concurrent variable writes to distinct keys are all kept."},
	{ID: "MCPT-CONC-003", Level: LevelMust, Section: secStore + " § Store", Feature: "core", Summary: "Concurrent creates never push an owner beyond the cap."},
	{ID: "MCPT-CONC-004", Level: LevelMust, Section: secStore + " § Record.Version", Feature: "core", Summary: "Under concurrent changes every successful change gets its own Version."},
	{ID: "MCPT-RES-001", Level: LevelMust, Section: secStore + " § Complete", Feature: "core", Summary: "Status and outcome are stored in one step: a terminal task always has its outcome."},
	{ID: "MCPT-RES-002", Level: LevelMust, Section: secStore + " § Result", Feature: "core", Summary: "An error outcome comes back with the same code, message and data."},
	{ID: "MCPT-RES-003", Level: LevelMust, Section: secStore + " § Result", Feature: "core", Summary: "Result on a task that has not ended reports not-ready."},
	{ID: "MCPT-CANCEL-001", Level: LevelMust, Section: secStore + " § Cancel", Feature: "core", Summary: "Cancel stores a request-cancelled error (-32800) as the outcome."},
	{ID: "MCPT-WAIT-001", Level: LevelMust, Section: secStore + " § Wait", Feature: "core", Summary: "A waiter wakes up with the new record when the task changes."},
	{ID: "MCPT-WAIT-002", Level: LevelMust, Section: secStore + " § Wait", Feature: "core", Summary: "Wait returns at once when the task already changed after the given version."},
	{ID: "MCPT-WAIT-003", Level: LevelMust, Section: secStore + " § Wait", Feature: "core", Summary: "Wait ends with the context's error when the context is done."},
	{ID: "MCPT-WAIT-004", Level: LevelMust, Section: secStore + " § Wait", Feature: "core", Summary: "Wait reports not-found for a missing task, another owner's task, or one that disappears while waiting."},
	{ID: "MCPT-LIFE-007", Level: LevelMust, Section: secStore + " § Store", Feature: "core", Summary: "The store keeps its own copy of every argument: changing a variables map, a value's bytes, an outcome or a ttl after the call never changes the stored task."},
	{ID: "MCPT-LIFE-008", Level: LevelMust, Section: secStore + " § Store", Feature: "core", Summary: "Every change returns the task as it stands after the change, field for field what a following Get and List show."},
	{ID: "MCPT-LIFE-009", Level: LevelMust, Section: secStore + " § Complete", Feature: "core", Summary: "Complete stores the status message it is given with the terminal status."},
	{ID: "MCPT-TIME-001", Level: LevelMust, Section: secStore + " § Record.Version", Feature: "core", Summary: "Reads, waits, refused calls and changes of other tasks leave a task's version and lastUpdatedAt as they were."},
	{ID: "MCPT-TTL-008", Level: LevelMust, Section: secStore + " § Record.ExpiresAt", Feature: "core", Summary: "The expiry is createdAt plus the ttl, fixed at creation: later changes never move it."},
	{ID: "MCPT-RES-004", Level: LevelMust, Section: secStore + " § Outcome", Feature: "core", Summary: "An outcome comes back byte for byte: integers beyond 2^53, escapes, unicode, key order and spacing survive, and error codes keep all 64 bits."},
	{ID: "MCPT-VAR-006", Level: LevelMust, Section: secStore + " § SetVariables", Feature: "core", Summary: "Variable values come back byte for byte, only the spaces around them trimmed."},
	{ID: "MCPT-LIMIT-004", Level: LevelMust, Section: secStore + " § Config.MaxTasksPerOwner", Feature: "core", Summary: "A negative per-owner cap means no cap."},
	{ID: "MCPT-PAGE-004", Level: LevelMust, Section: secStore + " § List", Feature: "core", Summary: "Tasks that expire or are deleted between the pages of a listing never make a surviving task repeat or go missing."},
	{ID: "MCPT-TTLX-001", Level: LevelMust, Section: secStore + " § TTLExtender.ExtendTTL", Feature: "ttl-extension", Summary: "Extending a live task's ttl sets its total ttl, still counted from creation, bumps its version, and every later read, listing and expiry follows the new ttl."},
	{ID: "MCPT-TTLX-002", Level: LevelMust, Section: secStore + " § TTLExtender.ExtendTTL", Feature: "ttl-extension", Summary: "An extension beyond Config.MaxTTL, shorter than the current ttl, or negative is refused as invalid params and changes nothing."},
	{ID: "MCPT-TTLX-003", Level: LevelMust, Section: secStore + " § TTLExtender.ExtendTTL", Feature: "ttl-extension", Summary: "Terminal tasks keep their ttl (invalid transition); missing, expired and other owners' tasks are reported as not found; nothing changes."},
	{ID: "MCPT-LEASE-001", Level: LevelMust, Section: secStore + " § LeaseStore.RenewLease", Feature: "leases", Summary: "RenewLease succeeds on the owner's live tasks, changes nothing on terminal ones, and reports not-found for missing, expired or other owners' tasks."},
	{ID: "MCPT-LEASE-002", Level: LevelMust, Section: secStore + " § LeaseStore.ReapExpiredLeases", Feature: "leases", Summary: "Reaping ends, as failed with a lost-worker error, exactly the non-terminal tasks of every owner whose latest lease has lapsed, and counts them."},
}

// StoreRequirements returns the requirements the store specs test.
func StoreRequirements() []Requirement {
	return append([]Requirement(nil), storeRequirements...)
}
