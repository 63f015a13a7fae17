package translate

import (
	"encoding/json"
	"fmt"
)

// A tenant's workloads must reach the tenant's view of the cluster, as an
// in-cluster client of a cluster of its own would: client-go's
// rest.InClusterConfig reads KUBERNETES_SERVICE_HOST and
// KUBERNETES_SERVICE_PORT, and under ServiceAccountPath the files token,
// ca.crt and namespace. With Options.APIAccess, every pod spec of a pod or
// pod template written through the proxy (the kinds table says where they
// are: podSpecs) gets them pointing at the zoo server:
//
//   - a projected volume APIAccessName — the pod's ServiceAccount token (as
//     the ServiceAccount admission plugin would project it), and ca.crt and
//     namespace from the ConfigMap APIAccessName of the pod's namespace —
//     mounted read-only at ServiceAccountPath in every container, init
//     container and ephemeral container. The admission plugin then adds no
//     kube-api-access volume of its own: it skips containers that mount
//     that path;
//   - the environment variables KUBERNETES_SERVICE_HOST and
//     KUBERNETES_SERVICE_PORT in those containers, first (so that the
//     tenant's own variables may refer to them), from the keys host and port
//     of that ConfigMap (declared variables win over the kubelet's service
//     variables). A container that declares either itself keeps its own.
//
// Everything in the pod spec refers to the ConfigMap, never to the server's
// configuration, so a change of the server's address or CA changes no pod
// template (no rollout) and leaves pods, whose spec is immutable, updatable.
// The proxy keeps the ConfigMap in each namespace it writes pods or
// templates into (localproxy).
//
// A pod that sets automountServiceAccountToken: false gets none of it, and
// neither does a container that mounts ServiceAccountPath itself: they keep
// what they would have upstream. The ServiceAccount's own
// automountServiceAccountToken is not known here (templates are written
// long before their pods; the admission plugin reads it when a pod is
// created) — docs/security.md says what follows.
//
// On the way out all of it is removed from every pod spec, whether or not
// the proxy injects (a local `serve` shows a tenant the same objects), so a
// tenant never sees it, and an update or patch made from its view gets it
// back exactly once.
const (
	// APIAccessName names the injected volume and the ConfigMap it projects;
	// tenants may not name a volume so.
	APIAccessName = "zoo-kube-api-access"
	// ServiceAccountPath is where in-cluster clients read the ServiceAccount
	// token, the CA bundle and the namespace.
	ServiceAccountPath = "/var/run/secrets/kubernetes.io/serviceaccount"
	// The keys of the ConfigMap APIAccessName.
	APIAccessCAKey        = "ca.crt"
	APIAccessNamespaceKey = "namespace"
	APIAccessHostKey      = "host"
	APIAccessPortKey      = "port"
	// The token's lifetime, as the ServiceAccount admission plugin asks for
	// it (the kubelet renews it).
	apiAccessTokenSeconds = 3607
)

// apiAccessEnv maps each injected environment variable to its ConfigMap key.
var apiAccessEnv = [][2]string{{"KUBERNETES_SERVICE_HOST", APIAccessHostKey}, {"KUBERNETES_SERVICE_PORT", APIAccessPortKey}}

// containerLists are the containers of a pod spec.
var containerLists = []string{"initContainers", "containers", "ephemeralContainers"}

// HasPodSpecs reports whether objects of the rule's kind hold a pod spec (a
// pod, or a pod template): the proxy keeps the ConfigMap APIAccessName in
// the namespace such an object is written into.
func (r *KindRule) HasPodSpecs() bool { return len(podSpecPaths(r)) > 0 }

// PodSpecPaths are the dotted paths of the pod specs of the rule's objects
// ("spec", "spec.template.spec", ...): the upstream policies judge what a
// pod spec holds at each.
func (r *KindRule) PodSpecPaths() []string { return podSpecPaths(r) }

// apiAccessIn refuses a pod spec that names APIAccessName as a volume (the
// tenant's would be taken for the proxy's and hidden), removes what
// injectAPIAccess would add (mounts of that volume, the variables in their
// injected form: a client that read them elsewhere gets them exactly once)
// and, with Options.APIAccess, injects.
func (t *Translator) apiAccessIn(rule *KindRule, obj map[string]any) error {
	return podSpecs(rule, obj, func(spec map[string]any) error {
		for _, v := range list(spec, "volumes") {
			if str(asMap(v), "name") == APIAccessName {
				return forbidden(rule.Resource, str(child(obj, "metadata"), "name"), fmt.Sprintf(
					"the volume name %s is kubectl-zoo's: it mounts the tenant's API access into the pod; rename the volume", APIAccessName))
			}
		}
		stripAPIAccess(spec)
		if t.opts.APIAccess {
			injectAPIAccess(spec)
		}
		return nil
	})
}

// apiAccessOut removes what apiAccessIn injected from every pod spec.
func apiAccessOut(rule *KindRule, obj map[string]any) {
	_ = podSpecs(rule, obj, func(spec map[string]any) error {
		stripAPIAccess(spec)
		return nil
	})
}

