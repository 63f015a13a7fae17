package tenantapi

import (
	"encoding/json"
	"errors"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Version is the served and stored version of the Tenant CRD.
const Version = "v1alpha1"

// Names of the Tenant kind.
const (
	// TenantKind is the kind of a tenant record.
	TenantKind = "Tenant"
	// TenantResource is the plural resource name of tenant records.
	TenantResource = "tenants"
	// TenantCRDName is the name of the Tenant CustomResourceDefinition.
	TenantCRDName = TenantResource + "." + translate.APIGroup
)

// TenantGVR is the GroupVersionResource of tenant records.
var TenantGVR = schema.GroupVersionResource{Group: translate.APIGroup, Version: Version, Resource: TenantResource}

// Tenant is the upstream record of a tenant: a cluster-scoped object whose
// name is the tenant's name.
type Tenant struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TenantSpec   `json:"spec,omitempty"`
	Status TenantStatus `json:"status,omitempty"`
}

// TenantSpec is what the cluster administrator asks for.
type TenantSpec struct {
	// DisplayName is a human-readable name; informational only.
	DisplayName string `json:"displayName,omitempty"`
	// Admins are tenant-local user names with full rights on everything the
	// tenant owns (upstream users zoo:<tenant>:<admin>).
	Admins []string `json:"admins,omitempty"`
	// Policy holds the tenant's policies (quota, network isolation, Pod
	// Security, rate limits). Its schema belongs to `kubectl zoo policy`.
	Policy *apiextensionsv1.JSON `json:"policy,omitempty"`
	// Certificates records the client certificates issued for the tenant. Its
	// schema belongs to `kubectl zoo cert`.
	Certificates *apiextensionsv1.JSON `json:"certificates,omitempty"`
}

// TenantStatus is what tenantctl observed when it last reconciled the tenant.
type TenantStatus struct {
	// Conditions: Ready is True once the tenant's upstream pieces exist and
	// admission enforces its boundary.
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Namespaces is the number of the tenant's namespaces at the last
	// reconcile.
	Namespaces int32 `json:"namespaces"`
	// ObservedGeneration is the spec generation the status describes.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// Sleep is the tenant's sleep state and what `tenant wake` restores; set
	// only by `tenant sleep` and `tenant wake` (see SleepState).
	Sleep *SleepState `json:"sleep,omitempty"`
	// LastActivity is, at a coarse interval, the time of the last request
	// of any of the tenant's identities through a server replica, shared by
	// the replicas that judge spec.policy.sleepAfter (sleep_activity.go).
	LastActivity *metav1.Time `json:"lastActivity,omitempty"`
}

// ConditionReady is the condition type that tells a tenant is usable.
const ConditionReady = "Ready"

// TenantOf returns the validated tenant name of a record.
func (t *Tenant) TenantOf() (translate.Tenant, error) { return translate.NewTenant(t.Name) }

// Ready reports whether the Ready condition is True.
func (t *Tenant) Ready() bool {
	for _, c := range t.Status.Conditions {
		if c.Type == ConditionReady {
			return c.Status == metav1.ConditionTrue
		}
	}
	return false
}

// Phase is a one-word summary: Terminating, Ready or NotReady.
func (t *Tenant) Phase() string {
	switch {
	case t.DeletionTimestamp != nil:
		return "Terminating"
	case t.Ready():
		return "Ready"
	default:
		return "NotReady"
	}
}

// ToUnstructured converts a tenant record for the dynamic client.
func (t *Tenant) ToUnstructured() (*unstructured.Unstructured, error) {
	t.APIVersion, t.Kind = TenantGVR.GroupVersion().String(), TenantKind
	raw, err := json.Marshal(t)
	if err != nil {
		return nil, fmt.Errorf("encode tenant %q: %w", t.Name, err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("encode tenant %q: %w", t.Name, err)
	}
	unstructured.RemoveNestedField(u.Object, "metadata", "creationTimestamp")
	return u, nil
}

// TenantFromUnstructured converts what the dynamic client returned.
func TenantFromUnstructured(u *unstructured.Unstructured) (*Tenant, error) {
	raw, err := u.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("decode tenant %q: %w", u.GetName(), err)
	}
	t := &Tenant{}
	if err := json.Unmarshal(raw, t); err != nil {
		return nil, fmt.Errorf("decode tenant %q: %w", u.GetName(), err)
	}
	return t, nil
}

// ErrNotInstalled is returned when the cluster lacks the Tenant CRD.
var ErrNotInstalled = errors.New("kubectl-zoo is not installed in this cluster (no Tenant CRD); run `kubectl zoo install` first")
