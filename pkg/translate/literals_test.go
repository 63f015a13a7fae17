package translate

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// tableFiles hold the kinds table or are generated from it: resource
// literals belong there.
var tableFiles = map[string]bool{
	"pkg/translate/kinds_table.go": true,
}

// literalAllowList is every resource literal outside the kinds table that
// stays, keyed by file and literal (or by file alone: every literal of
// it), with the reason it stays. At most 10.
var literalAllowList = map[string]string{
	"internal/openapisnap/patterns.go":             "words of reference-like field names (namespaces, services, endpoints) the schema walk looks for, not resources",
	"pkg/translate/refs_affinity.go namespaces":    "the namespaces field of a pod affinity term, not the resource",
	"pkg/translate/refs_flowcontrol.go namespaces": "the namespaces field of a FlowSchema's resource rule, not the resource",
	"pkg/translate/fields_kinds.go secrets":        "the secrets field of a ServiceAccount, not the resource",
	"pkg/translate/table.go serviceaccounts":       "the ServiceAccounts column of the API server's RoleBinding printer, not the resource",
	"pkg/install/crd.go namespaces":                "the namespaces field of the Tenant CRD's status schema, not the resource",
	"pkg/translate/requestinfo.go namespaces":      "the namespaces segment of every namespaced URL path (/api/v1/namespaces/<ns>/...), the grammar k8s.io/apiserver's request info parses",
	"test/conformance/main.go nodes":               "the conformance runner's -nodes flag (ginkgo's parallel nodes, which the Makefile passes), not the resource",
}

// literalHit is one resource literal outside the table.
type literalHit struct {
	file, literal string
	line          int
}

func (h literalHit) key() string { return h.file + " " + h.literal }

// servedResources are the plural resource names of every kind the pinned API
// serves (the OpenAPI snapshot's discovery) and of every row of the table.
func servedResources(t *testing.T) map[string]bool {
	out := map[string]bool{}
	for _, r := range pinnedSnapshot(t).Resources {
		name, _, _ := strings.Cut(r.Name, "/")
		out[name] = true
	}
	for _, k := range Kinds() {
		out[k.Resource.Resource] = true
	}
	return out
}

// resourceLiterals finds the literals of one Go file that name a resource: a
// string that is a plural resource name, one that names a subresource of it
// ("pods/exec"), or a CEL string that quotes one ('pods').
func resourceLiterals(fset *token.FileSet, file *ast.File, plurals map[string]bool, quoted *regexp.Regexp) []literalHit {
	var hits []literalHit
	tags := map[*ast.BasicLit]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		if f, ok := n.(*ast.Field); ok && f.Tag != nil {
			tags[f.Tag] = true // a struct tag names a JSON field
		}
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING || tags[lit] {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			return true
		}
		name, _, _ := strings.Cut(s, "/")
		if plurals[name] {
			hits = append(hits, literalHit{literal: s, line: fset.Position(lit.Pos()).Line})
			return true
		}
		for _, m := range quoted.FindAllStringSubmatch(s, -1) {
			hits = append(hits, literalHit{literal: m[1], line: fset.Position(lit.Pos()).Line})
		}
		return true
	})
	return hits
}

// quotedResources matches a resource name quoted inside a string (CEL).
func quotedResources(plurals map[string]bool) *regexp.Regexp {
	names := make([]string, 0, len(plurals))
	for p := range plurals {
		names = append(names, regexp.QuoteMeta(p))
	}
	sort.Strings(names)
	return regexp.MustCompile(`['"](` + strings.Join(names, "|") + `)(/[a-z]+)?['"]`)
}

// repoLiterals walks the repository's non-test Go files outside the table.
func repoLiterals(t *testing.T) []literalHit {
	plurals := servedResources(t)
	quoted := quotedResources(plurals)
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var hits []literalHit
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || tableFiles[rel] {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("parse %s: %w", rel, err)
		}
		if ast.IsGenerated(file) {
			return nil
		}
		for _, h := range resourceLiterals(fset, file, plurals, quoted) {
			h.file = rel
			hits = append(hits, h)
		}
		return nil
	})
	require.NoError(t, err)
	return hits
}

