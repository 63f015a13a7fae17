package admissionrules

import (
	"fmt"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Names of the policies of platform-owned metadata and pod priority.
const (
	// MetadataPolicy keeps tenants off platform-owned labels and annotations
	// (translate.PlatformMetadata) and makes a tenant's new namespace carry
	// its Pod Security level.
	MetadataPolicy = "zoo-tenant-metadata"
	// PriorityPolicy keeps every pod in a tenant namespace, whoever creates
	// it, at priority 0 or less unless the namespace allows its class, and
	// caps tenants' own PriorityClasses.
	PriorityPolicy = "zoo-tenant-priority"
	// PodSecurityLevelResource is the virtual resource (in kubectl-zoo's API
	// group) whose `use` on a level's name lets a tenant create namespaces at
	// that level; TenantRBAC grants it for the tenant's level.
	PodSecurityLevelResource = "podsecuritylevels"
)

// quote is a CEL string literal of s (the keys of the table hold no quotes
// or backslashes; kinds_table and the table's test keep it so).
func quote(s string) string { return "'" + s + "'" }

// platformKeyCEL is the CEL predicate over k (a label key, or an annotation
// key) that says k is platform-owned on the object of the request, built
// from translate.PlatformMetadata and the platform's domains
// (domainKeyCEL). It costs a few string comparisons per key and domain.
func platformKeyCEL(annotation bool) string { return platformKeyCELOf(annotation, "variables.res") }

// platformKeyCELOf is platformKeyCEL for the resource that the CEL
// expression res names ('group/resource').
func platformKeyCELOf(annotation bool, res string) string {
	out := rowsCELOf(annotation, res, func(translate.PlatformKey) string { return "" })
	if d := domainKeyCELOf(annotation, res); d != "false" {
		if out == "false" {
			out = d
		} else {
			out += " ||\n    " + d
		}
	}
	if !annotation && out != "false" {
		out = cel("k != '$LABEL' && (" + out + ")")
	}
	return out
}

// allowedCEL is the CEL predicate over k that says k is a platform-owned
// key with an Allowed value (translate.PlatformKey.Allowed) and m[k] has it;
// removableCEL says k has an Allowed value, so a tenant may remove it.
func allowedCEL(annotation bool, m string) string {
	return rowsCEL(annotation, func(row translate.PlatformKey) string {
		if row.Allowed == "" {
			return "false"
		}
		return m + "[k] == " + quote(row.Allowed)
	})
}

func removableCEL(annotation bool) string {
	return rowsCEL(annotation, func(row translate.PlatformKey) string {
		if row.Allowed == "" {
			return "false"
		}
		return ""
	})
}

// rowsCEL ORs, over the rows of translate.PlatformMetadata of labels
// (annotations) that admission judges, "k is the row's key on the
// request's resource" and the row's extra condition ("" for none, "false"
// leaves the row out).
func rowsCEL(annotation bool, extra func(translate.PlatformKey) string) string {
	return rowsCELOf(annotation, "variables.res", extra)
}

func rowsCELOf(annotation bool, res string, extra func(translate.PlatformKey) string) string {
	byResource := map[schema.GroupResource][]string{}
	var order []schema.GroupResource
	for _, row := range translate.PlatformMetadata() {
		if row.Annotation != annotation || row.APIServer {
			continue
		}
		cond := extra(row)
		if cond == "false" {
			continue
		}
		if _, seen := byResource[row.Resource]; !seen {
			order = append(order, row.Resource)
		}
		// Exact keys: the variants of a FoldCase row are zoo-tenant-storage's
		// to refuse (rule 5, for every writer, with its own message).
		test := "k == " + quote(row.Key)
		if strings.HasSuffix(row.Key, "/") {
			test = "k.startsWith(" + quote(row.Key) + ")"
		}
		if cond != "" {
			test = "(" + test + " && " + cond + ")"
		}
		byResource[row.Resource] = append(byResource[row.Resource], test)
	}
	var terms []string
	for _, gr := range order {
		terms = append(terms, fmt.Sprintf("(%s == %s && (%s))", res, quote(gr.Group+"/"+gr.Resource), strings.Join(byResource[gr], " || ")))
	}
	if len(terms) == 0 {
		return "false"
	}
	return strings.Join(terms, " || ")
}

// platformResources are the resource rules of the resources that carry
// platform-owned metadata (rows of the table, and the kinds with
// PlatformDomains), with their subresources.
func platformResources() []admissionv1.NamedRuleWithOperations {
	byGroup := map[string][]string{}
	var groups []string
	var judged []schema.GroupResource
	for _, row := range translate.PlatformMetadata() {
		if !row.APIServer {
			judged = append(judged, row.Resource)
		}
	}
	judged = append(judged, translate.PlatformDomainResources()...)
	for _, gr := range append(judged, templateResources()...) { // templates.go
		g, r := gr.Group, gr.Resource
		if _, seen := byGroup[g]; !seen {
			groups = append(groups, g)
		}
		if !slices.Contains(byGroup[g], r) {
			byGroup[g] = append(byGroup[g], r, r+"/*")
		}
	}
	var out []admissionv1.NamedRuleWithOperations
	for _, g := range groups {
		out = append(out, admissionv1.NamedRuleWithOperations{RuleWithOperations: admissionv1.RuleWithOperations{
			Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
			Rule:       admissionv1.Rule{APIGroups: []string{g}, APIVersions: []string{"*"}, Resources: byGroup[g]},
		}})
	}
	return out
}

// metadataPolicy refuses a tenant's write that adds, changes or removes a
// platform-owned label or annotation (but a key's Allowed value may be
// written, and such a key removed), comparing object with oldObject (on a
// create every such key is an addition), and a tenant's namespace created
// without the Pod Security level the tenant is granted. It judges the
// requests zoo-tenant judges (zoo: identities, a tenant's ServiceAccounts in
// its namespaces) and also a tenant's ServiceAccounts writing the Namespace
// object of their own tenant, which RoleBindings in that namespace can allow
// and for which namespaceObject is null. A Pod Security label may be set
// (on create or update) to the tenant's level or a stricter one, never a
// looser one, as through the proxy. One evaluation per request; the Pod
// Security check asks the authorizer at most three times, only when a
// namespace's Pod Security label is set to a new value.
//
// On pods it lets through the keys the platform's own mutating webhooks
// add (webhookKeys, InstallConfig): it sees a pod after them.
func metadataPolicy(webhookKeys []string) *admissionv1.ValidatingAdmissionPolicy {
	forbidden := ptr.To(metav1.StatusReasonForbidden)
	v := func(name, expr string) admissionv1.Variable {
		return admissionv1.Variable{Name: name, Expression: cel(expr)}
	}
	psKeys := make([]string, len(translate.PodSecurityLabelKeys))
	for i, k := range translate.PodSecurityLabelKeys {
		psKeys[i] = quote(k)
	}
	bad := func(cur, old string, annotation bool) string {
		p := platformKeyCEL(annotation)
		exempt := "false"
		if !annotation {
			// A Pod Security label at the tenant's level or a stricter
			// one, as the proxy allows (translate.PodSecurityAtLeast).
			exempt = "variables.isNamespace && k in [" + strings.Join(psKeys, ", ") + "] && " + cur + "[k] in variables.psRank && variables.psRank[" + cur + "[k]] >= variables.psFloor"
		}
		// A key may keep its value; a key with an Allowed value may take it,
		// or go.
		unless := func(pred string) string {
			if pred == "false" {
				return ""
			}
			return " && !(" + pred + ")"
		}
		exempt = "(" + exempt + ") || (variables.res == '/pods' && k in variables.webhookKeys)"
		return fmt.Sprintf(`%[1]s.filter(k, (%[3]s) && !(k in %[2]s && %[2]s[k] == %[1]s[k])%[4]s%[5]s) +
  %[2]s.filter(k, (%[3]s) && !(k in %[1]s)%[6]s)`, cur, old, p, unless(exempt), unless(allowedCEL(annotation, cur)), unless(removableCEL(annotation)))
	}
	return &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta: policyType,
		ObjectMeta: metav1.ObjectMeta{Name: MetadataPolicy, Labels: tenantapi.ManagedLabels(),
			Annotations: map[string]string{WebhookKeysAnnotation: strings.Join(webhookKeys, ",")}},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy:    ptr.To(admissionv1.Fail),
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: platformResources()},
			MatchConditions: []admissionv1.MatchCondition{{
				Name: "tenant-identity",
				Expression: zooIdentityExpr + ` ||
  (request.userInfo.username.startsWith('system:serviceaccount:') && !request.userInfo.username.startsWith('system:serviceaccount:kube-system:'))`,
			}},
			// The domain rule's lists first: badLabels and badAnnotations
			// read them.
			Variables: append(append(domainVariables(),
				v("webhookKeys", celList(webhookKeys)),
				v("reqGroup", "has(request.resource.group) ? request.resource.group : ''"),
				v("res", "variables.reqGroup + '/' + request.resource.resource"),
				v("isNamespace", "variables.res == '/namespaces'"),
				v("labels", "object != null && has(object.metadata) && has(object.metadata.labels) ? object.metadata.labels : {}"),
				v("oldLabels", "oldObject != null && has(oldObject.metadata) && has(oldObject.metadata.labels) ? oldObject.metadata.labels : {}"),
				v("annotations", "object != null && has(object.metadata) && has(object.metadata.annotations) ? object.metadata.annotations : {}"),
				v("oldAnnotations", "oldObject != null && has(oldObject.metadata) && has(oldObject.metadata.annotations) ? oldObject.metadata.annotations : {}"),
				v("isZoo", zooIdentityExpr),
				v("saTenant", saTenantExpr),
				// A ServiceAccount writing its own tenant's Namespace object.
				v("saNsTenant", saNsTenantExpr),
				v("judged", "variables.isZoo || variables.saTenant != '' || variables.saNsTenant != ''"),
				v("tenant", "variables.isZoo ? "+zooTenantExpr+" : variables.saTenant != '' ? variables.saTenant : variables.saNsTenant"),
				// A create of one of the tenant's own namespaces; zoo-tenant
				// refuses the others (unprefixed, unlabeled) with its own
				// message, so neither the level check nor the Pod Security
				// labels (exempt on every namespace create) judge them.
				v("nsCreate", `variables.isNamespace && request.operation == 'CREATE' && '$LABEL' in variables.labels &&
  variables.labels['$LABEL'] == variables.tenant && object.metadata.name.startsWith(variables.tenant + '-')`),
				v("level", "'"+translate.PodSecurityEnforce+"' in variables.labels ? variables.labels['"+translate.PodSecurityEnforce+"'] : ''"),
				v("psRank", psRankCEL()),
				// The rank of the tenant's level (its MembershipRoleBinding
				// grants `use` of it, TenantRBAC): at most three authorizer
				// calls of one namespace's bindings, made only when a Pod
				// Security label of a namespace is set to a value it did not
				// have.
				v("psFloor", psFloorCEL()),
				v("badLabels", bad("variables.labels", "variables.oldLabels", false)),
				v("badAnnotations", bad("variables.annotations", "variables.oldAnnotations", true)),
			), templateVariables()...), // templates.go
			Validations: append([]admissionv1.Validation{{
				Expression: "!variables.judged || size(variables.badLabels) == 0",
				MessageExpression: `'the labels ' + variables.badLabels.join(', ') + ' belong to the platform: tenant ' + variables.tenant +
  ' may not add, change or remove them'`,
				Reason: forbidden,
			}, {
				Expression: "!variables.judged || size(variables.badAnnotations) == 0",
				MessageExpression: `'the annotations ' + variables.badAnnotations.join(', ') + ' belong to the platform: tenant ' + variables.tenant +
  ' may not add, change or remove them'`,
				Reason: forbidden,
			}, {
				// The level is the tenant's, or a stricter one: psFloor.
				Expression: `!variables.judged || !variables.nsCreate ||
  (variables.level in variables.psRank && variables.psRank[variables.level] >= variables.psFloor)`,
				MessageExpression: `'a namespace of tenant ' + variables.tenant + ' must be created with the label ` + translate.PodSecurityEnforce +
					` at the tenant\'s Pod Security level or a stricter one, not ' + (variables.level == '' ? '(none)' : variables.level)`,
				Reason: forbidden,
			}}, templateValidations()...),
		},
	}
}

