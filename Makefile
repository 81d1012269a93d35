# rackroll — see README.md. Everything is built from the Go module proxy.
SHELL := /bin/bash
BIN   := $(CURDIR)/bin
GO    ?= go

# The CLI is the client only; the servers are TEMPORAL_SERVER_VERSION's (the
# CLI 1.5.1 bundles 1.29.1, which drops the new build a run asks for on
# continue-as-new, docs/self-upgrade.md#the-temporal-server).
TEMPORAL_CLI_VERSION := v1.5.1
# The Temporal server every test and the demo run (internal/devserver: one
# process on SQLite, hack/temporaldev; test/production: a service per
# process on PostgreSQL, cmd/server) and its SQL schema tool. Its go.mod
# asks for Go 1.26.8. The version is in the file names
# (internal/toolbin.TemporalDevServer, TemporalServer), so a new one builds.
TEMPORAL_SERVER_VERSION := v1.32.1
# The Web UI's server, the one the CLI v1.5.1 bundles, run beside the server
# when a UI is asked (make dev-server, make demo).
TEMPORAL_UI_VERSION := v2.42.1
SEARCH_ATTRS := --search-attribute RackrollCluster=Keyword \
                --search-attribute RackrollOperation=Keyword \
                --search-attribute RackrollPhase=Keyword

export RACKROLL_BIN := $(BIN)

# The lab's commands (`starter lab …`, `starter demo`) are linked into the
# starter only with this tag (starter/lab_build.go): bin/starter and the
# tests' binaries have them; the production starter (the Dockerfile's
# default target, `go build ./starter`) does not.
LAB := -tags lab

.PHONY: all build tools test test-short test-profile soak vet dev-server worker clean help histories bench demo postgres image

all: build

help:
	@echo "make tools       build bin/temporal, bin/temporal-server-*, bin/etcd, bin/kube-apiserver, bin/kubectl, … (once; ~15 min cold)"
	@echo "make postgres    install PostgreSQL's server binaries (Debian package) when missing"
	@echo "make test        go vet + every test, integration tests included (what CI runs)"
	@echo "make test-profile  make test, timed: bench/results.json and docs/performance.md"
	@echo "make soak        the convergence property test over 10,000 scenarios (SEED=S to start elsewhere)"
	@echo "make dev-server  Temporal server 1.32.1 on 127.0.0.1:7233, UI on :8233, data in .data/"
	@echo "make worker      run the rackroll worker against \$$TEMPORAL_ADDRESS (default 127.0.0.1:7233)"
	@echo "make build       build bin/worker and bin/starter (with the lab's commands: -tags lab)"
	@echo "make demo        dev server + UI + lab + worker + a full upgrade with live progress (ONCE=1: exit after)"
	@echo "make image       the keyset pod's image (the node program, linux/amd64 and arm64) as an OCI layout in out/image, no container engine (VERSION=v to tag it)"

build:
	$(GO) build -o $(BIN)/worker ./worker
	$(GO) build $(LAB) -o $(BIN)/starter ./starter

# Tool binaries are file targets, so a second `make tools` does nothing.
tools: $(BIN)/temporal $(BIN)/temporal-devserver-$(TEMPORAL_SERVER_VERSION) $(BIN)/temporal-server-$(TEMPORAL_SERVER_VERSION) $(BIN)/temporal-sql-tool-$(TEMPORAL_SERVER_VERSION) $(BIN)/temporal-ui-server-$(TEMPORAL_UI_VERSION) $(BIN)/etcd $(BIN)/kube-apiserver $(BIN)/kubectl $(BIN)/tctl

$(BIN)/temporal:
	@echo ">> building the Temporal CLI $(TEMPORAL_CLI_VERSION) into bin/ (about 5 minutes the first time)"
	GOBIN=$(BIN) $(GO) install github.com/temporalio/cli/cmd/temporal@$(TEMPORAL_CLI_VERSION)

# The Temporal server and its SQL schema tool: `go install` names them
# server and sql, so they are installed into a scratch GOBIN and moved.
$(BIN)/temporal-server-$(TEMPORAL_SERVER_VERSION):
	@echo ">> building temporal-server $(TEMPORAL_SERVER_VERSION) into bin/ (about 4 minutes the first time)"
	@d=$$(mktemp -d) && GOBIN=$$d $(GO) install go.temporal.io/server/cmd/server@$(TEMPORAL_SERVER_VERSION) && mv $$d/server $@ && rm -rf $$d

