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
# shellcheck source=hack/lib.sh
source "$here/lib.sh"
stamp="$out/.complete"
want="kubernetes=$version kwok=$kwok_version modsum=$(modsum "$here/kube")"

if is_built "$stamp" "$want"; then
  exit 0
fi
check_pin "$here/kube" "$version"

mkdir -p "$out"
rm -f "$stamp"
ldflags=$(kube_ldflags "$version")

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
