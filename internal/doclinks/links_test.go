package doclinks

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const root = "../.."

var (
	link    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`^#{1,6} (.*)`)
	notWord = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// anchor is the anchor GitHub makes of a heading.
func anchor(h string) string {
	return strings.ReplaceAll(notWord.ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), ""), " ", "-")
}

// anchors are the anchors of a Markdown file's headings, outside code blocks.
func anchors(t *testing.T, path string) map[string]bool {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	out, code := map[string]bool{}, false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			code = !code
		}
		if m := heading.FindStringSubmatch(line); m != nil && !code {
			out[anchor(m[1])] = true
		}
	}
	require.NoError(t, sc.Err())
	return out
}

func TestRelativeLinksResolve(t *testing.T) {
	pages := []string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md")}
	require.NoError(t, filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	}))
	require.Greater(t, len(pages), 10)
	for _, page := range pages {
		t.Run(strings.TrimPrefix(page, root+"/"), func(t *testing.T) {
			text, err := os.ReadFile(page)
			require.NoError(t, err)
			for _, m := range link.FindAllStringSubmatch(string(text), -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), file)
				}
				info, err := os.Stat(path)
				if !assert.NoError(t, err, "link %q", target) {
					continue
				}
				if frag != "" && !info.IsDir() && strings.HasSuffix(path, ".md") {
					assert.True(t, anchors(t, path)[frag], "link %q: no heading with anchor %q in %s", target, frag, path)
				}
			}
		})
	}
}
