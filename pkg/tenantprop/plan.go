// Package tenantprop propagates the Secrets and ConfigMaps a tenant marks
// into every one of its namespaces (HNC style): a copy of a marked object
// exists in each of the tenant's namespaces that its selector admits,
// labeled translate.PropagatedFromLabel=<the tenant-side namespace of the
// source>, and follows the source. Copies are written by the platform's
// propagator identity (PropagatorUser), never by the tenant; a tenant only
// chooses what to mark, and the rules here (and the upstream policy
// admissionrules.PropagatorPolicy) keep that choice inside the tenant's own
// namespaces, its own Secrets and ConfigMaps, and away from objects that
// are not copies.
//
// plan.go is pure: from the tenant's namespaces, sources and copies it
// computes what to create, update and delete, with the builder (wants) and
// the rules of the one core for objects in every tenant namespace,
// pkg/nsobjects.
package tenantprop

import (
	"fmt"
	"maps"
	"reflect"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/nsobjects"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

const (
	// MarkerLabel marks a tenant's Secret or ConfigMap for propagation into
	// all its namespaces; its value must be "true". A label (not an
	// annotation) so that sources are listed by selector.
	MarkerLabel = "propagate.kubectl-zoo.io/all-namespaces"
	// SelectAnnotation, on a marked object, is a label selector over the
	// tenant's namespaces (as the tenant sees their labels): only the
	// namespaces it selects get a copy, e.g. "env!=prod" or "!no-pull-secret".
	SelectAnnotation = "propagate.kubectl-zoo.io/select"
	// MaxSources bounds the marked objects propagated per tenant (per
	// reconcile); the rest get an event and no copies.
	MaxSources = 64
	// MaxSourceBytes bounds the data of one propagated object: each copy
	// costs its size in every namespace.
	MaxSourceBytes = 256 << 10
)

// reservedNames are the objects the cluster's controllers (the root CA
// publisher) and kubectl-zoo (the API access of tenant pods) keep in tenant
// namespaces: a copy in their place, made before them in a new namespace,
// would be taken for theirs.
var reservedNames = map[string]bool{"kube-root-ca.crt": true, translate.APIAccessName: true}

// ReservedNames lists reservedNames, sorted (the upstream policy refuses
// them too).
func ReservedNames() []string {
	out := make([]string, 0, len(reservedNames))
	for n := range reservedNames {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Kinds are the resources whose objects may be propagated.
var Kinds = []string{configMaps, secrets}

var (
	configMaps = translate.ResourceOf("", "ConfigMap")
	secrets    = translate.ResourceOf("", "Secret")
)

// Object is a source or copy: an upstream Secret or ConfigMap.
type Object = nsobjects.Object

// Namespace is an upstream namespace of the tenant.
type Namespace = nsobjects.Namespace

// Skip is a marked object that is not propagated (or not everywhere), and why.
type Skip = nsobjects.Skip

// Plan is what a reconcile writes: new copies, copies whose content
// follows the source (resourceVersion set), copies without a source, and
// the skips.
type Plan = nsobjects.Plan

// Compute plans the copies of tenant t. copies are the copies in the
// tenant's namespaces (with translate.PropagatedFromLabel), sources the
// objects the tenant marked; a copy absent from copies is created, and the
// API server refuses the create if an object of that name exists, which
// the caller reports (never overwrites). namespaces are the tenant's
// (labeled and prefixed).
func Compute(t translate.Tenant, namespaces []Namespace, sources, copies []Object) Plan {
	return nsobjects.Diff(wants(t, namespaces, sources), copies, rules(t))
}

// wants is the builder: a copy of each source (sorted) in every live
// namespace its selector admits, but its own and those where the tenant
// marked an object of that name; a refusal for each source that is not
// propagated.
func wants(t translate.Tenant, namespaces []Namespace, sources []Object) []nsobjects.Want {
	var out []nsobjects.Want
	sort.Slice(sources, func(i, j int) bool { return less(nsobjects.KeyOf(sources[i]), nsobjects.KeyOf(sources[j])) })
	if len(sources) > MaxSources {
		for _, s := range sources[MaxSources:] {
			out = append(out, nsobjects.Want{Origin: s, Refused: fmt.Sprintf("tenant %s marks more than %d objects for propagation; this one is not propagated", t, MaxSources)})
		}
		sources = sources[:MaxSources]
	}
	isSource := map[nsobjects.Key]bool{}
	for _, s := range sources {
		isSource[nsobjects.KeyOf(s)] = true
	}
	for _, s := range sources {
		if reason := refuse(s); reason != "" {
			out = append(out, nsobjects.Want{Origin: s, Refused: reason})
			continue
		}
		sel, err := selectorOf(s)
		if err != nil {
			out = append(out, nsobjects.Want{Origin: s, Refused: err.Error()})
			continue
		}
		from, _ := t.TenantNamespace(s.GetNamespace())
		for _, ns := range namespaces {
			if ns.Name == s.GetNamespace() || ns.Terminating || !sel.Matches(labels.Set(tenantLabels(t, ns))) {
				continue
			}
			if isSource[nsobjects.Key{Resource: s.Resource, Namespace: ns.Name, Name: s.GetName()}] {
				continue // an object the tenant marked itself: never a copy's place
			}
			out = append(out, nsobjects.Want{Object: copyOf(s, ns.Name, from), Origin: s})
		}
	}
	return out
}

// rules are propagation's: a copy is the same when its content is; a copy
// from another source is never taken over (it goes, and the next reconcile
// creates this source's); of two sources of one name, the first (by
// namespace) keeps the place.
func rules(t translate.Tenant) nsobjects.Rules {
	from := func(o Object) string { return o.GetLabels()[translate.PropagatedFromLabel] }
	return nsobjects.Rules{
		Same: func(have Object, want nsobjects.Want) bool { return sameContent(have, want.Object) },
		Conflict: func(have Object, want nsobjects.Want) string {
			if from(have) == from(want.Object) {
				return ""
			}
			return fmt.Sprintf("not copied into namespace %s: a copy from namespace %s is there", tenantNS(t, want.GetNamespace()), from(have))
		},
		Taken: func(first, want nsobjects.Want) string {
			return fmt.Sprintf("not copied into namespace %s: the marked object of namespace %s has the same name", tenantNS(t, want.GetNamespace()), from(first.Object))
		},
	}
}

// refuse says why a marked object is never propagated ("" if it may be).
func refuse(s Object) string {
	if s.GetLabels()[MarkerLabel] != "true" {
		return fmt.Sprintf("the label %s must be \"true\"", MarkerLabel)
	}
	if reservedNames[s.GetName()] {
		return fmt.Sprintf("%s is kept in every namespace by the cluster or kubectl-zoo; it is never propagated", s.GetName())
	}
	if s.Resource == secrets {
		if typ, _, _ := unstructured.NestedString(s.Object, "type"); typ == string(corev1.SecretTypeServiceAccountToken) {
			return "a ServiceAccount token Secret is never propagated (the token controller would fill its copies)"
		}
	}
	if n := dataBytes(s); n > MaxSourceBytes {
		return fmt.Sprintf("its data has %d bytes; at most %d are propagated", n, MaxSourceBytes)
	}
	return ""
}

// selectorOf parses the source's SelectAnnotation (everything without it).
func selectorOf(s Object) (labels.Selector, error) {
	raw, ok := s.GetAnnotations()[SelectAnnotation]
	if !ok {
		return labels.Everything(), nil
	}
	sel, err := labels.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("the annotation %s is not a label selector: %w", SelectAnnotation, err)
	}
	return sel, nil
}

// tenantLabels are a namespace's labels as the tenant sees them.
func tenantLabels(t translate.Tenant, ns Namespace) map[string]string {
	out := maps.Clone(ns.Labels)
	if out == nil {
		out = map[string]string{}
	}
	if _, ok := out[corev1.LabelMetadataName]; ok {
		out[corev1.LabelMetadataName] = tenantNS(t, ns.Name)
	}
	return out
}

func tenantNS(t translate.Tenant, upstream string) string {
	local, _ := t.TenantNamespace(upstream)
	return local
}

// copyOf is the copy of s in namespace ns: its content, its labels and
// annotations but the marker, the selector and platform-owned keys, labeled
// with its source's tenant-side namespace.
func copyOf(s Object, ns, from string) Object {
	c := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1",
		"kind":       s.GetKind(),
	}}
	c.SetNamespace(ns)
	c.SetName(s.GetName())
	fields := []string{"data", "binaryData", "immutable"}
	if s.Resource == secrets {
		fields = []string{"data", "type", "immutable"}
	}
	for _, f := range fields {
		if v, ok := s.Object[f]; ok {
			c.Object[f] = runtimeDeepCopy(v)
		}
	}
	l := map[string]string{}
	for k, v := range s.GetLabels() {
		if !ownedKey(k) {
			l[k] = v
		}
	}
	l[translate.PropagatedFromLabel] = from
	c.SetLabels(l)
	a := map[string]string{}
	for k, v := range s.GetAnnotations() {
		if !ownedKey(k) && k != "kubectl.kubernetes.io/last-applied-configuration" && !strings.HasPrefix(k, "kubernetes.io/service-account.") {
			a[k] = v
		}
	}
	if len(a) > 0 {
		c.SetAnnotations(a)
	}
	return Object{Resource: s.Resource, Unstructured: c}
}

