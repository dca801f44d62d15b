package gosdk

import (
	"bytes"
	"encoding/json"
)

// taskMetaKey is the private _meta key that carries a tools/call's
// params.task through the SDK, which decodes tools/call params into a
// struct without that member. The HTTP handler and the transport wrapper
// move params.task there before the SDK reads the message; the tools/call
// middleware takes it out again. Its value is {"task": <raw task>}.
const taskMetaKey = "dev.mcptasks/carried-task"

// carriedTask is the value stored under taskMetaKey.
type carriedTask struct {
	Task json.RawMessage `json:"task"`
}

// carryTask rewrites one JSON-RPC message (or a batch of them) so that a
// tools/call request's params.task travels inside params._meta under
// taskMetaKey. A taskMetaKey the client put there itself is removed, so
// only a real params.task makes a call a task. Anything that is not a
// tools/call request, or that does not parse, is returned unchanged (the
// SDK then answers it as it would have).
func carryTask(body []byte) []byte {
	if !bytes.Contains(body, []byte(`"task"`)) && !bytes.Contains(body, []byte(taskMetaKey)) {
		return body
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(trimmed, &batch) != nil {
			return body
		}
		changed := false
		for i, m := range batch {
			if out, ok := carryInMessage(m); ok {
				batch[i], changed = out, true
			}
		}
		if !changed {
			return body
		}
		out, err := json.Marshal(batch)
		if err != nil {
			return body
		}
		return out
	}
	if out, ok := carryInMessage(body); ok {
		return out
	}
	return body
}

// carryInMessage rewrites one message; ok is false when nothing changed.
func carryInMessage(msg []byte) ([]byte, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(msg, &fields) != nil {
		return nil, false
	}
	var method string
	if json.Unmarshal(fields["method"], &method) != nil || method != "tools/call" {
		return nil, false
	}
	params, ok := carryInParams(fields["params"])
	if !ok {
		return nil, false
	}
	fields["params"] = params
	out, err := json.Marshal(fields)
	if err != nil {
		return nil, false
	}
	return out, true
}

// carryInParams moves params.task into params._meta[taskMetaKey]; ok is
// false when params needed no change or is not an object.
func carryInParams(raw json.RawMessage) (json.RawMessage, bool) {
	var params map[string]json.RawMessage
	if json.Unmarshal(raw, &params) != nil || params == nil {
		return nil, false
	}
	task, hasTask := params["task"]
	var meta map[string]json.RawMessage
	if m, ok := params["_meta"]; ok && string(m) != "null" {
		if json.Unmarshal(m, &meta) != nil {
			// A malformed _meta is the SDK's to refuse; keep the task out of
			// it but still drop params.task so nothing is silently plain.
			if !hasTask {
				return nil, false
			}
		}
	}
	_, forged := meta[taskMetaKey]
	if !hasTask && !forged {
		return nil, false
	}
	delete(params, "task")
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	delete(meta, taskMetaKey)
	if hasTask {
		v, err := json.Marshal(carriedTask{Task: task})
		if err != nil {
			return nil, false
		}
		meta[taskMetaKey] = v
	}
	if len(meta) > 0 {
		mb, err := json.Marshal(meta)
		if err != nil {
			return nil, false
		}
		params["_meta"] = mb
	} else {
		delete(params, "_meta")
	}
	out, err := json.Marshal(params)
	if err != nil {
		return nil, false
	}
	return out, true
}

// takeCarriedTask removes taskMetaKey from a decoded _meta and returns the
// raw params.task it carried; ok is false for a plain call.
func takeCarriedTask(meta map[string]any) (json.RawMessage, bool) {
	v, ok := meta[taskMetaKey]
	if !ok {
		return nil, false
	}
	delete(meta, taskMetaKey)
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	var c carriedTask
	if json.Unmarshal(b, &c) != nil || c.Task == nil {
		return nil, false
	}
	return c.Task, true
}
