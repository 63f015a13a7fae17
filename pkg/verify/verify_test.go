package verify

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestJoinLine: a run's error and its clean-up's are said on one line.
func TestJoinLine(t *testing.T) {
	run, cleanup := errors.New("interrupted"), errors.New("delete scratch tenant zooverify1: timeout")
	assert.NoError(t, joinLine(nil, nil))
	assert.Equal(t, run, joinLine(run, nil))
	assert.Equal(t, cleanup, joinLine(nil, cleanup))
	both := joinLine(run, cleanup)
	assert.Equal(t, "interrupted; and then: delete scratch tenant zooverify1: timeout", both.Error())
	assert.ErrorIs(t, both, run)
	assert.ErrorIs(t, both, cleanup)
}