// psRankCEL is a CEL map from each Pod Security level to its rank
// (translate.PodSecurityRank).
func psRankCEL() string {
	terms := make([]string, len(translate.PodSecurityLevels))
	for i, l := range translate.PodSecurityLevels {
		terms[i] = fmt.Sprintf("%s: %d", quote(l), i)
	}
	return "{" + strings.Join(terms, ", ") + "}"
}

// psFloorCEL is the rank of the tenant's Pod Security level for a zoo:
// identity: the loosest level the registry identity may `use`
// (PodSecurityLevelResource) in the tenant's membership namespace, loosest
// first, and the strictest when it may use none of the others. It asks the
// authorizer at most len(PodSecurityLevels)-1 times: CEL's cost budget of
// one expression allows two authorization checks, and a third (a tenant at
// restricted) failed every namespace label write of that tenant with "actual
// cost limit exceeded". A zoo: identity of no member tenant gets the
// strictest level: IdentityPolicy refuses all its writes anyway. A tenant's
// ServiceAccounts, which may change no Pod Security label, get one past the
// strictest.
func psFloorCEL() string {
	none := fmt.Sprint(len(translate.PodSecurityLevels))
	last := len(translate.PodSecurityLevels) - 1
	out := fmt.Sprint(last)
	for i := last - 1; i >= 0; i-- {
		out = fmt.Sprintf("%s ? %d : (%s)", memberCheck("variables.tenant", PodSecurityLevelResource, quote(translate.PodSecurityLevels[i]), "use"), i, out)
	}
	return "!variables.isZoo ? " + none + " : (" + out + ")"
}

