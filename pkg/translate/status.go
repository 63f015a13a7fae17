package translate

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// rbacDenial is the API server's RBAC denial text; it is parsed, never
// searched-and-replaced.
var rbacDenial = regexp.MustCompile(`^User "([^"]*)" cannot (\S+) resource "([^"]*)" in API group "([^"]*)"(?: in the namespace "([^"]*)"| at the cluster scope)`)

// statusOut rewrites an upstream Status structurally: details.group,
// details.name (and the message's "<resource> \"<name>\"" head built from
// them), causes of metadata.name/namespace, and the RBAC denial text.
func (t *Translator) statusOut(obj map[string]any) {
	details := child(obj, "details")
	msg := str(obj, "message")
	if details != nil {
		upGroup, upName, kind := str(details, "group"), str(details, "name"), str(details, "kind")
		group, ok := t.tenant.TenantAPIGroup(upGroup)
		if !ok {
			group = upGroup
		}
		name := t.statusName(group, kind, upName)
		if upGroup != group {
			details["group"] = group
		}
		if name != upName {
			details["name"] = name
		}
		msg = rewriteHead(msg, qualified(kind, upGroup), upName, qualified(kind, group), name)
		t.statusCauses(details, group, kind)
	}
	if i := strings.Index(msg, "User \""); i >= 0 {
		msg = msg[:i] + t.rewriteDenial(msg[i:])
	}
	if msg != "" {
		obj["message"] = msg
	}
}

func qualified(kind, group string) string {
	if group == "" {
		return kind
	}
	return kind + "." + group
}

// statusName maps details.name given details.kind (a resource or a Kind).
func (t *Translator) statusName(group, kind, name string) string {
	rule, ok := kindsByResource[schema.GroupResource{Group: group, Resource: kind}]
	if !ok {
		rule, ok = kindsByKind[schema.GroupKind{Group: group, Kind: kind}]
	}
	if !ok || name == "" {
		return name
	}
	if rule.NameIsNamespace || rule.Treatment == TenantOwned || rule.Treatment == Shared {
		if rule.Resource == grCRD {
			if local, ok := t.tenant.TenantCRDName(name); ok {
				return local
			}
			return name
		}
		if local, ok := t.tenant.TenantClusterName(name); ok {
			return local
		}
	}
	return name
}

// rewriteHead replaces the `<qualified> "<name>"` head of a message (also
// after "Operation cannot be fulfilled on ").
func rewriteHead(msg, oldQ, oldName, newQ, newName string) string {
	for _, lead := range []string{"", "Operation cannot be fulfilled on "} {
		head := lead + oldQ + " " + strconv.Quote(oldName)
		if rest, ok := strings.CutPrefix(msg, head); ok {
			return lead + newQ + " " + strconv.Quote(newName) + rest
		}
	}
	return msg
}

func (t *Translator) rewriteDenial(s string) string {
	m := rbacDenial.FindStringSubmatchIndex(s)
	if m == nil {
		return s
	}
	sub := func(i int) string {
		if m[2*i] < 0 {
			return ""
		}
		return s[m[2*i]:m[2*i+1]]
	}
	user := sub(1)
	if local, ok := t.tenant.TenantUser(user); ok {
		user = local
	}
	group := sub(4)
	if local, ok := t.tenant.TenantAPIGroup(group); ok {
		group = local
	}
	out := fmt.Sprintf("User %q cannot %s resource %q in API group %q", user, sub(2), sub(3), group)
	if m[10] >= 0 {
		ns := sub(5)
		if local, ok := t.tenant.TenantNamespace(ns); ok {
			ns = local
		}
		out += fmt.Sprintf(" in the namespace %q", ns)
	} else {
		out += " at the cluster scope"
	}
	return out + s[m[1]:]
}

// statusCauses maps `Invalid value: "<v>"` of metadata.name/namespace causes.
func (t *Translator) statusCauses(details map[string]any, group, kind string) {
	causes, _ := details["causes"].([]any)
	for _, c := range causes {
		cause, ok := c.(map[string]any)
		if !ok {
			continue
		}
		field := str(cause, "field")
		var mapName func(string) string
		switch field {
		case "metadata.namespace":
			mapName = func(v string) string {
				if local, ok := t.tenant.TenantNamespace(v); ok {
					return local
				}
				return v
			}
		case "metadata.name":
			mapName = func(v string) string { return t.statusName(group, kind, v) }
		default:
			continue
		}
		msg := str(cause, "message")
		rest, ok := strings.CutPrefix(msg, "Invalid value: ")
		if !ok {
			continue
		}
		quoted, err := strconv.QuotedPrefix(rest)
		if err != nil {
			continue
		}
		v, _ := strconv.Unquote(quoted)
		cause["message"] = "Invalid value: " + strconv.Quote(mapName(v)) + rest[len(quoted):]
	}
}
