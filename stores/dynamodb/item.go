package dynamodb

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/storekit"
)

type av = types.AttributeValue

func str(s string) av { return &types.AttributeValueMemberS{Value: s} }

func num(n int64) av { return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)} }

func taskKey(id string) map[string]av { return map[string]av{AttrPK: str("task#" + id)} }

func ownerKey(owner tasks.Owner) map[string]av {
	return map[string]av{AttrPK: str("owner#" + string(owner))}
}

// createdKey renders (ms, id) so that string order is list order: the
// millisecond time with its sign bit flipped, as 16 hex digits, keeps
// negative times sorted too.
func createdKey(t time.Time, id string) string {
	return fmt.Sprintf("%016x#%s", uint64(t.UnixMilli())^(1<<63), id)
}

// dueShard picks the partition of the due-task indexes for a task id.
func dueShard(id string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(id))
	return strconv.Itoa(int(h.Sum32() % DueShards))
}

// expiresEpoch is the TTL attribute value: the expiry rounded up to the
// second, so native deletion never precedes the logical expiry.
func expiresEpoch(t time.Time) int64 {
	ms := t.UnixMilli()
	return (ms + 999) / 1000
}

// encode renders a new task as an item.
func encode(r tasks.Record) (map[string]av, error) {
	it := map[string]av{
		AttrPK:         str("task#" + r.ID),
		attrID:         str(r.ID),
		AttrOwner:      str(string(r.Owner)),
		AttrCreatedKey: str(createdKey(r.CreatedAt, r.ID)),
		attrStatus:     str(string(r.Status)),
		attrCreatedMS:  num(r.CreatedAt.UnixMilli()),
		attrUpdatedMS:  num(r.LastUpdatedAt.UnixMilli()),
		attrPollMS:     num(r.PollInterval.Milliseconds()),
		attrVersion:    num(r.Version),
	}
	if r.Method != "" {
		it[attrMethod] = str(r.Method)
	}
	if r.StatusMessage != "" {
		it[attrMessage] = str(r.StatusMessage)
	}
	it[attrExpiresMS] = num(noExpiry)
	if r.TTL != nil {
		it[attrTTLMS] = num(r.TTL.Milliseconds())
		it[attrExpiresMS] = num(r.ExpiresAt.UnixMilli())
		it[AttrExpiresAt] = num(expiresEpoch(r.ExpiresAt))
		it[AttrExpiryShard] = str(dueShard(r.ID))
	}
	if len(r.Variables) > 0 {
		it[attrVariables] = str(string(storekit.EncodeVariables(r.Variables)))
	}
	return it, nil
}

// decode reads a task item. withOutcome fills Record.Outcome when the item
// has one.
func decode(it map[string]av, withOutcome bool) (tasks.Record, error) {
	var r tasks.Record
	var err error
	getS := func(name string) string {
		if v, ok := it[name].(*types.AttributeValueMemberS); ok {
			return v.Value
		}
		return ""
	}
	getN := func(name string) (int64, bool) {
		v, ok := it[name].(*types.AttributeValueMemberN)
		if !ok {
			return 0, false
		}
		n, perr := strconv.ParseInt(v.Value, 10, 64)
		if perr != nil && err == nil {
			err = fmt.Errorf("dynamodb: attribute %s = %q: %w", name, v.Value, perr)
		}
		return n, true
	}
	r.ID = getS(attrID)
	r.Owner = tasks.Owner(getS(AttrOwner))
	r.Method = getS(attrMethod)
	r.Status = tasks.Status(getS(attrStatus))
	r.StatusMessage = getS(attrMessage)
	created, _ := getN(attrCreatedMS)
	r.CreatedAt = time.UnixMilli(created).UTC()
	updated, _ := getN(attrUpdatedMS)
	r.LastUpdatedAt = time.UnixMilli(updated).UTC()
	if ttl, ok := getN(attrTTLMS); ok {
		d := time.Duration(ttl) * time.Millisecond
		r.TTL = &d
	}
	if exp, ok := getN(attrExpiresMS); ok && r.TTL != nil {
		r.ExpiresAt = time.UnixMilli(exp).UTC()
	}
	poll, _ := getN(attrPollMS)
	r.PollInterval = time.Duration(poll) * time.Millisecond
	r.Version, _ = getN(attrVersion)
	if err != nil {
		return tasks.Record{}, err
	}
	if r.ID == "" || !r.Status.Valid() {
		return tasks.Record{}, fmt.Errorf("dynamodb: item %s is not a task", getS(AttrPK))
	}
	if v := getS(attrVariables); v != "" {
		vars, err := storekit.DecodeVariables([]byte(v))
		if err != nil {
			return tasks.Record{}, fmt.Errorf("dynamodb: variables of task %s: %w", r.ID, err)
		}
		r.Variables = vars
	}
	if withOutcome && r.Status.Terminal() {
		var out tasks.Outcome
		if res := getS(attrResult); res != "" {
			out.Result = json.RawMessage(res)
		} else {
			code, _ := getN(attrErrCode)
			out.Error = &tasks.RPCError{Code: code, Message: getS(attrErrMessage)}
			if d := getS(attrErrData); d != "" {
				out.Error.Data = json.RawMessage(d)
			}
		}
		r.Outcome = &out
	}
	return r, err
}

// outcomeValues renders an outcome as the attributes that store it, byte
// for byte: the result JSON, or the error's code, message and data.
func outcomeValues(o tasks.Outcome) map[string]av {
	if len(o.Result) > 0 {
		return map[string]av{attrResult: str(string(o.Result))}
	}
	m := map[string]av{attrErrCode: num(o.Error.Code)}
	if o.Error.Message != "" {
		m[attrErrMessage] = str(o.Error.Message)
	}
	if len(o.Error.Data) > 0 {
		m[attrErrData] = str(string(o.Error.Data))
	}
	return m
}
