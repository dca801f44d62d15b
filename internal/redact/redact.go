// Package redact masks credentials (passwords in URLs, password or token
// parameters) in store specs and in messages that quote them.
package redact

import (
	"net/url"
	"regexp"
	"sort"
	"strings"
)

// Masked replaces every secret hidden.
const Masked = "xxxxx"

// secretParam matches query parameter names whose values are credentials.
var secretParam = regexp.MustCompile(`(?i)(pass|pwd|secret|token|credential|auth|key)`)

// userinfoRE finds "scheme://user:password@" in text url.Parse rejects.
var userinfoRE = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^/?#@:\s]*:)[^@\s]*@`)

// Spec returns spec with every credential it holds (a password in the
// URL or in a URL nested in a parameter, parameters such as password or
// token) replaced by Masked, for logs and messages.
func Spec(spec string) string {
	return Text(spec, spec)
}

// Text masks in text the credentials of spec, and any user:password@ of a
// URL it quotes.
func Text(text, spec string) string {
	return maskAll(text, secrets(spec))
}

func maskAll(text string, secrets []string) string {
	for _, s := range secrets {
		text = strings.ReplaceAll(text, s, Masked)
	}
	return userinfoRE.ReplaceAllString(text, "${1}"+Masked+"@")
}

// secrets lists the credentials in spec in every spelling they may take
// in a message (raw, URL-escaped, query-escaped), longest first.
func secrets(spec string) []string {
	found := map[string]bool{}
	add := func(s string) {
		if s == "" || s == Masked {
			return
		}
		found[s] = true
		found[url.PathEscape(s)] = true
		found[url.QueryEscape(s)] = true
		found[url.UserPassword("", s).String()[1:]] = true // userinfo escaping, without the leading ':'
	}
	var fromURL func(raw string, depth int)
	fromURL = func(raw string, depth int) {
		u, err := url.Parse(raw)
		if err != nil || depth > 2 {
			return
		}
		if p, ok := u.User.Password(); ok {
			add(p)
		}
		for k, vs := range u.Query() {
			for _, v := range vs {
				if secretParam.MatchString(k) {
					add(v)
				}
				if strings.Contains(v, "://") {
					fromURL(v, depth+1)
				}
			}
		}
	}
	fromURL(spec, 0)
	// Also key=value pairs of a libpq keyword DSN ("password=… host=…").
	for _, f := range strings.Fields(spec) {
		if k, v, ok := strings.Cut(f, "="); ok && secretParam.MatchString(k) {
			add(strings.Trim(v, `'"`))
		}
	}
	list := make([]string, 0, len(found))
	for s := range found {
		list = append(list, s)
	}
	sort.Slice(list, func(i, j int) bool { return len(list[i]) > len(list[j]) })
	return list
}

// Error returns err with spec's credentials masked in its message;
// errors.Is and errors.As still see err. nil stays nil.
func Error(err error, spec string) error {
	if err == nil {
		return nil
	}
	return &redactedError{msg: Text(err.Error(), spec), err: err}
}

// redactedError is an error whose message has credentials masked.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
