package verify

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/charmbracelet/colorprofile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/verify")

// goldenReport has a result of every status, in two classes.
func goldenReport() *Report {
	return &Report{Attacker: "zooverify1", Victim: "zooverify2", Results: []Result{
		{ID: "MTB-PL1-BC-CPI-5", Class: ClassMTB, Title: "Block privileged containers", Path: PathServe, Status: Held,
			Layer: "Pod Security (baseline)", Detail: `pods "zoo-verify-pod" is forbidden: violates PodSecurity "baseline:latest": privileged`},
		{ID: "MTB-PL1-BC-CPI-5", Class: ClassMTB, Title: "Block privileged containers", Path: PathIdentity, Status: Escaped,
			Detail: "the request was admitted"},
		{ID: "MTB-PL1-BC-CPI-6", Class: ClassMTB, Title: "Block privilege escalation", Status: NotApplicable,
			Detail: `the tenant's policy sets Pod Security "baseline", which allows it (restricted and above refuse it)`},
		{ID: "metadata/istio.io", Class: ClassMetadata, Title: "label a Service zoo-verify.istio.io/probe (Istio's domain)", Path: PathServiceAccount,
			Status: CouldNotRun, Detail: "the harmless twin of the attempt was refused too: context deadline exceeded"},
		{ID: "metadata/istio.io", Class: ClassMetadata, Title: "label a Service zoo-verify.istio.io/probe (Istio's domain)", Path: PathServe,
			Status: Held, Layer: "admission: zoo-tenant-metadata", Detail: `services "zoo-verify-md" is forbidden: ValidatingAdmissionPolicy 'zoo-tenant-metadata' with binding 'zoo-tenant-metadata' denied request: <&>`},
	}}
}

// TestOutputGolden: the table (plain and in color), the JSON and the JUnit
// XML of goldenReport; -update rewrites testdata/verify.
func TestOutputGolden(t *testing.T) {
	for _, tc := range []struct {
		file  string
		write func(*bytes.Buffer, *Report) error
	}{
		{"table.txt", func(b *bytes.Buffer, r *Report) error {
			return WriteTable(&colorprofile.Writer{Forward: b, Profile: colorprofile.NoTTY}, r)
		}},
		{"table.ansi", func(b *bytes.Buffer, r *Report) error {
			return WriteTable(&colorprofile.Writer{Forward: b, Profile: colorprofile.ANSI}, r)
		}},
		{"report.json", func(b *bytes.Buffer, r *Report) error { return WriteJSON(b, r) }},
		{"junit.xml", func(b *bytes.Buffer, r *Report) error { return WriteJUnit(b, r) }},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, tc.write(&buf, goldenReport()))
			path := filepath.Join("..", "..", "testdata", "verify", tc.file)
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, string(want), buf.String())
		})
	}
}

// TestTableExisting: the table of a check of an existing tenant says that
// no one was attacked.
func TestTableExisting(t *testing.T) {
	rep := goldenReport()
	rep.Attacker, rep.Victim = "acme", ""
	var buf bytes.Buffer
	require.NoError(t, WriteTable(&buf, rep))
	assert.Contains(t, buf.String(), "acme checked against its policy, with dry runs and reads only\n")
}

// TestSummary counts every status.
func TestSummary(t *testing.T) {
	assert.Equal(t, "2 held, 1 escaped, 1 not applicable, 1 could not run", Summary(goldenReport()))
	assert.Equal(t, []string{ClassMTB, ClassMetadata}, goldenReport().Classes())
}
