package crbstore

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Resource is the resource of ClusterRoleBindings.
var Resource = translate.KindResource(rbacv1.GroupName, "ClusterRoleBinding")

// Restore wraps an upstream JSON answer about ClusterRoleBindings (an
// object, a list, a Table, a Status or a watch stream) so that t's stored
// bindings read with their subjects back from SubjectsAnnotation, in
// upstream names: the translator then maps them like any subjects. Other
// tenants' bindings are left as they are (the translator drops them). It
// reads one JSON document (one watch event) at a time, so watches stay
// streamed, and starts no goroutine.
func Restore(t translate.Tenant, body io.ReadCloser) io.ReadCloser {
	dec := json.NewDecoder(body)
	dec.UseNumber()
	return &restoringReader{t: t, body: body, dec: dec}
}

// restoringReader is the io.ReadCloser of Restore.
type restoringReader struct {
	t    translate.Tenant
	body io.ReadCloser
	dec  *json.Decoder
	buf  bytes.Buffer
	err  error
}

// Read returns the rewritten documents.
func (r *restoringReader) Read(b []byte) (int, error) {
	for r.buf.Len() == 0 {
		if r.err != nil {
			return 0, r.err
		}
		var doc any
		if err := r.dec.Decode(&doc); err != nil {
			r.err = err
			continue
		}
		if m, ok := doc.(map[string]any); ok {
			restoreDocument(r.t, m)
		}
		enc := json.NewEncoder(&r.buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(doc); err != nil {
			r.err = err
		}
	}
	return r.buf.Read(b)
}

// Close closes the upstream body.
func (r *restoringReader) Close() error { return r.body.Close() }

// restoreDocument restores the subjects in one upstream document, in place.
func restoreDocument(t translate.Tenant, doc map[string]any) {
	switch kind, _ := doc["kind"].(string); kind {
	case "ClusterRoleBinding":
		RestoreObject(t, doc)
	case "ClusterRoleBindingList":
		items, _ := doc["items"].([]any)
		for _, it := range items {
			if obj, ok := it.(map[string]any); ok {
				RestoreObject(t, obj)
			}
		}
	case "Table":
		restoreTable(t, doc)
	case "":
		// A watch event: {"type": ..., "object": {...}}.
		if obj, ok := doc["object"].(map[string]any); ok {
			if _, typed := doc["type"]; typed {
				restoreDocument(t, obj)
			}
		}
	}
}

// ownedMeta returns the metadata of an upstream ClusterRoleBinding (or its
// PartialObjectMetadata) and its stored subjects annotation, if it is a
// stored binding of tenant t. Others are left to the translator,
// which drops them.
func ownedMeta(t translate.Tenant, obj map[string]any) (meta map[string]any, annotation string, ok bool) {
	meta, _ = obj["metadata"].(map[string]any)
	labels, _ := meta["labels"].(map[string]any)
	annotations, _ := meta["annotations"].(map[string]any)
	annotation, stored := annotations[SubjectsAnnotation].(string)
	name, _ := meta["name"].(string)
	if !stored || labels[translate.TenantLabel] != t.Name() || !t.Owns(name) {
		return nil, "", false
	}
	return meta, annotation, true
}

// RestoreObject gives a stored ClusterRoleBinding of t (or its
// PartialObjectMetadata), a decoded upstream document, its subjects back and
// removes the annotation, in place. Any other object is left as it is.
func RestoreObject(t translate.Tenant, obj map[string]any) {
	meta, annotation, ok := ownedMeta(t, obj)
	if !ok {
		return
	}
	hideSubjectsAnnotation(meta)
	if kind, _ := obj["kind"].(string); kind == "PartialObjectMetadata" {
		return
	}
	subjects, err := decodeStoredSubjects(meta, annotation)
	if err != nil {
		klog.ErrorS(err, "reading the subjects of a tenant ClusterRoleBinding", "tenant", t.Name())
		return
	}
	if len(subjects) > 0 {
		obj["subjects"] = subjects
	} else {
		delete(obj, "subjects")
	}
}

// decodeStoredSubjects decodes the annotation with Subjects
// into the generic form of a decoded document.
func decodeStoredSubjects(meta map[string]any, annotation string) ([]any, error) {
	name, _ := meta["name"].(string)
	subjects, err := Subjects(&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{
		Name: name, Annotations: map[string]string{SubjectsAnnotation: annotation}}})
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(subjects)
	if err != nil {
		return nil, err
	}
	var out []any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// hideSubjectsAnnotation removes the annotation, and its trace in
// managedFields, from the metadata the tenant sees.
func hideSubjectsAnnotation(meta map[string]any) {
	annotations, _ := meta["annotations"].(map[string]any)
	delete(annotations, SubjectsAnnotation)
	if len(annotations) == 0 {
		delete(meta, "annotations")
	}
	entries, _ := meta["managedFields"].([]any)
	for _, e := range entries {
		entry, _ := e.(map[string]any)
		fields, _ := entry["fieldsV1"].(map[string]any)
		fm, _ := fields["f:metadata"].(map[string]any)
		fa, _ := fm["f:annotations"].(map[string]any)
		if fa == nil {
			continue
		}
		delete(fa, "f:"+SubjectsAnnotation)
		if len(fa) == 0 {
			delete(fm, "f:annotations")
		}
	}
}

// subjectColumns are the Table columns of a ClusterRoleBinding that the
// upstream fills from what it stores (kubectl's printer: Role, and with -o
// wide Users, Groups, ServiceAccounts).
var subjectColumns = []string{"Role", "Users", "Groups", "ServiceAccounts"}

// restoreTable fills the subject cells of each row of the tenant's bindings
// with the stored subjects, in their upstream names as the upstream would
// have shown them (the translator then maps these cells, and the Role cell,
// as it does for any binding), and restores the embedded objects.
func restoreTable(t translate.Tenant, table map[string]any) {
	col := map[string]int{}
	defs, _ := table["columnDefinitions"].([]any)
	for i, d := range defs {
		def, _ := d.(map[string]any)
		name, _ := def["name"].(string)
		for _, want := range subjectColumns {
			if name == want {
				col[want] = i
			}
		}
	}
	rows, _ := table["rows"].([]any)
	for _, r := range rows {
		row, _ := r.(map[string]any)
		obj, _ := row["object"].(map[string]any)
		if obj == nil {
			continue
		}
		cells, _ := row["cells"].([]any)
		if meta, annotation, ok := ownedMeta(t, obj); ok {
			fillCells(cells, col, meta, annotation)
		}
		RestoreObject(t, obj)
	}
}

// fillCells writes the stored subjects of one row into its subject cells,
// as the API server's printer writes them ("ns/name" for ServiceAccounts,
// entries joined with ", ").
func fillCells(cells []any, col map[string]int, meta map[string]any, annotation string) {
	subjects, err := decodeStoredSubjects(meta, annotation)
	if err != nil {
		return
	}
	var users, groups, sas []string
	for _, s := range subjects {
		subj, _ := s.(map[string]any)
		name, _ := subj["name"].(string)
		switch subj["kind"] {
		case rbacv1.UserKind:
			users = append(users, name)
		case rbacv1.GroupKind:
			groups = append(groups, name)
		case rbacv1.ServiceAccountKind:
			ns, _ := subj["namespace"].(string)
			sas = append(sas, ns+"/"+name)
		}
	}
	set := func(column, value string) {
		if i, ok := col[column]; ok && i < len(cells) {
			cells[i] = value
		}
	}
	set("Users", strings.Join(users, ", "))
	set("Groups", strings.Join(groups, ", "))
	set("ServiceAccounts", strings.Join(sas, ", "))
}
