package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/mcptasks/mcptasks/internal/jsonvalid"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// envelope is the JSON-RPC 2.0 framing of one message; params, result and
// error payloads stay raw until a method handler decodes them.
type envelope struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// plainEnvelope reads a message whose members are only jsonrpc, id,
// method, params, result and error, each at most once, none null, with
// jsonrpc and method strings without escapes, without the reflection of
// encoding/json. ok is false for anything else, which then takes the
// general decoder; for what it accepts the envelope equals the general
// decoder's (TestPlainEnvelopeAgreesWithTheDecoder). data must be valid
// UTF-8.
func plainEnvelope(data []byte) (m envelope, ok bool) {
	if !jsonvalid.Valid(data) {
		return envelope{}, false
	}
	var seen [6]bool
	// The raw members are views of data until the scan ends; then they
	// share one copy, since data is the pooled request buffer.
	var raws [4][]byte // id, params, result, error
	raw := func(i int, v []byte) bool {
		if seen[i] || string(v) == "null" {
			return false
		}
		seen[i] = true
		raws[i-2] = v
		return true
	}
	str := func(i int, dst *string, v []byte) bool {
		if seen[i] {
			return false
		}
		s, ok := knownString(v)
		if !ok {
			s, ok = protocol.PlainString(v)
		}
		if !ok {
			return false
		}
		seen[i] = true
		*dst = s
		return true
	}
	ok = protocol.ScanMembers(data, func(key, v []byte) bool {
		switch string(key) {
		case "jsonrpc":
			return str(0, &m.JSONRPC, v)
		case "method":
			return str(1, &m.Method, v)
		case "id":
			return raw(2, v)
		case "params":
			return raw(3, v)
		case "result":
			return raw(4, v)
		case "error":
			return raw(5, v)
		}
		return false
	})
	if !ok {
		return envelope{}, false
	}
	n := 0
	for _, r := range raws {
		n += len(r)
	}
	if n > 0 {
		buf := make([]byte, 0, n)
		dst := [4]*json.RawMessage{&m.ID, &m.Params, &m.Result, &m.Error}
		for i, r := range raws {
			if r != nil {
				at := len(buf)
				buf = append(buf, r...)
				*dst[i] = buf[at:len(buf):len(buf)]
			}
		}
	}
	return m, true
}

// knownStrings are the method names and the jsonrpc version a plain
// envelope carries most often, kept so that reading them allocates
// nothing.
var knownStrings = func() map[string]string {
	m := map[string]string{}
	for _, s := range []string{
		"2.0",
		wire.MethodInitialize, wire.MethodPing, wire.MethodToolsList, wire.MethodToolsCall,
		wire.MethodTasksGet, wire.MethodTasksResult, wire.MethodTasksList, wire.MethodTasksCancel,
		wire.NotificationInitialized, wire.NotificationCancelled, wire.NotificationProgress,
	} {
		m[s] = s
	}
	return m
}()

// knownString returns the content of the JSON string v when it is one of
// knownStrings (written without escapes).
func knownString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	s, ok := knownStrings[string(v[1:len(v)-1])]
	return s, ok
}

// kind is the JSON-RPC shape of a decoded message.
type kind int

const (
	kindRequest kind = iota + 1
	kindNotification
	kindResponse
)

// decodeError is a message that could not be accepted, with the JSON-RPC
// error to answer it with. id is the request id when it could be read.
type decodeError struct {
	id  json.RawMessage
	err *tasks.RPCError
}

func (e *decodeError) Error() string { return e.err.Message }

// decode parses one JSON-RPC message and classifies it.
func decode(data []byte) (*envelope, kind, error) {
	m, k, err := decodeValue(data)
	if err != nil {
		return nil, 0, err
	}
	return &m, k, nil
}