// priorityPolicy judges every pod created in a tenant namespace (matched by
// the namespace's TenantLabel, so also the pods of Deployments, Jobs,
// StatefulSets and DaemonSets that controllers create), and every
// PriorityClass labeled as a tenant's, whoever writes it. The Priority
// admission plugin (mutating) has resolved priorityClassName into
// spec.priority before validating policies run, so a pod from the global
// default class is judged too. A pod of positive priority is admitted when
// its class is in the tenant's policy (the namespace's TenantLabel names the
// tenant; one authorizer call, PriorityGrant) or in the namespace's
// platform-owned annotation translate.PriorityClassesAnnotation.
func priorityPolicy() *admissionv1.ValidatingAdmissionPolicy {
	forbidden := ptr.To(metav1.StatusReasonForbidden)
	ann := quote(translate.PriorityClassesAnnotation)
	return &admissionv1.ValidatingAdmissionPolicy{
		TypeMeta:   policyType,
		ObjectMeta: metav1.ObjectMeta{Name: PriorityPolicy, Labels: tenantapi.ManagedLabels()},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: ptr.To(admissionv1.Fail),
			MatchConstraints: &admissionv1.MatchResources{
				// Cluster-scoped PriorityClasses are never skipped by it.
				NamespaceSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
					Key: translate.TenantLabel, Operator: metav1.LabelSelectorOpExists,
				}}},
				ResourceRules: []admissionv1.NamedRuleWithOperations{{RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create},
					Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{translate.ResourceOf("", "Pod")}},
				}}, {RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create, admissionv1.Update},
					Rule:       admissionv1.Rule{APIGroups: []string{"scheduling.k8s.io"}, APIVersions: []string{"*"}, Resources: []string{translate.ResourceOf("scheduling.k8s.io", "PriorityClass")}},
				}}},
			},
			MatchConditions: []admissionv1.MatchCondition{{
				Name: "tenant-pod-or-class",
				Expression: cel(`request.resource.resource == '$RESOURCE(core/Pod)' ||
  (object != null && has(object.metadata.labels) && '$LABEL' in object.metadata.labels)`),
			}},
			Validations: []admissionv1.Validation{{
				Expression: cel(`request.resource.resource != '$RESOURCE(core/Pod)'`) + ` || !has(object.spec.priority) || object.spec.priority <= ` + fmt.Sprint(translate.MaxTenantPriority) + ` ||
  (has(object.spec.priorityClassName) && namespaceObject != null && has(namespaceObject.metadata.annotations) &&
   ` + ann + ` in namespaceObject.metadata.annotations &&
   namespaceObject.metadata.annotations[` + ann + `].split(',').exists(c, c == object.spec.priorityClassName)) ||
  (has(object.spec.priorityClassName) && namespaceObject != null && has(namespaceObject.metadata.labels) &&
   ` + cel("'$LABEL'") + ` in namespaceObject.metadata.labels &&
   ` + memberCheck(cel("namespaceObject.metadata.labels['$LABEL']"), PriorityClassResource, "object.spec.priorityClassName", "use") + `)`,
				MessageExpression: `'pods in tenant namespace ' + request.namespace + ' may not have a positive priority (' + string(object.spec.priority) +
  (has(object.spec.priorityClassName) ? ', PriorityClass ' + object.spec.priorityClassName : '') +
  ') unless the tenant\'s policy allows the class (kubectl zoo policy set --priority-classes) or the platform allows it in the namespace (annotation ` + translate.PriorityClassesAnnotation + `)'`,
				Reason: forbidden,
			}, {
				Expression: cel(`request.resource.resource != '$RESOURCE(scheduling.k8s.io/PriorityClass)'`) + ` ||
  (object.value <= ` + fmt.Sprint(translate.MaxTenantPriority) + ` && !(has(object.globalDefault) && object.globalDefault) &&
   has(object.preemptionPolicy) && object.preemptionPolicy == 'Never')`,
				Message: fmt.Sprintf("a tenant's PriorityClass must have a value of at most %d, preemptionPolicy Never, and may not be the global default",
					translate.MaxTenantPriority),
				Reason: forbidden,
			}},
		},
	}
}
