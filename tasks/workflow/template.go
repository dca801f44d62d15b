package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ref is one parsed reference.
type ref struct {
	raw  string   // as written, without braces
	arg  string   // args.NAME
	step string   // steps.STEP.output...
	path []string // below output
}

func parseRef(s string) (ref, error) {
	r := ref{raw: s}
	parts := strings.Split(strings.TrimSpace(s), ".")
	switch {
	case len(parts) == 2 && parts[0] == "args" && parts[1] != "":
		r.arg = parts[1]
	case len(parts) >= 3 && parts[0] == "steps" && parts[1] != "" && parts[2] == "output":
		r.step = parts[1]
		r.path = parts[3:]
		for _, p := range r.path {
			if p == "" {
				return r, fmt.Errorf("reference {{%s}} has an empty path element", s)
			}
		}
	default:
		return r, fmt.Errorf("reference {{%s}} is neither {{args.NAME}} nor {{steps.STEP.output[.path]}}", s)
	}
	return r, nil
}

// refsIn returns the references in a template string, in order.
func refsIn(s string) ([]ref, error) {
	var out []ref
	for {
		i := strings.Index(s, "{{")
		if i < 0 {
			return out, nil
		}
		j := strings.Index(s[i+2:], "}}")
		if j < 0 {
			return out, nil
		}
		r, err := parseRef(s[i+2 : i+2+j])
		if err != nil {
			return nil, err
		}
		out = append(out, r)
		s = s[i+2+j+2:]
	}
}

// templateRefs returns every reference of a template.
func templateRefs(tmpl json.RawMessage) ([]ref, error) {
	if len(bytes.TrimSpace(tmpl)) == 0 {
		return nil, nil
	}
	var v any
	if err := json.Unmarshal(tmpl, &v); err != nil {
		return nil, fmt.Errorf("arguments are not JSON: %w", err)
	}
	var out []ref
	var walk func(any) error
	walk = func(v any) error {
		switch x := v.(type) {
		case string:
			rs, err := refsIn(x)
			out = append(out, rs...)
			return err
		case []any:
			for _, e := range x {
				if err := walk(e); err != nil {
					return err
				}
			}
		case map[string]any:
			for _, e := range x {
				if err := walk(e); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return out, walk(v)
}

// lookup resolves a reference: ok false when what it names is not (yet)
// available.
type lookup func(r ref) (any, bool)

// resolve fills a template. References lookup cannot resolve stay as
// written and are returned in unresolved.
func resolve(tmpl json.RawMessage, look lookup) (json.RawMessage, []string, error) {
	if len(bytes.TrimSpace(tmpl)) == 0 {
		return json.RawMessage(`{}`), nil, nil
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(tmpl))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, nil, fmt.Errorf("arguments are not JSON: %w", err)
	}
	var unresolved []string
	var fill func(any) (any, error)
	fill = func(v any) (any, error) {
		switch x := v.(type) {
		case string:
			return fillString(x, look, &unresolved)
		case []any:
			for i, e := range x {
				f, err := fill(e)
				if err != nil {
					return nil, err
				}
				x[i] = f
			}
			return x, nil
		case map[string]any:
			for k, e := range x {
				f, err := fill(e)
				if err != nil {
					return nil, err
				}
				x[k] = f
			}
			return x, nil
		}
		return v, nil
	}
	out, err := fill(v)
	if err != nil {
		return nil, nil, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, nil, err
	}
	return b, unresolved, nil
}

func fillString(s string, look lookup, unresolved *[]string) (any, error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{{") && strings.HasSuffix(t, "}}") && strings.Count(t, "{{") == 1 {
		r, err := parseRef(t[2 : len(t)-2])
		if err != nil {
			return nil, err
		}
		if v, ok := look(r); ok {
			return v, nil
		}
		*unresolved = append(*unresolved, "{{"+r.raw+"}}")
		return s, nil
	}
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i+2:], "}}")
		if j < 0 {
			break
		}
		r, err := parseRef(rest[i+2 : i+2+j])
		if err != nil {
			return nil, err
		}
		b.WriteString(rest[:i])
		if v, ok := look(r); ok {
			b.WriteString(textOf(v))
		} else {
			*unresolved = append(*unresolved, "{{"+r.raw+"}}")
			b.WriteString(rest[i : i+2+j+2])
		}
		rest = rest[i+2+j+2:]
	}
	b.WriteString(rest)
	return b.String(), nil
}

func textOf(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// member follows path below v.
func member(v any, path []string) (any, bool) {
	for _, p := range path {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[p]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// decode decodes JSON keeping numbers exact.
func decode(b json.RawMessage) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	err := dec.Decode(&v)
	return v, err
}
