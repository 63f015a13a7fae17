# kubectl-zoo — see README.md. `make demo` runs the story, `make test` the tests.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build

# The one place the Kubernetes version is pinned: the client libraries in go.mod
# and the control plane the tests run (hack/kube/go.mod) must match it.
KUBE_VERSION ?= v1.34.4
KWOK_VERSION ?= v0.7.0
GORELEASER_VERSION ?= v2.12.0

ROOT := $(abspath .)
CACHE := $(ROOT)/.cache
KUBE_BIN := $(CACHE)/kube/$(KUBE_VERSION)
TOOLS_BIN := $(CACHE)/tools
GORELEASER := $(TOOLS_BIN)/goreleaser-$(GORELEASER_VERSION)
K9S_VERSION := v0.50.16
K9S := $(TOOLS_BIN)/k9s-$(K9S_VERSION)/k9s
CONFORMANCE_BIN := $(CACHE)/conformance/$(KUBE_VERSION)
# The local upstream's kwok (hack/kwok), built from this checkout.
KWOK_BIN := $(ROOT)/bin/kwok
DEV_DIR := $(ROOT)/.zoo-dev

# A release tag (v1.2.3) when there is one, else v0.0.0-<commit>, so the
# version is always semver with a leading v.
VERSION ?= $(shell git describe --tags --match 'v[0-9]*' --dirty 2>/dev/null || echo v0.0.0-$$(git rev-parse --short HEAD 2>/dev/null || echo dev))
COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
LDFLAGS := -s -w -X github.com/kubectl-zoo/kubectl-zoo/pkg/cmd.version=$(VERSION) \
	-X github.com/kubectl-zoo/kubectl-zoo/pkg/cmd.commit=$(COMMIT) \
	-X github.com/kubectl-zoo/kubectl-zoo/pkg/cmd.date=$(DATE)

# E2E packages live under test/e2e; everything else is a unit test.
E2E_PKGS = $(shell go list ./test/e2e/... 2>/dev/null)
UNIT_PKGS = $(shell go list ./... | grep -v /test/e2e)
GOTEST_FLAGS ?=
E2E_TIMEOUT ?= 25m

export ZOO_KUBE_BIN := $(KUBE_BIN)
export ZOO_KWOK_BIN := $(KWOK_BIN)
export ZOO_ROOT := $(ROOT)
export ZOO_KUBE_VERSION := $(KUBE_VERSION)

.PHONY: build
build: ## Build bin/kubectl-zoo
	CGO_ENABLED=0 go build -trimpath -ldflags '$(LDFLAGS)' -o bin/kubectl-zoo ./cmd/kubectl-zoo

.PHONY: kube
kube: ## Build the pinned control plane (cached under .cache/kube/<version>)
	hack/build-kube.sh $(KUBE_VERSION) $(KUBE_BIN) $(KWOK_VERSION)

.PHONY: kwok
kwok: ## Build the local upstream's kwok, whose exec runs in a sandbox (hack/kwok), into bin/kwok/
	hack/build-kwok.sh $(KWOK_VERSION) $(KWOK_BIN)

.PHONY: test
test: test-unit test-e2e test-conformance-fast ## Unit, end-to-end and a few conformance tests

.PHONY: test-unit
test-unit: ## Unit tests (no cluster), with a few seconds of fuzzing
	go test $(GOTEST_FLAGS) $(UNIT_PKGS)
	cd hack/kwok && go test $(GOTEST_FLAGS) ./...
	$(MAKE) --no-print-directory fuzz FUZZ_TIME=$(TEST_FUZZ_TIME)

# The translator's fuzz targets: round trip backward(forward(x)) == x,
# injectivity of the tenant name mapping, and the protobuf answer path.
FUZZ_TARGETS := FuzzRoundTrip FuzzInjective FuzzTranslateProtobuf FuzzAPIAccessRoundTrip
# The proxy's: every body that reaches the upstream is the translator's.
FUZZ_PROXY_TARGETS := FuzzProxyForwardsOnlyTranslated
FUZZ_TIME ?= 60s
TEST_FUZZ_TIME ?= 3s

.PHONY: fuzz
fuzz: ## Fuzz the translator and the proxy (FUZZ_TIME per target, 60s by default)
	for target in $(FUZZ_TARGETS); do \
		go test -run='^$$' -fuzz="^$$target\$$" -fuzztime=$(FUZZ_TIME) ./pkg/translate || exit 1; \
	done
	for target in $(FUZZ_PROXY_TARGETS); do \
		go test -run='^$$' -fuzz="^$$target\$$" -fuzztime=$(FUZZ_TIME) ./pkg/localproxy || exit 1; \
	done

.PHONY: test-e2e
test-e2e: build kube kwok ## End-to-end tests against a real local control plane
	go test $(GOTEST_FLAGS) -p 1 -timeout $(E2E_TIMEOUT) $(E2E_PKGS)

.PHONY: bench
bench: build kube kwok ## The proxy's cost beside the direct upstream and a pass-through hop; translator benchmarks
	go test -run='^$$' -bench=. -benchmem ./pkg/translate
	go run ./test/bench -kube-bin $(KUBE_BIN) -zoo bin/kubectl-zoo -out bench/results.json

.PHONY: bench-sleep
bench-sleep: build kube kwok ## What tenant sleep and wake cost: upstream requests and time for 10 and 100 Deployments (docs/sleep.md)
	go test -run='^$$' -bench=BenchmarkSleepWake -benchtime=5x -timeout 20m ./test/e2e/tenant/

