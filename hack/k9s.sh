#!/usr/bin/env bash
# hack/k9s.sh — k9s through a tenant's view (`make k9s-check`).
#
# Starts the demo (hack/demo.sh up: the local upstream, two tenants and a
# `kubectl zoo serve` for each), gives tenant acme a second namespace with
# a pod of its own, and runs the pinned k9s in a detached tmux session with
# acme's kubeconfig, in all namespaces. It walks k9s's views (pods,
# deployments, namespaces, events, configmaps), saves each screen as text
# under .zoo-dev/k9s/, prints them, and fails when a view shows an error
# (access denied, forbidden), misses acme's objects, or shows the other
# tenant's. KEEP=1 leaves the demo running; otherwise it is stopped.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
KUBE_VERSION=${KUBE_VERSION:-v1.34.4}
K9S=${K9S:?K9S must name the k9s binary (make k9s-check builds it)}
DEV_DIR=${DEV_DIR:-$ROOT/.zoo-dev}
OUT=$DEV_DIR/k9s
KUBECTL=$ROOT/.cache/kube/$KUBE_VERSION/kubectl
ACME=$DEV_DIR/demo/acme.kubeconfig
SESSION=zoo-k9s-$$

command -v tmux >/dev/null || { echo "k9s-check needs tmux" >&2; exit 1; }

cleanup() {
	tmux kill-session -t "$SESSION" 2>/dev/null || true
	if [[ "${KEEP:-}" != 1 ]]; then
		KUBE_VERSION=$KUBE_VERSION "$ROOT/hack/demo.sh" down >/dev/null 2>&1 || true
	fi
}
trap cleanup EXIT

echo "== starting the demo (hack/demo.sh up)"
mkdir -p "$DEV_DIR"
KUBE_VERSION=$KUBE_VERSION "$ROOT/hack/demo.sh" up >"$DEV_DIR/k9s-demo.log" 2>&1 || {
	cat "$DEV_DIR/k9s-demo.log" >&2
	exit 1
}
acme() { KUBECONFIG=$ACME "$KUBECTL" "$@"; }
acme create namespace tools --dry-run=client -o yaml | acme apply -f - >/dev/null
acme -n tools run toolbox --image=registry.example/toolbox:1 --restart=Never >/dev/null 2>&1 || true
acme -n tools wait --for=condition=Ready pod/toolbox --timeout=60s >/dev/null
acme -n shop rollout status deployment/web --timeout=60s >/dev/null

# acme's user dev may only view the namespace tools: its own serve.
acme create rolebinding dev-view -n tools --clusterrole=view --user=dev --dry-run=client -o yaml | acme apply -f - >/dev/null
DEV=$DEV_DIR/demo/acme-dev.kubeconfig
"$ROOT/bin/kubectl-zoo" --kubeconfig "$DEV_DIR/kubeconfig" serve --tenant acme --user dev --kubeconfig-out "$DEV" \
	</dev/null >"$DEV_DIR/demo/acme-dev.log" 2>&1 &
DEV_PID=$!
trap 'kill $DEV_PID 2>/dev/null || true; cleanup' EXIT
for _ in $(seq 100); do grep -q '^Serving tenant' "$DEV_DIR/demo/acme-dev.log" && break; sleep 0.1; done

rm -rf "$OUT"
mkdir -p "$OUT/config"

# k9s KUBECONFIG: start k9s in the session, in all namespaces, on the pods
# view. It keeps its configuration and state under XDG dirs: a private one.
k9s() {
	tmux kill-session -t "$SESSION" 2>/dev/null || true
	tmux new-session -d -s "$SESSION" -x 200 -y 50 \
		"env XDG_CONFIG_HOME=$OUT/config XDG_STATE_HOME=$OUT/config XDG_DATA_HOME=$OUT/config XDG_CACHE_HOME=$OUT/config \
		 $K9S --kubeconfig $1 --all-namespaces --command pods --logoless --readonly; sleep 600"
}

# screen VIEW [NAME]: switch k9s to VIEW (":VIEW<Enter>", but for the first)
# and save the screen once it has settled, as NAME (VIEW).
screen() {
	local view=$1 file=$OUT/${2:-$1}.txt
	if [[ $view != pods ]]; then
		tmux send-keys -t "$SESSION" ":$view" Enter
	fi
	local prev="" cur=""
	for _ in $(seq 30); do
		sleep 1
		cur=$(tmux capture-pane -p -t "$SESSION")
		if [[ -n $cur && $cur == "$prev" && $cur == *"$view"* ]]; then
			break
		fi
		prev=$cur
	done
	printf '%s\n' "$cur" >"$file"
	echo "== k9s, view $view, as ${WHO:-the admin of acme} in all namespaces ($file)"
	# Without trailing blanks, empty lines and the table's empty rows.
	sed -e 's/[[:space:]]*$//' "$file" | grep -v -e '^$' -e '^│[[:space:]]*│$'
}

fail=0
expect() { # FILE WORD...: every WORD on the screen
	local file=$1
	shift
	for w in "$@"; do
		grep -q -- "$w" "$file" || { echo "FAIL: $(basename "$file" .txt) does not show $w" >&2; fail=1; }
	done
}
refuse() { # FILE WORD...: no WORD on the screen
	local file=$1
	shift
	for w in "$@"; do
		if grep -qi -- "$w" "$file"; then echo "FAIL: $(basename "$file" .txt) shows $w" >&2; fail=1; fi
	done
}

k9s "$ACME"
screen pods
expect "$OUT/pods.txt" shop tools toolbox web-
screen deploy
expect "$OUT/deploy.txt" shop web
screen ns
expect "$OUT/ns.txt" default kube-system shop tools
screen events
screen cm
expect "$OUT/cm.txt" settings
# A user who may view one namespace only: k9s asks `can-i list pods -A`,
# and the view answers as its fan-out serves (the other namespaces left
# out, with a warning k9s does not show).
WHO="user dev of acme (view in tools only)" k9s "$DEV"
WHO="user dev of acme (view in tools only)" screen pods dev-pods
expect "$OUT/dev-pods.txt" tools toolbox
refuse "$OUT/dev-pods.txt" shop web-
for f in "$OUT"/*.txt; do
	refuse "$f" "access denied" forbidden "not authorized" globex acme-shop
done
if [[ $fail != 0 ]]; then
	echo "k9s through acme's view: FAILED" >&2
	exit 1
fi
echo "k9s through acme's view: every all-namespaces view shows acme's objects, in acme's names, and nothing else"
