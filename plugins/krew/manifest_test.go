// Package krew_test checks the krew plugin manifest (zoo.yaml) against the
// rules krew and krew-index enforce (krew's validate-krew-manifest is not
// available here), and against .goreleaser.yaml, so that the archive every
// platform downloads is the archive a release actually uploads.
package krew_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/yaml"
)

const (
	manifestFile   = "zoo.yaml"
	goreleaserFile = "../../.goreleaser.yaml"

	krewAPIVersion = "krew.googlecontainertools.github.com/v1alpha2"
	krewKind       = "Plugin"

	wantHomepage = "https://github.com/kubectl-zoo/kubectl-zoo"
	// krew-index asks for a short one-liner; `kubectl krew search` truncates.
	maxShortDescription = 50
)

// The platforms kubectl-zoo ships for; the manifest must cover exactly these.
var wantPlatforms = []osArch{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// Platforms krew knows how to install on (from validate-krew-manifest).
var krewPlatforms = map[osArch]bool{
	{"windows", "386"}: true, {"windows", "amd64"}: true, {"windows", "arm64"}: true,
	{"linux", "386"}: true, {"linux", "amd64"}: true, {"linux", "arm"}: true,
	{"linux", "arm64"}: true, {"linux", "ppc64le"}: true,
	{"darwin", "386"}: true, {"darwin", "amd64"}: true, {"darwin", "arm64"}: true,
}

var (
	safePluginName = regexp.MustCompile(`^[\w-]+$`)
	validSHA256    = regexp.MustCompile(`^[0-9a-f]{64}$`)
	// Names Windows will not create files for; krew refuses them as plugin names.
	windowsReserved = []string{"CON", "PRN", "AUX", "NUL",
		"COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
		"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9"}
)

type osArch struct{ OS, Arch string }

func (p osArch) String() string { return p.OS + "/" + p.Arch }

// manifest is the part of krew's index.Plugin this project uses. It is decoded
// strictly, so a misspelt or unknown field fails the test like it fails krew.
type manifest struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string     `json:"version"`
		Homepage         string     `json:"homepage"`
		ShortDescription string     `json:"shortDescription"`
		Description      string     `json:"description"`
		Caveats          string     `json:"caveats,omitempty"`
		Platforms        []platform `json:"platforms"`
	} `json:"spec"`
}

type platform struct {
	Selector *selector `json:"selector"`
	URI      string    `json:"uri"`
	Sha256   string    `json:"sha256"`
	Bin      string    `json:"bin"`
	Files    []fileOp  `json:"files,omitempty"`
}

type selector struct {
	MatchLabels      map[string]string `json:"matchLabels,omitempty"`
	MatchExpressions []struct {
		Key      string   `json:"key"`
		Operator string   `json:"operator"`
		Values   []string `json:"values,omitempty"`
	} `json:"matchExpressions,omitempty"`
}

type fileOp struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// goreleaserConfig is the part of .goreleaser.yaml the manifest depends on
// (decoded leniently: the rest of the file is goreleaser's business).
type goreleaserConfig struct {
	Version     int    `json:"version"`
	ProjectName string `json:"project_name"`
	Builds      []struct {
		ID      string   `json:"id"`
		Main    string   `json:"main"`
		Binary  string   `json:"binary"`
		Env     []string `json:"env"`
		Goos    []string `json:"goos"`
		Goarch  []string `json:"goarch"`
		Ldflags []string `json:"ldflags"`
	} `json:"builds"`
	Archives []struct {
		NameTemplate    string   `json:"name_template"`
		Formats         []string `json:"formats"`
		FormatOverrides []struct {
			Goos    string   `json:"goos"`
			Formats []string `json:"formats"`
		} `json:"format_overrides"`
	} `json:"archives"`
	Krews []struct {
		Name             string `json:"name"`
		Homepage         string `json:"homepage"`
		ShortDescription string `json:"short_description"`
		Description      string `json:"description"`
		URLTemplate      string `json:"url_template"`
	} `json:"krews"`
}

func loadManifest(t *testing.T) manifest {
	t.Helper()
	b, err := os.ReadFile(manifestFile)
	require.NoError(t, err)
	var m manifest
	require.NoError(t, yaml.UnmarshalStrict(b, &m), "%s does not decode as a krew Plugin", manifestFile)
	return m
}

