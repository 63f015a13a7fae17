#!/usr/bin/env bash
# build-kube.sh VERSION OUTDIR builds the control plane of Kubernetes VERSION
# (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl) from
# the module in hack/kube, and kwok, into OUTDIR. It is a no-op when OUTDIR
# already holds a complete build of that version, so callers may run it freely.
set -euo pipefail

version=${1:?usage: build-kube.sh VERSION OUTDIR KWOK_VERSION}
out=${2:?usage: build-kube.sh VERSION OUTDIR KWOK_VERSION}
mkdir -p "$out" && out=$(cd "$out" && pwd)
kwok_version=${3:?usage: build-kube.sh VERSION OUTDIR KWOK_VERSION}
here=$(cd "$(dirname "$0")" && pwd)
stamp="$out/.complete"
# The contents only, not the paths: worktrees of one repository share the cache.
want="kubernetes=$version kwok=$kwok_version modsum=$(cat "$here/kube/go.sum" "$here/kube/go.mod" | sha256sum | cut -c1-16)"

if [[ -f $stamp && $(cat "$stamp") == "$want" ]]; then
  exit 0
fi

pinned=$(cd "$here/kube" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
if [[ $pinned != "$version" ]]; then
  echo "hack/kube/go.mod pins k8s.io/kubernetes $pinned, but $version was asked for; update hack/kube/go.mod" >&2
  exit 1
fi

mkdir -p "$out"
rm -f "$stamp"
minor=${version#v*.}; minor=${minor%%.*}
major=${version#v}; major=${major%%.*}
ldflags="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
  ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

echo "building Kubernetes $version control plane into $out (first time only; takes several minutes)" >&2
(
  cd "$here/kube"
  export CGO_ENABLED=0
  go build -trimpath -ldflags "$ldflags" -o "$out/" \
    k8s.io/kubernetes/cmd/kube-apiserver \
    k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler \
    k8s.io/kubernetes/cmd/kubectl \
    ./cmd/etcd
)
echo "building kwok $kwok_version into $out" >&2
GOBIN="$out" CGO_ENABLED=0 go install -trimpath -ldflags "-s -w" "sigs.k8s.io/kwok/cmd/kwok@$kwok_version"
echo "$want" > "$stamp"
