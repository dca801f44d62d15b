package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvPostgresDSN names a running PostgreSQL to use instead of starting one.
// The role it connects as must be allowed to create databases.
const EnvPostgresDSN = "MCPTASKS_POSTGRES_DSN"

const pgInstallHint = "apt-get install postgresql (binaries are looked up in /usr/lib/postgresql/*/bin), or set " + EnvPostgresDSN

// PostgresOptions selects how a PostgreSQL cluster is started.
type PostgresOptions struct {
	// Fsync runs the cluster with fsync, synchronous_commit and
	// full_page_writes on, as crash and durability tests need. The
	// default turns them off for speed. Such a cluster is always started
	// here, even when EnvPostgresDSN is set, since the settings of an
	// external server are unknown.
	Fsync bool
	// Private starts a cluster used by one caller only (crash tests stop
	// and restart it), even when EnvPostgresDSN is set. Each call with
	// Private set starts a new cluster.
	Private bool
}

// PGCluster is a PostgreSQL server either started by this package or named
// by EnvPostgresDSN. It hands out one fresh database per test.
type PGCluster struct {
	// adminDSN connects to the maintenance database as a superuser.
	adminDSN string
	// The fields below are set only for clusters this package started.
	bin     string // directory holding pg_ctl, initdb
	dir     string // temp dir: data/, server.log, the unix socket
	port    int
	fsync   bool
	asOwner bool // run the binaries as the postgres user (we are root)

	mu      sync.Mutex
	running bool
}

var (
	pgMu       sync.Mutex
	pgShared   = map[bool]*PGCluster{} // by Fsync
	pgSharedEr = map[bool]error{}
)

// Postgres returns the DSN of a fresh, empty database, dropped when tb
// ends. The cluster behind it is started once per test binary (or taken
// from EnvPostgresDSN) and stopped by StopAll.
func Postgres(tb testing.TB) string {
	tb.Helper()
	return PostgresCluster(tb, PostgresOptions{}).NewDatabase(tb)
}

// PostgresCluster returns a running cluster with the given options,
// starting it if needed. Shared clusters (Private false) are started once
// per test binary and stopped by StopAll; private ones are stopped and
// removed when tb ends. When PostgreSQL cannot be used the test ends
// through Unavailable.
func PostgresCluster(tb testing.TB, opts PostgresOptions) *PGCluster {
	tb.Helper()
	if opts.Private {
		c, err := startPGCluster(opts)
		if err != nil {
			Unavailable(tb, "PostgreSQL", pgInstallHint, err)
		}
		tb.Cleanup(c.destroy)
		return c
	}
	pgMu.Lock()
	defer pgMu.Unlock()
	if c := pgShared[opts.Fsync]; c != nil {
		return c
	}
	if err := pgSharedEr[opts.Fsync]; err != nil {
		Unavailable(tb, "PostgreSQL", pgInstallHint, err)
	}
	if dsn := os.Getenv(EnvPostgresDSN); dsn != "" && !opts.Fsync {
		c := &PGCluster{adminDSN: dsn}
		pgShared[opts.Fsync] = c
		return c
	}
	c, err := startPGCluster(opts)
	if err != nil {
		pgSharedEr[opts.Fsync] = err
		Unavailable(tb, "PostgreSQL", pgInstallHint, err)
	}
	atStop(c.destroy)
	pgShared[opts.Fsync] = c
	return c
}

// AdminDSN returns the DSN of the cluster's maintenance database.
func (c *PGCluster) AdminDSN() string { return c.adminDSN }

// NewDatabase creates an empty database t_<random> and returns its DSN. It
// is dropped (connections forced out) when tb ends.
func (c *PGCluster) NewDatabase(tb testing.TB) string {
	tb.Helper()
	name := "t_" + randHex(8)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.exec(ctx, "CREATE DATABASE "+name); err != nil {
		tb.Fatalf("testenv: create database %s: %v", name, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c.bin != "" && !c.isRunning() {
			return // the cluster was stopped by the test; it goes away whole
		}
		if err := c.exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			tb.Logf("testenv: drop database %s: %v", name, err)
		}
	})
	dsn, err := withDatabase(c.adminDSN, name)
	if err != nil {
		tb.Fatalf("testenv: %v", err)
	}
	return dsn
}

// Crash stops the cluster at once, the way a killed server stops
// (pg_ctl -m immediate): no checkpoint, recovery from WAL on next start.
func (c *PGCluster) Crash(tb testing.TB) { tb.Helper(); c.stop(tb, "immediate") }

// Stop shuts the cluster down cleanly (pg_ctl -m fast).
func (c *PGCluster) Stop(tb testing.TB) { tb.Helper(); c.stop(tb, "fast") }

// Start starts a stopped cluster again on the same port and data
// directory, so every DSN handed out before works again.
func (c *PGCluster) Start(tb testing.TB) {
	tb.Helper()
	c.mustOwn(tb)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running {
		return
	}
	if err := c.pgStart(); err != nil {
		tb.Fatalf("testenv: restart PostgreSQL: %v", err)
	}
	c.running = true
}

func (c *PGCluster) stop(tb testing.TB, mode string) {
	c.mustOwn(tb)
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.running {
		return
	}
	if err := c.pgCtl("-m", mode, "-w", "-t", "60", "stop"); err != nil {
		tb.Fatalf("testenv: stop PostgreSQL (-m %s): %v", mode, err)
	}
	c.running = false
}

