package krew_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// repoRoot is where goreleaser resolves archives.files.
const repoRoot = "../.."

// archiveFiles returns the source globs of archives[0].files in
// .goreleaser.yaml; an entry is a glob or an object with a src glob.
func archiveFiles(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(goreleaserFile)
	require.NoError(t, err)
	var c struct {
		Archives []struct {
			Files []any `json:"files"`
		} `json:"archives"`
	}
	require.NoError(t, yaml.Unmarshal(b, &c))
	require.Len(t, c.Archives, 1)
	var globs []string
	for i, f := range c.Archives[0].Files {
		switch f := f.(type) {
		case string:
			globs = append(globs, f)
		case map[string]any:
			src, _ := f["src"].(string)
			require.NotEmpty(t, src, "archives[0].files[%d] has no src", i)
			globs = append(globs, src)
		default:
			t.Fatalf("archives[0].files[%d] is a %T", i, f)
		}
	}
	return globs
}

// TestArchivesShipLicense: krew-index refuses plugins whose archives carry no
// license, and a user who downloads an archive must get the terms with it.
// Listing files replaces goreleaser's defaults, so LICENSE must be listed.
func TestArchivesShipLicense(t *testing.T) {
	globs := archiveFiles(t)
	require.Contains(t, globs, "LICENSE", ".goreleaser.yaml archives[0].files must ship the LICENSE")

	license, err := os.ReadFile(filepath.Join(repoRoot, "LICENSE"))
	require.NoError(t, err)
	for _, want := range []string{"Apache License", "Version 2.0, January 2004", "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION",
		"END OF TERMS AND CONDITIONS"} {
		assert.Contains(t, string(license), want, "LICENSE is the full Apache-2.0 text")
	}
}

// TestArchiveFilesExist: every file an archive promises matches something in
// the repository (goreleaser fails a release on a glob that matches nothing),
// and no archived document links to a place outside the repository.
func TestArchiveFilesExist(t *testing.T) {
	for _, glob := range archiveFiles(t) {
		t.Run(glob, func(t *testing.T) {
			matches, err := filepath.Glob(filepath.Join(repoRoot, glob))
			require.NoError(t, err)
			require.NotEmpty(t, matches, "archives.files %q matches nothing", glob)
			for _, m := range matches {
				if !strings.HasSuffix(m, ".md") {
					continue
				}
				b, err := os.ReadFile(m)
				require.NoError(t, err)
				assert.NotContains(t, string(b), "](../", "%s links outside the repository", m)
			}
		})
	}
}
