package translate

import (
	"strings"
)

// eventTextRef rewrites an Event's free text (core/v1 message,
// events.k8s.io/v1 note) on the way out, structurally: only names this
// translator produced for the Event's own object references (refs, in
// upstream form, so the Ref must come before theirs in the kinds table):
//   - "<namespace>/" where <namespace> is the upstream namespace of one of
//     them and the tenant's, as in the scheduler's "Successfully assigned
//     acme-shop/web-1 to node-1";
//   - the whole word that is the upstream name of a cluster-scoped object
//     the tenant owns and one of them names (a PersistentVolume "acme-pv1").
//
// Nothing else of the text is guessed at. On the way in the text is left as
// the tenant wrote it; docs/design.md ("Event messages") lists what remains.
func eventTextRef(field string, refs ...string) Ref {
	return Ref{Field: field, Target: TargetText, apply: func(m *mapper, obj map[string]any) error {
		text, ok := obj[field].(string)
		if m.in || !ok || text == "" {
			return nil
		}
		obj[field] = m.eventText(text, obj, refs)
		return nil
	}}
}

// eventText rewrites text with the names of the references at refs of obj.
func (m *mapper) eventText(text string, obj map[string]any, refs []string) string {
	for _, path := range refs {
		ref := child(obj, path)
		if ref == nil {
			continue
		}
		if ns := str(ref, "namespace"); ns != "" {
			if local, ok := m.tenant().TenantNamespace(ns); ok {
				text = replaceWord(text, ns+"/", local+"/", true)
			}
			continue
		}
		name := str(ref, "name")
		rule := m.t.ruleForKind(groupOf(str(ref, "apiVersion")), str(ref, "kind"))
		if name == "" || (rule.Treatment != TenantOwned && !rule.NameIsNamespace) {
			continue
		}
		if local, err := m.objectName(rule, name); err == nil && local != name {
			text = replaceWord(text, name, local, false)
		}
	}
	return text
}

// nameByte reports whether c may be part of a Kubernetes name (or of a
// path of names).
func nameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '/' || c >= 'A' && c <= 'Z' || c == '_'
}

// replaceWord replaces each occurrence of old in text that starts a word
// (nothing name-like before it) and, unless prefix is set, also ends one
// (nothing name-like after it; a final '.' ends a sentence).
func replaceWord(text, old, repl string, prefix bool) string {
	if !strings.Contains(text, old) {
		return text
	}
	var b strings.Builder
	i := 0
	for {
		j := strings.Index(text[i:], old)
		if j < 0 {
			b.WriteString(text[i:])
			return b.String()
		}
		j += i
		end := j + len(old)
		starts := j == 0 || !nameByte(text[j-1])
		ends := prefix || end == len(text) || !nameByte(text[end]) ||
			(text[end] == '.' && (end+1 == len(text) || !nameByte(text[end+1])))
		b.WriteString(text[i:j])
		if starts && ends {
			b.WriteString(repl)
		} else {
			b.WriteString(old)
		}
		i = end
	}
}
