package cmd

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/install"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
)

// masked replaces the random bytes of the golden output.
const masked = "<random, checked by the test>"

func runInstall(t *testing.T, args ...string) string {
	t.Helper()
	streams, _, out, errOut := genericiooptions.NewTestIOStreams()
	cmd := NewCmdInstall(genericclioptions.NewConfigFlags(false), streams)
	cmd.SetArgs(args)
	require.NoError(t, cmd.Execute())
	assert.Empty(t, errOut.String())
	return out.String()
}

// installGolden compares got with testdata/tenantctl/name, or rewrites it
// with -update.
func installGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "tenantctl", name)
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run `go test ./pkg/cmd -run TestInstall -update` to create it")
	assert.Equal(t, string(want), got)
}

// TestInstallServerDryRunGolden pins what `kubectl zoo install --server
// --dry-run=client` prints: what plain install prints (its own golden
// files), then the server's objects. The certificate, key, CA and the
// certificate's digest are random: the test checks them (a serving
// certificate for the Service's names from the CA, with its key; the CA
// published in the ConfigMap too; the pod template naming its digest), then
// masks them.
func TestInstallServerDryRunGolden(t *testing.T) {
	plain := runInstall(t, "--dry-run=client", "-o", "yaml")
	out := runInstall(t, "--server", "--replicas", "3", "--image", "example.com/zoo:v9", "--dry-run=client", "-o", "yaml")
	require.True(t, strings.HasPrefix(out, plain+"---\n"), "install --server prints what install prints first")
	docs := strings.Split(strings.TrimPrefix(out, plain+"---\n"), "\n---\n")
	var secret, zooCASecret corev1.Secret
	var caBundle, zooCABundle, digest string
	for i, doc := range docs {
		u := &unstructured.Unstructured{}
		require.NoError(t, yaml.Unmarshal([]byte(doc), &u.Object))
		switch u.GetKind() + "/" + u.GetName() {
		case "Secret/" + tenantapi.ServerTLSSecret:
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &secret))
			for _, key := range []string{"tls.crt", "tls.key", "ca.crt"} {
				require.NoError(t, unstructured.SetNestedField(u.Object, masked, "data", key))
			}
		case "Secret/" + certs.ZooCASecret:
			require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &zooCASecret))
			for _, key := range []string{"tls.crt", "tls.key"} {
				require.NoError(t, unstructured.SetNestedField(u.Object, masked, "data", key))
			}
		case "ConfigMap/" + tenantapi.ServerCAConfigMap:
			caBundle, _, _ = unstructured.NestedString(u.Object, "data", "ca.crt")
			require.NoError(t, unstructured.SetNestedField(u.Object, masked, "data", "ca.crt"))
		case "ConfigMap/" + certs.ZooCAConfigMap:
			zooCABundle, _, _ = unstructured.NestedString(u.Object, "data", "ca.crt")
			require.NoError(t, unstructured.SetNestedField(u.Object, masked, "data", "ca.crt"))
		case "Deployment/" + tenantapi.ServerName:
			path := []string{"spec", "template", "metadata", "annotations", install.ServerCertDigestAnnotation}
			digest, _, _ = unstructured.NestedString(u.Object, path...)
			require.NoError(t, unstructured.SetNestedField(u.Object, masked, path...))
		}
		b, err := yaml.Marshal(u.Object)
		require.NoError(t, err)
		docs[i] = strings.TrimSuffix(string(b), "\n")
	}
	_, err := install.ServerTLSFromSecret(&secret, time.Now())
	require.NoError(t, err, "the printed certificate must be a good serving certificate")
	assert.Equal(t, string(secret.Data["ca.crt"]), caBundle)
	_, err = certs.ZooCAFromSecret(&zooCASecret, time.Now())
	require.NoError(t, err, "the printed zoo CA must be a good CA with its key")
	assert.Equal(t, string(zooCASecret.Data["tls.crt"]), zooCABundle, "the zoo CA's certificate is published, not its key")
	sum := sha256.Sum256(secret.Data["tls.crt"])
	assert.Equal(t, hex.EncodeToString(sum[:]), digest)
	installGolden(t, "install-server-dry-run.yaml", strings.Join(docs, "\n---\n")+"\n")

	text := runInstall(t, "--server", "--dry-run=client")
	require.True(t, strings.HasPrefix(text, runInstall(t, "--dry-run=client")))
	installGolden(t, "install-server-dry-run.txt", text)
}

