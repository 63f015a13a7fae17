package tenantctl

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/validation/path"
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
	// ClusterRoleBinding it materializes, as MaterializedLabelValue of its
	// upstream name.
	MaterializedFromLabel = translate.APIGroup + "/clusterrolebinding"
	// MaterializedPrefix starts the name of every materialized RoleBinding;
	// the proxy reserves such RoleBinding names.
	MaterializedPrefix = "zoo-crb-"
	// labelHashPrefix starts a MaterializedLabelValue that is a hash.
	labelHashPrefix = "sha256-"
)

// StoreClusterRoleBinding returns the upstream form of a tenant
// ClusterRoleBinding (already translated to upstream names): the same binding
// without subjects, the subjects in SubjectsAnnotation, owned by the tenant.
// A binding created with only metadata.generateName must have a generateName
// in the tenant's prefix.
func StoreClusterRoleBinding(t translate.Tenant, crb *rbacv1.ClusterRoleBinding) (*rbacv1.ClusterRoleBinding, error) {
	switch {
	case crb.Name == "" && crb.GenerateName != "":
		if !strings.HasPrefix(crb.GenerateName, t.Prefix()) {
			return nil, fmt.Errorf("ClusterRoleBinding generateName %q does not belong to tenant %q", crb.GenerateName, t)
		}
	case !t.Owns(crb.Name):
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
func MaterializedRoleBindingName(crbName string) string { return MaterializedPrefix + crbName }

// MaterializedLabelValue is the value of MaterializedFromLabel on the
// RoleBindings of the tenant ClusterRoleBinding crbName (upstream name): the
// name itself when it is a valid label value, else (names longer than 63
// characters, or with a ':' as in "acme-system:coredns") "sha256-" and the
// first 56 hex digits of the SHA-256 of the name.
func MaterializedLabelValue(crbName string) string {
	if len(validation.IsValidLabelValue(crbName)) == 0 && !strings.HasPrefix(crbName, labelHashPrefix) {
		return crbName
	}
	sum := sha256.Sum256([]byte(crbName))
	return labelHashPrefix + hex.EncodeToString(sum[:])[:validation.LabelValueMaxLength-len(labelHashPrefix)]
}

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
	// RBAC object names are path segments (ValidateRBACName), as the
	// ClusterRoleBinding's own name is: so is the prefixed one.
	name := MaterializedRoleBindingName(stored.Name)
	if errs := path.IsValidPathSegmentName(name); len(errs) > 0 {
		return nil, fmt.Errorf("ClusterRoleBinding %q: its RoleBindings would be named %q: %s", stored.Name, name, errs[0])
	}
	subjects, err := StoredSubjects(stored)
	if err != nil {
		return nil, err
	}
	labels := OwnerLabels(t)
	labels[MaterializedFromLabel] = MaterializedLabelValue(stored.Name)
	return &rbacv1.RoleBinding{
		TypeMeta:   roleBindingType,
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels},
		RoleRef:    stored.RoleRef,
		Subjects:   subjects,
	}, nil
}
