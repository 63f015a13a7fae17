package transfer

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestKindCleanersAreRows: export cleans the objects of a kind by its
// GroupKind, which a row of the kinds table names: a cleaner of a kind
// that moved group, or was misspelled, would never run.
func TestKindCleanersAreRows(t *testing.T) {
	for gk := range kindCleaners {
		t.Run(gk.String(), func(t *testing.T) {
			_, ok := translate.LookupKindByKind(gk)
			assert.True(t, ok, "%s has no row in the kinds table", gk)
		})
	}
}
