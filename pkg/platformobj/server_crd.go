package platformobj

import (
	"fmt"
	"slices"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// crdServerRolePrefix follows the tenant's prefix in the name of a
// CRDServerClusterRole: the tenant sees it as zoo-crd-<its CRD's name>.
const crdServerRolePrefix = "zoo-crd-"

// ServedCRD is what CRDServerClusterRole needs of a tenant's cluster-scoped
// CustomResourceDefinition, with upstream names.
type ServedCRD struct {
	// Name and UID of the CRD, for the ClusterRole's owner reference.
	Name string
	UID  types.UID
	// Group is the CRD's upstream group ("<tenant>-x.io"), Plural its
	// resource, Subresources those its versions declare ("status",
	// "scale").
	Group, Plural string
	Subresources  []string
}

// CRDServerClusterRoleName names the CRDServerClusterRole of the tenant's
// CRD plural.group (upstream group): "<t>-zoo-crd-<plural>.<group without
// the tenant's prefix>", a name of the tenant's own.
func CRDServerClusterRoleName(t translate.Tenant, plural, group string) string {
	return t.Prefix() + crdServerRolePrefix + plural + "." + strings.TrimPrefix(group, t.Prefix())
}

// CRDServerClusterRole is the ClusterRole, written by the tenant itself,
// that lets the server's ServiceAccount serve the cluster-scoped objects of
// one CRD of the tenant: the proxy sends them upstream with its own identity
// (RBAC cannot grant the tenant "every group with my prefix"), after an
// access review as the tenant. It carries ServerAggregateLabel, so the
// aggregated ServerClusterRole collects its one rule; TenantPolicy refuses
// that label on a ClusterRole naming any group but the tenant's own, or with
// an aggregationRule. The owner reference to the CRD makes the garbage
// collector delete it with the CRD, however the CRD is deleted.
func CRDServerClusterRole(t translate.Tenant, crd ServedCRD) (*rbacv1.ClusterRole, error) {
	if !t.Owns(crd.Group) {
		return nil, fmt.Errorf("group %q of CRD %s does not belong to tenant %q", crd.Group, crd.Name, t)
	}
	if crd.Plural == "" || strings.Contains(crd.Plural, "/") || crd.UID == "" {
		return nil, fmt.Errorf("CRD %s: want a plural and a uid", crd.Name)
	}
	resources := []string{crd.Plural}
	subs := slices.Clone(crd.Subresources)
	slices.Sort(subs)
	for _, s := range slices.Compact(subs) {
		resources = append(resources, crd.Plural+"/"+s)
	}
	labels := tenantapi.TenantManagedLabels(t)
	labels[tenantapi.ServerAggregateLabel] = "true"
	return &rbacv1.ClusterRole{
		TypeMeta: ClusterRoleType,
		ObjectMeta: metav1.ObjectMeta{
			Name:   CRDServerClusterRoleName(t, crd.Plural, crd.Group),
			Labels: labels,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: crd.Name, UID: crd.UID,
			}},
		},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{crd.Group}, Resources: resources, Verbs: WriteVerbs}},
	}, nil
}