func loadGoreleaser(t *testing.T) goreleaserConfig {
	t.Helper()
	b, err := os.ReadFile(goreleaserFile)
	require.NoError(t, err)
	var c goreleaserConfig
	require.NoError(t, yaml.Unmarshal(b, &c))
	return c
}

// render executes a goreleaser template the way goreleaser does for the
// fields given; any other field (.Arm, .Amd64, ...) is an error rather than
// a silent "<no value>", so a template this test cannot model fails loudly.
func render(tmpl string, fields map[string]string) (string, error) {
	tp, err := template.New("goreleaser").Option("missingkey=error").Parse(tmpl)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := tp.Execute(&buf, fields); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// archiveName is the file goreleaser uploads for p at the given tag:
// archives[0].name_template plus the extension of the platform's format.
func archiveName(c goreleaserConfig, tag string, p osArch) (string, error) {
	if len(c.Archives) != 1 {
		return "", fmt.Errorf(".goreleaser.yaml: want exactly one archives entry, got %d", len(c.Archives))
	}
	a := c.Archives[0]
	formats := a.Formats
	for _, o := range a.FormatOverrides {
		if o.Goos == p.OS {
			formats = o.Formats
		}
	}
	if len(formats) != 1 {
		return "", fmt.Errorf(".goreleaser.yaml: %s: want exactly one archive format, got %v", p, formats)
	}
	if f := formats[0]; f != "tar.gz" && f != "zip" {
		return "", fmt.Errorf(".goreleaser.yaml: %s: archive format %q cannot be installed by krew (tar.gz or zip)", p, f)
	}
	name, err := render(a.NameTemplate, map[string]string{
		"ProjectName": c.ProjectName,
		"Version":     strings.TrimPrefix(tag, "v"), // goreleaser's .Version drops the v
		"Tag":         tag,
		"Os":          p.OS,
		"Arch":        p.Arch,
	})
	if err != nil {
		return "", fmt.Errorf(".goreleaser.yaml: archives name_template: %w", err)
	}
	return name + "." + formats[0], nil
}

// validateManifest applies krew's structural rules (internal/index/validation
// and cmd/validate-krew-manifest) plus this project's: all six platforms,
// homepage, and archive URIs that match what .goreleaser.yaml releases.
// fileName is the manifest's file name; it must be <metadata.name>.yaml.
func validateManifest(fileName string, m manifest, gr goreleaserConfig) error {
	var errs []error
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }

	if m.APIVersion != krewAPIVersion {
		fail("apiVersion is %q, want %q", m.APIVersion, krewAPIVersion)
	}
	if m.Kind != krewKind {
		fail("kind is %q, want %q", m.Kind, krewKind)
	}
	if ext := filepath.Ext(fileName); ext != ".yaml" {
		fail("manifest file %q: extension must be .yaml", fileName)
	}
	name := strings.TrimSuffix(filepath.Base(fileName), ".yaml")
	if !safePluginName.MatchString(name) || slices.ContainsFunc(windowsReserved, func(r string) bool { return strings.EqualFold(r, name) }) {
		fail("plugin name %q is not allowed (must match %s and not be a reserved Windows name)", name, safePluginName)
	}
	if m.Metadata.Name != name {
		fail("metadata.name is %q, must equal the file name %q", m.Metadata.Name, name)
	}

	s := m.Spec
	switch {
	case s.ShortDescription == "":
		fail("spec.shortDescription is empty")
	case strings.ContainsAny(s.ShortDescription, "\r\n"):
		fail("spec.shortDescription has a line break")
	case len(s.ShortDescription) > maxShortDescription:
		fail("spec.shortDescription is %d characters, keep it under %d", len(s.ShortDescription), maxShortDescription)
	}
	if strings.TrimSpace(s.Description) == "" {
		fail("spec.description is empty")
	}
	if s.Homepage != wantHomepage {
		fail("spec.homepage is %q, want %q", s.Homepage, wantHomepage)
	}
	if !strings.HasPrefix(s.Version, "v") {
		fail("spec.version %q must start with 'v'", s.Version)
	} else if _, err := version.ParseSemantic(s.Version); err != nil {
		fail("spec.version %q is not semver: %v", s.Version, err)
	}
	if len(s.Platforms) == 0 {
		fail("spec.platforms is empty")
	}

	// Release artefacts, from .goreleaser.yaml.
	var binary, urlTemplate string
	if len(gr.Builds) == 1 {
		binary = gr.Builds[0].Binary
	} else {
		fail(".goreleaser.yaml: want exactly one build, got %d", len(gr.Builds))
	}
	if len(gr.Krews) > 0 {
		urlTemplate = gr.Krews[0].URLTemplate
	}

	seen := map[osArch]int{}
	for i, p := range s.Platforms {
		at := fmt.Sprintf("spec.platforms[%d]", i)

		// Selector: krew allows only the keys os and arch; this project
		// spells every platform as matchLabels {os, arch}.
		var pa osArch
		switch {
		case p.Selector == nil:
			fail("%s: selector is missing", at)
		case len(p.Selector.MatchExpressions) > 0:
			fail("%s: selector uses matchExpressions, use matchLabels {os, arch}", at)
		default:
			for k := range p.Selector.MatchLabels {
				if k != "os" && k != "arch" {
					fail("%s: selector key %q not supported (only os, arch)", at, k)
				}
			}
			pa = osArch{p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]}
			if pa.OS == "" || pa.Arch == "" {
				fail("%s: selector.matchLabels needs both os and arch, got %v", at, p.Selector.MatchLabels)
			} else if !krewPlatforms[pa] {
				fail("%s: %s is not a platform krew installs on", at, pa)
			} else if j, dup := seen[pa]; dup {
				fail("%s: duplicate platform %s (also spec.platforms[%d])", at, pa, j)
			} else {
				seen[pa] = i
			}
		}
		if pa.OS != "" && pa.Arch != "" {
			at = fmt.Sprintf("%s (%s)", at, pa)
		}

		switch {
		case p.Sha256 == "":
			fail("%s: sha256 is missing", at)
		case !validSHA256.MatchString(p.Sha256):
			fail("%s: sha256 %q must match %s", at, p.Sha256, validSHA256)
		}

		windows := pa.OS == "windows"
		switch {
		case p.Bin == "":
			fail("%s: bin is missing", at)
		case windows && !strings.HasSuffix(p.Bin, ".exe"):
			fail("%s: bin %q must end in .exe on windows", at, p.Bin)
		case !windows && strings.HasSuffix(p.Bin, ".exe"):
			fail("%s: bin %q must not end in .exe off windows", at, p.Bin)
		case binary != "" && strings.TrimSuffix(p.Bin, ".exe") != binary:
			fail("%s: bin %q is not the binary goreleaser builds (%q)", at, p.Bin, binary)
		}

		if p.Files != nil && len(p.Files) == 0 {
			fail("%s: files must be unset or non-empty", at)
		}
		for j, f := range p.Files {
			if f.From == "" || f.To == "" {
				fail("%s: files[%d] needs both from and to", at, j)
			}
		}

		u, err := url.Parse(p.URI)
		switch {
		case p.URI == "":
			fail("%s: uri is missing", at)
			continue
		case err != nil:
			fail("%s: uri %q: %v", at, p.URI, err)
			continue
		case u.Scheme != "https" || u.Host == "":
			fail("%s: uri %q must be an https URL", at, p.URI)
		}
		if !strings.HasSuffix(u.Path, ".tar.gz") && !strings.HasSuffix(u.Path, ".zip") {
			fail("%s: uri %q must end in .tar.gz or .zip", at, p.URI)
		}

		// The archive goreleaser uploads for this os/arch at this version.
		if pa.OS == "" || pa.Arch == "" || !strings.HasPrefix(s.Version, "v") {
			continue
		}
		want, err := archiveName(gr, s.Version, pa)
		if err != nil {
			fail("%s: %v", at, err)
			continue
		}
		if got := path.Base(u.Path); got != want {
			fail("%s: uri archive %q is not what goreleaser releases for %s at %s (%q)", at, got, pa, s.Version, want)
		}
		if !strings.Contains(u.Path, "/releases/download/"+s.Version+"/") {
			fail("%s: uri %q is not the GitHub release of %s", at, p.URI, s.Version)
		}
		if urlTemplate != "" {
			wantURI, err := render(urlTemplate, map[string]string{"Tag": s.Version, "ArtifactName": want})
			if err != nil {
				fail(".goreleaser.yaml: krews url_template: %v", err)
			} else if p.URI != wantURI {
				fail("%s: uri %q differs from what goreleaser's krews writes (%q)", at, p.URI, wantURI)
			}
		}
	}

	for _, want := range wantPlatforms {
		if _, ok := seen[want]; !ok {
			fail("spec.platforms: no platform for %s", want)
		}
	}
	for got := range seen {
		if !slices.Contains(wantPlatforms, got) {
			fail("spec.platforms: %s is not a platform kubectl-zoo ships", got)
		}
	}
	return errors.Join(errs...)
}