func TestInstallServerDefaultImage(t *testing.T) {
	out := runInstall(t, "--server", "--dry-run=client", "-o", "yaml")
	assert.Contains(t, out, "image: ghcr.io/kubectl-zoo/kubectl-zoo:"+CurrentVersion().Version+"\n")
	assert.Contains(t, out, "replicas: 2\n")
}

func TestInstallServerValidate(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--server", "--replicas=0", "--dry-run=client"}, "--replicas must be at least 1, not 0"},
		{[]string{"--server", "--image=", "--dry-run=client"}, "--image must not be empty"},
		{[]string{"--replicas=3", "--dry-run=client"}, "--replicas and --image only go with --server"},
		{[]string{"--image=x", "--dry-run=client"}, "--replicas and --image only go with --server"},
		{[]string{"--server", "--uninstall", "--replicas=3"}, "--replicas and --image only go with --server, when installing"},
		{[]string{"--server", "--uninstall", "--force"}, "--force does not go with --server --uninstall"},
		{[]string{"--server", "--uninstall", "--dry-run=client"}, "--uninstall does not support --dry-run"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			streams, _, out, _ := genericiooptions.NewTestIOStreams()
			cmd := NewCmdInstall(genericclioptions.NewConfigFlags(false), streams)
			cmd.SetArgs(tc.args)
			cmd.SilenceErrors, cmd.SilenceUsage = true, true
			err := cmd.Execute()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Empty(t, out.String())
		})
	}
}

// TestServerImageMatchesRelease checks that the default --image is what the
// release builds: .goreleaser.yaml publishes DefaultServerImageRepository
// tagged v<version>, the version the release stamps into the binary
// (`kubectl zoo version`), from a distroless, non-root Dockerfile.
func TestServerImageMatchesRelease(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "..", ".goreleaser.yaml"))
	require.NoError(t, err)
	var cfg struct {
		Builds []struct {
			Ldflags []string `json:"ldflags"`
		} `json:"builds"`
		DockersV2 []struct {
			IDs        []string `json:"ids"`
			Dockerfile string   `json:"dockerfile"`
			Images     []string `json:"images"`
			Tags       []string `json:"tags"`
			Platforms  []string `json:"platforms"`
		} `json:"dockers_v2"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &cfg))
	require.Len(t, cfg.DockersV2, 1)
	image := cfg.DockersV2[0]
	assert.Equal(t, []string{tenantapi.DefaultServerImageRepository}, image.Images)
	assert.Equal(t, []string{"v{{ .Version }}"}, image.Tags)
	assert.Contains(t, image.Platforms, "linux/amd64")
	require.Len(t, cfg.Builds, 1)
	assert.Contains(t, strings.Join(cfg.Builds[0].Ldflags, " "), "pkg/cmd.version=v{{ .Version }}")

	dockerfile, err := os.ReadFile(filepath.Join("..", "..", image.Dockerfile))
	require.NoError(t, err)
	assert.Regexp(t, `(?m)^FROM gcr\.io/distroless/static[^ ]*:nonroot$`, string(dockerfile))
	assert.Regexp(t, `(?m)^USER 65532:65532$`, string(dockerfile))
	assert.Regexp(t, `(?m)^ENTRYPOINT \["/usr/local/bin/kubectl-zoo"\]$`, string(dockerfile))
}
