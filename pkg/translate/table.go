package translate

import (
	"strings"
)

// columns are the indexes of the Table columns the translation rewrites
// (-1 when a Table has no such column): the one with format "name", the
// namespace, and those of RBAC bindings (see rbacCellsOut).
type columns struct {
	name, namespace               int
	role, users, groups, accounts int
	message                       int         // an Event's message (eventTextRef)
	refs                          []refColumn // references of the kind (table_refs.go)
}

var noColumns = columns{-1, -1, -1, -1, -1, -1, -1, nil}

// tableColumns finds the columns of a Table of rule's kind by their
// definitions.
func tableColumns(rule *KindRule, table map[string]any) columns {
	c := noColumns
	defs, _ := table["columnDefinitions"].([]any)
	c.refs = refColumns(rule, defs)
	for i, d := range defs {
		def, ok := d.(map[string]any)
		if !ok {
			continue
		}
		if str(def, "format") == "name" && c.name < 0 {
			c.name = i
		}
		switch strings.ToLower(str(def, "name")) {
		case "namespace":
			c.namespace = i
		case "role":
			c.role = i
		case "users":
			c.users = i
		case "groups":
			c.groups = i
		case "serviceaccounts":
			c.accounts = i
		case "message":
			c.message = i
		}
	}
	return c
}

// tableOut translates a whole meta.k8s.io Table row by row.
func (t *Translator) tableOut(rule *KindRule, table map[string]any) error {
	cols := tableColumns(rule, table)
	rows, _ := table["rows"].([]any)
	kept := rows[:0]
	for _, r := range rows {
		row, ok := r.(map[string]any)
		if !ok {
			continue
		}
		err := t.rowOut(rule, row, cols)
		if IsNotTenants(err) {
			continue
		}
		if err != nil {
			return err
		}
		kept = append(kept, row)
	}
	if rows != nil {
		table["rows"] = kept
	}
	return nil
}

// rowOut translates one Table row: its embedded object (PartialObjectMetadata
// or the full object) and the name and namespace cells.
func (t *Translator) rowOut(rule *KindRule, row map[string]any, cols columns) error {
	obj := child(row, "object")
	if obj == nil {
		return nil
	}
	upName := str(child(obj, "metadata"), "name")
	upNamespace := str(child(obj, "metadata"), "namespace")
	if err := t.objectOut(rule, obj); err != nil {
		return err
	}
	cells, _ := row["cells"].([]any)
	if rule.Kind == "Event" && cols.message >= 0 && cols.message < len(cells) {
		// The row's object may be only its metadata: the Event's own
		// namespace is the one its message can name (eventTextRef).
		if s, ok := cells[cols.message].(string); ok {
			if local, ok := t.tenant.TenantNamespace(upNamespace); ok {
				cells[cols.message] = replaceWord(s, upNamespace+"/", local+"/", true)
			}
		}
	}
	if cols.name >= 0 && cols.name < len(cells) {
		if s, ok := cells[cols.name].(string); ok && s == upName {
			cells[cols.name] = str(child(obj, "metadata"), "name")
		}
	}
	if cols.namespace >= 0 && cols.namespace < len(cells) {
		if s, ok := cells[cols.namespace].(string); ok {
			if local, ok := t.tenant.TenantNamespace(s); ok {
				cells[cols.namespace] = local
			}
		}
	}
	if err := t.refCellsOut(cells, cols.refs); err != nil {
		return err
	}
	if rule.Resource == grRoleBinding || rule.Resource == grClusterRoleBinding {
		return t.rbacCellsOut(cells, cols)
	}
	return nil
}
