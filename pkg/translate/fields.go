package translate

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The schema walk (issue #24): every field of the pinned API whose name,
// format or type marks it as a reference (internal/openapisnap/patterns.go,
// snapshot in testdata/openapi/<version>/fields.txt) is classified here or
// by the kinds table, and TestSchemaWalk fails on any that is not. The
// class of a field is, in order:
//
//  1. a Ref of its kind's row covers it (the field, or a field under it):
//     Translated, or Refused for refusedField; or a Ref translates one of
//     the field's own properties (an object reference's namespace, an
//     endpoint address's ip), and the others, where reference-like, are
//     classified on their own: Translated;
//  2. its kind is ReadOnly, Hidden or Forbidden: ReadOnly;
//  3. it is status tenants may not write (the row's status subresource is
//     read-only or refused, or PlatformStatusFields): ReadOnly;
//  4. a FieldRule of the kind and path (kindFieldRules, openFieldRules);
//  5. a FieldRule of the schema definition's property, wherever it appears
//     (defRules, openFieldRules: a pod spec's fields in all nine kinds that
//     hold one).

// FieldClass says how a reference-like field is held.
type FieldClass int

// The classes of reference-like fields.
const (
	// FieldTranslated fields are mapped into the tenant's space by a Ref
	// (or the code named in the reason).
	FieldTranslated FieldClass = iota + 1
	// FieldRefused fields may not be set by tenants (refusedField), through
	// the proxy and upstream.
	FieldRefused
	// FieldConfined fields are held by a check the reason names, on both
	// layers.
	FieldConfined
	// FieldReadOnly fields are never written by tenants: their kind is not
	// writable, or the platform writes them.
	FieldReadOnly
	// FieldHarmless fields name nothing outside the tenant's own space, or
	// only what every tenant shares alike; the reason says which.
	FieldHarmless
	// FieldOpen fields reach outside the tenant and nothing holds them yet;
	// the reason describes the hole. TestSchemaWalk prints them.
	FieldOpen
)

// String names the class.
func (c FieldClass) String() string {
	switch c {
	case FieldTranslated:
		return "translated"
	case FieldRefused:
		return "refused"
	case FieldConfined:
		return "confined"
	case FieldReadOnly:
		return "read-only"
	case FieldHarmless:
		return "harmless"
	case FieldOpen:
		return "open"
	}
	return "unknown"
}

// FieldRule classifies reference-like fields: those of one kind at one
// path (Kind, Path), or a schema definition's property wherever it appears
// (Def).
type FieldRule struct {
	// Kind is the kind as the snapshot names it ("core/Pod", "apps/Deployment").
	Kind string
	// Path is the field's JSON path ("spec.volumes[].nfs").
	Path string
	// Def is a definition's property without its version
	// ("core.PodSpec.nodeName"), for rules that hold wherever it appears.
	Def string
	// Class is how the field is held.
	Class FieldClass
	// Reason says why, in one line.
	Reason string
}

// ClassifyField classifies the reference-like field at path of kind
// ("core/Pod"), declared by def ("core.PodSpec.nodeName"); ok is false for
// a field nothing classifies.
func ClassifyField(kind, path, def string) (FieldRule, bool) {
	group, name, _ := strings.Cut(kind, "/")
	if group == "core" {
		group = ""
	}
	if row, ok := kindsByKind[schema.GroupKind{Group: group, Kind: name}]; ok {
		if r, ok := rowClass(row, kind, path); ok {
			return r, true
		}
	}
	rules := FieldRules()
	for _, r := range rules {
		if r.Kind != "" && r.Kind == kind && r.Path == path {
			return r, true
		}
	}
	for _, r := range rules {
		if r.Def != "" && r.Def == def {
			return r, true
		}
	}
	return FieldRule{}, false
}

// rowClass is what the kinds-table row itself says of the field.
func rowClass(row *KindRule, kind, path string) (FieldRule, bool) {
	for _, ref := range row.Refs {
		f := strings.TrimSuffix(ref.Field, "[]") // "addresses[]": the items of the list field addresses
		under := path == f || strings.HasPrefix(path, f+".") || strings.HasPrefix(path, f+"[]")
		child := strings.TrimPrefix(strings.TrimPrefix(f, path), "[]")
		holds := len(f) > len(path) && strings.HasPrefix(f, path) && strings.HasPrefix(child, ".") && !strings.Contains(child[1:], ".")
		switch {
		case under && ref.Target.PolicyAllowed():
			return FieldRule{Kind: kind, Path: path, Class: FieldConfined, Reason: ref.Target.String() + " at " + f + ": " + ref.Target.Confined()}, true
		case under && ref.Target.Refused():
			return FieldRule{Kind: kind, Path: path, Class: FieldRefused, Reason: ref.Target.String() + " at " + f + ": " + ref.Target.Confined()}, true
		case under:
			return FieldRule{Kind: kind, Path: path, Class: FieldTranslated, Reason: ref.Target.String() + " at " + f + ": " + ref.Target.Confined()}, true
		case holds && !ref.Target.Refused():
			return FieldRule{Kind: kind, Path: path, Class: FieldTranslated, Reason: "holds " + f + " (" + ref.Target.String() + "), which is " + ref.Target.Confined()}, true
		}
	}
	switch row.Treatment {
	case ReadOnly, Hidden, Forbidden:
		return FieldRule{Kind: kind, Path: path, Class: FieldReadOnly, Reason: "the kind is " + row.Treatment.String() + " for tenants: they never write it"}, true
	}
	if st := row.SubresourceOf("status"); strings.HasPrefix(path, "status.") && (st.Class == SubresourceReadOnly || st.Class == SubresourceRefused) {
		return FieldRule{Kind: kind, Path: path, Class: FieldReadOnly, Reason: "status tenants may not write (its subresource is " + st.Class.String() + "): " + st.Reason}, true
	}
	for _, f := range row.PlatformStatusFields {
		if p := "status." + f; path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[]") {
			return FieldRule{Kind: kind, Path: path, Class: FieldReadOnly, Reason: "status the platform writes (PlatformStatusFields)"}, true
		}
	}
	return FieldRule{}, false
}

// FieldRules returns every FieldRule of the fields_*.go tables (not those
// derived from the kinds table): kinds' fields, open ones, definitions'.
func FieldRules() []FieldRule {
	return concatRules(kindFieldRules, openFieldRules, defRules)
}
