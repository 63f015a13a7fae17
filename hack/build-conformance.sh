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
stamp="$out/.complete"
# The contents only, not the paths: worktrees of one repository share the cache.
want="kubernetes=$version modsum=$(cat "$here/conformance/go.sum" "$here/conformance/go.mod" | sha256sum | cut -c1-16)"

if [[ -f $stamp && $(cat "$stamp") == "$want" ]]; then
  exit 0
fi

pinned=$(cd "$here/conformance" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
if [[ $pinned != "$version" ]]; then
  echo "hack/conformance/go.mod pins k8s.io/kubernetes $pinned, but $version was asked for; update hack/conformance/go.mod" >&2
  exit 1
fi

rm -f "$stamp"
minor=${version#v*.}; minor=${minor%%.*}
major=${version#v}; major=${major%%.*}
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

echo "building the Kubernetes $version e2e suite and ginkgo into $out (first time only; takes several minutes)" >&2
start=$(date +%s)
(
  cd "$here/conformance"
  # The same flags as hack/build-kube.sh, so the packages both builds share
  # come from the Go build cache.
  export CGO_ENABLED=0
  go test -c -trimpath -ldflags "$ldflags" -o "$out/e2e.test" k8s.io/kubernetes/test/e2e
  go build -trimpath -ldflags "-s -w" -o "$out/ginkgo" github.com/onsi/ginkgo/v2/ginkgo
)
echo "built e2e.test and ginkgo in $(( $(date +%s) - start ))s" >&2
echo "$want" > "$stamp"
