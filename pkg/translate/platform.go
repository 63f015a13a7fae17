package translate

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// PlatformKey is one row of the table of platform-owned metadata: labels or
// annotations that admission plugins, controllers or kubectl-zoo key on.
// Tenants see them but may not add, change or remove them, through the proxy
// (a 403 naming the key) nor directly upstream (the zoo-tenant-metadata
// admission policy, built from this table).
type PlatformKey struct {
	// Key is an exact key, or, ending in "/", every key with that prefix.
	Key string
	// Annotation says the key is an annotation, not a label.
	Annotation bool
	// Resource is the (upstream) resource whose objects carry it.
	Resource schema.GroupResource
	// Reader names who reads it (shown in the 403).
	Reader string
	// APIServer marks keys the API server itself keeps (it sets
	// kubernetes.io/metadata.name to the namespace's name on every write):
	// neither the proxy nor admission need to judge them.
	APIServer bool
	// Allowed is a value that is harmless, or "" for none: a tenant may
	// write the key with it, and may remove the key (a default-class
	// annotation "false" makes no class the default, and neither does its
	// absence).
	Allowed string
	// FoldCase makes the proxy match the key without regard to case, so
	// that its variants are refused too, as zoo-tenant-storage refuses them
	// upstream for every writer (zoo-tenant-metadata leaves the variants
	// to it and judges the exact key).
	FoldCase bool
	// Domain marks a row made from a PlatformDomain (platform_domains.go):
	// Key is the domain, and the row owns every key in it or its
	// subdomains that the allow-list does not list.
	Domain bool
}

// Matches reports whether key falls under the row.
func (k *PlatformKey) Matches(key string) bool {
	if k.Domain {
		d, ok := ownerDomain(key)
		return ok && d.Domain == k.Key && !tenantAllowed(key)
	}
	if k.FoldCase {
		key = strings.ToLower(key)
	}
	if strings.HasSuffix(k.Key, "/") {
		return strings.HasPrefix(key, k.Key)
	}
	return key == k.Key
}

// Defaults that reach every tenant: a default StorageClass or IngressClass
// is used for every new claim or Ingress that names none, whoever made it.
// A tenant's class may never be the default (403 naming the annotation);
// "false" is harmless and allowed. A tenant PriorityClass is never the
// global default either (priorityClassConfinement sets globalDefault false).
const (
	DefaultStorageClassAnnotation     = "storageclass.kubernetes.io/is-default-class"
	BetaDefaultStorageClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
	DefaultIngressClassAnnotation     = "ingressclass.kubernetes.io/is-default-class"
)

// platformTable is THE table of platform-owned single keys, with rules of
// their own (an Allowed value, FoldCase, a key the API server keeps, the
// Pod Security levels); its rows come before the platform's domains
// (platform_domains.go), which own the other keys of their domains on the
// kinds with PlatformDomains. Keys are case-sensitive, as the API server and
// its plugins read them. Sources: the admission plugins of k8s.io/kubernetes
// v1.34 (plugin/pkg/admission: podnodeselector, podtolerationrestriction,
// storage/storageclass/setdefault, network/defaultingressclass) and Pod
// Security admission.
var platformTable = []PlatformKey{
	{Key: PodSecurityPrefix, Resource: grNamespace, Reader: "Pod Security admission"},
	{Key: "scheduler.alpha.kubernetes.io/", Annotation: true, Resource: grNamespace,
		Reader: "the PodNodeSelector and PodTolerationRestriction admission plugins"},
	{Key: APIGroup + "/", Resource: grNamespace, Reader: "kubectl-zoo"},
	{Key: APIGroup + "/", Annotation: true, Resource: grNamespace, Reader: "kubectl-zoo"},
	{Key: MetadataNameLabel, Resource: grNamespace, Reader: "namespace selectors", APIServer: true},
	{Key: DefaultStorageClassAnnotation, Annotation: true, Resource: grStorageClass, Allowed: "false", FoldCase: true,
		Reader: "the DefaultStorageClass admission plugin, for every tenant's claims"},
	{Key: BetaDefaultStorageClassAnnotation, Annotation: true, Resource: grStorageClass, Allowed: "false", FoldCase: true,
		Reader: "the DefaultStorageClass admission plugin, for every tenant's claims"},
	{Key: DefaultIngressClassAnnotation, Annotation: true, Resource: grIngressClass, Allowed: "false", FoldCase: true,
		Reader: "the DefaultIngressClass admission plugin, for every tenant's ingresses"},
}

