package admissionrules

import (
	"slices"
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The zoo-tenant policy holds the kinds table's classification of
// resources and subresources upstream, for the writes and connects of a
// tenant identity or a tenant's ServiceAccount (reads are RBAC's): what the
// table does not classify is refused, as the proxy refuses it
// (translate.KindRule.SubresourceOf, translate's Rule). Everything below is
// generated from the table.

// classifiedVariables are the zoo-tenant policy's variables of the rules
// below (variables are evaluated at most once, when a rule reads them).
func classifiedVariables() []admissionv1.Variable {
	groups, _ := tableResources()
	_, reasons, _ := tableSubresources()
	return []admissionv1.Variable{
		// The table's groups, and every built-in group (translate.IsBuiltinGroup):
		// a platform's CRD there is not the tenant's to write.
		{Name: "tableGroup", Expression: "variables.reqGroup in " + celList(groups) + " || !variables.reqGroup.contains('.') || " +
			"variables.reqGroup in ['k8s.io', 'kubernetes.io'] || variables.reqGroup.endsWith('.k8s.io') || variables.reqGroup.endsWith('.kubernetes.io')"},
		{Name: "subresKey", Expression: "variables.reqGroup + '/' + request.resource.resource + '/' + variables.subres"},
		{Name: "subresReasons", Expression: reasons},
	}
}

// classifiedValidations are the rules: a resource of a group the table
// knows, or of any built-in group, must be one of its rows; a subresource must be writable by its
// class (a custom resource's: status or scale); a confined one must hold
// its guard.
func classifiedValidations(forbidden *metav1.StatusReason) []admissionv1.Validation {
	_, resources := tableResources()
	writable, _, guards := tableSubresources()
	var custom []string
	for _, s := range translate.CustomResourceSubresources() {
		custom = append(custom, s.Name)
	}
	out := []admissionv1.Validation{{
		Expression: "!variables.tableGroup || (variables.reqGroup + '/' + request.resource.resource) in " + celList(resources),
		MessageExpression: "'tenant ' + variables.tenant + ' may not write ' + request.resource.resource + " +
			"(variables.reqGroup == '' ? '' : '.' + variables.reqGroup) + ': the resource is not classified for tenants in the kinds table'",
		Reason: forbidden,
	}, {
		// A custom resource's only in the tenant's own CRD groups: a
		// platform's CRD (in any other group) has a status its
		// controllers write, as the table's read-only ones.
		Expression: "variables.subres == '' || (variables.tableGroup ? variables.subresKey in " + celList(writable) +
			" : variables.reqGroup.startsWith(variables.prefix) && variables.subres in " + celList(custom) + ")",
		MessageExpression: "variables.subresKey in variables.subresReasons ? variables.subresReasons[variables.subresKey] : " +
			"'the subresource ' + variables.subres + ' of ' + request.resource.resource + (variables.reqGroup == '' ? '' : '.' + variables.reqGroup) + " +
			"' is not classified for tenants in the kinds table'",
		Reason: forbidden,
	}}
	for _, g := range guards {
		out = append(out, admissionv1.Validation{
			Expression: "variables.subresKey != " + quote(g.key) + " || object == null || (" + g.cel + ")",
			Message:    "tenants may not write " + g.name + " so: " + g.reason,
			Reason:     forbidden,
		})
	}
	return out
}

// tableResources returns the API groups of the kinds table and its
// "group/resource" keys, sorted.
func tableResources() (groups, resources []string) {
	for _, k := range translate.Kinds() {
		groups = append(groups, k.Resource.Group)
		resources = append(resources, k.Resource.Group+"/"+k.Resource.Resource)
	}
	slices.Sort(groups)
	slices.Sort(resources)
	return slices.Compact(groups), resources
}

// guard is a confined subresource's rule, for one validation.
type guard struct{ key, name, reason, cel string }

// tableSubresources returns the "group/resource/sub" keys tenants may
// write, a CEL map from the others' keys to their refusals (the proxy's
// message), and the guards of confined subresources.
func tableSubresources() (writable []string, reasons string, guards []guard) {
	var entries []string
	for _, s := range translate.Subresources() {
		key := s.Resource.Group + "/" + s.Resource.Resource + "/" + s.Name
		switch {
		case s.Class.Writable():
			writable = append(writable, key)
		default:
			entries = append(entries, strconv.Quote(key)+": "+strconv.Quote(s.Refusal(s.Resource)))
		}
		if s.Class == translate.SubresourceConfined && s.Guard != nil && s.Guard.CEL != "" {
			guards = append(guards, guard{key: key, name: s.Resource.String() + "/" + s.Name, reason: s.Reason, cel: s.Guard.CEL})
		}
	}
	slices.Sort(writable)
	slices.Sort(entries)
	return writable, "{" + strings.Join(entries, ", ") + "}", guards
}