func TestManifestIsValid(t *testing.T) {
	m, gr := loadManifest(t), loadGoreleaser(t)
	require.NoError(t, validateManifest(manifestFile, m, gr))
}

// TestManifestPlatforms spells out, per platform, what the manifest must say;
// the archive name comes from rendering .goreleaser.yaml's name_template.
func TestManifestPlatforms(t *testing.T) {
	m, gr := loadManifest(t), loadGoreleaser(t)
	byPlatform := map[osArch]platform{}
	for _, p := range m.Spec.Platforms {
		require.NotNil(t, p.Selector)
		byPlatform[osArch{p.Selector.MatchLabels["os"], p.Selector.MatchLabels["arch"]}] = p
	}

	tests := []struct {
		platform    osArch
		wantBin     string
		wantArchive string
	}{
		{osArch{"linux", "amd64"}, "kubectl-zoo", "kubectl-zoo_v0.1.0_linux_amd64.tar.gz"},
		{osArch{"linux", "arm64"}, "kubectl-zoo", "kubectl-zoo_v0.1.0_linux_arm64.tar.gz"},
		{osArch{"darwin", "amd64"}, "kubectl-zoo", "kubectl-zoo_v0.1.0_darwin_amd64.tar.gz"},
		{osArch{"darwin", "arm64"}, "kubectl-zoo", "kubectl-zoo_v0.1.0_darwin_arm64.tar.gz"},
		{osArch{"windows", "amd64"}, "kubectl-zoo.exe", "kubectl-zoo_v0.1.0_windows_amd64.zip"},
		{osArch{"windows", "arm64"}, "kubectl-zoo.exe", "kubectl-zoo_v0.1.0_windows_arm64.zip"},
	}
	require.Len(t, m.Spec.Platforms, len(tests))
	for _, tt := range tests {
		t.Run(tt.platform.String(), func(t *testing.T) {
			p, ok := byPlatform[tt.platform]
			require.True(t, ok, "no platform for %s", tt.platform)

			rendered, err := archiveName(gr, m.Spec.Version, tt.platform)
			require.NoError(t, err)
			assert.Equal(t, tt.wantArchive, rendered, "goreleaser's archive name changed")
			assert.Equal(t, "https://github.com/kubectl-zoo/kubectl-zoo/releases/download/"+m.Spec.Version+"/"+rendered, p.URI)
			assert.Equal(t, tt.wantBin, p.Bin)
			assert.Regexp(t, validSHA256, p.Sha256)
			assert.Equal(t, map[string]string{"os": tt.platform.OS, "arch": tt.platform.Arch}, p.Selector.MatchLabels)
		})
	}
}

