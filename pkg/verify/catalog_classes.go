package verify

import (
	"context"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The classes of docs/security.md that the catalog attempts.
const (
	ClassMetadata     = "platform-owned metadata"
	ClassSubresources = "subresources"
	ClassAddresses    = "addresses"
	ClassPriority     = "priority"
)

// Catalog is every check, in report order.
func Catalog() []Check {
	out := append(mtbChecks(), promiseChecks()...)
	out = append(out, metadataChecks()...)
	out = append(out, subresourceChecks()...)
	out = append(out, refusedChecks()...)
	out = append(out, outsideChecks()...)
	out = append(out, priorityCheck())
	return append(out, moreChecks()...)
}

var grServices = translate.KindResource("", "Service")

// createService creates (dry run) a Service of the attacker's.
func createService(ctx context.Context, t *Target, svc *corev1.Service) error {
	_, err := t.Kube.CoreV1().Services(t.Namespace).Create(ctx, svc, dryRun)
	return err
}

// metadataChecks: a label in each of the platform's domains
// (translate.PlatformDomains) on a Service, a kind whose keys in those
// domains are the platform's; and the Pod Security label of the attacker's
// own namespace.
func metadataChecks() []Check {
	var out []Check
	twin := func(ctx context.Context, t *Target) error {
		return createService(ctx, t, probeService("zoo-verify-md", map[string]string{probeKey: "x"}))
	}
	for _, d := range translate.PlatformDomains() {
		key := "zoo-verify." + d.Domain + "/probe"
		if !translate.IsPlatformOwned(grServices, false, key) {
			continue
		}
		out = append(out, Check{ID: "metadata/" + d.Domain, Class: ClassMetadata,
			Title: fmt.Sprintf("label a Service %s (%s's domain)", key, d.Owner), Twin: twin,
			Attempt: func(ctx context.Context, t *Target) error {
				return createService(ctx, t, probeService("zoo-verify-md", map[string]string{key: "x"}))
			}})
	}
	enforce := translate.PodSecurityEnforce
	return append(out, Check{ID: "metadata/pod-security", Class: ClassMetadata,
		Title: "relabel the tenant's own namespace " + enforce + "=privileged",
		Paths: []Path{PathServe, PathIdentity, PathServer}, // a ServiceAccount has no right on its namespace object
		NotApplicable: func(p policy.Policy) string {
			if p.PodSecurity == "privileged" {
				return "the tenant's policy sets Pod Security \"privileged\" already"
			}
			return ""
		},
		Twin: func(ctx context.Context, t *Target) error {
			_, err := t.Kube.CoreV1().Namespaces().Patch(ctx, t.Namespace, types.MergePatchType, annotateProbe, patchDryRun)
			return err
		},
		Attempt: func(ctx context.Context, t *Target) error {
			_, err := t.Kube.CoreV1().Namespaces().Patch(ctx, t.Namespace, types.MergePatchType,
				[]byte(`{"metadata":{"labels":{"`+enforce+`":"privileged"}}}`), patchDryRun)
			return err
		}})
}

// subresourceTarget names the object of a resource whose subresources verify
// attempts.
type subresourceTarget struct {
	name          func(t *Target) string
	clusterScoped bool
	scratch       bool // made by verify in its scratch tenant
}

// subresourceTargets are the objects verify has, by resource: the
// attacker's own (its Service, claim and namespace, its policy's quota) and
// a node of the platform's.
var subresourceTargets = map[schema.GroupResource]subresourceTarget{
	grServices: {name: func(t *Target) string { return t.Service }, scratch: true},
	translate.KindResource("", "ResourceQuota"):         {name: func(*Target) string { return platformobj.PolicyObjectName }},
	translate.KindResource("", "PersistentVolumeClaim"): {name: func(*Target) string { return ScratchObject }, scratch: true},
	translate.KindResource("", "Namespace"):             {name: func(t *Target) string { return t.Namespace }, clusterScoped: true},
	translate.KindResource("", "Node"):                  {name: func(t *Target) string { return t.Node }, clusterScoped: true},
}

// resource is the client of gvr for target: in the attacker's namespace, or
// cluster-scoped.
func (st subresourceTarget) resource(t *Target, gvr schema.GroupVersionResource) dynamic.ResourceInterface {
	if st.clusterScoped {
		return t.Dynamic.Resource(gvr)
	}
	return t.Dynamic.Resource(gvr).Namespace(t.Namespace)
}

// subresourceChecks: a write (dry run) of every read-only status
// subresource, and a GET of every refused subresource of a namespaced kind
// (the API server would dial for it; a node's would reach its kubelet), of
// the kinds table (translate.Subresources) of which verify has an object.
func subresourceChecks() []Check {
	var out []Check
	for _, s := range translate.Subresources() {
		target, ok := subresourceTargets[s.Resource]
		if !ok {
			continue
		}
		gvr, id := s.Resource.WithVersion("v1"), "subresource/"+s.Resource.String()+"/"+s.Name
		kind := strings.TrimSuffix(s.Resource.Resource, "s")
		switch {
		case s.Class == translate.SubresourceReadOnly && s.Name == "status":
			out = append(out, Check{ID: id, Class: ClassSubresources, Title: fmt.Sprintf("write the %s of a %s", s.Name, kind), Scratch: target.scratch,
				Attempt: func(ctx context.Context, t *Target) error {
					if target.name(t) == "" {
						return fmt.Errorf("the cluster has no %s to aim at", kind)
					}
					_, err := target.resource(t, gvr).Patch(ctx, target.name(t), types.MergePatchType, annotateProbe, patchDryRun, s.Name)
					return err
				}})
		case s.Class == translate.SubresourceRefused && !target.clusterScoped: // never a GET that reaches a machine
			out = append(out, Check{ID: id, Class: ClassSubresources, Title: fmt.Sprintf("GET the %s of a %s", s.Name, kind), Scratch: target.scratch,
				Attempt: func(ctx context.Context, t *Target) error {
					err := t.Kube.CoreV1().RESTClient().Get().Namespace(t.Namespace).Resource(s.Resource.Resource).
						Name(target.name(t)).SubResource(s.Name).Do(ctx).Error()
					return dialed(err)
				}})
		}
	}
	return out
}

// dialed is nil when err says the API server took the request and tried to
// reach its backend (a Service without endpoints answers 503): the attempt
// was admitted.
func dialed(err error) error {
	if err == nil || apierrors.IsServiceUnavailable(err) || apierrors.IsInternalError(err) ||
		apierrors.IsUnexpectedServerError(err) || apierrors.IsTimeout(err) {
		return nil
	}
	return err
}

// systemPriority is a PriorityClass of every cluster, of positive value.
const systemPriority = "system-cluster-critical"

// priorityCheck: a pod of the platform's priority.
func priorityCheck() Check {
	return Check{ID: "priority/" + systemPriority, Class: ClassPriority,
		Title: "run a pod at priority " + systemPriority,
		NotApplicable: func(p policy.Policy) string {
			if slices.Contains(p.PriorityClasses, systemPriority) {
				return "the tenant's policy allows " + systemPriority
			}
			return ""
		},
		Twin: func(ctx context.Context, t *Target) error {
			_, err := t.Kube.CoreV1().Pods(t.Namespace).Create(ctx, harmlessPod(), dryRun)
			return err
		},
		Attempt: func(ctx context.Context, t *Target) error {
			pod := harmlessPod()
			pod.Spec.PriorityClassName = systemPriority
			_, err := t.Kube.CoreV1().Pods(t.Namespace).Create(ctx, pod, dryRun)
			return err
		}}
}
