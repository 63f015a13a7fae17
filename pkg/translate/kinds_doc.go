package translate

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// SchemaField is one reference-like field of the pinned API, as the
// OpenAPI snapshot lists it (internal/openapisnap).
type SchemaField struct {
	// Kind is "core/Pod", "apps/Deployment", ...
	Kind string
	// Path is the field's JSON path.
	Path string
	// Def is the definition's property ("core.PodSpec.nodeName").
	Def string
}

// WriteKindsDoc renders docs/kinds.md: the kinds table with each kind's
// treatment, and the classification of every reference-like field of the
// pinned API (version), from the same tables the proxy and the upstream
// policies are generated from. TestKindsDoc keeps the file current.
func WriteKindsDoc(w io.Writer, version string, fields []SchemaField) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Kinds and their references\n\n"+
		"Generated from `pkg/translate` (the kinds table and `fields_*.go`) and the OpenAPI snapshot of\n"+
		"Kubernetes %s (`testdata/openapi/%s/fields.txt`); do not edit: `go test ./pkg/translate -run TestKindsDoc -update`\n"+
		"rewrites it. See [security](security.md), \"References: targets and the walking tests\".\n", version, version)
	docKinds(&b)
	docSubresources(&b) // kinds_doc_more.go
	docSelectors(&b)
	docMetadata(&b)
	docVolumeSources(&b)
	docFields(&b, fields)
	docDefinitions(&b, fields)
	docOpen(&b, fields)
	_, err := io.WriteString(w, b.String())
	return err
}

// docKinds is the kinds table: resource, kind, treatment, what a tenant's
// admins may do upstream, and the row's reason.
func docKinds(b *strings.Builder) {
	b.WriteString("\n## Kinds\n\nA resource of an API group of this table that has no row (one a newer API server serves) is " +
		"refused. Other resources are treated by their scope: a tenant's own CRDs' as its own API group's, a CRD the platform " +
		"installed in a built-in group as `namespaced` (its subresources refused) or `read-only`. Namespaced kinds are granted " +
		"to a tenant's admins in its namespaces only; the column below is their cluster-wide rights.\n\n" +
		"| resource | kind | treatment | tenant admins upstream | why |\n|---|---|---|---|---|\n")
	for _, r := range Kinds() {
		fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", r.Resource.String(), r.Kind, r.Treatment, accessName(r.UpstreamAccess()), docCell(r.Reason))
	}
}

func accessName(a Access) string {
	switch a {
	case AccessNone:
		return "none"
	case AccessRead:
		return "read"
	case AccessWrite:
		return "write (admission confines)"
	case AccessProxy:
		return "none (the proxy writes)"
	}
	return "default"
}

// docFields lists, per kind, the fields its row or a rule of the kind
// classifies; fields classified by their definition are counted here and
// listed in docDefinitions.
func docFields(b *strings.Builder, fields []SchemaField) {
	b.WriteString("\n## Reference-like fields, per kind\n\nEvery field of the pinned API whose name, format or type marks it as a reference " +
		"(`internal/openapisnap/patterns.go`) has a class: **translated** or **refused** by a reference of the kinds table, " +
		"**read-only** for tenants, **confined** by a check, **harmless** (with why), or **open** (a hole nothing holds yet). " +
		"`TestSchemaWalk` fails on a field without one.\n")
	kind, byDef := "", 0
	flush := func() {
		if kind != "" && byDef > 0 {
			fmt.Fprintf(b, "| %d more | | classified by their definition (below) |\n", byDef)
		}
	}
	for _, f := range fields {
		if f.Kind != kind {
			flush()
			kind, byDef = f.Kind, 0
			fmt.Fprintf(b, "\n### %s\n\n| field | class | why |\n|---|---|---|\n", f.Kind)
		}
		r, ok := ClassifyField(f.Kind, f.Path, f.Def)
		if ok && r.Def != "" {
			byDef++
			continue
		}
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", f.Path, classOf(r, ok), docCell(r.Reason))
	}
	flush()
}

// docDefinitions lists the rules of definitions' properties with the
// number of fields they classify.
func docDefinitions(b *strings.Builder, fields []SchemaField) {
	count := map[string]int{}
	for _, f := range fields {
		if r, ok := ClassifyField(f.Kind, f.Path, f.Def); ok && r.Def != "" {
			count[r.Def]++
		}
	}
	b.WriteString("\n## Reference-like fields, per definition\n\nRules that hold wherever the definition appears " +
		"(a pod spec is in nine kinds).\n\n| definition | fields | class | why |\n|---|---|---|---|\n")
	for _, r := range sortedDefRules() {
		fmt.Fprintf(b, "| `%s` | %d | %s | %s |\n", r.Def, count[r.Def], r.Class, docCell(r.Reason))
	}
}

// docOpen lists the open fields, grouped by what they leave open.
func docOpen(b *strings.Builder, fields []SchemaField) {
	byReason := map[string][]string{}
	var reasons []string
	for _, f := range fields {
		r, ok := ClassifyField(f.Kind, f.Path, f.Def)
		if !ok || r.Class != FieldOpen {
			continue
		}
		if _, seen := byReason[r.Reason]; !seen {
			reasons = append(reasons, r.Reason)
		}
		byReason[r.Reason] = append(byReason[r.Reason], f.Kind+" `"+f.Path+"`")
	}
	b.WriteString("\n## Open\n\nReferences that reach outside the tenant and that nothing holds yet.\n")
	if len(reasons) == 0 {
		b.WriteString("\nNone: every reference-like field of the snapshot is held.\n")
	}
	for _, reason := range reasons {
		list := byReason[reason]
		if len(list) > 6 {
			list = append(list[:6:6], fmt.Sprintf("and %d more", len(byReason[reason])-6))
		}
		fmt.Fprintf(b, "\n* %s: %s.\n", reason, strings.Join(list, ", "))
	}
}

func sortedDefRules() []FieldRule {
	var out []FieldRule
	for _, r := range FieldRules() {
		if r.Def != "" {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Def < out[j].Def })
	return out
}

func classOf(r FieldRule, ok bool) string {
	if !ok {
		return "**unclassified**"
	}
	if r.Class == FieldOpen {
		return "**open**"
	}
	return r.Class.String()
}

// docCell escapes a table cell.
func docCell(s string) string {
	return strings.ReplaceAll(s, "|", "\\|")
}