// TestManifestMetadata pins the fixed fields and checks that goreleaser's
// krews section would write the same manifest (name, texts, homepage).
func TestManifestMetadata(t *testing.T) {
	m, gr := loadManifest(t), loadGoreleaser(t)
	assert.Equal(t, krewAPIVersion, m.APIVersion)
	assert.Equal(t, krewKind, m.Kind)
	assert.Equal(t, "zoo", m.Metadata.Name)
	assert.Equal(t, "v0.1.0", m.Spec.Version)
	assert.Equal(t, wantHomepage, m.Spec.Homepage)
	assert.NotEmpty(t, m.Spec.ShortDescription)
	assert.LessOrEqual(t, len(m.Spec.ShortDescription), maxShortDescription)
	assert.NotEmpty(t, strings.TrimSpace(m.Spec.Description))

	require.Len(t, gr.Krews, 1)
	k := gr.Krews[0]
	assert.Equal(t, m.Metadata.Name, k.Name, "krews name")
	assert.Equal(t, m.Spec.Homepage, k.Homepage, "krews homepage")
	assert.Equal(t, m.Spec.ShortDescription, k.ShortDescription, "krews short_description")
	assert.Equal(t, strings.TrimSpace(m.Spec.Description), strings.TrimSpace(k.Description), "krews description")
}

