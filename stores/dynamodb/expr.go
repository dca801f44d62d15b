package dynamodb

import (
	"regexp"
	"strings"
)

// Expressions name every attribute through a placeholder "#<attribute>",
// which sidesteps DynamoDB's long list of reserved words (status, owner,
// result, ttl, ...). namesFor collects the placeholders used, because
// DynamoDB rejects unused ones.
var placeholder = regexp.MustCompile(`#[a-z_]+`)

func namesFor(exprs ...string) map[string]string {
	m := make(map[string]string)
	for _, e := range exprs {
		for _, p := range placeholder.FindAllString(e, -1) {
			m[p] = p[1:]
		}
	}
	return m
}

// updateExpr assembles "SET a, b REMOVE c" from its clauses.
func updateExpr(set, remove []string) string {
	var b strings.Builder
	if len(set) > 0 {
		b.WriteString("SET ")
		b.WriteString(strings.Join(set, ", "))
	}
	if len(remove) > 0 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("REMOVE ")
		b.WriteString(strings.Join(remove, ", "))
	}
	return b.String()
}

// projection lists the attributes a read needs; the outcome is left out
// unless asked for, so Get and List do not pay for large results.
func projection(withOutcome bool) string {
	attrs := []string{attrID, AttrOwner, attrStatus, attrMessage, attrMethod, attrCreatedMS, attrUpdatedMS,
		attrTTLMS, attrExpiresMS, attrPollMS, attrVersion, attrVariables, attrPending}
	if withOutcome {
		attrs = append(attrs, attrResult, attrErrCode, attrErrMessage, attrErrData)
	}
	return "#" + strings.Join(attrs, ", #")
}

// Every task item has expires_ms (noExpiry when it never expires), so "not
// expired" is one comparison: dynalite evaluates conditions slowly, and
// transitions run this one on every write.
const (
	// live is what a write requires: the task has not expired at :now. A
	// pending (half-created) task needs no check here: only its creator
	// knows its id until it is revealed.
	live = "#expires_ms > :now"
	// visible is what a read requires: live and not pending.
	visible = live + " AND attribute_not_exists(#pending)"
)

// noExpiry is the expires_ms of tasks without a TTL: 2^53-1 ms, far
// beyond any clock.
const noExpiry int64 = 1<<53 - 1
