# hack/lib.sh: what hack/build-kube.sh and hack/build-conformance.sh share.
# Source it (it sets no options and runs nothing by itself).

# modsum MODDIR prints a short hash of MODDIR's go.sum and go.mod: the
# contents only, not the paths, so worktrees of one repository share a cache.
modsum() {
  cat "$1/go.sum" "$1/go.mod" | sha256sum | cut -c1-16
}

# is_built STAMP WANT succeeds when the build whose stamp file is STAMP is
# complete and was made for WANT.
is_built() {
  [[ -f $1 && $(cat "$1") == "$2" ]]
}

# check_pin MODDIR VERSION fails, with a message, unless MODDIR's go.mod pins
# k8s.io/kubernetes VERSION.
check_pin() {
  local pinned
  pinned=$(cd "$1" && go list -m -f '{{.Version}}' k8s.io/kubernetes)
  if [[ $pinned != "$2" ]]; then
    echo "hack/$(basename "$1")/go.mod pins k8s.io/kubernetes $pinned, but $2 was asked for; update hack/$(basename "$1")/go.mod" >&2
    return 1
  fi
}

# kube_ldflags VERSION prints the linker flags that stamp Kubernetes VERSION
# into component-base and client-go, as the Kubernetes release build does.
# Both builds use the same flags, so the packages they share come from the
# Go build cache.
kube_ldflags() {
  local version=$1 minor major ldflags="-s -w" pkg
  minor=${version#v*.}; minor=${minor%%.*}
  major=${version#v}; major=${major%%.*}
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ldflags+=" -X $pkg.gitVersion=$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
    ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  echo "$ldflags"
}
