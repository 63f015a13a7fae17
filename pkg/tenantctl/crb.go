package tenantctl

import (
	"encoding/json"
	"fmt"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// A tenant ClusterRoleBinding must never grant upstream-wide. Upstream it is
// stored without subjects (admission refuses tenant ClusterRoleBindings with
// subjects); its subjects live in the SubjectsAnnotation, and in every
// namespace of the tenant a RoleBinding (MaterializeClusterRoleBinding) grants
// them the same ClusterRole there. The proxy must:
//   - on create/update of a tenant ClusterRoleBinding: store
//     StoreClusterRoleBinding(...) and apply MaterializeClusterRoleBinding(...)
//     in each tenant namespace (and delete materialized RoleBindings on
//     delete, found by MaterializedFromLabel);
//   - on reads: show StoredSubjects(...) as the subjects;
//   - on create of a namespace: apply the materialized RoleBindings of every
//     tenant ClusterRoleBinding there, next to NamespaceRBAC.
const (
	// SubjectsAnnotation holds the JSON subjects of a stored tenant
	// ClusterRoleBinding.
	SubjectsAnnotation = translate.APIGroup + "/subjects"
	// MaterializedFromLabel on a RoleBinding names the tenant
	// ClusterRoleBinding (upstream name) it materializes.
	MaterializedFromLabel = translate.APIGroup + "/clusterrolebinding"
	// materializedPrefix starts the name of a materialized RoleBinding.
	materializedPrefix = "zoo-crb-"
)

// StoreClusterRoleBinding returns the upstream form of a tenant
// ClusterRoleBinding (already translated to upstream names): the same binding
// without subjects, the subjects in SubjectsAnnotation, owned by the tenant.
func StoreClusterRoleBinding(t translate.Tenant, crb *rbacv1.ClusterRoleBinding) (*rbacv1.ClusterRoleBinding, error) {
	if !t.Owns(crb.Name) {
		return nil, fmt.Errorf("ClusterRoleBinding %q does not belong to tenant %q", crb.Name, t)
	}
	raw, err := json.Marshal(crb.Subjects)
	if err != nil {
		return nil, fmt.Errorf("encode subjects of ClusterRoleBinding %q: %w", crb.Name, err)
	}
	out := crb.DeepCopy()
	out.Subjects = nil
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations[SubjectsAnnotation] = string(raw)
	if out.Labels == nil {
		out.Labels = map[string]string{}
	}
	out.Labels[translate.TenantLabel] = t.Name()
	return out, nil
}

// StoredSubjects returns the subjects of a stored tenant ClusterRoleBinding.
func StoredSubjects(crb *rbacv1.ClusterRoleBinding) ([]rbacv1.Subject, error) {
	raw, ok := crb.Annotations[SubjectsAnnotation]
	if !ok {
		return crb.Subjects, nil
	}
	var subjects []rbacv1.Subject
	if err := json.Unmarshal([]byte(raw), &subjects); err != nil {
		return nil, fmt.Errorf("decode annotation %s of ClusterRoleBinding %q: %w", SubjectsAnnotation, crb.Name, err)
	}
	return subjects, nil
}

// MaterializedRoleBindingName names the RoleBinding that materializes the
// tenant ClusterRoleBinding crbName (upstream name) in a namespace.
func MaterializedRoleBindingName(crbName string) string { return materializedPrefix + crbName }

// MaterializeClusterRoleBinding returns the RoleBinding that grants the
// subjects of a stored tenant ClusterRoleBinding its ClusterRole inside one
// namespace of the tenant.
func MaterializeClusterRoleBinding(t translate.Tenant, stored *rbacv1.ClusterRoleBinding, namespace string) (*rbacv1.RoleBinding, error) {
	if !t.Owns(stored.Name) {
		return nil, fmt.Errorf("ClusterRoleBinding %q does not belong to tenant %q", stored.Name, t)
	}
	if !t.Owns(namespace) {
		return nil, fmt.Errorf("namespace %q does not belong to tenant %q", namespace, t)
	}
	name := MaterializedRoleBindingName(stored.Name)
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return nil, fmt.Errorf("ClusterRoleBinding %q: its RoleBindings would be named %q: %s", stored.Name, name, errs[0])
	}
	subjects, err := StoredSubjects(stored)
	if err != nil {
		return nil, err
	}
	if errs := validation.IsValidLabelValue(stored.Name); len(errs) > 0 {
		return nil, fmt.Errorf("ClusterRoleBinding %q: its name cannot label its RoleBindings: %s", stored.Name, errs[0])
	}
	labels := OwnerLabels(t)
	labels[MaterializedFromLabel] = stored.Name
	return &rbacv1.RoleBinding{
		TypeMeta:   roleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels},
		RoleRef:    stored.RoleRef,
		Subjects:   subjects,
	}, nil
}
