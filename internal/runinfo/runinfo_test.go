package runinfo

import (
	"os/exec"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCommit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	assert.Regexp(t, regexp.MustCompile(`^[0-9a-f]{12}(-dirty)?$`), Commit(), "this test runs in the project's checkout")
	t.Chdir(t.TempDir())
	assert.Empty(t, Commit(), "outside a checkout git cannot tell")
}
