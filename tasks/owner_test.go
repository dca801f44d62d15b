package tasks

import (
	"errors"
	"testing"
)

func TestResolveOwner(t *testing.T) {
	tests := []struct {
		id      Identity
		anon    bool
		want    Owner
		wantErr error
	}{
		{Identity{Subject: "alice", ClientID: "c", SessionID: "s"}, false, "sub:alice", nil},
		{Identity{ClientID: "c", SessionID: "s"}, false, "client:c", nil},
		{Identity{SessionID: "s"}, false, "session:s", nil},
		{Identity{}, true, AnonymousOwner, nil},
		{Identity{}, false, "", ErrAnonymous},
	}
	for _, tt := range tests {
		got, err := ResolveOwner(tt.id, tt.anon)
		if got != tt.want || !errors.Is(err, tt.wantErr) {
			t.Errorf("ResolveOwner(%+v, %v) = %q, %v; want %q, %v", tt.id, tt.anon, got, err, tt.want, tt.wantErr)
		}
	}
}
