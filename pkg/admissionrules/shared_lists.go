package admissionrules

import (
	"sort"
	"strings"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The upstream half of translate.TargetShared for references inside lists
// (a ResourceClaim's device requests name DeviceClasses): sharedRefsVariable
// holds single-valued fields only, and claim templates' classes are judged
// as the claims the controllers make (rules 4 and 6). Every other shared
// reference under a list of a kind tenants write is judged here, for
// whoever writes (the resource claim controller makes a tenant's claims
// from its templates), with the same test as sharedRefValidation.

// sharedListRules are the match rules of the resources sharedListFields
// names.
func sharedListRules() []admissionv1.NamedRuleWithOperations {
	return matchRules(sharedRefFields(true))
}

// matchRules matches writes of the resources of fields, one rule per group.
func matchRules(fields map[schema.GroupResource][]string) []admissionv1.NamedRuleWithOperations {
	byGroup := map[string][]string{}
	for gr := range fields {
		byGroup[gr.Group] = append(byGroup[gr.Group], gr.Resource)
	}
	groups := make([]string, 0, len(byGroup))
	for g := range byGroup {
		groups = append(groups, g)
	}
	sort.Strings(groups)
	out := make([]admissionv1.NamedRuleWithOperations, 0, len(groups))
	for _, g := range groups {
		sort.Strings(byGroup[g])
		out = append(out, admissionv1.NamedRuleWithOperations{RuleWithOperations: admissionv1.RuleWithOperations{
			Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
			Rule:       admissionv1.Rule{APIGroups: []string{g}, APIVersions: []string{"*"}, Resources: byGroup[g]},
		}})
	}
	return out
}

// sharedClassAllowed is sharedRefValidation's test of one class name, $C.
var sharedClassAllowed = `($C == '' || $C.startsWith(variables.refTenant + '-') ||
  !$C.matches('^[a-z][a-z0-9]{0,11}-.') || $C.split('-')[0] in $RESERVED ||
  !` + memberCheck("$C.split('-')[0]", tenantapi.TenantResource, "", "get") + `)`

// eachAt is a CEL condition that holds when every string at the dotted
// path under obj ("[]" after a key walks a list) passes test, a condition
// on $C; absent steps pass.
func eachAt(obj, path, test string, depth int) string {
	key, rest, more := strings.Cut(path, ".")
	name, list := strings.CutSuffix(key, "[]")
	here := obj + "." + name
	switch {
	case !more:
		return "(!has(" + here + ") || " + strings.ReplaceAll(test, "$C", here) + ")"
	case list:
		v := "x" + string(rune('0'+depth))
		return "(!has(" + here + ") || " + here + ".all(" + v + ", " + eachAt(v, rest, test, depth+1) + "))"
	default:
		return "(!has(" + here + ") || " + eachAt(here, rest, test, depth) + ")"
	}
}

// sharedListValidation refuses an object in a namespace of tenant t (or
// labeled for t) that names, in a list, a class "x-..." of another existing
// tenant x.
func sharedListValidation(forbidden *metav1.StatusReason) admissionv1.Validation {
	fields := sharedRefFields(true)
	grs := make([]schema.GroupResource, 0, len(fields))
	for gr := range fields {
		grs = append(grs, gr)
	}
	sort.Slice(grs, func(i, j int) bool { return grs[i].String() < grs[j].String() })
	var conds, names []string
	for _, gr := range grs {
		var each []string
		for _, f := range fields[gr] {
			each = append(each, eachAt("object", f, sharedClassAllowed, 0))
			names = append(names, gr.String()+" "+f)
		}
		conds = append(conds, "!(request.resource.group == '"+gr.Group+"' && request.resource.resource == '"+gr.Resource+"') || ("+
			strings.Join(each, " && ")+")")
	}
	return admissionv1.Validation{
		Expression: storageCEL("variables.refTenant == '' || (has(request.subResource) && request.subResource != '') || object == null || ((" +
			strings.Join(conds, ") && (") + "))"),
		MessageExpression: storageCEL("'objects of tenant ' + variables.refTenant + ' may not name another tenant\\'s class (" +
			strings.Join(names, ", ") + ")'"),
		Reason: forbidden,
	}
}
