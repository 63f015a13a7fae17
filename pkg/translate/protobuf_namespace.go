package translate

import (
	"bytes"
	"errors"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// protobufItemNamespaced is objectOutNamespaced for a protobuf object: when
// the namespace is provably the only thing translation changes, it rewrites
// that one field (and the lengths around it) and copies every other byte.
// done is false when the general path must decide.
func (t *Translator) protobufItemNamespaced(rule *KindRule, item, out []byte) (res []byte, done bool, err error) {
	if !namespaceOnly(rule) {
		return out, false, nil
	}
	return rewriteNamespace(item, out, func(ns, name []byte) (string, error) {
		local, ok := t.tenant.TenantNamespace(string(ns))
		if !ok {
			return "", notFound(rule.Resource, string(name))
		}
		return local, nil
	})
}

// namespaceOnly reports whether rule's objects differ between the tenant
// and the upstream in their namespace only (when nothing in metadata says
// otherwise): namespaced kinds without cross references or checks.
func namespaceOnly(rule *KindRule) bool {
	return rule != nil && rule.Treatment == Namespaced && len(rule.Refs) == 0 && !rule.NameIsNamespace && rule.Check == nil && rule.Complete == nil && len(rule.Annotations) == 0
}

// rewriteNamespace appends item to out with its metadata.namespace mapped by
// mapNS (given the namespace and the object's name, which stay valid only
// during the call and are not converted unless mapNS needs them), every
// other byte copied. done is false, and nothing is appended, when the object may need
// more than that: a tenant label anywhere in its metadata, owner
// references, managers of a non-built-in apiVersion, or metadata that does
// not parse.
func rewriteNamespace(item, out []byte, mapNS func(ns, name []byte) (string, error)) (res []byte, done bool, err error) {
	metaStart, metaEnd := -1, -1
	var meta []byte
	err = eachField(item, func(num protowire.Number, typ protowire.Type, val []byte, start, end int) error {
		if num != objectMeta {
			return nil
		}
		if typ != protowire.BytesType || metaStart >= 0 {
			return errors.New("not one metadata message")
		}
		meta, metaStart, metaEnd = val, start, end
		return nil
	})
	if err != nil { // the general path reports malformed input
		return out, false, nil
	}
	if metaStart < 0 { // no metadata, so no namespace: nothing to translate
		return append(out, item...), true, nil
	}
	if bytes.Contains(meta, tenantLabelBytes) {
		return out, false, nil
	}
	nsStart, nsEnd := -1, -1
	var ns, name []byte
	simple := true
	err = eachField(meta, func(num protowire.Number, typ protowire.Type, val []byte, start, end int) error {
		switch num {
		case metaNamespace:
			if typ != protowire.BytesType || nsStart >= 0 {
				simple = false
				return nil
			}
			ns, nsStart, nsEnd = val, start, end
		case metaName:
			name = val
		case metaOwners:
			simple = false
		case metaManaged:
			simple = simple && typ == protowire.BytesType && managedEntryBuiltin(val)
		}
		return nil
	})
	if err != nil || !simple {
		return out, false, nil
	}
	if nsStart < 0 || len(ns) == 0 {
		return append(out, item...), true, nil
	}
	local, err := mapNS(ns, name)
	if err != nil {
		return out, true, err
	}
	metaLen := len(meta) - (nsEnd - nsStart) + protowire.SizeTag(metaNamespace) + protowire.SizeBytes(len(local))
	out = append(out, item[:metaStart]...)
	out = protowire.AppendTag(out, objectMeta, protowire.BytesType)
	out = protowire.AppendVarint(out, uint64(metaLen))
	out = append(out, meta[:nsStart]...)
	out = protowire.AppendTag(out, metaNamespace, protowire.BytesType)
	out = protowire.AppendString(out, local)
	out = append(out, meta[nsEnd:]...)
	return append(out, item[metaEnd:]...), true, nil
}

// managedEntryBuiltin reports whether a ManagedFieldsEntry names a built-in
// apiVersion (the only ones the fast path leaves alone).
func managedEntryBuiltin(entry []byte) bool {
	builtin := true
	err := eachField(entry, func(num protowire.Number, typ protowire.Type, val []byte, _, _ int) error {
		if num == managedFieldsAPI {
			group, _, found := strings.Cut(string(val), "/")
			builtin = builtin && typ == protowire.BytesType && (!found || IsSharedGroup(group))
		}
		return nil
	})
	return err == nil && builtin
}
