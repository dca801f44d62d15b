package redis

import (
	"strings"
	"testing"
)

func TestUnpackReply(t *testing.T) {
	good := "ok\n" + strings.Repeat("0:", 10) + "7:a:b\nc:d"
	tag, f, err := unpackReply(good)
	if err != nil || tag != "ok" || len(f) != 11 || f[10] != "a:b\nc:d" {
		t.Fatalf("unpackReply(good) = %q %q %v", tag, f, err)
	}
	for _, bad := range []string{
		"",
		"ok",
		"ok\n",
		"ok\n3:ab",
		"ok\nx:abc",
		"ok\n-1:",
		"ok\n" + strings.Repeat("0:", 12),
	} {
		if _, _, err := unpackReply(bad); err == nil {
			t.Errorf("unpackReply(%q) succeeded", bad)
		}
	}
}
