#!/usr/bin/env bash
# build-conformance.sh VERSION OUTDIR builds the Kubernetes VERSION e2e suite
# (e2e.test) and the ginkgo CLI it is written for from the module in
# hack/conformance into OUTDIR. It is a no-op when OUTDIR already holds a
# complete build from the same go.mod and go.sum, so callers may run it freely.
set -euo pipefail

version=${1:?usage: build-conformance.sh VERSION OUTDIR}
out=${2:?usage: build-conformance.sh VERSION OUTDIR}
mkdir -p "$out" && out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=hack/lib.sh
source "$here/lib.sh"
stamp="$out/.complete"
want="kubernetes=$version modsum=$(modsum "$here/conformance")"

if is_built "$stamp" "$want"; then
  exit 0
fi
check_pin "$here/conformance" "$version"

rm -f "$stamp"
ldflags=$(kube_ldflags "$version")

echo "building the Kubernetes $version e2e suite and ginkgo into $out (first time only; takes several minutes)" >&2
start=$(date +%s)
(
  cd "$here/conformance"
  # The same flags as hack/build-kube.sh (kube_ldflags), so the packages
  # both builds share come from the Go build cache.
  export CGO_ENABLED=0
  go test -c -trimpath -ldflags "$ldflags" -o "$out/e2e.test" k8s.io/kubernetes/test/e2e
  go build -trimpath -ldflags "-s -w" -o "$out/ginkgo" github.com/onsi/ginkgo/v2/ginkgo
)
echo "built e2e.test and ginkgo in $(( $(date +%s) - start ))s" >&2
echo "$want" > "$stamp"