// decodeValue is decode returning the envelope itself, which a caller
// can keep on its stack.
func decodeValue(data []byte) (envelope, kind, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return envelope{}, 0, &decodeError{err: rpcErr(wire.CodeInvalidRequest, "empty message: expected one JSON-RPC 2.0 object")}
	}
	// JSON text is UTF-8 (RFC 8259 § 8.1). Go's decoder would quietly
	// replace bad bytes in strings, but an id echoed from the raw input
	// would carry them into the reply; so such a message is refused as a
	// whole, before anything in it is used.
	if !utf8.Valid(data) {
		return envelope{}, 0, &decodeError{err: rpcErr(wire.CodeParseError, "parse error: the message is not valid UTF-8")}
	}
	if data[0] != '{' {
		switch {
		case !json.Valid(data):
			return envelope{}, 0, &decodeError{err: rpcErr(wire.CodeParseError, "parse error: the message is not valid JSON")}
		case data[0] == '[':
			return envelope{}, 0, &decodeError{err: rpcErr(wire.CodeInvalidRequest, "batches are not supported: send one JSON-RPC object per message")}
		}
		return envelope{}, 0, &decodeError{err: rpcErr(wire.CodeInvalidRequest, "invalid request: a JSON-RPC message must be a JSON object")}
	}
	m, plain := plainEnvelope(data)
	var err error
	if !plain {
		// Into a variable of its own, which decoding moves to the heap.
		var u envelope
		err = json.Unmarshal(data, &u)
		m = u
	}
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) || !json.Valid(data) {
			return envelope{}, 0, &decodeError{err: rpcErr(wire.CodeParseError, "parse error: the message is not valid JSON")}
		}
		return envelope{}, 0, &decodeError{err: rpcErr(wire.CodeInvalidRequest, "invalid request: "+protocol.FieldError(err))}
	}
	bad := func(why string) (envelope, kind, error) {
		id := m.ID
		if validID(id) != nil {
			id = nil
		}
		return envelope{}, 0, &decodeError{id: id, err: rpcErr(wire.CodeInvalidRequest, "invalid request: "+why)}
	}
	if m.JSONRPC != "2.0" {
		return bad(`"jsonrpc" must be "2.0"`)
	}
	if m.Method != "" {
		if m.Result != nil || m.Error != nil {
			return bad("a message with a method cannot carry result or error")
		}
		if m.Params != nil && !protocol.IsObject(m.Params) {
			return bad(`"params" must be an object`)
		}
		if m.ID == nil {
			return m, kindNotification, nil
		}
		if err := validID(m.ID); err != nil {
			return bad(err.Error())
		}
		return m, kindRequest, nil
	}
	if m.ID == nil || (m.Result == nil) == (m.Error == nil) {
		return bad(`expected a request (with "method") or a response (with "id" and exactly one of "result" or "error")`)
	}
	if err := validID(m.ID); err != nil {
		return bad(err.Error())
	}
	return m, kindResponse, nil
}

// validID accepts a string or an integer.
func validID(id json.RawMessage) error {
	if len(id) == 0 {
		return errors.New(`"id" is missing`)
	}
	switch id[0] {
	case '"':
		var s string
		if json.Unmarshal(id, &s) == nil {
			return nil
		}
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if _, err := strconv.ParseInt(string(id), 10, 64); err == nil {
			return nil
		}
		return errors.New(`"id" must be a string or an integer`)
	}
	return errors.New(`"id" must be a string or an integer, not ` + protocol.JSONType(id))
}

func rpcErr(code int, msg string) *tasks.RPCError {
	return &tasks.RPCError{Code: int64(code), Message: msg}
}

// appendResponse encodes a success response.
func appendResponse(buf []byte, id, result json.RawMessage) []byte {
	buf = appendResponseStart(buf, id)
	buf = append(buf, result...)
	return append(buf, '}')
}

// appendResponseStart encodes a success response up to its result, which
// goes next, followed by a closing brace.
func appendResponseStart(buf []byte, id json.RawMessage) []byte {
	buf = append(buf, `{"jsonrpc":"2.0","id":`...)
	buf = appendID(buf, id)
	return append(buf, `,"result":`...)
}

// appendError encodes an error response. Without an id (the request's
// could not be read) the member is left out: neither schema allows a null
// id, and both make it optional on errors.
func appendError(buf []byte, id json.RawMessage, e *tasks.RPCError) []byte {
	if len(id) == 0 || string(id) == "null" {
		buf = append(buf, `{"jsonrpc":"2.0"`...)
	} else {
		buf = append(buf, `{"jsonrpc":"2.0","id":`...)
		buf = appendID(buf, id)
	}
	buf = append(buf, `,"error":`...)
	b, err := json.Marshal(e)
	if err != nil {
		b, _ = json.Marshal(rpcErr(wire.CodeInternalError, "unencodable error"))
	}
	buf = append(buf, b...)
	return append(buf, '}')
}

// appendID encodes a request id. Ids come from decode, which accepts only
// valid UTF-8; an id that is not is re-encoded anyway (bad bytes become
// U+FFFD) so no reply ever carries invalid UTF-8.
func appendID(buf []byte, id json.RawMessage) []byte {
	if len(id) == 0 {
		return append(buf, "null"...)
	}
	if !utf8.Valid(id) {
		var s string
		if json.Unmarshal(id, &s) != nil {
			return append(buf, "null"...)
		}
		b, _ := json.Marshal(s)
		return append(buf, b...)
	}
	return append(buf, id...)
}
