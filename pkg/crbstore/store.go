package crbstore

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

const (
	// SubjectsAnnotation holds the JSON subjects of a stored tenant
	// ClusterRoleBinding.
	SubjectsAnnotation = translate.APIGroup + "/subjects"
	// MaterializedFromLabel on a RoleBinding names the tenant
	// ClusterRoleBinding it materializes, as LabelValue of its
	// upstream name.
	MaterializedFromLabel = translate.APIGroup + "/clusterrolebinding"
	// MaterializedPrefix starts the name of every materialized RoleBinding;
	// the proxy reserves such RoleBinding names.
	MaterializedPrefix = "zoo-crb-"
	// labelHashPrefix starts a MaterializedLabelValue that is a hash.
	labelHashPrefix = "sha256-"
)

// Store returns the upstream form of a tenant
// ClusterRoleBinding (already translated to upstream names): the same binding
// without subjects, the subjects in SubjectsAnnotation, owned by the tenant.
// A binding created with only metadata.generateName must have a generateName
// in the tenant's prefix.
func Store(t translate.Tenant, crb *rbacv1.ClusterRoleBinding) (*rbacv1.ClusterRoleBinding, error) {
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

// Subjects returns the subjects of a stored tenant ClusterRoleBinding (those
// of SubjectsAnnotation; a binding without it keeps its own).
func Subjects(crb *rbacv1.ClusterRoleBinding) ([]rbacv1.Subject, error) {
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

// RoleBindingName names the RoleBinding that materializes the
// tenant ClusterRoleBinding crbName (upstream name) in a namespace.
func RoleBindingName(crbName string) string { return MaterializedPrefix + crbName }

// LabelValue is the value of MaterializedFromLabel on the
// RoleBindings of the tenant ClusterRoleBinding crbName (upstream name): the
// name itself when it is a valid label value, else (names longer than 63
// characters, or with a ':' as in "acme-system:coredns") "sha256-" and the
// first 56 hex digits of the SHA-256 of the name.
func LabelValue(crbName string) string {
	if len(validation.IsValidLabelValue(crbName)) == 0 && !strings.HasPrefix(crbName, labelHashPrefix) {
		return crbName
	}
	sum := sha256.Sum256([]byte(crbName))
	return labelHashPrefix + hex.EncodeToString(sum[:])[:validation.LabelValueMaxLength-len(labelHashPrefix)]
}

// Materialize returns the RoleBinding that grants the
// subjects of a stored tenant ClusterRoleBinding its ClusterRole inside one
// namespace of the tenant.
func Materialize(t translate.Tenant, stored *rbacv1.ClusterRoleBinding, namespace string) (*rbacv1.RoleBinding, error) {
	if !t.Owns(stored.Name) {
		return nil, fmt.Errorf("ClusterRoleBinding %q does not belong to tenant %q", stored.Name, t)
	}
	if !t.Owns(namespace) {
		return nil, fmt.Errorf("namespace %q does not belong to tenant %q", namespace, t)
	}
	// RBAC object names are path segments (ValidateRBACName), as the
	// ClusterRoleBinding's own name is: so is the prefixed one.
	name := RoleBindingName(stored.Name)
	if errs := path.IsValidPathSegmentName(name); len(errs) > 0 {
		return nil, fmt.Errorf("ClusterRoleBinding %q: its RoleBindings would be named %q: %s", stored.Name, name, errs[0])
	}
	subjects, err := Subjects(stored)
	if err != nil {
		return nil, err
	}
	labels := map[string]string{translate.TenantLabel: t.Name()}
	labels[MaterializedFromLabel] = LabelValue(stored.Name)
	return &rbacv1.RoleBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: rbacv1.SchemeGroupVersion.String(), Kind: "RoleBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace, Labels: labels},
		RoleRef:    stored.RoleRef,
		Subjects:   subjects,
	}, nil
}

// Reserved reports whether a RoleBinding name (or generateName) is one of
// the names of materialized RoleBindings, which the tenant may not use. A
// generated name appends characters without '-' (names.SimpleNameGenerator),
// so only a generateName that already starts with MaterializedPrefix yields
// a reserved name.
func Reserved(name string) bool { return strings.HasPrefix(name, MaterializedPrefix) }

// HiddenSelector adds to a label selector (possibly empty) the requirement
// that selects materialized RoleBindings away.
func HiddenSelector(selector string) string {
	if selector == "" {
		return "!" + MaterializedFromLabel
	}
	return selector + ",!" + MaterializedFromLabel
}
