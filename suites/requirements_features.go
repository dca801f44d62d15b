package suites

import "maps"

// Shorthands for the server feature table.
var (
	core       = []Feature{FeatureCore}
	listAndCan = []Feature{FeatureList, FeatureCancel}
)

func needs(fs ...Feature) Needs { return Needs{Needs: fs} }

// serverFeatures says, for every requirement the server specs test, which
// features those specs depend on. A requirement missing here depends on
// none: its specs always run. The gate in ServerEnv.It skips a spec
// before its body runs when a needed feature is off, and a body that uses
// a feature its requirement does not name is a harness error, so this
// table, the labels and the outcomes agree.
var serverFeatures = map[string]Needs{
	// Handshake: task tools are what CAP-001 and TOOLDEF-001 judge the
	// declarations against.
	"TASKS-CAP-001":     needs(FeatureCore),
	"TASKS-TOOLDEF-001": needs(FeatureCore),

	// Tools.
	"TASKS-TOOLNEG-006": needs(FeatureCore),
	"TASKS-TOOLNEG-003": needs(FeatureCore),
	"TASKS-TOOLNEG-004": needs(FeatureCore),
	"TASKS-TOOLDEF-006": needs(FeatureCore),
	"TASKS-TOOLDEF-007": needs(FeatureCore),

	// Creation.
	"TASKS-RESULT-001":      needs(FeatureCore),
	"TASKS-WIRE-CREATE-001": needs(FeatureCore),
	"TASKS-RESULT-002":      needs(FeatureCore),
	"TASKS-LIFE-001":        needs(FeatureCore),
	"TASKS-CREATE-001":      needs(FeatureCore),
	"TASKS-TTL-001":         {Needs: core, Uses: listAndCan},
	"TASKS-ID-001":          needs(FeatureCore),
	"TASKS-ID-002":          needs(FeatureCore),
	"TASKS-ID-003":          needs(FeatureCore),

	// Polling.
	"TASKS-WIRE-GET-001": needs(FeatureCore),
	"TASKS-TTL-002":      needs(FeatureCore),
	"TASKS-TTL-004":      needs(FeatureCore),
	"TASKS-TTL-006":      needs(FeatureCore),
	"TASKS-LIFE-002":     needs(FeatureCore),
	"TASKS-LIFE-005":     {Needs: core, Uses: []Feature{FeatureCancel}},
	"TASKS-META-003":     needs(FeatureCore),
	"TASKS-META-005":     needs(FeatureCore),
	"TASKS-META-006":     {Needs: core, Uses: listAndCan},
	"TASKS-INPUT-002":    needs(FeatureCore, FeatureHTTP),

	// Results.
	"TASKS-RESULT-003":          {Needs: core, Uses: []Feature{FeatureCancel}},
	"TASKS-RESULT-004":          needs(FeatureCore),
	"TASKS-RESULT-005":          needs(FeatureCore),
	"TASKS-META-007":            needs(FeatureCore),
	"TASKS-ERR-006":             needs(FeatureCore),
	"TASKS-ERR-007":             needs(FeatureCore),
	"TASKS-ERR-008":             needs(FeatureCore),
	"TASKS-WIRE-CALLRESULT-001": needs(FeatureCore),

	// Listing.
	"TASKS-LIST-001":         needs(FeatureCore, FeatureList),
	"TASKS-LIST-002":         needs(FeatureCore, FeatureList),
	"TASKS-LIST-004":         needs(FeatureCore, FeatureList),
	"TASKS-ERR-002":          needs(FeatureCore, FeatureList),
	"TASKS-PAGE-003":         needs(FeatureCore, FeatureList),
	"TASKS-WIRE-LIST-001":    needs(FeatureCore, FeatureList),
	"TASKS-WIRE-LISTREQ-001": needs(FeatureCore, FeatureList),

	// Cancellation.
	"TASKS-CANCEL-001":      needs(FeatureCore, FeatureCancel),
	"TASKS-CANCEL-003":      needs(FeatureCore, FeatureCancel),
	"TASKS-CANCEL-004":      needs(FeatureCore, FeatureCancel),
	"TASKS-WIRE-CANCEL-001": needs(FeatureCore, FeatureCancel),
	"TASKS-NCANCEL-008":     needs(FeatureCore, FeatureCancel),
	"TASKS-NCANCEL-006":     needs(FeatureCore),

	// Errors: tasks/cancel is asked too when it is offered.
	"TASKS-ERR-001":     {Needs: core, Uses: []Feature{FeatureCancel}},
	"TASKS-ERR-005":     {Needs: core, Uses: []Feature{FeatureCancel}},
	"TASKS-JSONRPC-005": needs(FeatureCore),

	// TTL.
	"TASKS-TTL-003":   needs(FeatureCore),
	"TASKS-RSRC-002":  needs(FeatureCore),
	"TASKS-RSRC-003":  needs(FeatureCore),
	"MCPT-TTLREQ-001": needs(FeatureCore),

	// Status notifications.
	"TASKS-NOTIF-001":      needs(FeatureCore, FeatureNotifications),
	"TASKS-NOTIF-005":      needs(FeatureCore, FeatureNotifications),
	"TASKS-WIRE-NOTIF-002": needs(FeatureCore, FeatureNotifications),

	// Progress.
	"TASKS-PROG-003":          needs(FeatureCore, FeatureProgress),
	"TASKS-PROG-004":          needs(FeatureCore, FeatureProgress),
	"TASKS-PROG-005":          needs(FeatureCore, FeatureProgress),
	"TASKS-PROG-006":          needs(FeatureCore, FeatureProgress),
	"TASKS-PROG-007":          needs(FeatureCore, FeatureProgress),
	"TASKS-META-001":          needs(FeatureCore, FeatureProgress),
	"TASKS-WIRE-PROGRESS-001": needs(FeatureCore, FeatureProgress),

	// Input required.
	"TASKS-INPUT-003":   needs(FeatureCore, FeatureInput),
	"TASKS-INPUT-004":   needs(FeatureCore, FeatureInput),
	"TASKS-INPUT-006":   needs(FeatureCore, FeatureInput),
	"TASKS-LIFE-004":    needs(FeatureCore, FeatureInput),
	"TASKS-META-002":    needs(FeatureCore, FeatureInput),
	"TASKS-ELICIT-002":  needs(FeatureCore, FeatureInput),
	"TASKS-ELICIT-003":  needs(FeatureCore, FeatureInput),
	"TASKS-ELICIT-009":  needs(FeatureCore, FeatureInput),
	"TASKS-JSONRPC-002": needs(FeatureCore, FeatureInput),
	"TASKS-JSONRPC-003": needs(FeatureCore, FeatureInput),
	"TASKS-INIT-013":    needs(FeatureCore, FeatureInput),
	"TASKS-XPORT-027":   needs(FeatureCore, FeatureInput, FeatureHTTP),

	// Isolation: with authorization, between authorization contexts;
	// without it, between sessions.
	"TASKS-SEC-001":    needs(FeatureCore, FeatureAuthorization),
	"TASKS-SEC-006":    {Needs: []Feature{FeatureCore, FeatureAuthorization}, Uses: []Feature{FeatureCancel}},
	"TASKS-SEC-007":    needs(FeatureCore, FeatureAuthorization, FeatureList),
	"TASKS-SEC-005":    {Needs: []Feature{FeatureCore, FeatureList}, Without: []Feature{FeatureAuthorization}},
	"MCPT-SESSION-001": {Needs: core, Without: []Feature{FeatureAuthorization}},

	// Several instances.
	"MCPT-MULTI-001": needs(FeatureCore, FeatureMultiInstance),
	"MCPT-MULTI-002": needs(FeatureCore, FeatureMultiInstance, FeatureList),
	"MCPT-MULTI-003": needs(FeatureCore, FeatureMultiInstance, FeatureCancel),
	"MCPT-MULTI-004": needs(FeatureCore, FeatureMultiInstance),

	// Session hygiene.
	"TASKS-NCANCEL-009": needs(FeatureCore),

	// Wire: the full task flow lists and cancels when it can.
	"TASKS-JSONRPC-001":     {Needs: core, Uses: listAndCan},
	"TASKS-JSONRPC-004":     {Needs: core, Uses: listAndCan},
	"TASKS-JSONRPC-006":     {Needs: core, Uses: listAndCan},
	"TASKS-JSONRPC-007":     {Needs: core, Uses: listAndCan},
	"TASKS-WIRE-TASK-001":   {Needs: core, Uses: listAndCan},
	"TASKS-WIRE-STATUS-001": {Needs: core, Uses: listAndCan},
	"TASKS-XPORT-001":       {Needs: core, Uses: listAndCan},
	"TASKS-XPORT-010":       {Needs: []Feature{FeatureCore, FeatureHTTP}, Uses: listAndCan},
	"TASKS-XPORT-028":       {Needs: []Feature{FeatureCore, FeatureHTTP}, Uses: listAndCan},

	// Rules of the Streamable HTTP transport itself.
	"TASKS-XPORT-004": needs(FeatureHTTP),
	"TASKS-XPORT-008": needs(FeatureHTTP),
	"TASKS-XPORT-009": needs(FeatureHTTP),
	"TASKS-XPORT-021": needs(FeatureCore, FeatureHTTP),
	"TASKS-XPORT-023": needs(FeatureHTTP),
	"TASKS-XPORT-026": needs(FeatureCore, FeatureHTTP),
	"TASKS-XPORT-034": needs(FeatureHTTP),
	"TASKS-XPORT-035": needs(FeatureHTTP),
	"TASKS-XPORT-038": needs(FeatureHTTP),
	"TASKS-XPORT-040": needs(FeatureHTTP),
	"TASKS-XPORT-046": needs(FeatureHTTP),
	"TASKS-XPORT-047": needs(FeatureHTTP),

	// The 2026-07-28 profile: every EXT- spec needs the ext-tasks
	// feature (added by the gate) and Streamable HTTP.
	"EXT-CREATE-009": {Needs: []Feature{FeatureExtTasks, FeatureHTTP}, Uses: []Feature{FeatureMultiInstance}},
	"EXT-SEC-003":    needs(FeatureExtTasks, FeatureHTTP, FeatureAuthorization),
	"EXT-SEC-007":    needs(FeatureExtTasks, FeatureHTTP, FeatureAuthorization),
	"EXT-COMPAT-001": needs(FeatureExtTasks, FeatureHTTP, FeatureProtocol2025),
	// The stdio specs of the profile start their own child from --command.
	"EXT-BASE-015":  needs(FeatureExtTasks, FeatureStdio),
	"EXT-XPORT-023": needs(FeatureExtTasks, FeatureStdio),
	"EXT-XPORT-024": needs(FeatureExtTasks, FeatureStdio),
}

func init() {
	// The remaining EXT- requirements need the profile and Streamable
	// HTTP only.
	for _, r := range extRequirements {
		if _, ok := serverFeatures[r.ID]; !ok {
			serverFeatures[r.ID] = needs(FeatureExtTasks, FeatureHTTP)
		}
	}
}

// serverFeatureTable is serverFeatures plus what vendors registered with
// RegisterRequirement.
func serverFeatureTable() map[string]Needs {
	if len(vendorFeatures) == 0 {
		return serverFeatures
	}
	all := maps.Clone(serverFeatures)
	maps.Copy(all, vendorFeatures)
	return all
}
