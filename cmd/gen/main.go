// Command gen regenerates the MCP wire types and the validation schema of
// package schema from the official schema.json. It is run by go generate
// (see schema/doc.go) and by make generate.
//
// Usage:
//
//	gen -schema 2025-11-25/schema.json -out types_gen.go -validation validation_gen.json
//	gen -config 2026-07-28 -schema schema.json -package v20260728
//	gen -list-excluded
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcptasks/mcptasks/gen"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	schemaPath := fs.String("schema", "2025-11-25/schema.json", "input `file`: the official schema.json (placed by make schema)")
	out := fs.String("out", "types_gen.go", "output `file` for the Go wire types")
	validation := fs.String("validation", "validation_gen.json", "output `file` for the prose-free validation schema")
	registry := fs.String("test-registry", "types_gen_test.go", "output `file` for the test-only registry of generated types (\"\" to skip)")
	pkg := fs.String("package", "schema", "Go package `name` of the generated file")
	config := fs.String("config", "2025-11-25", "`name` of the generator configuration: 2025-11-25, 2026-07-28 or ext-tasks")
	listExcluded := fs.Bool("list-excluded", false, "print the $defs that get no generated type, with reasons, and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	mk, ok := gen.Configs()[*config]
	if !ok {
		return fmt.Errorf("unknown -config %q (want 2025-11-25, 2026-07-28 or ext-tasks)", *config)
	}
	cfg := mk()
	cfg.Package = *pkg
	if *listExcluded {
		for _, e := range cfg.Exclusions {
			fmt.Fprintf(stdout, "excluded  %s: %s\n", e.Def, e.Reason)
		}
		for _, o := range cfg.Overrides {
			fmt.Fprintf(stdout, "override  %s -> %s (hand-written): %s\n", o.Def, o.GoType, o.Reason)
		}
		return nil
	}
	data, err := os.ReadFile(*schemaPath)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s does not exist: run `make schema` first", *schemaPath)
	}
	if err != nil {
		return err
	}
	res, err := gen.Generate(data, cfg)
	if err != nil {
		return err
	}
	if err := writeAtomic(*out, res.Types); err != nil {
		return err
	}
	if err := writeAtomic(*validation, res.Validation); err != nil {
		return err
	}
	if *registry != "" {
		return writeAtomic(*registry, res.TestRegistry)
	}
	return nil
}

// writeAtomic replaces path with data via a temporary file in the same
// directory and a rename, so readers never see a half-written file. An
// unchanged file is left alone.
func writeAtomic(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && string(old) == string(data) {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
