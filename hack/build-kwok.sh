#!/usr/bin/env bash
# build-kwok.sh KWOK_VERSION OUTDIR builds the local upstream's kwok from the
# module in hack/kwok (kwok's command behind a front that serves `kubectl
# exec` from a sandbox of built-in commands, never on this machine) into
# OUTDIR/kwok. Go's build cache makes a build of unchanged sources quick, so
# callers run it freely.
set -euo pipefail

kwok_version=${1:?usage: build-kwok.sh KWOK_VERSION OUTDIR}
out=${2:?usage: build-kwok.sh KWOK_VERSION OUTDIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out" && out=$(cd "$out" && pwd)

cd "$here/kwok"
pinned=$(go list -m -f '{{.Version}}' sigs.k8s.io/kwok)
if [[ $pinned != "$kwok_version" ]]; then
  echo "hack/kwok/go.mod pins sigs.k8s.io/kwok $pinned, but $kwok_version was asked for; update hack/kwok/go.mod" >&2
  exit 1
fi
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$out/kwok" .