# The scale workload, 2 tenants against TENANTS: write latency (as the cluster
# admin, as a tenant identity directly and through serve), reads through serve,
# the tenant commands, what a tenant costs the upstream; then one tenant with
# 200 namespaces against one with 1. `go run ./test/bench -h` lists the knobs.
TENANTS ?= 1000

.PHONY: bench-scale
bench-scale: build kube kwok ## What the number of tenants costs (writes, reads, tenant commands, upstream objects/bytes/RSS): 2 tenants against TENANTS (1000)
	go run ./test/bench -kube-bin $(KUBE_BIN) -zoo bin/kubectl-zoo -only scale -tenants $(TENANTS) -out bench/scale-results.json

# The fleet workload: one server replica holding the watches of 200 tenants
# (informers of ConfigMaps, Pods, Secrets and Events) at each of FLEET_WATCHES,
# under a steady write load, beside the same watches directly upstream.
FLEET_WATCHES ?= 1000,5000,10000

.PHONY: bench-fleet
bench-fleet: build kube kwok ## One server replica holding FLEET_WATCHES (1000,5000,10000) watches of 200 tenants under writes: its RSS and CPU, event latency against the same watches directly upstream
	go run ./test/bench -kube-bin $(KUBE_BIN) -zoo bin/kubectl-zoo -only fleet -fleet-watches $(FLEET_WATCHES) -out bench/fleet-results.json

# The Kubernetes conformance suite (e2e.test) directly and through serve.
CONFORMANCE_NODES ?= 2

.PHONY: conformance-bin
conformance-bin: ## Build the pinned e2e.test and ginkgo (cached under .cache/conformance/<version>)
	hack/build-conformance.sh $(KUBE_VERSION) $(CONFORMANCE_BIN)

.PHONY: conformance
conformance: build kube kwok conformance-bin ## sig-api-machinery conformance directly and through serve; the ratio and every spec lost
	go run ./test/conformance -kube-bin $(KUBE_BIN) -e2e-bin $(CONFORMANCE_BIN) -zoo bin/kubectl-zoo \
		-nodes $(CONFORMANCE_NODES) -work $(ROOT)/.zoo-conformance -out bench/conformance.json

# sig-apps and sig-auth the same way (make conformance-apps, make
# conformance-auth): their results go to bench/conformance-<sig>.json.
CONFORMANCE_SIG_TIMEOUT ?= 90m

.PHONY: conformance-apps conformance-auth
conformance-apps conformance-auth: conformance-%: build kube kwok conformance-bin ## sig-apps (sig-auth) conformance directly and through serve
	go run ./test/conformance -kube-bin $(KUBE_BIN) -e2e-bin $(CONFORMANCE_BIN) -zoo bin/kubectl-zoo \
		-focus '\[sig-$*\].*\[Conformance\]' -timeout $(CONFORMANCE_SIG_TIMEOUT) \
		-nodes $(CONFORMANCE_NODES) -work $(ROOT)/.zoo-conformance-$* -out bench/conformance-$*.json

.PHONY: test-conformance-fast
test-conformance-fast: build kube kwok conformance-bin ## A few fast sig-api-machinery conformance specs through serve (test/conformance/fast.go)
	go run ./test/conformance -fast -kube-bin $(KUBE_BIN) -e2e-bin $(CONFORMANCE_BIN) -zoo bin/kubectl-zoo \
		-nodes $(CONFORMANCE_NODES) -work $(ROOT)/.zoo-conformance-fast

.PHONY: lint
lint: $(GORELEASER) ## gofmt, go vet, goreleaser check
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt wants to change:"; echo "$$out"; exit 1; fi
	go vet ./...
	cd hack/kube && go vet ./...
	cd hack/kwok && go vet ./...
	$(GORELEASER) check

$(GORELEASER):
	mkdir -p $(TOOLS_BIN)
	GOBIN=$(TOOLS_BIN)/goreleaser-build go install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)
	mv $(TOOLS_BIN)/goreleaser-build/goreleaser $@

.PHONY: dev-cluster
dev-cluster: kube kwok ## Start the local upstream in the background; admin kubeconfig in .zoo-dev/kubeconfig
	go run ./internal/devcluster up --dir $(DEV_DIR) --bin $(KUBE_BIN)

.PHONY: dev-cluster-down
dev-cluster-down: ## Stop the local upstream
	go run ./internal/devcluster down --dir $(DEV_DIR)

.PHONY: clean
clean: dev-cluster-down ## Remove build output (keeps the cached Kubernetes build)
	rm -rf bin dist

.PHONY: help
help:
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "%-18s %s\n", $$1, $$2}'

.PHONY: demo
demo: ## Two tenants on a local upstream: build, install, serve both, tell the story (proxies keep running)
	KUBE_VERSION=$(KUBE_VERSION) hack/demo.sh up

.PHONY: k9s-check
k9s-check: build kube kwok $(K9S) ## k9s through a tenant's view: the demo, then k9s's all-namespaces views as acme, each screen printed and checked (docs/tools.md)
	K9S=$(K9S) KUBE_VERSION=$(KUBE_VERSION) hack/k9s.sh

$(K9S):
	GOBIN=$(dir $(K9S)) go install github.com/derailed/k9s@$(K9S_VERSION)

.PHONY: demo-down
demo-down: ## Stop the demo's proxies and the dev cluster
	KUBE_VERSION=$(KUBE_VERSION) hack/demo.sh down
