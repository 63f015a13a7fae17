package admissionrules

import (
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The upstream half of the confined selectors of translate.SelectorTable
// that tenant identities write directly: the pod affinity terms of every
// pod spec of the kinds table (translate.KindRule.PodSpecPaths,
// translate.PodAffinityTermPaths). The scheduler evaluates a term's
// namespaces and namespaceSelector over every namespace of the cluster, so
// a term of tenant t may only name namespaces "t-..." and its
// namespaceSelector must hold the requirement the proxy adds: matchLabels
// TenantLabel=t, or the matchExpressions entry TenantLabel In [t]. Being
// AND-ed with the rest of the selector, no other expression undoes it.
// ClusterRole aggregation selectors are held by TenantPolicy's rule 5.

// confinedSelectorCEL holds when the LabelSelector sel (a CEL expression)
// carries the tenant requirement.
func confinedSelectorCEL(sel string) string {
	return cel("(has(" + sel + ".matchLabels) && '$LABEL' in " + sel + ".matchLabels && " + sel + ".matchLabels['$LABEL'] == variables.tenant) || " +
		"(has(" + sel + ".matchExpressions) && " + sel + ".matchExpressions.exists(e, e.key == '$LABEL' && e.operator == 'In' && " +
		"has(e.values) && e.values == [variables.tenant]))")
}

// affinityTermCEL holds when the PodAffinityTerm t reaches only the
// tenant's namespaces.
func affinityTermCEL(t string) string {
	return "(!has(" + t + ".namespaces) || " + t + ".namespaces.all(n, n.startsWith(variables.prefix))) && " +
		"(!has(" + t + ".namespaceSelector) || " + confinedSelectorCEL(t+".namespaceSelector") + ")"
}

// affinityTermsCEL holds when every term at the pod spec path spec (a CEL
// path) and the term path of translate.PodAffinityTermPaths is confined.
func affinityTermsCEL(spec, termPath string) string {
	list, rest, _ := strings.Cut(termPath, "[]")
	list = spec + "." + list
	term := "x" + rest
	check := affinityTermCEL(term)
	if rest != "" {
		check = "!has(" + term + ") || (" + check + ")"
	}
	return absent(list) + " || " + list + ".all(x, " + check + ")"
}

// affinityValidations are one validation per kind that holds pod specs.
func affinityValidations(forbidden *metav1.StatusReason) []admissionv1.Validation {
	var out []admissionv1.Validation
	for _, k := range translate.Kinds() {
		paths := k.PodSpecPaths()
		if len(paths) == 0 {
			continue
		}
		var terms, fields []string
		for _, p := range paths {
			fields = append(fields, p+".affinity")
			for _, tp := range translate.PodAffinityTermPaths {
				terms = append(terms, "("+affinityTermsCEL("object."+p, tp)+")")
			}
		}
		match := "variables.reqGroup == " + strconv.Quote(k.Resource.Group) + " && request.resource.resource == " + strconv.Quote(k.Resource.Resource) +
			" && variables.subres == '' && object != null"
		out = append(out, admissionv1.Validation{
			Expression: "!(" + match + ") || (" + strings.Join(terms, " && ") + ")",
			MessageExpression: cel("'the pod affinity terms of tenant ' + variables.tenant + ' (" + k.Resource.String() + " " + strings.Join(fields, ", ") +
				") may only name namespaces starting with ' + variables.prefix + ' and select namespaces with a namespaceSelector that requires $LABEL=' + " +
				"variables.tenant + ': the scheduler evaluates them over every namespace of the cluster'"),
			Reason: forbidden,
		})
	}
	return out
}
