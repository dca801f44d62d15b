package redis

import (
	"strings"
	"testing"
)

func TestUnpackReply(t *testing.T) {
	fix := packFields("own\x00er", "tools/call", "1700000000000", "", "1000", "")
	good := "ok\n" + fix + packFields("working", "a:b\nc:d", "1700000000001", "2", `{"k":1}`)
	tag, f, err := unpackReply(good)
	if err != nil || tag != "ok" || len(f) != numFields || f[iMessage] != "a:b\nc:d" || f[iOwner] != "own\x00er" {
		t.Fatalf("unpackReply(good) = %q %q %v", tag, f, err)
	}
	if _, err := parseRecord("id", f); err != nil {
		t.Fatalf("parseRecord: %v", err)
	}
	for _, bad := range []string{
		"",
		"ok",
		"ok\n",
		"ok\n3:ab",
		"ok\nx:abc",
		"ok\n-1:",
		"ok\n" + strings.Repeat("0:", numFields+1),
		"ok\n" + strings.Repeat("0:", numFields-1),
	} {
		if _, _, err := unpackReply(bad); err == nil {
			t.Errorf("unpackReply(%q) succeeded", bad)
		}
	}
}