$(BIN)/temporal-sql-tool-$(TEMPORAL_SERVER_VERSION):
	@echo ">> building temporal-sql-tool $(TEMPORAL_SERVER_VERSION) into bin/ (about 2 minutes the first time)"
	@d=$$(mktemp -d) && GOBIN=$$d $(GO) install go.temporal.io/server/cmd/tools/sql@$(TEMPORAL_SERVER_VERSION) && mv $$d/sql $@ && rm -rf $$d

$(BIN)/temporal-ui-server-$(TEMPORAL_UI_VERSION):
	@echo ">> building the Temporal UI server $(TEMPORAL_UI_VERSION) into bin/ (about a minute the first time)"
	@d=$$(mktemp -d) && GOBIN=$$d $(GO) install github.com/temporalio/ui-server/v2/cmd/server@$(TEMPORAL_UI_VERSION) && mv $$d/server $@ && rm -rf $$d

# PostgreSQL's server binaries (initdb, postgres) for the production test.
# Debian keeps them in /usr/lib/postgresql/<major>/bin, off PATH; the test
# finds them there. Installed once, as root, when missing.
postgres:
	@if ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || command -v postgres >/dev/null 2>&1; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo ">> installing PostgreSQL (Debian package postgresql) for the production test"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	else echo "PostgreSQL's server binaries are missing: install the postgresql package (apt-get install postgresql)" >&2; exit 1; fi

# The tools modules' pins, as stamps named by their content: a fresh clone
# (new mtimes) with bin/ present relinks nothing; a changed pin makes a new
# stamp, newer than the binaries, and they are rebuilt.
pin = $(BIN)/.pin-$(1)-$(shell cat hack/$(1)/go.mod hack/$(1)/go.sum | sha256sum | cut -c1-16)
K8S_PIN  := $(call pin,k8s)
TCTL_PIN := $(call pin,tctl)
TEMPORALDEV_PIN := $(call pin,temporaldev)
$(BIN)/.pin-%:
	@mkdir -p $(BIN) && rm -f $(BIN)/.pin-$(firstword $(subst -, ,$*))-* && touch $@

# The same server as one process with static membership, as the CLI's
# start-dev builds it (hack/temporaldev/main.go says why): what
# internal/devserver runs. Its module requires TEMPORAL_SERVER_VERSION.
$(BIN)/temporal-devserver-$(TEMPORAL_SERVER_VERSION): $(TEMPORALDEV_PIN)
	@echo ">> building temporal-devserver $(TEMPORAL_SERVER_VERSION) into bin/ (about 4 minutes the first time)"
	cd hack/temporaldev && $(GO) build -ldflags '-s -w' -o $@ .

$(BIN)/etcd: $(K8S_PIN)
	@echo ">> building etcd into bin/ (about 2 minutes the first time)"
	cd hack/k8s && $(GO) build -ldflags '-s -w' -o $(BIN)/etcd go.etcd.io/etcd/server/v3

$(BIN)/kube-apiserver: $(K8S_PIN)
	@echo ">> building kube-apiserver into bin/ (about 5 minutes the first time)"
	cd hack/k8s && $(GO) build -ldflags '-s -w' -o $(BIN)/kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver

$(BIN)/kubectl: $(K8S_PIN)
	@echo ">> building kubectl into bin/ (about a minute the first time)"
	cd hack/k8s && $(GO) build -ldflags '-s -w' -o $(BIN)/kubectl k8s.io/kubernetes/cmd/kubectl

# tctl (the legacy CLI) is built inside its own tools module: `go install
# …@v1.18.0` fails through the module proxy, `go build` from a module that
# requires it works.
$(BIN)/tctl: $(TCTL_PIN)
	@echo ">> building tctl v1.18.0 into bin/ (about a minute the first time)"
	cd hack/tctl && $(GO) build -ldflags '-s -w' -o $(BIN)/tctl github.com/temporalio/tctl/cmd/tctl