func (c *PGCluster) mustOwn(tb testing.TB) {
	tb.Helper()
	if c.bin == "" {
		tb.Fatalf("testenv: the PostgreSQL at %s was not started by testenv; use PostgresOptions{Private: true} to stop and start one", EnvPostgresDSN)
	}
}

func (c *PGCluster) isRunning() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.running
}

func (c *PGCluster) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, c.adminDSN)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return err
}

// destroy stops the cluster and removes its directory.
func (c *PGCluster) destroy() {
	if c.bin == "" {
		return
	}
	c.mu.Lock()
	if c.running {
		_ = c.pgCtl("-m", "immediate", "-w", "-t", "30", "stop")
		c.running = false
	}
	c.mu.Unlock()
	_ = os.RemoveAll(c.dir)
}

// pgOwnerFile, in a cluster's temp dir, holds the pid of the test process
// that started it.
const pgOwnerFile = "owner.pid"

// sweepStalePGClusters stops and removes clusters left in /tmp by test
// processes that died without stopping them. A directory without an owner
// file is left alone unless it is an hour old (it may be starting up).
func sweepStalePGClusters(bin string) {
	dirs, _ := filepath.Glob("/tmp/mcptasks-pg-*")
	for _, dir := range dirs {
		b, err := os.ReadFile(filepath.Join(dir, pgOwnerFile))
		if err != nil {
			if fi, serr := os.Stat(dir); serr != nil || time.Since(fi.ModTime()) < time.Hour {
				continue
			}
		} else if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr != nil || processAlive(pid) {
			continue
		}
		c := &PGCluster{bin: bin, dir: dir, asOwner: os.Geteuid() == 0}
		if _, err := os.Stat(filepath.Join(dir, "data", "postmaster.pid")); err == nil {
			_ = c.pgCtl("-m", "immediate", "-w", "-t", "30", "stop")
		}
		_ = os.RemoveAll(dir)
	}
}

// startPGCluster runs initdb and pg_ctl start in a new temp dir.
func startPGCluster(opts PostgresOptions) (*PGCluster, error) {
	bin, err := pgBinDir()
	if err != nil {
		if ierr := AptInstall("postgresql"); ierr != nil {
			return nil, fmt.Errorf("%w; installing: %v", err, ierr)
		}
		if bin, err = pgBinDir(); err != nil {
			return nil, err
		}
	}
	sweepStalePGClusters(bin)
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	// /tmp, not os.TempDir: the postgres user must be able to traverse it,
	// and the socket path must stay short.
	dir, err := os.MkdirTemp("/tmp", "mcptasks-pg-")
	if err != nil {
		return nil, err
	}
	c := &PGCluster{bin: bin, dir: dir, port: port, fsync: opts.Fsync, asOwner: os.Geteuid() == 0,
		adminDSN: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)}
	// Record who owns the cluster, so a later run can stop it if this
	// process dies without StopAll (a test timeout, a kill).
	if err := os.WriteFile(filepath.Join(dir, pgOwnerFile), []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	if c.asOwner {
		if out, err := exec.Command("chown", "postgres:postgres", dir).CombinedOutput(); err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("chown %s to postgres (PostgreSQL refuses to run as root): %v: %s", dir, err, out)
		}
	}
	if out, err := c.command("initdb", "-D", c.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync").CombinedOutput(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	if err := c.pgStart(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	c.running = true
	return c, nil
}

func (c *PGCluster) data() string { return filepath.Join(c.dir, "data") }

func (c *PGCluster) pgStart() error {
	durable := "off"
	if c.fsync {
		durable = "on"
	}
	o := fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -k %s -c fsync=%s -c synchronous_commit=%s -c full_page_writes=%s -c max_connections=200",
		c.port, c.dir, durable, durable, durable)
	if err := c.pgCtl("-l", filepath.Join(c.dir, "server.log"), "-w", "-t", "60", "start", "-o", o); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "server.log"))
		return fmt.Errorf("%w\nserver.log:\n%s", err, tail(log, 2000))
	}
	return nil
}

func (c *PGCluster) pgCtl(args ...string) error {
	args = append([]string{"-D", c.data()}, args...)
	if out, err := c.command("pg_ctl", args...).CombinedOutput(); err != nil {
		return fmt.Errorf("pg_ctl %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// command runs a PostgreSQL binary, as the postgres user when we are root.
func (c *PGCluster) command(name string, args ...string) *exec.Cmd {
	path := filepath.Join(c.bin, name)
	if c.asOwner {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

// pgBinDir finds the newest /usr/lib/postgresql/<major>/bin with pg_ctl,
// or the directory of pg_ctl on PATH.
func pgBinDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	type cand struct {
		major int
		dir   string
	}
	var cands []cand
	for _, p := range dirs {
		bin := filepath.Dir(p)
		major, err := strconv.Atoi(filepath.Base(filepath.Dir(bin)))
		if err != nil {
			continue
		}
		cands = append(cands, cand{major, bin})
	}
	if len(cands) > 0 {
		slices.SortFunc(cands, func(a, b cand) int { return b.major - a.major })
		return cands[0].dir, nil
	}
	if p, err := exec.LookPath("pg_ctl"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("no pg_ctl in /usr/lib/postgresql/*/bin or on PATH")
}

// withDatabase returns dsn pointing at database name instead.
func withDatabase(dsn, name string) (string, error) {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return "", fmt.Errorf("parse %s: %w", EnvPostgresDSN, err)
		}
		u.Path = "/" + name
		return u.String(), nil
	}
	return dsn + " dbname=" + name, nil
}

func randHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
