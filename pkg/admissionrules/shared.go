package admissionrules

import (
	"sort"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The upstream half of translate.TargetShared: an object in a tenant's
// namespace, or labeled for a tenant, never names another tenant's class (a RuntimeClass, a
// PriorityClass, an IngressClass, a VolumeAttributesClass, ...). The fields
// come from the kinds table — every TargetShared reference of a namespaced
// or tenant-owned kind outside a list (lists of claims are claims, which
// rule 4 judges) —
// so a reference added to the table is held here too. Whoever writes the
// object is judged: a pod of a tenant's Deployment is created by the
// ReplicaSet controller.

// sharedRefFields returns, per namespaced or tenant-owned resource of the
// kinds table, the dotted paths of its references to shared kinds: the
// single-valued ones, or (lists) those inside lists, claim templates'
// aside (rules 4 and 6 judge their classes as the claims made from them).
func sharedRefFields(lists bool) map[schema.GroupResource][]string {
	out := map[schema.GroupResource][]string{}
	for _, rule := range translate.Kinds() {
		if rule.Treatment != translate.Namespaced && rule.Treatment != translate.TenantOwned {
			continue
		}
		for _, ref := range rule.Refs {
			inList := strings.Contains(ref.Field, "[]")
			if ref.Target != translate.TargetShared || inList != lists || (lists && strings.Contains(ref.Field, "olumeClaimTemplate")) {
				continue
			}
			out[rule.Resource] = append(out[rule.Resource], ref.Field)
		}
	}
	return out
}

// sharedRefRules are the match rules of the resources sharedRefFields names.
func sharedRefRules() []admissionv1.NamedRuleWithOperations {
	return matchRules(sharedRefFields(false))
}

// sharedRefsVariable is the CEL list of the shared references the object
// sets (empty for other resources and subresources).
func sharedRefsVariable() string {
	fields := sharedRefFields(false)
	grs := make([]schema.GroupResource, 0, len(fields))
	for gr := range fields {
		grs = append(grs, gr)
	}
	sort.Slice(grs, func(i, j int) bool { return grs[i].String() < grs[j].String() })
	expr := "[]"
	for i := len(grs) - 1; i >= 0; i-- {
		var lists []string
		for _, f := range fields[grs[i]] {
			path := "object." + f
			lists = append(lists, "("+absent(path)+" ? [] : ["+path+"])")
		}
		expr = "request.resource.group == '" + grs[i].Group + "' && request.resource.resource == '" + grs[i].Resource + "' ? " +
			strings.Join(lists, " + ") + " : " + expr
	}
	return "(has(request.subResource) && request.subResource != '') || object == null ? [] : " + expr
}

// sharedRefValidation refuses an object in a namespace of tenant t (or
// labeled for t) that names a class "x-..." of another existing tenant x (one authorization of
// the registry identity per such name, as for claims' classes).
func sharedRefValidation(forbidden *metav1.StatusReason) admissionv1.Validation {
	return admissionv1.Validation{
		Expression: storageCEL(`variables.refTenant == '' || variables.sharedRefs.all(c, c == '' || c.startsWith(variables.refTenant + '-') ||
  !c.matches('^[a-z][a-z0-9]{0,11}-.') || c.split('-')[0] in $RESERVED ||
  !` + memberCheck("c.split('-')[0]", tenantapi.TenantResource, "", "get") + `)`),
		MessageExpression: storageCEL(`'objects of tenant ' + variables.refTenant +
  ' may not name another tenant\'s class: ' + variables.sharedRefs.join(', ')`),
		Reason: forbidden,
	}
}
