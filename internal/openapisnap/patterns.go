// Package openapisnap takes a compact snapshot of what the schema walk of
// issue #24 needs from a kube-apiserver's OpenAPI v3 documents: every
// built-in resource (and subresource) with its kind, and every field of
// those kinds whose name, format or type marks it as a reference-like field
// (Flag). The snapshot lives under testdata/openapi/<version>/fields.txt,
// is written by `go run ./hack/openapi-snapshot` or the e2e test's -update,
// and is walked by pkg/translate's TestSchemaWalk, which fails on any
// flagged field that the kinds table does not classify.
package openapisnap

import (
	"strings"
	"unicode"
)

// The reference patterns: THE list of what makes a field reference-like.
// A field is flagged when
//
//   - the last word of its camelCase name is one of nameWords (secretRef,
//     claimName, namespaceSelector, externalName, podIPs, targetPortal,
//     serviceAccount, volumeID, volumeHandle, ...), or the whole name is
//     (namespace, host, url,
//     ...), and its type is not a number or a boolean (runAsUser,
//     manualSelector). A bare "name" is not flagged: it is the object's or
//     a list item's own local name;
//   - any word of its name is one of anyWords (hostPath, hostNetwork,
//     hostPort, hostAliases: the shared machines);
//   - its format is one of formats (uri, hostname, ipv4, ...);
//   - its type (for a list, its items' type) is a definition whose name
//     ends in one of typeSuffixes (ObjectReference, LocalObjectReference,
//     LabelSelector, NodeSelector, Subject, ...).
var (
	nameWords = words("ref", "refs", "reference", "references",
		"name", "names", "namespace", "namespaces",
		"selector", "selectors", "host", "hosts", "hostname", "hostnames",
		"ip", "ips", "cidr", "cidrs", "url", "urls", "uri", "uris",
		"service", "services", "server", "servers", "endpoint", "endpoints",
		"address", "addresses", "portal", "portals", "monitors",
		"user", "users", "username", "group", "groups", "subject", "subjects",
		"account", "accounts", "gateway", "registry", "id", "ids", "handle")
	anyWords     = words("host")
	formats      = words("uri", "url", "hostname", "ipv4", "ipv6", "ip", "cidr")
	typeSuffixes = []string{"Reference", "Selector", "Subject", "Ref"}
)

func words(ws ...string) map[string]bool {
	m := make(map[string]bool, len(ws))
	for _, w := range ws {
		m[w] = true
	}
	return m
}

// Flag reports why a field is reference-like ("" when it is not): name is
// the property's name, format its OpenAPI format, jsonType its JSON type
// (for a list, its items'), typeName the definition its value (or its
// items) refers to ("" for none).
func Flag(name, format, jsonType, typeName string) string {
	ws := camelWords(name)
	scalar := jsonType == "boolean" || jsonType == "integer" || jsonType == "number"
	if !scalar && (len(ws) > 1 || ws[0] != "name") {
		if nameWords[ws[len(ws)-1]] {
			return "name"
		}
	}
	for _, w := range ws {
		if anyWords[w] {
			return "name"
		}
	}
	if formats[strings.ToLower(format)] {
		return "format"
	}
	for _, s := range typeSuffixes {
		if typeName != "" && strings.HasSuffix(typeName, s) {
			return "type"
		}
	}
	return ""
}

// camelWords splits a camelCase name into lower-case words; runs of
// capitals are one word ("podIPs" → pod, ips; "externalIPs" → external,
// ips; "URL" → url; "$ref" → ref).
func camelWords(name string) []string {
	var out []string
	var cur []rune
	rs := []rune(strings.TrimLeft(name, "$"))
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = nil
		}
	}
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && i > 0:
			prevUpper := unicode.IsUpper(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1]) && !(rs[i+1] == 's' && (i+2 == len(rs) || !unicode.IsLower(rs[i+2])))
			if !prevUpper || nextLower {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	if len(out) == 0 {
		return []string{""}
	}
	return out
}
