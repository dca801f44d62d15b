package tasks

import (
	"errors"
	"fmt"
	"strings"
)

// ErrInvalidVariableName: a variable name does not follow the grammar of
// a _meta key (variables are shown to requestors as _meta entries of
// tasks/get), or a writer used a name reserved for the other side. It
// wraps ErrInvalidParams, so the wire answers it with -32602.
var ErrInvalidVariableName = fmt.Errorf("%w: invalid variable name", ErrInvalidParams)

// Variable name prefixes of the convention for who writes what. A task's
// own work (server code: tool handlers, workflow server steps) writes
// names under ServerVariablePrefix; what a client contributes reaches the
// task only through a call bound to it (a workflow's client step) and is
// stored under ClientVariablePrefix. TaskContext.SetVariables refuses
// names under ClientVariablePrefix, so server code can never pose as the
// client. Names with neither prefix remain allowed for server code but
// are discouraged.
const (
	ServerVariablePrefix = "server."
	ClientVariablePrefix = "client."
)

// ValidVariableName checks name against the 2025-11-25 grammar of a _meta
// key: an optional prefix of dot-separated labels followed by '/' (each
// label starts with a letter, ends with a letter or digit and has only
// letters, digits and hyphens inside), then a name that starts and ends
// with an ASCII letter or digit and has only letters, digits, '-', '_' and
// '.' inside. The name may be empty only after a prefix. The error wraps
// ErrInvalidVariableName and says what is wrong.
func ValidVariableName(name string) error {
	if name == "" {
		return fmt.Errorf("%w: the name is empty", ErrInvalidVariableName)
	}
	rest := name
	if i := strings.IndexByte(name, '/'); i >= 0 {
		prefix := name[:i]
		rest = name[i+1:]
		if prefix == "" {
			return fmt.Errorf("%w: %q has an empty prefix before '/'", ErrInvalidVariableName, name)
		}
		for _, l := range strings.Split(prefix, ".") {
			if !validLabel(l) {
				return fmt.Errorf("%w: %q: prefix label %q must start with a letter, end with a letter or digit and contain only letters, digits and hyphens", ErrInvalidVariableName, name, l)
			}
		}
	}
	if rest == "" {
		return nil
	}
	if !alnum(rest[0]) || !alnum(rest[len(rest)-1]) {
		return fmt.Errorf("%w: %q: the name must start and end with a letter or digit", ErrInvalidVariableName, name)
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !alnum(c) && c != '-' && c != '_' && c != '.' {
			return fmt.Errorf("%w: %q: character %q is not allowed (letters, digits, '-', '_' and '.' only, one '/' after a prefix)", ErrInvalidVariableName, name, string(rune(c)))
		}
	}
	return nil
}

// ValidVariableNames checks every name of patch with ValidVariableName.
func ValidVariableNames[V any](patch map[string]V) error {
	var errs []error
	for k := range patch {
		if err := ValidVariableName(k); err != nil {
			errs = append(errs, err)
		}
	}
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return errors.Join(errs...)
}

// checkServerVariableNames is ValidVariableNames plus the convention: a
// task's work may not write names reserved for the client.
func checkServerVariableNames[V any](patch map[string]V) error {
	if err := ValidVariableNames(patch); err != nil {
		return err
	}
	for k := range patch {
		if strings.HasPrefix(k, ClientVariablePrefix) {
			return fmt.Errorf("%w: %q: names under %q are written only by calls a client binds to the task", ErrInvalidVariableName, k, ClientVariablePrefix)
		}
	}
	return nil
}

func validLabel(l string) bool {
	if l == "" || !letter(l[0]) || !alnum(l[len(l)-1]) {
		return false
	}
	for i := 0; i < len(l); i++ {
		if !alnum(l[i]) && l[i] != '-' {
			return false
		}
	}
	return true
}

func letter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func alnum(c byte) bool  { return letter(c) || c >= '0' && c <= '9' }