// TestGoreleaserBuild checks the parts of .goreleaser.yaml the manifest and
// `kubectl zoo version` rely on.
func TestGoreleaserBuild(t *testing.T) {
	gr := loadGoreleaser(t)
	assert.Equal(t, 2, gr.Version)
	assert.Equal(t, "kubectl-zoo", gr.ProjectName)
	require.Len(t, gr.Builds, 1)
	b := gr.Builds[0]
	assert.Equal(t, "./cmd/kubectl-zoo", b.Main)
	assert.Equal(t, "kubectl-zoo", b.Binary)
	assert.Contains(t, b.Env, "CGO_ENABLED=0")
	assert.ElementsMatch(t, []string{"linux", "darwin", "windows"}, b.Goos)
	assert.ElementsMatch(t, []string{"amd64", "arm64"}, b.Goarch)
	ldflags := strings.Join(b.Ldflags, " ")
	for _, want := range []string{
		"-X github.com/kubectl-zoo/kubectl-zoo/pkg/cmd.version=v{{ .Version }}",
		"-X github.com/kubectl-zoo/kubectl-zoo/pkg/cmd.commit=",
		"-X github.com/kubectl-zoo/kubectl-zoo/pkg/cmd.date=",
	} {
		assert.Contains(t, ldflags, want)
	}
}

