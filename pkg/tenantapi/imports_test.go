package tenantapi_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const module = "github.com/kubectl-zoo/kubectl-zoo/"

// writers are the purpose packages that write cluster objects as the
// upstream's administrator (install and tenant lifecycle, policies, users,
// export and import), which the record API (tenantapi) and the pure builders
// (platformobj) exist so that the proxy need not import.
var writers = []string{
	module + "pkg/tenantctl",
	module + "pkg/install",
	module + "pkg/policyctl",
	module + "pkg/users",
	module + "pkg/transfer",
}

// stillImportWriters are the files of the packages below that import a
// writer directly: none. The proxy's policy hooks get the tenant
// library's client through localproxy.Config.NewPolicyClient
// (tenantapi.PolicyClient), certs through certs.Client. A file may not
// join it.
var stillImportWriters = map[string][]string{
	"pkg/localproxy":  nil,
	"pkg/nssetup":     nil,
	"pkg/certs":       nil,
	"pkg/tenantapi":   nil,
	"pkg/platformobj": nil,
}

// imports returns the module's packages that the non-test files of dir (a
// path from the module root) import, by file.
func imports(t *testing.T, root, dir string) map[string][]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
	require.NoError(t, err)
	byFile := map[string][]string{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		require.NoError(t, err)
		for _, imp := range af.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			require.NoError(t, err)
			if strings.HasPrefix(p, module) {
				byFile[filepath.Base(f)] = append(byFile[filepath.Base(f)], p)
			}
		}
	}
	return byFile
}

// reaches reports whether pkg (an import path of the module) imports
// target, directly or through other packages of the module.
func reaches(t *testing.T, root, pkg, target string, seen map[string]bool) bool {
	if pkg == target {
		return true
	}
	if seen[pkg] {
		return false
	}
	seen[pkg] = true
	for _, deps := range imports(t, root, strings.TrimPrefix(pkg, module)) {
		for _, d := range deps {
			if reaches(t, root, d, target, seen) {
				return true
			}
		}
	}
	return false
}

// TestTenantctlStaysOut fails when a file of the proxy, nssetup, certs, the
// record API or the builders starts to import a writer, or reaches one
// through another package of the module, and when a listed file no longer
// imports one (then the list shrinks).
func TestTenantctlStaysOut(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	root := filepath.Join(wd, "..", "..")
	for dir, allowed := range stillImportWriters {
		t.Run(dir, func(t *testing.T) {
			byFile := imports(t, root, dir)
			require.NotEmpty(t, byFile, "no files with module imports read in %s", dir)
			var direct []string
			for f, deps := range byFile {
				for _, d := range deps {
					if slices.Contains(writers, d) {
						direct = append(direct, f)
						continue
					}
					for _, w := range writers {
						assert.False(t, reaches(t, root, d, w, map[string]bool{}),
							"%s/%s imports %s, which reaches %s", dir, f, d, w)
					}
				}
			}
			slices.Sort(direct)
			want := slices.Clone(allowed)
			slices.Sort(want)
			assert.Equal(t, want, direct, "the files of %s that import a writer (%v)", dir, writers)
		})
	}
}
