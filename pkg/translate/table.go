package translate

import (
	"strings"
)

// tableColumns returns the indexes of the column with format "name" and of a
// column named "Namespace" (-1 when absent).
func tableColumns(table map[string]any) (nameCol, nsCol int) {
	nameCol, nsCol = -1, -1
	cols, _ := table["columnDefinitions"].([]any)
	for i, c := range cols {
		col, ok := c.(map[string]any)
		if !ok {
			continue
		}
		if str(col, "format") == "name" && nameCol < 0 {
			nameCol = i
		}
		if strings.EqualFold(str(col, "name"), "namespace") {
			nsCol = i
		}
	}
	return nameCol, nsCol
}

// tableOut translates a whole meta.k8s.io Table row by row.
func (t *Translator) tableOut(rule *KindRule, table map[string]any) error {
	nameCol, nsCol := tableColumns(table)
	rows, _ := table["rows"].([]any)
	kept := rows[:0]
	for _, r := range rows {
		row, ok := r.(map[string]any)
		if !ok {
			continue
		}
		err := t.rowOut(rule, row, nameCol, nsCol)
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
func (t *Translator) rowOut(rule *KindRule, row map[string]any, nameCol, nsCol int) error {
	obj := child(row, "object")
	if obj == nil {
		return nil
	}
	upName := str(child(obj, "metadata"), "name")
	if err := t.objectOut(rule, obj); err != nil {
		return err
	}
	cells, _ := row["cells"].([]any)
	if nameCol >= 0 && nameCol < len(cells) {
		if s, ok := cells[nameCol].(string); ok && s == upName {
			cells[nameCol] = str(child(obj, "metadata"), "name")
		}
	}
	if nsCol >= 0 && nsCol < len(cells) {
		if s, ok := cells[nsCol].(string); ok {
			if local, ok := t.tenant.TenantNamespace(s); ok {
				cells[nsCol] = local
			}
		}
	}
	return nil
}