# Both builds of the starter: the production one and the lab one.
vet:
	$(GO) vet ./...
	$(GO) vet $(LAB) ./starter

# The test command of the README and of CI. Integration tests start the
# dev server and the lab from bin/, the production test also PostgreSQL,
# so the tools come first; the worker and starter binaries that tests run
# as processes are linked once, into a per-run directory (RACKROLL_CMD_DIR).
# The tests run the lab build of the starter ($(LAB)); the production
# starter's own tests (./starter without the tag) run first, briefly.
# Two go tests run at once:
#  - the tests: the lab packages sleep on simulated hardware most of the
#    time, so more packages run at once (-p) than there are cores, the
#    heaviest first on the line (go test starts them in that order);
#  - every benchmark once at its smallest size (RACKROLL_BENCH_SMALL=1), in
#    the packages that have benchmarks: a benchmark that no longer runs
#    fails the suite. Apart, because -bench makes go test run its packages
#    one after another.
# TEST_JSON=file writes go test -json to file and file.bench (test-profile).
# -p 4: once the lab's servers ran on one P each (toolbin.OneProcEnv), the
# packages' summed time over three lanes was the bound: make test-profile
# took 13.1 min on 236e04a with -p 3, 11.3 min on 8031f83 with -p 4.
TEST_P     ?= 4
# Test binaries and the processes they run link without DWARF (-w): a third
# less link time each (9 → 6 s CPU for test/upgrade's), some 60 links a
# run. Stack traces keep their file:line (that is the pclntab, not DWARF).
NODWARF    := -ldflags=-w
# Tests build and link without cgo: kubectl's drain pulls in kustomize,
# whose plugin loader imports "plugin", which makes every binary that
# links it go through gcc and ld (external linking): 45 s of ld a run, and
# each link a third slower (process accounting over make test-profile, and
# go test -c of test/upgrade: 7.7 → 4.8 CPU-s, on 53eaafb). Nothing the tests run needs cgo (loopback only).
TESTCGO    := CGO_ENABLED=0
HEAVY_PKGS := ./test/upgrade ./test/controlplane ./test/reliability ./test/demo ./test/production ./starter ./test/actions ./test/deploy ./test/cli ./test/selfupgrade ./workflows ./workflows/upgrade ./workflows/remediation ./test/multisite ./test/growth ./test/fleet
BENCH_PKGS  = $(sort $(dir $(shell grep -rl --include='*_test.go' '^func Benchmark' . | grep -v '^./hack/')))
test: tools postgres vet
	@export $(TESTCGO) && d=$$(mktemp -d /tmp/rackroll-cmds-XXXXXX) && trap 'rm -rf $$d' EXIT && \
	$(GO) test $(NODWARF) -short -count=1 ./starter && \
	$(GO) build $(NODWARF) -o $$d/worker ./worker && $(GO) build $(NODWARF) $(LAB) -o $$d/starter ./starter && \
	{ RACKROLL_CMD_DIR=$$d $(GO) test $(NODWARF) $(LAB) -count=1 -timeout 30m -p $(TEST_P) $(if $(TEST_JSON),-json) \
		$(HEAVY_PKGS) ./... $(if $(TEST_JSON),> $(TEST_JSON)) & tests=$$!; } && \
	{ RACKROLL_BENCH_SMALL=1 $(GO) test $(NODWARF) $(LAB) -count=1 -run '^$$' -bench . -benchtime 1x -timeout 30m $(if $(TEST_JSON),-json) \
		$(BENCH_PKGS) $(if $(TEST_JSON),> $(TEST_JSON).bench) & bench=$$!; } && \
	t=0 && b=0 && { wait $$tests || t=$$?; } && { wait $$bench || b=$$?; } && \
	if [ $$t != 0 ] || [ $$b != 0 ]; then echo "make test: tests exit $$t, benchmarks exit $$b" >&2; exit 1; fi

# make test, timed: the wall time and the slowest packages and tests go
# into bench/results.json and docs/performance.md with the date and commit.
test-profile:
	$(GO) run ./hack/bench suite

# Quick local loop: unit tests only (integration tests skip under -short),
# built as make test builds them (no cgo, no DWARF), so each shares the
# other's build cache and links no slower.
test-short:
	export $(TESTCGO) && $(GO) test $(NODWARF) -short ./starter && $(GO) test $(NODWARF) -short $(LAB) ./...

