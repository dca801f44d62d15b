package schema

import (
	"bytes"
	_ "embed" // the validation schema is embedded below
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// validationJSON is schema.json with its prose removed (generated).
//
//go:embed validation_gen.json
var validationJSON []byte

// validationURL is the fixed identity under which the embedded schema is
// registered with the compiler; the schema itself has no $id, and nothing is
// ever fetched from this address.
const validationURL = "https://modelcontextprotocol.io/schema/2025-11-25/schema.json"

// ErrUnknownDef is returned (wrapped) when Validate is asked for a $def that
// the schema does not have.
var ErrUnknownDef = errors.New("schema: unknown $def")

// ErrInvalidJSON is returned (wrapped) when the bytes to validate are not one
// JSON value.
var ErrInvalidJSON = errors.New("schema: not valid JSON")

var printer = message.NewPrinter(language.English)

// ValidationError says why raw JSON does not match a $def.
type ValidationError struct {
	// Def is the $def (or inline path below #/$defs/) that was checked.
	Def string
	// Pointer is the JSON pointer, inside the instance, of the first
	// failure; "" is the whole instance.
	Pointer string
	// Reason is the first failure in words.
	Reason string
	// Err is the full result from the validator, with every cause.
	Err *jsonschema.ValidationError
}

// Error names the $def, the location and the reason, then lists every cause.
func (e *ValidationError) Error() string {
	return fmt.Sprintf("schema: not a valid %s: at %q: %s\n%s", e.Def, e.Pointer, e.Reason, e.Err.LocalizedError(printer))
}

// Unwrap returns the underlying jsonschema error.
func (e *ValidationError) Unwrap() error { return e.Err }

// DetailedOutput returns the machine-readable hierarchical output (JSON
// Schema "detailed" format) for reports.
func (e *ValidationError) DetailedOutput() *jsonschema.OutputUnit {
	return e.Err.LocalizedDetailedOutput(printer)
}

// Option configures a Validator.
type Option func(*validatorConfig)

type validatorConfig struct {
	formats bool
}

// WithFormatAssertions makes the Validator check "format" (uri, byte,
// uri-template, …) instead of treating it as an annotation, which is the
// draft 2020-12 default. Use it for hygiene checks, not for MUST-level ones.
func WithFormatAssertions() Option {
	return func(c *validatorConfig) { c.formats = true }
}

// Validator checks raw JSON against $defs of the embedded MCP 2025-11-25
// schema (draft 2020-12). Each $def is compiled once, on first use, under a
// mutex; validation itself runs in parallel. It is safe for concurrent use.
type Validator struct {
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	doc      any
	cache    map[string]*jsonschema.Schema
	url      string
	initErr  error
}

// NewValidator returns a Validator over the embedded schema.
func NewValidator(opts ...Option) *Validator {
	return NewValidatorFor(validationJSON, validationURL, opts...)
}

// NewValidatorFor returns a Validator over another validation schema
// produced by cmd/gen (the 2026-07-28 core, the tasks extension): doc is its
// JSON and url the identity it is registered under (never fetched).
func NewValidatorFor(validationJSON []byte, url string, opts ...Option) *Validator {
	var cfg validatorConfig
	for _, o := range opts {
		o(&cfg)
	}
	v := &Validator{cache: map[string]*jsonschema.Schema{}, url: url}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(validationJSON))
	if err != nil {
		v.initErr = fmt.Errorf("schema: embedded validation schema: %w", err)
		return v
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if cfg.formats {
		c.AssertFormat()
		c.RegisterFormat(&jsonschema.Format{Name: "byte", Validate: validateBase64})
	}
	if err := c.AddResource(url, doc); err != nil {
		v.initErr = fmt.Errorf("schema: embedded validation schema: %w", err)
		return v
	}
	v.compiler, v.doc = c, doc
	return v
}

func validateBase64(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	_, err := base64.StdEncoding.DecodeString(s)
	return err
}

var defaultValidator = sync.OnceValue(func() *Validator { return NewValidator() })

// Validate checks raw against the $def named def using a shared Validator.
// def is a $defs key ("GetTaskResult") or the SchemaDef of an inline type
// ("CancelTaskRequest/properties/params").
func Validate(def string, raw []byte) error {
	return defaultValidator().Validate(def, raw)
}

// ValidateValue marshals v and validates the bytes against v.SchemaDef().
func ValidateValue(v interface{ SchemaDef() string }) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("schema: marshal %s: %w", v.SchemaDef(), err)
	}
	return Validate(v.SchemaDef(), raw)
}

// Defs returns the names of every $def in the schema, sorted.
func (v *Validator) Defs() []string {
	if v.initErr != nil {
		return nil
	}
	defs, _ := v.doc.(map[string]any)["$defs"].(map[string]any)
	out := make([]string, 0, len(defs))
	for k := range defs {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Validate checks raw against def; see the package-level Validate.
func (v *Validator) Validate(def string, raw []byte) error {
	sch, err := v.schema(def)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("%w: checking %s: %v", ErrInvalidJSON, def, err)
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return fmt.Errorf("schema: validate %s: %w", def, err)
	}
	leaf := ve
	for len(leaf.Causes) > 0 {
		leaf = leaf.Causes[0]
	}
	return &ValidationError{
		Def:     def,
		Pointer: pointer(leaf.InstanceLocation),
		Reason:  leaf.ErrorKind.LocalizedString(printer),
		Err:     ve,
	}
}

func (v *Validator) schema(def string) (*jsonschema.Schema, error) {
	if v.initErr != nil {
		return nil, v.initErr
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if sch, ok := v.cache[def]; ok {
		return sch, nil
	}
	if !v.exists(def) {
		return nil, fmt.Errorf("%w %q (want a key of #/$defs, such as \"Task\", or a SchemaDef path)", ErrUnknownDef, def)
	}
	sch, err := v.compiler.Compile(v.url + "#/$defs/" + def)
	if err != nil {
		return nil, fmt.Errorf("schema: compile %s: %w", def, err)
	}
	v.cache[def] = sch
	return sch, nil
}

// exists walks def (a JSON pointer below #/$defs) through the document.
func (v *Validator) exists(def string) bool {
	if def == "" {
		return false
	}
	cur, _ := v.doc.(map[string]any)["$defs"]
	for _, tok := range strings.Split(def, "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return false
			}
			cur = next
		case []any:
			i := 0
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(c) || fmt.Sprint(i) != tok {
				return false
			}
			cur = c[i]
		default:
			return false
		}
	}
	switch cur.(type) {
	case map[string]any, bool:
		return true
	}
	return false
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}
