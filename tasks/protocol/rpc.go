package protocol

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// CodeLimitExceeded is the JSON-RPC error code of a refusal for a limit:
// too many tasks, sessions or waiting requests. See wire.CodeLimitExceeded.
const CodeLimitExceeded = wire.CodeLimitExceeded

func rpcErr(code int, msg string) *tasks.RPCError {
	return &tasks.RPCError{Code: int64(code), Message: msg}
}

// paramError is a -32602 with a message that names the offending field.
type paramError struct{ msg string }

func (e *paramError) Error() string { return "invalid params: " + e.msg }

func badParam(format string, args ...any) error {
	return &paramError{msg: fmt.Sprintf(format, args...)}
}

// toRPCError maps an error from a handler, the engine or a store to the
// JSON-RPC error sent on the wire.
func toRPCError(err error) *tasks.RPCError {
	var rpc *tasks.RPCError
	if errors.As(err, &rpc) {
		return rpc
	}
	var pe *paramError
	if errors.As(err, &pe) {
		return rpcErr(wire.CodeInvalidParams, pe.Error())
	}
	code := RPCCode(err)
	msg := err.Error()
	if code == wire.CodeInternalError && !errors.Is(err, tasks.ErrLimit) {
		msg = "internal error: " + msg
	}
	return rpcErr(code, msg)
}

// WireError maps an error returned by Handle (or by a transport's own
// handling of method) to the JSON-RPC error to answer with. An internal
// error whose cause is not an explicit *tasks.RPCError may carry store
// internals (SQL states, host names): the cause is logged with a random
// reference and the answer only names the reference.
func (c *Core) WireError(method string, err error) *tasks.RPCError {
	rpc := toRPCError(err)
	var explicit *tasks.RPCError
	if rpc.Code == wire.CodeInternalError && !errors.As(err, &explicit) {
		ref := internalRef()
		c.log.Error("request failed", "method", method, "ref", ref, "err", err)
		rpc = rpcErr(wire.CodeInternalError, "internal error (reference "+ref+"): the server could not complete "+strconv.Quote(method)+"; its log has the cause")
	}
	return rpc
}

// internalRef is a short random reference that ties an internal error
// answer to its log line.
func internalRef() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// decodeParams decodes params (absent means {}) into v, naming the field
// in the error.
func decodeParams(params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage(`{}`)
	}
	if err := json.Unmarshal(params, v); err != nil {
		return badParam("%s", FieldError(err))
	}
	return nil
}

// IsObject reports whether a raw JSON value is an object.
func IsObject(b json.RawMessage) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{'
}

// JSONType names the JSON type of a raw value ("an object", "a string",
// …) for error messages a person reads.
func JSONType(b json.RawMessage) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return "nothing"
	}
	switch b[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// FieldError turns an encoding/json decoding error into a message that
// names the field and the expected type, for invalid-params answers.
func FieldError(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field != "" {
			return fmt.Sprintf("%q must be %s, got %s", te.Field, goTypeName(te.Type.Kind().String()), te.Value)
		}
		return fmt.Sprintf("expected %s, got %s", goTypeName(te.Type.Kind().String()), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "malformed JSON: " + se.Error()
	}
	return err.Error()
}

func goTypeName(k string) string {
	switch k {
	case "string":
		return "a string"
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "bool":
		return "a boolean"
	case "struct", "map":
		return "an object"
	case "slice", "array":
		return "an array"
	}
	return "a " + k
}

// EncodeRequest builds a JSON-RPC server-to-client request, or a
// notification when id is empty.
func EncodeRequest(id string, method string, params any) ([]byte, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("encoding %s params: %w", method, err)
	}
	buf := []byte(`{"jsonrpc":"2.0",`)
	if id != "" {
		idb, _ := json.Marshal(id)
		buf = append(buf, `"id":`...)
		buf = append(buf, idb...)
		buf = append(buf, ',')
	}
	mb, _ := json.Marshal(method)
	buf = append(buf, `"method":`...)
	buf = append(buf, mb...)
	buf = append(buf, `,"params":`...)
	buf = append(buf, p...)
	return append(buf, '}'), nil
}

// setMeta returns the JSON object obj with _meta[key] set to val.
func setMeta(obj json.RawMessage, key string, val any) (json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if len(obj) > 0 && string(obj) != "null" {
		if err := json.Unmarshal(obj, &fields); err != nil {
			return nil, fmt.Errorf("not a JSON object: %w", err)
		}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := fields["_meta"]; ok && string(raw) != "null" {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, fmt.Errorf("_meta is not an object: %w", err)
		}
	}
	v, err := json.Marshal(val)
	if err != nil {
		return nil, err
	}
	meta[key] = v
	mb, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	fields["_meta"] = mb
	return json.Marshal(fields)
}
