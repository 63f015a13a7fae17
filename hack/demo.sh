#!/usr/bin/env bash
# hack/demo.sh — the kubectl-zoo story on a local upstream (`make demo`).
#
#   hack/demo.sh up     build, start the dev cluster, install, two tenants,
#                       start `kubectl zoo serve` for both, tell the story,
#                       and leave the proxies running
#   hack/demo.sh down   stop the proxies and the dev cluster
#
# Works without a terminal (CI=true, no stdin): nothing is ever prompted.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KUBE_VERSION=${KUBE_VERSION:-v1.34.4}
DEV_DIR=${DEV_DIR:-$ROOT/.zoo-dev}
DEMO_DIR=$DEV_DIR/demo
KUBECTL=$ROOT/.cache/kube/$KUBE_VERSION/kubectl
ZOO=$ROOT/bin/kubectl-zoo
ADMIN_KUBECONFIG=$DEV_DIR/kubeconfig
TENANTS=(acme globex)

if [[ -t 1 && -z "${NO_COLOR:-}" && "${CI:-}" != "true" ]]; then
	BOLD=$'\e[1m' DIM=$'\e[2m' CYAN=$'\e[36m' RESET=$'\e[0m'
else
	BOLD='' DIM='' CYAN='' RESET=''
fi

say() { printf '\n%s== %s%s\n' "$BOLD" "$*" "$RESET"; }
# run shows a command the way a user would type it, then runs it.
run() {
	printf '%s$ %s%s\n' "$CYAN" "$*" "$RESET"
	"$@"
}
upstream() { "$KUBECTL" --kubeconfig "$ADMIN_KUBECONFIG" "$@"; }
as_tenant() {
	local t=$1
	shift
	printf '%s[%s]$ kubectl %s%s\n' "$CYAN" "$t" "$*" "$RESET"
	KUBECONFIG=$DEMO_DIR/$t.kubeconfig "$KUBECTL" "$@"
}

stop_proxies() {
	for t in "${TENANTS[@]}"; do
		local pidfile=$DEMO_DIR/$t.pid
		if [[ -f $pidfile ]]; then
			local pid
			pid=$(cat "$pidfile")
			if kill -0 "$pid" 2>/dev/null && grep -q kubectl-zoo "/proc/$pid/cmdline" 2>/dev/null; then
				kill -TERM "$pid" 2>/dev/null || true
				for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
			fi
			rm -f "$pidfile"
		fi
	done
}

start_proxy() {
	local t=$1 log=$DEMO_DIR/$1.log
	: >"$log"
	nohup "$ZOO" --kubeconfig "$ADMIN_KUBECONFIG" serve --tenant "$t" \
		--kubeconfig-out "$DEMO_DIR/$t.kubeconfig" -v=2 </dev/null >"$log" 2>&1 &
	echo $! >"$DEMO_DIR/$t.pid"
	for _ in $(seq 100); do
		if grep -q '^Serving tenant' "$log"; then
			return 0
		fi
		sleep 0.1
	done
	echo "kubectl zoo serve --tenant $t did not start:" >&2
	cat "$log" >&2
	return 1
}

up() {
	say "Building kubectl-zoo and starting the shared upstream cluster"
	make -C "$ROOT" --no-print-directory build
	make -C "$ROOT" --no-print-directory dev-cluster
	mkdir -p "$DEMO_DIR"
	chmod 700 "$DEMO_DIR"
	stop_proxies

	say "The cluster admin installs kubectl-zoo and creates two tenants"
	run "$ZOO" --kubeconfig "$ADMIN_KUBECONFIG" install
	for t in "${TENANTS[@]}"; do
		run "$ZOO" --kubeconfig "$ADMIN_KUBECONFIG" tenant create "$t"
	done

	say "Each tenant gets a local proxy with its own kubeconfig"
	for t in "${TENANTS[@]}"; do
		start_proxy "$t"
		head -n1 "$DEMO_DIR/$t.log"
	done

	say "Both tenants see a fresh cluster of their own"
	for t in "${TENANTS[@]}"; do
		as_tenant "$t" get namespaces
	done

	say "Both create the SAME names, with different data"
	for t in "${TENANTS[@]}"; do
		# A second `make demo` starts the story over.
		KUBECONFIG=$DEMO_DIR/$t.kubeconfig "$KUBECTL" delete namespace shop --ignore-not-found --wait=true >/dev/null
		as_tenant "$t" create namespace shop
		as_tenant "$t" -n shop create configmap settings --from-literal=owner="$t"
		as_tenant "$t" -n shop create deployment web --image=registry.example/web:1
	done

	say "Each sees only its own"
	for t in "${TENANTS[@]}"; do
		as_tenant "$t" -n shop get configmap settings -o jsonpath='{.data.owner}{"\n"}'
		as_tenant "$t" get deployments -A
	done

	say "The upstream holds both, under prefixed names"
	printf "%s$ kubectl get configmaps -A --field-selector metadata.name=settings%s\n" "$CYAN" "$RESET"
	upstream get configmaps -A --field-selector metadata.name=settings
	if "$ZOO" explain --help >/dev/null 2>&1; then
		for t in "${TENANTS[@]}"; do
			run "$ZOO" explain --tenant "$t" ns/shop cm/settings deploy/web -n shop
		done
	fi

	say "A tenant cannot reach the other's objects, not even by the upstream name"
	as_tenant acme -n globex-shop get configmap settings || true
	as_tenant acme get namespace globex-shop || true

	say "The proxies keep running"
	for t in "${TENANTS[@]}"; do
		echo "  $t:  export KUBECONFIG=$DEMO_DIR/$t.kubeconfig; kubectl --context zoo-$t get ns    ${DIM}(log: $DEMO_DIR/$t.log)${RESET}"
	done
	echo "  kubectl: $KUBECTL"
	echo "  upstream admin: export KUBECONFIG=$ADMIN_KUBECONFIG"
	echo "  stop everything: make demo-down"
}

down() {
	stop_proxies
	make -C "$ROOT" --no-print-directory dev-cluster-down
	rm -rf "$DEMO_DIR"
}

case "${1:-up}" in
up) up ;;
down) down ;;
*)
	echo "usage: $0 up|down" >&2
	exit 2
	;;
esac
