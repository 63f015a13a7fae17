package admissionrules

import (
	"sort"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// refValidations are TenantPolicy's rules for fields that point outside the
// object: the upstream twin of pkg/translate/refs_outside.go, from the same
// lists, so that a tenant identity used directly upstream meets the same
// limits as one going through the proxy.
func refValidations(forbidden *metav1.StatusReason) []admissionv1.Validation {
	isPV := cel("variables.reqGroup == '' && request.resource.resource == '$RESOURCE(core/PersistentVolume)' && variables.subres == '' && object != null")
	var pv []string
	for _, src := range translate.PVHostSources {
		pv = append(pv, "!has(object.spec."+src+")")
	}
	// The namespaces of the secrets a volume names, and of a CRD's
	// conversion webhook Service, are namespace references of the kinds
	// table: namespaceRefValidation judges them.
	conversion := "object.spec.conversion.webhook.clientConfig"
	out := append([]admissionv1.Validation{{
		Expression:        "!(" + isPV + ") || (" + strings.Join(pv, " && ") + ")",
		MessageExpression: "'volumes of tenant ' + variables.tenant + ' may not be on a path of the machines (hostPath, local)'",
		Reason:            forbidden,
	}}, serviceRefusedValidations(forbidden)...)
	out = append(out, []admissionv1.Validation{{
		Expression:        "!(variables.isCRD && variables.subres == '' && object != null) || " + absent(conversion+".url"),
		MessageExpression: "'CustomResourceDefinitions of tenant ' + variables.tenant + ' may not name a conversion webhook URL (the API server would dial it)'",
		Reason:            forbidden,
	}, namespaceRefValidation(forbidden), {
		Expression: cel("!(variables.reqGroup == 'storage.k8s.io' && request.resource.resource == '$RESOURCE(storage.k8s.io/StorageClass)' && variables.subres == '' && object != null)") + " || !has(object.parameters) || " +
			"object.parameters.all(k, !(k.lowerAscii().endsWith('secret-namespace') || k.lowerAscii().endsWith('secretnamespace')) || " +
			"object.parameters[k] == '" + translate.PVCNamespaceTemplate + "' || object.parameters[k].startsWith(variables.prefix))",
		MessageExpression: "'the secrets a StorageClass of tenant ' + variables.tenant + ' names must be in namespaces starting with ' + variables.prefix",
		Reason:            forbidden,
	}}...)
	return append(out, addressValidations(forbidden)...) // address.go
}

// serviceRefusedValidations refuse the fields of a Service that the kinds
// table refuses to tenants (KindRule.RefusedFields: externalIPs,
// loadBalancerIP), each set to anything but empty.
func serviceRefusedValidations(forbidden *metav1.StatusReason) []admissionv1.Validation {
	rule, _ := translate.LookupKindByKind(schema.GroupKind{Kind: "Service"})
	var out []admissionv1.Validation
	for _, ref := range rule.Refs {
		if !ref.Target.Refused() {
			continue
		}
		field := "object." + ref.Field
		out = append(out, admissionv1.Validation{
			Expression: "!(variables.reqGroup == '' && request.resource.resource == '" + rule.Resource.Resource + "' && variables.subres == '' && object != null) || " +
				absent(field) + " || size(" + field + ") == 0",
			Message: "tenants may not set " + ref.Field + ": " + ref.Reason,
			Reason:  forbidden,
		})
	}
	return out
}

// optionalPrefixed is a CEL condition that holds when the string field key of
// the object at path (a dotted CEL path) is absent, at any level, or null, or
// starts with the tenant's prefix. A field without omitempty (a
// PersistentVolume's spec.azureFile.secretNamespace) reaches admission as
// null when unset, which has() takes for set.
func optionalPrefixed(path, key string) string {
	field := path + "." + key
	return "(" + absent(field) + " || type(" + field + ") != string || " + field + ".startsWith(variables.prefix))"
}

// absent is a CEL condition that holds when any step of the dotted path
// (object.a.b.c) is missing; has() of a deeper step alone would fail on a
// missing parent.
func absent(path string) string {
	parts := strings.Split(path, ".")
	var conds []string
	for i := 2; i <= len(parts); i++ {
		conds = append(conds, "!has("+strings.Join(parts[:i], ".")+")")
	}
	return "(" + strings.Join(conds, " || ") + ")"
}

// namespaceRefValidation holds every namespace reference of the kinds table
// (translate.TargetNamespace, one value at a fixed path) of a kind a tenant
// may write upstream: the namespace is the tenant's. An IngressClass's
// spec.parameters.namespace, for one, would otherwise point the platform's
// ingress controller at another tenant's configuration.
func namespaceRefValidation(forbidden *metav1.StatusReason) admissionv1.Validation {
	var conds, fields []string
	for _, rule := range translate.Kinds() {
		writable := rule.Treatment == translate.Namespaced || rule.UpstreamAccess() == translate.AccessWrite
		if !writable {
			continue
		}
		for _, ref := range rule.Refs {
			if ref.Target != translate.TargetNamespace || strings.ContainsAny(ref.Field, "[]*") {
				continue
			}
			path, key := "object."+ref.Field[:strings.LastIndex(ref.Field, ".")], ref.Field[strings.LastIndex(ref.Field, ".")+1:]
			conds = append(conds, "!(variables.reqGroup == '"+rule.Resource.Group+"' && request.resource.resource == '"+rule.Resource.Resource+
				"') || "+optionalPrefixed(path, key))
			fields = append(fields, rule.Resource.String()+" "+ref.Field)
		}
	}
	sort.Strings(fields)
	return admissionv1.Validation{
		Expression: "variables.subres != '' || object == null || ((" + strings.Join(conds, ") && (") + "))",
		MessageExpression: "'the namespaces tenant ' + variables.tenant + ' names must start with ' + variables.prefix + ' (" +
			strings.Join(fields, ", ") + ")'",
		Reason: forbidden,
	}
}