// ownedKey is a label or annotation key a copy does not take from its
// source: propagation's own, and kubectl-zoo's.
func ownedKey(k string) bool {
	return strings.HasPrefix(k, "propagate.kubectl-zoo.io/") || strings.HasPrefix(k, translate.APIGroup+"/")
}

// sameContent compares what copyOf sets.
func sameContent(have, want Object) bool {
	for _, f := range []string{"data", "binaryData", "type", "immutable"} {
		if !reflect.DeepEqual(have.Object[f], want.Object[f]) {
			return false
		}
	}
	return maps.Equal(have.GetLabels(), want.GetLabels()) && maps.Equal(nonNil(have.GetAnnotations()), nonNil(want.GetAnnotations()))
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// dataBytes is the size of an object's data.
func dataBytes(s Object) int {
	n := 0
	for _, f := range []string{"data", "binaryData"} {
		m, _ := s.Object[f].(map[string]any)
		for k, v := range m {
			str, _ := v.(string)
			n += len(k) + len(str)
		}
	}
	return n
}

func runtimeDeepCopy(v any) any {
	return (&unstructured.Unstructured{Object: map[string]any{"v": v}}).DeepCopy().Object["v"]
}

func less(a, b nsobjects.Key) bool {
	if a.Namespace != b.Namespace {
		return a.Namespace < b.Namespace
	}
	if a.Resource != b.Resource {
		return a.Resource < b.Resource
	}
	return a.Name < b.Name
}