// TestNoResourceLiteralOutsideTheTable: kind knowledge lives in the kinds
// table. A string literal that names a resource the pinned API serves, in a
// non-test file other than kinds_table.go, fails unless the short
// allow-list names it with a reason: a literal added anywhere fails, named
// with its file and line; derive it from the kind's row instead.
func TestNoResourceLiteralOutsideTheTable(t *testing.T) {
	require.LessOrEqual(t, len(literalAllowList), 10, "the allow-list is at most 10 entries")
	used := map[string]bool{}
	for _, h := range repoLiterals(t) {
		if key, ok := allowed(h); ok {
			used[key] = true
			continue
		}
		assert.Failf(t, "resource literal outside the kinds table", "%q at %s:%d: take it from the kind's row "+
			"(LookupKind, LookupKindByKind, ResourceFor, ResourceOf, a column) instead of pkg/translate/kinds_table.go's literal",
			h.literal, h.file, h.line)
	}
	for key, reason := range literalAllowList {
		assert.True(t, used[key], "allow-list entry %q (%s) matches no literal: remove it", key, reason)
		assert.NotEmpty(t, reason, "allow-list entry %q has no reason", key)
	}
}

// allowed finds the allow-list entry of a literal: its file and literal, or
// its file.
func allowed(h literalHit) (string, bool) {
	for _, key := range []string{h.key(), h.file} {
		if _, ok := literalAllowList[key]; ok {
			return key, true
		}
	}
	return "", false
}

// TestResourceLiterals: what counts as a resource literal.
func TestResourceLiterals(t *testing.T) {
	plurals := map[string]bool{"pods": true, "services": true}
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"a plural", `var x = "pods"`, []string{"pods"}},
		{"a subresource", `var x = "pods/exec"`, []string{"pods/exec"}},
		{"quoted in CEL", "var x = `request.resource.resource in ['pods', \"services\"]`", []string{"pods", "services"}},
		{"prose", `var x = "the pods of a tenant"`, nil},
		{"a longer word", `var x = "'podsx'"`, nil},
		{"a kind", `var x = "Pod"`, nil},
		{"a struct tag", "type x struct{ N int `json:\"pods\"` }", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			file, err := parser.ParseFile(fset, "x.go", "package x\n"+tc.src, 0)
			require.NoError(t, err)
			var got []string
			for _, h := range resourceLiterals(fset, file, plurals, quotedResources(plurals)) {
				got = append(got, h.literal)
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestResourceFor: the table maps a kind to its resource in the kind's
// version; a kind it has no row for is unknown.
func TestResourceFor(t *testing.T) {
	for _, tc := range []struct {
		gvk  schema.GroupVersionKind
		want schema.GroupVersionResource
		ok   bool
	}{
		{schema.GroupVersionKind{Version: "v1", Kind: "Pod"}, schema.GroupVersionResource{Version: "v1", Resource: "pods"}, true},
		{schema.GroupVersionKind{Group: "events.k8s.io", Version: "v1", Kind: "Event"},
			schema.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}, true},
		{schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Pod"}, schema.GroupVersionResource{}, false},
	} {
		t.Run(tc.gvk.String(), func(t *testing.T) {
			got, ok := ResourceFor(tc.gvk)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestMustResourceFor: a kind of the table maps to its resource in the
// kind's version; a kind without a row panics.
func TestMustResourceFor(t *testing.T) {
	for _, tc := range []struct {
		gvk  schema.GroupVersionKind
		want schema.GroupVersionResource
	}{
		{schema.GroupVersionKind{Version: "v1", Kind: "PersistentVolume"}, schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumes"}},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}},
		{schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Pod"}, schema.GroupVersionResource{}},
	} {
		t.Run(tc.gvk.String(), func(t *testing.T) {
			if tc.want.Empty() {
				assert.PanicsWithValue(t, "translate: no row of the kinds table for kind Pod.example.com", func() { MustResourceFor(tc.gvk) })
				return
			}
			assert.Equal(t, tc.want, MustResourceFor(tc.gvk))
		})
	}
}