// PlatformMetadata returns the table of platform-owned metadata, in order.
func PlatformMetadata() []PlatformKey { return slices.Clone(platformTable) }

// platformKey returns the row that makes key of an object of gr
// platform-owned and judged: a row of the table (whose rules come first:
// a key the API server keeps is judged by none), else the key's platform
// domain on a kind with PlatformDomains. TenantLabel has rules of its own
// (metadataIn, and the zoo-tenant policy), so it is never one.
func platformKey(gr schema.GroupResource, annotation bool, key string) (*PlatformKey, bool) {
	if !annotation && key == TenantLabel {
		return nil, false
	}
	for i := range platformTable {
		r := &platformTable[i]
		if r.Resource == gr && r.Annotation == annotation && r.Matches(key) {
			return r, !r.APIServer
		}
	}
	return domainKey(gr, annotation, key)
}

// hasPlatformMetadata reports whether objects of gr carry platform-owned
// metadata.
func hasPlatformMetadata(gr schema.GroupResource) bool {
	_, ok := platformExample(gr, false)
	if !ok {
		_, ok = platformExample(gr, true)
	}
	return ok
}

// platformExample names a platform-owned key (or domain) of the labels
// (annotations) of objects of gr, if they have any.
func platformExample(gr schema.GroupResource, annotation bool) (string, bool) {
	for i := range platformTable {
		r := &platformTable[i]
		if r.Resource == gr && r.Annotation == annotation && !r.APIServer {
			return r.Key, true
		}
	}
	if rule, ok := kindsByResource[gr]; ok && rule.PlatformDomains && len(platformDomains) > 0 {
		return "those of " + platformDomains[0].Domain, true
	}
	return "", false
}

// Metadata is the labels and annotations of an upstream object.
type Metadata struct {
	Labels      map[string]string
	Annotations map[string]string
}

func (md *Metadata) field(annotation bool) map[string]string {
	if md == nil {
		return nil
	}
	if annotation {
		return md.Annotations
	}
	return md.Labels
}

// PlatformLookup answers what the pure core cannot know about platform-owned
// metadata and priorities. The proxy implements it with (cached) upstream
// reads.
type PlatformLookup interface {
	// CurrentMetadata returns the labels and annotations of the upstream
	// object at path (no subresource); found is false when it does not exist.
	CurrentMetadata(path string) (md Metadata, found bool, err error)
	// CurrentObject returns the upstream object at path (no subresource)
	// as JSON decodes it; found is false when it does not exist.
	CurrentObject(path string) (obj map[string]any, found bool, err error)
	// PodSecurityLevel returns the Pod Security level of the tenant.
	PodSecurityLevel() (string, error)
	// PriorityClassValue returns the value of the upstream PriorityClass
	// name; found is false when it does not exist.
	PriorityClassValue(name string) (value int64, found bool, err error)
	// AllowedPriorityClasses returns the cluster PriorityClasses of positive
	// value that pods in the upstream namespace ns may use: those of the
	// tenant's policy, and those of the namespace's
	// PriorityClassesAnnotation.
	AllowedPriorityClasses(ns string) ([]string, error)
}

// ParsePriorityClasses splits the value of PriorityClassesAnnotation: class
// names separated by commas, without spaces (the upstream's admission policy
// reads it the same way).
func ParsePriorityClasses(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func platformKeyError(gr schema.GroupResource, name string, row *PlatformKey, key, what string) error {
	kind := "label"
	if row.Annotation {
		kind = "annotation"
	}
	reader := row.Reader + " reads it"
	switch {
	case row.Domain:
		reader = "its domain " + row.Key + " is " + row.Reader + "'s"
	case key != row.Key && !strings.HasSuffix(row.Key, "/"):
		key += " (" + row.Key + ")"
	}
	but := ""
	if row.Allowed != "" {
		but = fmt.Sprintf(" (other than to %q, or remove it)", row.Allowed)
	}
	return forbidden(gr, name, fmt.Sprintf("the %s %s belongs to the platform (%s): a tenant may not %s it%s", kind, key, reader, what, but))
}

func lookupError(what string, err error) error {
	return &Error{Code: 503, Reason: "ServiceUnavailable", Message: fmt.Sprintf("kubectl-zoo cannot %s: %v", what, err)}
}
