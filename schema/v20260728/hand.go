package v20260728

import (
	_ "embed" // the validation schema is embedded below
	"encoding/json"
	"sync"

	"github.com/mcptasks/mcptasks/schema"
)

// Meta is every "_meta" member: an open object kept as raw JSON per key
// (the same type as schema.Meta).
type Meta = schema.Meta

// RequestID is a JSON-RPC request id, a string or an integer (the same type
// as schema.RequestID).
type RequestID = schema.RequestID

// ProgressToken is a progress token, a string or an integer (the same type
// as schema.ProgressToken).
type ProgressToken = schema.ProgressToken

// JSONValue is any JSON value, kept as raw JSON.
type JSONValue = json.RawMessage

// JSONArray is a JSON array of any values, kept as raw JSON.
type JSONArray = json.RawMessage

// JSONObject is a JSON object of any values, kept as raw JSON per member.
type JSONObject = map[string]json.RawMessage

// Keys of the _meta members every 2026-07-28 request carries, and of the
// server's own information in a result's _meta.
const (
	// ProtocolVersionMetaKey holds the protocol revision of the request.
	ProtocolVersionMetaKey = "io.modelcontextprotocol/protocolVersion"
	// ClientCapabilitiesMetaKey holds the client's capabilities for the
	// request (a ClientCapabilities object).
	ClientCapabilitiesMetaKey = "io.modelcontextprotocol/clientCapabilities"
	// ClientInfoMetaKey holds the client's Implementation.
	ClientInfoMetaKey = "io.modelcontextprotocol/clientInfo"
	// ServerInfoMetaKey holds the server's Implementation in a result.
	ServerInfoMetaKey = "io.modelcontextprotocol/serverInfo"
)

// Error codes the 2026-07-28 core defines.
const (
	// CodeHeaderMismatch: an HTTP header disagrees with the body.
	CodeHeaderMismatch = -32020
	// CodeMissingRequiredClientCapability: handling the request needs a
	// client capability the request did not declare.
	CodeMissingRequiredClientCapability = -32021
	// CodeUnsupportedProtocolVersion: the request names a revision the
	// server does not implement.
	CodeUnsupportedProtocolVersion = -32022
)

//go:embed validation_gen.json
var validationJSON []byte

// validationURL is the identity the embedded schema is registered under;
// nothing is fetched from it.
const validationURL = "https://modelcontextprotocol.io/schema/2026-07-28/schema.json"

var defaultValidator = sync.OnceValue(func() *schema.Validator {
	return schema.NewValidatorFor(validationJSON, validationURL)
})

// NewValidator returns a Validator over the embedded 2026-07-28 schema.
func NewValidator(opts ...schema.Option) *schema.Validator {
	return schema.NewValidatorFor(validationJSON, validationURL, opts...)
}

// Validate checks raw against a $def (or SchemaDef path) of the 2026-07-28
// core schema using a shared Validator.
func Validate(def string, raw []byte) error { return defaultValidator().Validate(def, raw) }
