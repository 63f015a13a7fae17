package translate

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Table cells that show a reference. The API server's printers
// (k8s.io/kubernetes pkg/printers/internalversion, what `kubectl get` shows)
// print some references of a kind in cells of their own: a claim's volume
// and class, a volume's claim and class, an Ingress's class. The row's
// object is only metadata, so the cells are translated as their fields
// are: the tenant's names unprefixed, and a reference that is not the
// tenant's emptied (as the printer shows a missing one), never shown as a
// name that in the tenant's view stands for its own object.

// refCell maps one such cell; unset is what the printer shows when the
// reference is missing.
type refCell struct {
	out   func(m *mapper, cell string) (string, error)
	unset string
}

// refColumn is a column of a Table that holds refCells.
type refColumn struct {
	index int
	cell  refCell
}

func nameCell(gr schema.GroupResource) func(m *mapper, cell string) (string, error) {
	return func(m *mapper, cell string) (string, error) { return m.objectName(kindsByResource[gr], cell) }
}

func sharedCell(gr schema.GroupResource) func(m *mapper, cell string) (string, error) {
	return func(m *mapper, cell string) (string, error) { return m.sharedRef(gr, cell) }
}

// namespacedCell maps "<namespace>/<name>" (a volume's claim, a binding's
// parameters); "*/<name>" stays.
func namespacedCell(m *mapper, cell string) (string, error) {
	ns, name, ok := strings.Cut(cell, "/")
	if !ok || ns == "*" {
		return cell, nil
	}
	local, err := m.namespace(ns)
	if err != nil {
		return "", err
	}
	return local + "/" + name, nil
}

// The reference cells of a kind are its row's cells (kinds_table.go),
// by lower-case column name.
var (
	claimCells = map[string]refCell{
		"volume":                {out: nameCell(grPV)},
		"storageclass":          {out: (*mapper).claimClassOut},
		"volumeattributesclass": {out: sharedCell(grVolumeAttrClass), unset: "<unset>"},
	}
	volumeCells = map[string]refCell{
		"claim":                 {out: namespacedCell},
		"storageclass":          {out: (*mapper).classOut},
		"volumeattributesclass": {out: sharedCell(grVolumeAttrClass), unset: "<unset>"},
	}
	policyBindingCells = func(policy schema.GroupResource) map[string]refCell {
		return map[string]refCell{"policyname": {out: nameCell(policy)}, "paramref": {out: namespacedCell, unset: "<unset>"}}
	}
)

// refColumns finds the reference columns of a Table of rule's kind.
func refColumns(rule *KindRule, defs []any) []refColumn {
	if rule == nil {
		return nil
	}
	cells := rule.cells
	if cells == nil {
		return nil
	}
	var out []refColumn
	for i, d := range defs {
		def, _ := d.(map[string]any)
		if c, ok := cells[strings.ToLower(str(def, "name"))]; ok {
			out = append(out, refColumn{index: i, cell: c})
		}
	}
	return out
}

// refCellsOut maps the reference cells of one row.
func (t *Translator) refCellsOut(cells []any, cols []refColumn) error {
	for _, c := range cols {
		if c.index >= len(cells) {
			continue
		}
		s, ok := cells[c.index].(string)
		if !ok || s == "" || s == c.cell.unset {
			continue
		}
		local, err := c.cell.out(t.toTen, s)
		switch {
		case IsNotTenants(err):
			local = c.cell.unset
		case err != nil:
			return err
		case local == "":
			local = c.cell.unset
		}
		cells[c.index] = local
	}
	return nil
}
