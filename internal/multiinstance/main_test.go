package multiinstance_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/stores/storeurl"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
)

// When the test binary is started with these variables set it runs as one
// server instance instead of running tests.
const (
	envServeStore  = "MCPTASKS_MULTIINSTANCE_STORE"
	envServeTokens = "MCPTASKS_MULTIINSTANCE_TOKENS"
)

func TestMain(m *testing.M) {
	if spec := os.Getenv(envServeStore); spec != "" {
		os.Exit(serve(spec, os.Getenv(envServeTokens)))
	}
	os.Exit(testenv.Main(m))
}

// serverCommand returns the command that runs one instance on spec.
func serverCommand(t *testing.T, spec string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envServeStore+"="+spec, envServeTokens+"="+tokenFile(t))
	return cmd
}

// serve runs the reference server (fixture tools, bearer tokens, short
// leases) on the store spec names, prints "listening on URL" and serves
// until SIGTERM.
func serve(spec, tokens string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg := tasks.Config{PollInterval: time.Second}
	st, err := storeurl.Open(ctx, spec, cfg)
	if err != nil {
		log.Error("open store", "err", err)
		return 1
	}
	defer st.Close()
	verifier, err := server.LoadTokenFile(tokens)
	if err != nil {
		log.Error("tokens", "err", err)
		return 1
	}
	inst, err := reference.Start(ctx, reference.Options{
		Config: cfg,
		Store:  st,
		Logger: log,
		EngineOptions: []tasks.EngineOption{
			tasks.WithLeaseDuration(leaseDuration), tasks.WithReapInterval(reapInterval),
		},
		ServerOptions: []server.Option{server.WithTokenVerifier(verifier)},
	})
	if err != nil {
		log.Error("start server", "err", err)
		return 1
	}
	fmt.Printf("listening on %s\n", inst.URL)
	<-ctx.Done()
	cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := inst.Close(cctx); err != nil {
		log.Error("close", "err", err)
	}
	return 0
}
