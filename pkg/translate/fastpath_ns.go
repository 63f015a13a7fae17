package translate

import (
	"bytes"
)

// objectOutNamespaced is objectOutRaw's fast path for the commonest case: an
// object of a namespaced kind without cross references (a ConfigMap, a
// Secret, a Lease) whose only tenant-visible difference is its namespace.
// It decodes nothing but apiVersion, metadata.name and metadata.namespace
// and copies every other byte, rewriting only the namespace string in place.
//
// It handles the object only when the general path provably does nothing
// else to it: no tenant label among the labels, no ownerReferences, no
// managedFields to map, a built-in apiVersion, not a Table, Status or list.
// Otherwise it returns false and objectOutRaw does the work.
func (t *Translator) objectOutNamespaced(rule *KindRule, raw []byte, buf *bytes.Buffer) (bool, error) {
	if rule.Treatment != Namespaced || len(rule.Refs) != 0 || rule.NameIsNamespace {
		return false, nil
	}
	nsStart, nsEnd := -1, -1
	var ns, name string
	simple, metaSeen := true, false
	scanMeta := func(k string, v []byte) error {
		switch k {
		case "namespace":
			s, ok := plainString(v)
			if !ok || nsStart >= 0 { // a second namespace key: the general path decides
				simple = false
				return nil
			}
			ns, nsStart = s, cap(raw)-cap(v)
			nsEnd = nsStart + len(v)
		case "name":
			if s, ok := plainString(v); ok {
				name = s
			} else {
				simple = false
			}
		case "labels":
			simple = simple && !bytes.Contains(v, tenantLabelBytes)
		case "ownerReferences":
			simple = simple && (string(v) == "null" || string(v) == "[]")
		case "managedFields":
			simple = simple && managedFieldsUntouched(v)
		}
		return nil
	}
	err := forEachField(raw, func(k string, v []byte) error {
		switch k {
		case "items":
			simple = false
		case "kind":
			simple = simple && isPlainString(v) && string(v) != `"Table"` && string(v) != `"Status"`
		case "apiVersion":
			group, _, found := bytes.Cut(v, []byte("/"))
			simple = simple && isPlainString(v) && (!found || IsSharedGroup(string(group[1:])))
		case "metadata":
			if len(v) == 0 || v[0] != '{' || metaSeen {
				simple = false
				return nil
			}
			metaSeen = true
			return forEachField(v, scanMeta)
		}
		return nil
	})
	if err != nil || !simple {
		return false, nil // the general path reports malformed input
	}
	if nsStart < 0 || ns == "" {
		buf.Write(raw)
		return true, nil
	}
	local, ok := t.tenant.TenantNamespace(ns)
	if !ok {
		return true, notFound(rule.Resource, name)
	}
	buf.Write(raw[:nsStart])
	appendJSONString(buf, local)
	buf.Write(raw[nsEnd:])
	return true, nil
}

// plainString returns the JSON string v without escapes; ok is false for
// anything else.
func plainString(v []byte) (string, bool) {
	if !isPlainString(v) {
		return "", false
	}
	if k, ok := commonKeys[string(v[1:len(v)-1])]; ok {
		return k, true
	}
	return string(v[1 : len(v)-1]), true
}

// isPlainString reports whether v is a JSON string without escapes.
func isPlainString(v []byte) bool {
	return len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' && bytes.IndexByte(v, '\\') < 0
}
