package server

import (
	"bufio"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// TokenVerifier checks a bearer token and returns the subject it was
// issued to. Plug an OAuth resource-server verifier in here; StaticTokens
// is the simple file-based one the reference binary uses.
type TokenVerifier interface {
	VerifyToken(ctx context.Context, token string) (subject string, err error)
}

// ErrInvalidToken is returned by verifiers for unknown, expired or
// malformed tokens.
var ErrInvalidToken = errors.New("invalid bearer token")

// StaticTokens maps bearer tokens to subjects. Tokens are kept hashed.
type StaticTokens struct {
	subjects map[[sha256.Size]byte]string
}

// NewStaticTokens returns a verifier for the given token -> subject map.
func NewStaticTokens(tokens map[string]string) *StaticTokens {
	st := &StaticTokens{subjects: make(map[[sha256.Size]byte]string, len(tokens))}
	for tok, sub := range tokens {
		st.subjects[sha256.Sum256([]byte(tok))] = sub
	}
	return st
}

// VerifyToken returns the token's subject or ErrInvalidToken.
func (st *StaticTokens) VerifyToken(_ context.Context, token string) (string, error) {
	if sub, ok := st.subjects[sha256.Sum256([]byte(token))]; ok {
		return sub, nil
	}
	return "", ErrInvalidToken
}

// LoadTokenFile reads a token file: one "TOKEN SUBJECT" pair per line,
// separated by white space; blank lines and lines starting with # are
// ignored. Tokens must be unique.
func LoadTokenFile(path string) (*StaticTokens, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	defer f.Close()
	tokens := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 2 {
			return nil, fmt.Errorf("token file %s line %d: want \"TOKEN SUBJECT\", got %d fields", path, n, len(fields))
		}
		if _, dup := tokens[fields[0]]; dup {
			return nil, fmt.Errorf("token file %s line %d: token listed twice", path, n)
		}
		tokens[fields[0]] = fields[1]
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("token file %s: %w", path, err)
	}
	if len(tokens) == 0 {
		return nil, fmt.Errorf("token file %s: no tokens", path)
	}
	return NewStaticTokens(tokens), nil
}

// authError is an HTTP-level refusal of a request's credentials.
type authError struct {
	status int
	msg    string
}

func (e *authError) Error() string { return e.msg }

// identify returns the verified bearer subject of r ("" for none).
func (s *Server) identify(r *http.Request) (string, error) {
	h := r.Header.Get("Authorization")
	if s.verifier == nil {
		return "", nil // no verifier: the session is the identity
	}
	if h == "" {
		if s.allowAnonymous {
			return "", nil
		}
		return "", &authError{status: http.StatusUnauthorized, msg: "a bearer token is required"}
	}
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return "", &authError{status: http.StatusUnauthorized, msg: "the Authorization header must be \"Bearer TOKEN\""}
	}
	sub, err := s.verifier.VerifyToken(r.Context(), strings.TrimSpace(tok))
	if err != nil || sub == "" {
		return "", &authError{status: http.StatusUnauthorized, msg: "the bearer token is not valid"}
	}
	return sub, nil
}
