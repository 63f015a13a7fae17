package admissionrules

import (
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The platform's key domains upstream (translate.PlatformDomains): on the
// kinds with PlatformDomains, zoo-tenant-metadata takes a key in one of the
// domains (or one of their owners' unprefixed keys) for platform-owned,
// unless translate.TenantAllowedKeys lists it, a row of the table of
// platform-owned metadata has rules of its own for it (a key the API server
// keeps), or the kind refuses the annotation outright (KindRule.Annotations). The proxy decides the same from the same lists; it also reads a
// prefix's case and trailing dot loosely, which the API server refuses as
// an invalid key before admission.

// domainVariables are the policy's variables of the domain rule: the
// domains, the allow-list's exact keys and its prefixes (as domains), and
// the unprefixed keys.
func domainVariables() []admissionv1.Variable {
	var domains, unprefixed, keys, prefixes []string
	for _, d := range translate.PlatformDomains() {
		domains = append(domains, d.Domain)
		unprefixed = append(unprefixed, d.Unprefixed...)
	}
	for _, a := range translate.TenantAllowedKeys() {
		if p, ok := strings.CutSuffix(a.Key, "/"); ok {
			prefixes = append(prefixes, p)
		} else {
			keys = append(keys, a.Key)
		}
	}
	return []admissionv1.Variable{
		{Name: "platformDomains", Expression: celList(domains)},
		{Name: "platformUnprefixed", Expression: celList(unprefixed)},
		{Name: "tenantKeys", Expression: celList(keys)},
		{Name: "tenantPrefixes", Expression: celList(prefixes)},
	}
}

// domainKeyCEL is the CEL predicate over k that says k is platform-owned by
// its domain on the request's object: the resource has PlatformDomains, k
// is not on the allow-list nor a key the API server keeps (rowsCEL's rows
// come first), and its prefix is a platform domain or one of its
// subdomains, or it is an owner's unprefixed key. A key is split once (the
// one-element list binds it) and compared with each domain: a few string
// operations per domain and key.
func domainKeyCEL(annotation bool) string { return domainKeyCELOf(annotation, "variables.res") }

// domainKeyCELOf is domainKeyCEL for the resource that the CEL expression
// res names ('group/resource').
func domainKeyCELOf(annotation bool, res string) string {
	var resources []string
	for _, gr := range translate.PlatformDomainResources() {
		resources = append(resources, gr.Group+"/"+gr.Resource)
	}
	if len(resources) == 0 {
		return "false"
	}
	out := res + " in " + celList(resources) + " && !(k in variables.tenantKeys)"
	for _, row := range translate.PlatformMetadata() {
		if row.APIServer && row.Annotation == annotation && slices.Contains(resources, row.Resource.Group+"/"+row.Resource.Resource) {
			out += " && !(" + res + " == " + quote(row.Resource.Group+"/"+row.Resource.Resource) + " && k == " + quote(row.Key) + ")"
		}
	}
	// An annotation a kind refuses outright is zoo-tenant-storage's, with
	// its own message.
	for _, gr := range translate.PlatformDomainResources() {
		rule, _ := translate.LookupKind(gr)
		for i := 0; annotation && i < len(rule.Annotations); i++ {
			out += " && !(" + res + " == " + quote(gr.Group+"/"+gr.Resource) + " && k == " + quote(rule.Annotations[i].Key) + ")"
		}
	}
	return "(" + out + ` &&
    [k.split('/')].exists(s, size(s) == 2 ?
      !(s[0] in variables.tenantPrefixes) && variables.platformDomains.exists(d, s[0] == d || s[0].endsWith('.' + d)) :
      k in variables.platformUnprefixed))`
}
