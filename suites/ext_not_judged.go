package suites

// extNotJudged names every requirement of the tasks extension catalog
// that the catalog says a server suite can test but that no 2026-07-28
// spec judges, each with the reason in a few words of our own. Together
// with extRequirements it accounts for every server-testable entry of
// ext-tasks-requirements.yaml; TestExtCoverageDoc keeps the two apart
// and complete and renders docs/ext-coverage.md from them.
//
// "Not yet written" is said plainly where a spec could judge the rule
// and nobody has written it; "Guarded by" names the registered
// requirements whose specs already fail a server that breaks the rule
// (one violation, one failing requirement).
var extNotJudged = map[string]string{
	// Capability negotiation.
	"EXT-CAP-001": "Informative. The exact extension key is what EXT-CAP-004 and EXT-CAP-013 look for, so a wrong key fails those.",
	"EXT-CAP-005": "Informative. A capability value that is not an object fails EXT-WIRE-025; a non-empty object is allowed.",
	"EXT-CAP-006": "A freedom (MAY): every spec accepts either a task or a plain result and judges whichever comes back.",
	"EXT-CAP-007": "Informative. The fixture contract has the sleep tool answer with a task when the extension is declared, which EXT-CAP-003 relies on.",
	"EXT-CAP-008": "Informative. A plain result to a declaring request is accepted everywhere; EXT-WIRE-036 judges its shape.",
	"EXT-CAP-014": "Guarded by EXT-CAP-009 (an earlier declaration of the extension is not remembered) and EXT-INPUT-013 (no input request for a client feature the creating call did not declare).",
	"EXT-CAP-015": "Guarded by EXT-CAP-012/013 (tools/call) and EXT-ERR-004 (tasks/*): every -32021 the suite provokes is judged there, status 400 and requiredCapabilities included.",
	"EXT-CAP-019": "A freedom of the client (MAY): nothing a server does can break it.",
	"EXT-CAP-021": "Guarded by EXT-CREATE-004 (resultType task only on a CreateTaskResult), EXT-CAP-009/016 (no task for a request without the extension) and EXT-CAP-004 (the extension advertised).",
	"EXT-CAP-023": "Informative. Its observable parts are judged by EXT-CREATE-004 (resultType task) and EXT-COMPAT-005/006 (-32601 for retired tasks/* methods).",

	// Creation.
	"EXT-CREATE-005": "Informative: says what a task answer means for the client; HTTP carries one response per request, so a second one cannot be sent.",
	"EXT-CREATE-007": "Informative: any starting status is allowed; what follows it is judged by EXT-LIFE-009.",
	"EXT-CREATE-008": "Informative and about the client. That tasks/get finds the task under that id is judged by EXT-CREATE-009 and EXT-GET-005.",
	"EXT-CREATE-010": "Guarded by EXT-CREATE-009, which checks the visible consequence (a task readable at once, on any instance); how the storage behaves is not observable from outside.",
	"EXT-CREATE-011": "Informative, derived from the schema; the catalog asks for a warning only. Not yet written.",
	"EXT-CREATE-012": "Informative. Honoured by design: a spec that needs a task is not-supported, never failed, when the fixture answers synchronously.",
	"EXT-CREATE-013": "Informative; the catalog asks for a warning only (EXT-DISC-26). Not yet written.",

	// Polling.
	"EXT-GET-002": "A freedom of the server (MAY): throttling has no defined error, so nothing can fail.",
	"EXT-GET-012": "Informative. The payload each status requires is judged by EXT-GET-006/008/009/010.",
	"EXT-GET-013": "Informative. The inlined result is compared with the synchronous one by EXT-ERR-011.",
	"EXT-GET-014": "Informative. Not yet written (repeated polls of a parked input task staying identical).",

	// Lifecycle.
	"EXT-LIFE-001": "Informative. Distinct, server-made task ids are judged by EXT-SEC-002.",
	"EXT-LIFE-002": "Informative. Every task spec polls after the creating request has ended.",
	"EXT-LIFE-003": "Informative. The same taskId on polls is judged by EXT-GET-005, on notifications by EXT-WIRE-022.",
	"EXT-LIFE-007": "Informative. Terminal finality is judged by EXT-LIFE-009; the other edges are not checked yet.",
	"EXT-LIFE-008": "Informative. In part exercised by EXT-UPDATE-010 (an answered input task goes on to complete).",
	"EXT-LIFE-010": "Informative. The statuses the fixtures must end in are judged by EXT-GET-008/009/010 and EXT-ERR-010.",

	// Input.
	"EXT-INPUT-001": "Informative: describes the input flow that EXT-GET-006, EXT-UPDATE-002 and EXT-UPDATE-010 exercise.",
	"EXT-INPUT-009": "Informative. Not yet written (two polls of an unanswered input task showing the same keys and bodies).",
	"EXT-INPUT-010": "Informative. A tasks/* reply saying input_required fails EXT-MRTR-002.",
	"EXT-INPUT-011": "Informative and permissive: reusing an MRTR key inside a task is allowed, so nothing can fail.",

	// tasks/update.
	"EXT-UPDATE-003": "A freedom (MAY): the input specs poll until the answer takes effect.",
	"EXT-UPDATE-004": "Guarded by EXT-ERR-002, which asks the stricter -32602 for tasks/update of an unknown taskId at the same SHOULD level.",
	"EXT-UPDATE-007": "A freedom (MAY); needs the input_multi fixture. Not judged.",
	"EXT-UPDATE-008": "Informative (the SEP lacks part of it, EXT-DISC-23); needs the input_multi fixture. Not yet written.",
	"EXT-UPDATE-013": "Informative, derived. Answers under keys that are not outstanding are judged by EXT-UPDATE-006.",

	// Cancellation.
	"EXT-CANCEL-002": "Informative. The stdio half needs stdio, which the 2026-07-28 specs do not speak; the HTTP half is what EXT-XPORT-019 asks.",
	"EXT-CANCEL-005": "A freedom (MAY): the cancel specs poll until a terminal status.",
	"EXT-CANCEL-006": "A freedom (MAY): a task whose cancel raced its completion may end completed or failed; the race spec accepts any terminal status and judges that it is kept under EXT-LIFE-009.",
	"EXT-CANCEL-007": "Informative: cancellation is cooperative; the cancel-race spec (under EXT-LIFE-009) accepts any terminal status.",
	"EXT-CANCEL-011": "Informative. Not yet written (answers sent after cancelling a parked input task do not revive it).",

	// Notifications.
	"EXT-NOTIFY-001": "A freedom (MAY). The notifications that do arrive are judged by EXT-WIRE-022 and EXT-NOTIFY-009/010/013.",
	"EXT-NOTIFY-002": "Informative and about the client; the acknowledgement a listen gets is judged by EXT-NOTIFY-009.",
	"EXT-NOTIFY-003": "Informative. Not yet written (the acknowledged taskIds a subset of the requested ones).",
	"EXT-NOTIFY-005": "Informative. The payload of a notification for its status is judged by EXT-WIRE-022.",
	"EXT-NOTIFY-012": "SHOULD, observable only when the server ends a listen stream on its own, which no spec provokes.",
	"EXT-NOTIFY-014": "Informative, derived (EXT-DISC-20). Not yet written.",
	"EXT-NOTIFY-016": "Informative. Not yet written (a task still completes after its listen stream is closed).",

	// Retention.
	"EXT-TTL-001": "Informative. The type of ttlMs is judged by EXT-WIRE-005.",
	"EXT-TTL-002": "A freedom (MAY): discarding an expired task is allowed.",
	"EXT-TTL-003": "A freedom (MAY): a changing ttlMs is allowed; each value is judged by EXT-WIRE-005.",
	"EXT-TTL-005": "A freedom (MAY), in conflict with terminal finality (EXT-DISC-07).",
	"EXT-TTL-006": "Informative and permissive: -32602 for a purged expired task is allowed.",
	"EXT-TTL-008": "Informative. The type of pollIntervalMs is judged by EXT-WIRE-006.",
	"EXT-TTL-009": "Informative. A legacy task.ttl having no say is judged by EXT-COMPAT-007.",

	// Errors.
	"EXT-ERR-003": "Needs a fault-injection hook a server need not offer: without one, no internal failure can be caused from outside, and guessing one would be a heuristic.",
	"EXT-ERR-005": "SHOULD. The quality of a message cannot be judged without a heuristic.",
	"EXT-ERR-006": "Informative. The failed status of a task whose work raised a JSON-RPC error is judged by EXT-GET-010.",
	"EXT-ERR-014": "SHOULD. Not judged: the rule concerns errors the server invents for its own reasons (quotas, throttling); the suite only provokes errors whose codes the specification fixes, so no such error is seen, and calling an unexpected code implementation-specific would be a guess. The reserved ranges themselves are judged by EXT-ERR-012 and EXT-ERR-013.",

	// Security.
	"EXT-SEC-004": "Informative. tasks/list being gone is judged by EXT-COMPAT-006.",
	"EXT-SEC-008": "Guarded by EXT-SEC-007, the same observation: the elicitations a task asks are shown to and taken from the identity that created it only.",
	"EXT-SEC-009": "Guarded by EXT-SEC-003: its two identities send the very same clientInfo, so a server trusting clientInfo over the credentials serves identity B there. The converse (one credential, another clientInfo) is EXT-BASE-014's SHOULD NOT.",
	"EXT-SEC-010": "Informative advice for servers without authentication; nothing can fail.",
	"EXT-SEC-011": "SHOULD. Not judged: following the MCP authorization specification means its whole flow (protected resource metadata, 401 with WWW-Authenticate, token audience), which this suite does not certify; it sends the identities as opaque configured headers and judges only task isolation between them (EXT-SEC-002, EXT-SEC-003).",

	// MRTR before a task.
	"EXT-MRTR-005": "Not observable: a server may accept an altered requestState because it takes no authority from it, so accepting one proves no breach; the reference server's integrity checks are unit tests in tasks/protocol.",
	"EXT-MRTR-006": "SHOULD; like EXT-MRTR-005 a replayed or foreign requestState that is accepted proves nothing from outside unless it grants something; unit tests in tasks/protocol cover the reference server.",
	"EXT-MRTR-010": "Informative; needs the mrtr_then_task fixture. Not yet written.",
	"EXT-MRTR-011": "Informative. Not yet written (no requestState in any tasks/get reply).",

	// Progress and logging.
	"EXT-PROG-001": "Informative. Its binding parts are EXT-PROG-002 and EXT-NOTIFY-007.",
	"EXT-PROG-002": "Guarded by EXT-PROG-006 (progress on a later tasks/get stream belongs to no request there) and EXT-NOTIFY-007 (none on listen streams); the tools/call stream itself ends with the CreateTaskResult.",
	"EXT-PROG-003": "A freedom (MAY): progress on a synchronous call's stream is allowed. A server that uses it (the reference server does) has what it sends judged by EXT-PROG-004, EXT-PROG-006 and EXT-WIRE-042.",

	// Transport.
	"EXT-XPORT-005": "Informative. Every spec sends matching routing headers, so a reply they changed fails the spec of that reply.",
	"EXT-XPORT-022": "Informative, about stdio: nothing to observe on the wire.",
	"EXT-XPORT-027": "Informative: left open by the core (EXT-DISC-19), so either answer is accepted.",
	"EXT-XPORT-028": "Informative. Every tools/call of the specs carries matching headers, and its result is judged as usual.",

	// Base protocol.

	// Backward compatibility.
	"EXT-COMPAT-002": "Informative. A dual-era server is certified by running both profiles against one endpoint (--protocol auto).",
	"EXT-COMPAT-004": "SHOULD in conflict with EXT-ERR-004 (EXT-DISC-05); the catalog asks only for a record.",
	"EXT-COMPAT-008": "Guarded by EXT-CAP-004, which checks the declaration a server must make now; what it used to advertise is not observable.",
	"EXT-COMPAT-010": "Informative; the catalog asks for a warning only. Not yet written.",
	"EXT-COMPAT-011": "Informative. Not yet written (no related-task key in task replies).",
	"EXT-COMPAT-012": "Informative. Not yet written (no notifications/tasks/status on modern streams).",

	// Wire shapes.
	"EXT-WIRE-008": "Informative. Not yet written (no legacy ttl or pollInterval members in a task).",
}
