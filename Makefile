# mcptasks — see README.md. Every target works on a fresh clone.
GO        ?= go
SCHEMA    := schema/2025-11-25/schema.json
# The shared spec directory: beside the checkout, or one level further up
# (a git worktree under a directory of worktrees).
SHARED_SPEC ?= $(firstword $(wildcard ../shared/spec ../../shared/spec) ../shared/spec)
SHARED    := $(SHARED_SPEC)/2025-11-25/schema.json
# The 2026-07-28 core and the tasks extension: each directory has a SOURCE
# (raw, sha256 and shared lines) and receives a git-ignored schema.json.
EXTRA_SCHEMA_DIRS := schema/v20260728 schema/exttasks
SCHEMA_SHA = $(shell awk '/^sha256:/{print $$2}' schema/SOURCE)
SCHEMA_URL = $(shell awk '/^raw:/{print $$2}' schema/SOURCE)
TEST_FLAGS ?= -race -count=1 -timeout 45m
# staticcheck is pinned and installed into bin/ by `make lint` (from the Go
# module proxy), so a clean machine needs nothing beforehand.
STATICCHECK_VERSION := v0.8.2
STATICCHECK := bin/staticcheck-$(STATICCHECK_VERSION)/staticcheck

# Every Go module in this repository: the toolkit at the root, then modules that
# pull in an MCP SDK (adapters, examples) and so live apart, so that importing
# the toolkit never pulls an SDK in. test, lint and bench cover all of them.
MODULES := $(shell find . -name go.mod -not -path '*/testdata/*' -not -path './bin/*' \
	-not -path './trial-results/*' -not -path '*/node_modules/*' -not -path './.cache/*' \
	-exec dirname {} \; | sort)

.PHONY: all schema generate verify-generate test lint bench fuzz conformance trials clean

all: verify-generate lint test

## schema: place the pinned official schemas (2025-11-25 from $$MCP_SCHEMA_FILE, ../shared, or upstream; 2026-07-28 core and tasks extension from $(SHARED_SPEC) or upstream) and verify each sha256
schema:
	@mkdir -p $(dir $(SCHEMA))
	@set -e; \
	if [ -n "$$MCP_SCHEMA_FILE" ]; then src="$$MCP_SCHEMA_FILE"; cp "$$src" $(SCHEMA).tmp; \
	elif [ -f "$(SHARED)" ]; then src="$(SHARED)"; cp "$$src" $(SCHEMA).tmp; \
	else src="$(SCHEMA_URL)"; \
	  if ! curl -fsSL --max-time 60 -o $(SCHEMA).tmp "$$src"; then \
	    rm -f $(SCHEMA).tmp; echo "make schema: no schema source reachable: set MCP_SCHEMA_FILE, place ../shared beside the checkout, or allow access to $$src" >&2; exit 1; fi; \
	fi; \
	got=$$(sha256sum $(SCHEMA).tmp | awk '{print $$1}'); \
	if [ "$$got" != "$(SCHEMA_SHA)" ]; then rm -f $(SCHEMA).tmp; \
	  echo "make schema: sha256 mismatch for $$src: got $$got, want $(SCHEMA_SHA) (pinned in schema/SOURCE)" >&2; exit 1; fi; \
	mv $(SCHEMA).tmp $(SCHEMA); echo "schema: $(SCHEMA) from $$src (sha256 ok)"
	@set -e; for dir in $(EXTRA_SCHEMA_DIRS); do \
	  sha=$$(awk '/^sha256:/{print $$2}' $$dir/SOURCE); url=$$(awk '/^raw:/{print $$2}' $$dir/SOURCE); \
	  shared="$(SHARED_SPEC)/$$(awk '/^shared:/{print $$2}' $$dir/SOURCE)"; out=$$dir/schema.json; \
	  if [ -f "$$out" ] && [ "$$(sha256sum $$out | awk '{print $$1}')" = "$$sha" ]; then echo "schema: $$out already placed (sha256 ok)"; continue; fi; \
	  if [ -f "$$shared" ]; then src="$$shared"; cp "$$src" $$out.tmp; \
	  else src="$$url"; \
	    if ! curl -fsSL --max-time 60 -o $$out.tmp "$$src"; then rm -f $$out.tmp; \
	      echo "make schema: no source for $$out: set SHARED_SPEC to the shared spec directory or allow access to $$src" >&2; exit 1; fi; \
	  fi; \
	  got=$$(sha256sum $$out.tmp | awk '{print $$1}'); \
	  if [ "$$got" != "$$sha" ]; then rm -f $$out.tmp; \
	    echo "make schema: sha256 mismatch for $$src: got $$got, want $$sha (pinned in $$dir/SOURCE)" >&2; exit 1; fi; \
	  rm -f $$out; mv $$out.tmp $$out; echo "schema: $$out from $$src (sha256 ok)"; \
	done

## generate: regenerate the wire types and the validation schema
generate: schema
	$(GO) generate ./...

## verify-generate: regenerate and fail on any difference from what is committed
verify-generate: generate
	@git diff --exit-code -- schema gen || { echo "verify-generate: generated files differ from the commit; run 'make generate' and commit" >&2; exit 1; }
	@untracked=$$(git ls-files --others --exclude-standard -- schema gen); \
	if [ -n "$$untracked" ]; then echo "verify-generate: untracked generated files: $$untracked" >&2; exit 1; fi

## test: the whole test suite, with the race detector, against real engines
test: schema
	@set -e; for m in $(MODULES); do echo "== go test $$m"; (cd $$m && $(GO) test $(TEST_FLAGS) ./...); done

## lint: formatting, vet and staticcheck (settings in staticcheck.conf)
lint: $(STATICCHECK)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:" $$out >&2; exit 1; fi
	@set -e; for m in $(MODULES); do echo "== vet+staticcheck $$m"; (cd $$m && $(GO) vet ./... && $(CURDIR)/$(STATICCHECK) ./...); done

$(STATICCHECK):
	GOBIN=$(CURDIR)/$(dir $(STATICCHECK)) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

## bench: every benchmark (stores, server) once
bench:
	@set -e; for m in $(MODULES); do (cd $$m && $(GO) test -run '^$$' -bench . -benchmem -count=1 -timeout 60m ./...); done

## conformance: certify the embedded reference server (the README's main command)
conformance:
	$(GO) run ./cmd/conformance

## trials: certify the TypeScript SDK (v1 example, v2 server package) and mcp-go examples (needs npm and the Go proxy; not part of test)
trials:
	bash cmd/conformance/testdata/trials.sh

clean:
	rm -rf conformance-results trial-results $(SCHEMA) $(addsuffix /schema.json,$(EXTRA_SCHEMA_DIRS))