# The convergence property over 10,000 scenarios (make test runs 300);
# SEED=S starts elsewhere. Twenty processes of 500: the SDK's test
# environment keeps ~2 MB per scenario until its process ends.
SEED ?= 20261123
soak:
	@for i in $$(seq 0 19); do \
		$(GO) test -count=1 -timeout 30m ./workflows -run TestPropertyConvergeAfterInterruptions \
			-args -seed=$$(( $(SEED) + 500 * i )) -seeds=500 || exit 1; \
	done

# The server the tests and the demo run (internal/devserver), kept in .data/.
dev-server: tools
	$(GO) run ./hack/devserver --port 7233 --ui-port 8233 --db .data/temporal.db

worker:
	$(GO) run ./worker

# The README's "run it": dev server + UI (:8233), the lab for
# examples/four-rack.yaml, a worker, and a full runtime upgrade with live
# progress. ONCE=1 exits after the summary (0 on success).
demo:
	@if [ ! -x $(BIN)/temporal-server-$(TEMPORAL_SERVER_VERSION) ] || [ ! -x $(BIN)/kube-apiserver ] || [ ! -x $(BIN)/etcd ]; then \
		echo ">> first run: building the Temporal server, its UI and CLI, etcd and kube-apiserver from the Go module proxy (about 15 minutes, once)"; fi
	@$(MAKE) --no-print-directory tools
	@$(GO) build -o $(BIN)/worker ./worker
	@$(GO) build $(LAB) -o $(BIN)/starter ./starter
	$(BIN)/starter demo $(if $(ONCE),--once) $(DEMO_FLAGS)

clean:
	rm -rf .data bin/worker bin/starter out

# The keyset pod's image (docs/keysets-nodes.md#the-image), built without a
# container engine (hack/image, go-containerregistry): an OCI layout in
# out/image, tagged VERSION, which `crane push out/image <ref>` or `skopeo
# copy --all oci:out/image:<VERSION> docker://<ref>` publishes. VERSION is
# the worker's version (internal/version, -X at link time): the worker
# names ghcr.io/rackroll/rackroll-keyset:<its version> unless told
# otherwise (RACKROLL_KEYSET_IMAGE).
VERSION ?= dev
image:
	$(GO) run ./hack/image --out out/image --version $(VERSION)

# Speed and memory figures live in benchmarks, never in timed tests.
# Benchmarks (hack/bench): prints one table — figure, goal, result, met? —
# and writes bench/results.json. BENCH_ONLY=lab,critical,storm,history runs
# only those groups (the others keep their previous figures); BENCH_SUITE=1
# also times `go test ./...`; RACKROLL_STORM_N=1000 sizes the storm.
bench: tools
	$(GO) run ./hack/bench

# Re-record the workflow histories the replay tests replay (after a
# deliberate, versioned workflow change).
histories: tools
	RACKROLL_RECORD_HISTORIES=1 $(GO) test $(LAB) -count=1 -timeout 40m -run 'TestE2E' ./test/... ./starter/...

# Bounded fuzzing of the parsers (go test runs only their seed corpus).
# FUZZTIME=2m make fuzz for a longer run; a failing input lands in
# internal/model/testdata/fuzz/ and becomes a regression seed.
FUZZTIME ?= 20s
.PHONY: fuzz
fuzz:
	$(GO) test ./internal/model/ -run '^$$' -fuzz '^FuzzParseInventory$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/model/ -run '^$$' -fuzz '^FuzzParseVersion$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
	$(GO) test ./internal/model/ -run '^$$' -fuzz '^FuzzStrategyValidate$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 5s

# Reliability at full size (issue 8, test/reliability): 20+ SIGKILLs of the
# worker binary during a four-rack upgrade, kills during a remediation and a
# user reimage, Temporal server restarts mid-upgrade, BMC faults on every
# BMC, and a secret scan; prints a table of figures at the end. `make test`
# runs the same package at a reduced size.
.PHONY: reliability
reliability: tools
	$(GO) test -tags reliability_full -count=1 -v -timeout 90m ./test/reliability/