// injectAPIAccess adds the volume, mounts and variables to one pod spec.
func injectAPIAccess(spec map[string]any) {
	if b, ok := spec["automountServiceAccountToken"].(bool); ok && !b || !listOrAbsent(spec, "volumes") {
		return
	}
	mounted := false
	for _, key := range containerLists {
		for _, c := range list(spec, key) {
			ctr := asMap(c)
			// A malformed container is the API server's to refuse, as sent.
			if ctr == nil || !listOrAbsent(ctr, "volumeMounts") || !listOrAbsent(ctr, "env") || mountsServiceAccountPath(ctr) {
				continue
			}
			ctr["volumeMounts"] = append(list(ctr, "volumeMounts"), map[string]any{
				"name": APIAccessName, "mountPath": ServiceAccountPath, "readOnly": true,
			})
			mounted = true
			if declares(ctr, apiAccessEnv[0][0]) || declares(ctr, apiAccessEnv[1][0]) {
				continue // the container names its API server itself
			}
			env := make([]any, 0, len(apiAccessEnv)+len(list(ctr, "env")))
			for _, e := range apiAccessEnv {
				env = append(env, apiAccessVar(e[0], e[1]))
			}
			ctr["env"] = append(env, list(ctr, "env")...)
		}
	}
	if mounted {
		spec["volumes"] = append(list(spec, "volumes"), apiAccessVolume())
	}
}

// stripAPIAccess removes the injected volume, mounts and variables from one
// pod spec; a list left empty is removed, as the API server omits it.
func stripAPIAccess(spec map[string]any) {
	filter(spec, "volumes", func(v map[string]any) bool { return str(v, "name") == APIAccessName })
	for _, key := range containerLists {
		for _, c := range list(spec, key) {
			ctr := asMap(c)
			if ctr == nil {
				continue
			}
			filter(ctr, "volumeMounts", func(m map[string]any) bool { return str(m, "name") == APIAccessName })
			filter(ctr, "env", isAPIAccessVar)
		}
	}
}

// isAPIAccessVar reports whether an environment variable is one that
// injectAPIAccess adds.
func isAPIAccessVar(e map[string]any) bool {
	ref := child(child(e, "valueFrom"), "configMapKeyRef")
	if ref == nil || str(ref, "name") != APIAccessName {
		return false
	}
	for _, v := range apiAccessEnv {
		if str(e, "name") == v[0] && str(ref, "key") == v[1] {
			return true
		}
	}
	return false
}

func apiAccessVar(name, key string) map[string]any {
	return map[string]any{"name": name, "valueFrom": map[string]any{
		"configMapKeyRef": map[string]any{"name": APIAccessName, "key": key},
	}}
}

func apiAccessVolume() map[string]any {
	return map[string]any{"name": APIAccessName, "projected": map[string]any{
		"defaultMode": json.Number("420"),
		"sources": []any{
			map[string]any{"serviceAccountToken": map[string]any{
				"path": "token", "expirationSeconds": json.Number(fmt.Sprint(apiAccessTokenSeconds)),
			}},
			map[string]any{"configMap": map[string]any{"name": APIAccessName, "items": []any{
				map[string]any{"key": APIAccessCAKey, "path": APIAccessCAKey},
				map[string]any{"key": APIAccessNamespaceKey, "path": APIAccessNamespaceKey},
			}}},
		},
	}}
}

// mountsServiceAccountPath reports whether a container mounts
// ServiceAccountPath itself (as the ServiceAccount admission plugin checks).
func mountsServiceAccountPath(ctr map[string]any) bool {
	for _, m := range list(ctr, "volumeMounts") {
		if str(asMap(m), "mountPath") == ServiceAccountPath {
			return true
		}
	}
	return false
}

// declares reports whether a container declares the environment variable.
func declares(ctr map[string]any, name string) bool {
	for _, e := range list(ctr, "env") {
		if str(asMap(e), "name") == name {
			return true
		}
	}
	return false
}

// listOrAbsent reports whether obj[key] is a list or not there.
func listOrAbsent(obj map[string]any, key string) bool {
	v, ok := obj[key]
	if !ok || v == nil {
		return true
	}
	_, isList := v.([]any)
	return isList
}

func list(obj map[string]any, key string) []any {
	l, _ := obj[key].([]any)
	return l
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// filter removes the entries of the list obj[key] that drop matches, and
// the key when none is left.
func filter(obj map[string]any, key string, drop func(map[string]any) bool) {
	l, ok := obj[key].([]any)
	if !ok {
		return
	}
	kept := make([]any, 0, len(l))
	for _, v := range l {
		if m, ok := v.(map[string]any); ok && drop(m) {
			continue
		}
		kept = append(kept, v)
	}
	switch {
	case len(kept) == len(l):
	case len(kept) == 0:
		delete(obj, key)
	default:
		obj[key] = kept
	}
}
