package tasks

// Identity is what a transport knows about who sent a request. Any field
// may be empty.
type Identity struct {
	// Subject is the verified subject of an OAuth bearer token.
	Subject string
	// ClientID is an authenticated client identifier.
	ClientID string
	// SessionID is the transport session (e.g. Mcp-Session-Id).
	SessionID string
}

// AnonymousOwner is the single owner shared by requestors without identity
// when Config.AllowAnonymous is set.
const AnonymousOwner Owner = "anonymous"

// ResolveOwner picks the authorization context a task binds to: the bearer
// subject if there is one, else the client id, else the session id. With
// none of them it returns AnonymousOwner when allowAnonymous is set and
// ErrAnonymous otherwise.
func ResolveOwner(id Identity, allowAnonymous bool) (Owner, error) {
	switch {
	case id.Subject != "":
		return Owner("sub:" + id.Subject), nil
	case id.ClientID != "":
		return Owner("client:" + id.ClientID), nil
	case id.SessionID != "":
		return Owner("session:" + id.SessionID), nil
	case allowAnonymous:
		return AnonymousOwner, nil
	}
	return "", ErrAnonymous
}
