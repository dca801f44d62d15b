package suites

// extWireRequirements are the wire-shape rules of the tasks extension
// catalog that the specs of suites/ext_wire.go judge on the messages a
// 2026-07-28 server really sends, under the catalog's ids and levels.
// Summaries are our own wording.
var extWireRequirements = []Requirement{
	// Task objects: CreateTaskResult, tasks/get, notifications/tasks.
	{ID: "EXT-WIRE-002", Level: LevelMust, Section: secExtWire + "Task", Feature: FeatureExtTasks, Summary: "taskId is a JSON string wherever a task is shown."},
	{ID: "EXT-WIRE-003", Level: LevelMust, Section: secExtWire + "TaskStatus", Feature: FeatureExtTasks, Summary: "status is one of working, input_required, completed, failed and cancelled, nothing else."},
	{ID: "EXT-WIRE-004", Level: LevelMust, Section: secExtWire + "Task", Feature: FeatureExtTasks, Summary: "createdAt and lastUpdatedAt are JSON strings (their RFC 3339 form is EXT-LIFE-004/005's)."},
	{ID: "EXT-WIRE-007", Level: LevelMust, Section: secExtWire + "Task", Feature: FeatureExtTasks, Summary: "statusMessage may be left out and is a string when given, whatever the status."},
	{ID: "EXT-WIRE-010", Level: LevelMust, Section: secExtWire + "CreateTaskResult", Feature: FeatureExtTasks, Summary: "Every CreateTaskResult validates against the extension's CreateTaskResult: a result, a flat task, resultType task."},
	{ID: "EXT-WIRE-011", Level: LevelMust, Section: secExtWire + "GetTaskResult", Feature: FeatureExtTasks, Summary: "Every tasks/get result validates against GetTaskResult: a result, one detailed-task variant, resultType complete."},
	{ID: "EXT-WIRE-012", Level: LevelMust, Section: secExtWire + "InputRequiredTask", Feature: FeatureExtTasks, Summary: "An input_required task always carries inputRequests as an object, never empty (EXT-DISC-16)."},
	{ID: "EXT-WIRE-014", Level: LevelMust, Section: secExtWire + "FailedTask", Feature: FeatureExtTasks, Summary: "A failed task always carries error, a JSON-RPC error with an integer code and a string message (EXT-DISC-15)."},
	{ID: "EXT-WIRE-019", Level: LevelMust, Section: secExtWire + "UpdateTaskResult", Feature: FeatureExtTasks, Summary: "The tasks/update acknowledgement validates against UpdateTaskResult (resultType complete)."},
	{ID: "EXT-WIRE-021", Level: LevelMust, Section: secExtWire + "CancelTaskResult", Feature: FeatureExtTasks, Summary: "The tasks/cancel acknowledgement validates against CancelTaskResult (resultType complete)."},
	{ID: "EXT-WIRE-024", Level: LevelMust, Section: secExtWire + "TaskSubscriptionAcknowledgedNotifications", Feature: FeatureExtTasks, Summary: "The listen acknowledgement's notifications.taskIds, when present, is an array of strings."},
	{ID: "EXT-WIRE-026", Level: LevelMust, Section: secExtWire + "InputRequest", Feature: FeatureExtTasks, Summary: "Each inputRequests value is a sampling, roots or elicitation request: a fixed method and, except for roots, params."},
	{ID: "EXT-WIRE-029", Level: LevelMust, Section: secCoreWire + "ServerCapabilities", Feature: FeatureExtTasks, Summary: "The capabilities of server/discover validate as ServerCapabilities: extensions map identifiers to objects."},
	{ID: "EXT-WIRE-030", Level: LevelMust, Section: secCoreWire + "MissingRequiredClientCapabilityError", Feature: FeatureExtTasks, Summary: "Every -32021 carries data.requiredCapabilities shaped like client capabilities."},
	{ID: "EXT-WIRE-031", Level: LevelMust, Section: secCoreWire + "HeaderMismatchError", Feature: FeatureExtTasks, Summary: "Every -32020 is a well-formed HeaderMismatch error response."},
	{ID: "EXT-WIRE-032", Level: LevelMust, Section: secCoreWire + "UnsupportedProtocolVersionError", Feature: FeatureExtTasks, Summary: "Every -32022 carries data with supported (strings) and requested (a string)."},
	{ID: "EXT-WIRE-034", Level: LevelMust, Section: secCoreWire + "DiscoverResult", Feature: FeatureExtTasks, Summary: "The DiscoverResult has cacheScope, capabilities, resultType, supportedVersions and an integer ttlMs of at least 0."},
	{ID: "EXT-WIRE-040", Level: LevelMust, Section: secCoreWire + "NotificationMetaObject", Feature: FeatureExtTasks, Summary: "Every notification on a listen stream carries _meta subscriptionId, a string or an integer."},
	{ID: "EXT-WIRE-042", Level: LevelMust, Section: secCoreWire + "ProgressNotificationParams", Feature: FeatureExtTasks, Summary: "A progress notification has a string or integer progressToken and a numeric progress."},
	{ID: "EXT-WIRE-043", Level: LevelMust, Section: secCoreWire + "Error", Feature: FeatureExtTasks, Summary: "Every JSON-RPC error, in a response or inlined in a failed task, has an integer code and a string message."},

	// JSON-RPC messages of the 2026-07-28 core.
	{ID: "EXT-BASE-002", Level: LevelMust, Section: secCore + "basic/index.mdx § Messages", Feature: FeatureExtTasks, Summary: "Every message the server sends is a JSON-RPC 2.0 request, notification or response."},
	{ID: "EXT-BASE-005", Level: LevelMust, Section: secCore + "basic/index.mdx § Messages › Responses", Feature: FeatureExtTasks, Summary: "A result response repeats the request's id and carries a result object."},
	{ID: "EXT-BASE-006", Level: LevelMust, Section: secCore + "basic/index.mdx § Messages › Responses", Feature: FeatureExtTasks, Summary: "Every result carries a resultType string, CreateTaskResult and the tasks/* acknowledgements included."},
	{ID: "EXT-BASE-009", Level: LevelMust, Section: secCore + "basic/index.mdx § General fields › _meta", Feature: FeatureExtTasks, Summary: "Every _meta key the server sends follows the key grammar: an optional dotted prefix with a slash, then an alphanumeric-bounded name."},
	{ID: "EXT-ERR-015", Level: LevelMust, Section: secCore + "basic/index.mdx § Messages › Error Responses", Feature: FeatureExtTasks, Summary: "An error response repeats the request's id and carries an integer code and a message."},
}

func init() {
	// The wire rules join the extension's requirements; each needs the
	// profile and Streamable HTTP only. The feature entries are set here
	// too, so the outcome does not depend on which init runs first.
	extRequirements = append(extRequirements, extWireRequirements...)
	for _, r := range extWireRequirements {
		if _, ok := serverFeatures[r.ID]; !ok {
			serverFeatures[r.ID] = needs(FeatureExtTasks, FeatureHTTP)
		}
	}
}