// TestValidatorCatchesBrokenManifests feeds mutated copies of zoo.yaml (and
// of .goreleaser.yaml) to the validator, proving each rule actually bites.
func TestValidatorCatchesBrokenManifests(t *testing.T) {
	platformOf := func(m *manifest, os, arch string) *platform {
		for i := range m.Spec.Platforms {
			if l := m.Spec.Platforms[i].Selector.MatchLabels; l["os"] == os && l["arch"] == arch {
				return &m.Spec.Platforms[i]
			}
		}
		t.Fatalf("zoo.yaml has no %s/%s platform", os, arch)
		return nil
	}

	tests := []struct {
		name     string
		fileName string // defaults to zoo.yaml
		mutate   func(m *manifest, gr *goreleaserConfig)
		wantErr  string
	}{
		{
			name:    "missing sha256",
			mutate:  func(m *manifest, _ *goreleaserConfig) { platformOf(m, "linux", "amd64").Sha256 = "" },
			wantErr: "spec.platforms[0] (linux/amd64): sha256 is missing",
		},
		{
			name: "uppercase sha256",
			mutate: func(m *manifest, _ *goreleaserConfig) {
				platformOf(m, "darwin", "arm64").Sha256 = strings.Repeat("AB", 32)
			},
			wantErr: "(darwin/arm64): sha256",
		},
		{
			name:    "short sha256",
			mutate:  func(m *manifest, _ *goreleaserConfig) { platformOf(m, "darwin", "amd64").Sha256 = "abc123" },
			wantErr: `(darwin/amd64): sha256 "abc123" must match`,
		},
		{
			name:    "windows bin without .exe",
			mutate:  func(m *manifest, _ *goreleaserConfig) { platformOf(m, "windows", "amd64").Bin = "kubectl-zoo" },
			wantErr: `(windows/amd64): bin "kubectl-zoo" must end in .exe on windows`,
		},
		{
			name:    "linux bin with .exe",
			mutate:  func(m *manifest, _ *goreleaserConfig) { platformOf(m, "linux", "arm64").Bin = "kubectl-zoo.exe" },
			wantErr: `(linux/arm64): bin "kubectl-zoo.exe" must not end in .exe`,
		},
		{
			name:    "bin is not the built binary",
			mutate:  func(m *manifest, _ *goreleaserConfig) { platformOf(m, "linux", "amd64").Bin = "zoo" },
			wantErr: `bin "zoo" is not the binary goreleaser builds`,
		},
		{
			name: "uri points at another platform's archive",
			mutate: func(m *manifest, _ *goreleaserConfig) {
				p := platformOf(m, "linux", "amd64")
				p.URI = strings.Replace(p.URI, "linux_amd64", "linux_arm64", 1)
			},
			wantErr: `(linux/amd64): uri archive "kubectl-zoo_v0.1.0_linux_arm64.tar.gz" is not what goreleaser releases`,
		},
		{
			name: "windows uri with tar.gz instead of zip",
			mutate: func(m *manifest, _ *goreleaserConfig) {
				p := platformOf(m, "windows", "arm64")
				p.URI = strings.TrimSuffix(p.URI, ".zip") + ".tar.gz"
			},
			wantErr: "(windows/arm64): uri archive",
		},
		{
			name: "uri of another release",
			mutate: func(m *manifest, _ *goreleaserConfig) {
				p := platformOf(m, "darwin", "arm64")
				p.URI = strings.ReplaceAll(p.URI, "v0.1.0", "v0.0.9")
			},
			wantErr: "(darwin/arm64): uri archive",
		},
		{
			name: "goreleaser renamed its archives",
			mutate: func(_ *manifest, gr *goreleaserConfig) {
				gr.Archives[0].NameTemplate = "{{ .ProjectName }}_{{ .Os }}_{{ .Arch }}"
			},
			wantErr: `uri archive "kubectl-zoo_v0.1.0_linux_amd64.tar.gz" is not what goreleaser releases for linux/amd64 at v0.1.0 ("kubectl-zoo_linux_amd64.tar.gz")`,
		},
		{
			name: "goreleaser name_template uses a field the test cannot render",
			mutate: func(_ *manifest, gr *goreleaserConfig) {
				gr.Archives[0].NameTemplate = "{{ .ProjectName }}_{{ .Os }}_{{ .Arch }}{{ .Arm }}"
			},
			wantErr: "archives name_template",
		},
		{
			name: "plain http uri",
			mutate: func(m *manifest, _ *goreleaserConfig) {
				p := platformOf(m, "linux", "amd64")
				p.URI = strings.Replace(p.URI, "https://", "http://", 1)
			},
			wantErr: "must be an https URL",
		},
		{
			name: "uri is not an archive",
			mutate: func(m *manifest, _ *goreleaserConfig) {
				p := platformOf(m, "linux", "amd64")
				p.URI = strings.TrimSuffix(p.URI, ".tar.gz") + ".tgz"
			},
			wantErr: "must end in .tar.gz or .zip",
		},
		{
			name: "duplicate platform",
			mutate: func(m *manifest, _ *goreleaserConfig) {
				platformOf(m, "linux", "arm64").Selector.MatchLabels["arch"] = "amd64"
			},
			wantErr: "duplicate platform linux/amd64",
		},
		{
			name: "missing platform",
			mutate: func(m *manifest, _ *goreleaserConfig) {
				m.Spec.Platforms = slices.DeleteFunc(m.Spec.Platforms, func(p platform) bool {
					return p.Selector.MatchLabels["os"] == "darwin" && p.Selector.MatchLabels["arch"] == "arm64"
				})
			},
			wantErr: "no platform for darwin/arm64",
		},
		{
			name: "platform krew does not know",
			mutate: func(m *manifest, _ *goreleaserConfig) {
				platformOf(m, "linux", "arm64").Selector.MatchLabels["arch"] = "s390x"
			},
			wantErr: "linux/s390x is not a platform krew installs on",
		},
		{
			name: "selector with an unsupported key",
			mutate: func(m *manifest, _ *goreleaserConfig) {
				platformOf(m, "linux", "amd64").Selector.MatchLabels["distro"] = "debian"
			},
			wantErr: `selector key "distro" not supported`,
		},
		{
			name:    "selector missing",
			mutate:  func(m *manifest, _ *goreleaserConfig) { m.Spec.Platforms[0].Selector = nil },
			wantErr: "spec.platforms[0]: selector is missing",
		},
		{
			name: "selector without arch",
			mutate: func(m *manifest, _ *goreleaserConfig) {
				delete(platformOf(m, "linux", "amd64").Selector.MatchLabels, "arch")
			},
			wantErr: "selector.matchLabels needs both os and arch",
		},
		{
			name:    "name differs from the file name",
			mutate:  func(m *manifest, _ *goreleaserConfig) { m.Metadata.Name = "kubectl-zoo" },
			wantErr: `metadata.name is "kubectl-zoo", must equal the file name "zoo"`,
		},
		{
			name:     "unsafe plugin name",
			fileName: "zoo.v2.yaml",
			mutate:   func(m *manifest, _ *goreleaserConfig) { m.Metadata.Name = "zoo.v2" },
			wantErr:  `plugin name "zoo.v2" is not allowed`,
		},
		{
			name:     "reserved windows name",
			fileName: "nul.yaml",
			mutate:   func(m *manifest, _ *goreleaserConfig) { m.Metadata.Name = "nul" },
			wantErr:  `plugin name "nul" is not allowed`,
		},
		{
			name:     "manifest file is .yml",
			fileName: "zoo.yml",
			mutate:   func(*manifest, *goreleaserConfig) {},
			wantErr:  "extension must be .yaml",
		},
		{
			name:    "version without v",
			mutate:  func(m *manifest, _ *goreleaserConfig) { m.Spec.Version = "0.1.0" },
			wantErr: `spec.version "0.1.0" must start with 'v'`,
		},
		{
			name:    "version not semver",
			mutate:  func(m *manifest, _ *goreleaserConfig) { m.Spec.Version = "v1.2" },
			wantErr: `spec.version "v1.2" is not semver`,
		},
		{
			name:    "wrong apiVersion",
			mutate:  func(m *manifest, _ *goreleaserConfig) { m.APIVersion = "krew.googlecontainertools.github.com/v1alpha1" },
			wantErr: "apiVersion is",
		},
		{
			name:    "wrong kind",
			mutate:  func(m *manifest, _ *goreleaserConfig) { m.Kind = "Plugins" },
			wantErr: `kind is "Plugins"`,
		},
		{
			name:    "empty shortDescription",
			mutate:  func(m *manifest, _ *goreleaserConfig) { m.Spec.ShortDescription = "" },
			wantErr: "spec.shortDescription is empty",
		},
		{
			name:    "multi-line shortDescription",
			mutate:  func(m *manifest, _ *goreleaserConfig) { m.Spec.ShortDescription = "Share one cluster\nbetween tenants" },
			wantErr: "spec.shortDescription has a line break",
		},
		{
			name:    "long shortDescription",
			mutate:  func(m *manifest, _ *goreleaserConfig) { m.Spec.ShortDescription = strings.Repeat("zoo ", 20) },
			wantErr: "keep it under 50",
		},
		{
			name:    "empty description",
			mutate:  func(m *manifest, _ *goreleaserConfig) { m.Spec.Description = " \n" },
			wantErr: "spec.description is empty",
		},
		{
			name:    "wrong homepage",
			mutate:  func(m *manifest, _ *goreleaserConfig) { m.Spec.Homepage = "https://example.com" },
			wantErr: "spec.homepage",
		},
		{
			name:    "no platforms",
			mutate:  func(m *manifest, _ *goreleaserConfig) { m.Spec.Platforms = nil },
			wantErr: "spec.platforms is empty",
		},
		{
			name:    "empty files list",
			mutate:  func(m *manifest, _ *goreleaserConfig) { platformOf(m, "linux", "amd64").Files = []fileOp{} },
			wantErr: "files must be unset or non-empty",
		},
		{
			name: "krews url_template disagrees",
			mutate: func(_ *manifest, gr *goreleaserConfig) {
				gr.Krews[0].URLTemplate = "https://github.com/someone-else/kubectl-zoo/releases/download/{{ .Tag }}/{{ .ArtifactName }}"
			},
			wantErr: "differs from what goreleaser's krews writes",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, gr := loadManifest(t), loadGoreleaser(t) // fresh copies: mutations do not leak
			tt.mutate(&m, &gr)
			fileName := tt.fileName
			if fileName == "" {
				fileName = manifestFile
			}
			err := validateManifest(fileName, m, gr)
			require.Error(t, err)
			assert.ErrorContains(t, err, tt.wantErr)
		})
	}
}

// TestManifestRejectsUnknownFields: krew decodes manifests strictly, so a
// typo such as `sha265:` is an error there and must be one here.
func TestManifestRejectsUnknownFields(t *testing.T) {
	b, err := os.ReadFile(manifestFile)
	require.NoError(t, err)
	broken := bytes.Replace(b, []byte("\n      sha256:"), []byte("\n      sha265:"), 1)
	require.NotEqual(t, b, broken)
	var m manifest
	assert.Error(t, yaml.UnmarshalStrict(broken, &m))
}
