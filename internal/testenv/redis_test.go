package testenv

import (
	"os"
	"strings"
	"testing"
)

func TestRedisSharedServerAnswers(t *testing.T) {
	url, p1 := Redis(t)
	_, p2 := Redis(t)
	if p1 == p2 {
		t.Fatalf("two calls returned the same prefix %q", p1)
	}
	if !strings.HasPrefix(url, "redis://") {
		t.Fatalf("url %q is not a redis:// URL", url)
	}
	if os.Getenv(EnvRedisURL) == "" {
		if err := redisPing(redisShared.Port); err != nil {
			t.Fatalf("shared server does not answer: %v", err)
		}
	}
}

func TestRedisServerRestartKeepsPort(t *testing.T) {
	s := StartRedis(t, RedisOptions{AOF: true})
	port := s.Port
	if err := s.Restart(); err != nil {
		t.Fatalf("restart: %v", err)
	}
	if s.Port != port {
		t.Fatalf("port changed across restart: %d -> %d", port, s.Port)
	}
	if err := redisPing(s.Port); err != nil {
		t.Fatalf("restarted server does not answer: %v", err)
	}
	if err := s.Kill(); err != nil {
		t.Fatalf("kill: %v", err)
	}
	if err := redisPing(s.Port); err == nil {
		t.Fatal("killed server still answers PING")
	}
	if err := s.Start(); err != nil {
		t.Fatalf("start after kill: %v", err)
	}
}

// Without redis-server in PATH and without permission to install, the
// error must say what is missing and how to get it.
func TestRedisBinaryMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Setenv(EnvInstall, "")
	_, err := redisBinary()
	if err == nil {
		t.Fatal("redisBinary found a redis-server in an empty PATH")
	}
	for _, want := range []string{"redis-server", EnvInstall} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}
