// Package verify_test proves `kubectl zoo verify` against the local
// upstream: everything holds on a cluster as `kubectl zoo install` leaves
// it; a guarantee the test breaks is reported as escaped, exactly where it
// held before; and an interrupted run leaves nothing behind.
package verify_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/verify"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }

var installOnce sync.Once

// install runs `kubectl zoo install` once per test binary.
func install(t *testing.T) {
	t.Helper()
	installOnce.Do(func() { framework.MustZoo(t, "install") })
}

// serverFlags starts a server replica and returns verify's flags that name
// it and its CA: the local upstream has no in-cluster server (the pods of
// the Deployment `install --server` makes are kwok's, they serve nothing).
func serverFlags(t *testing.T) []string {
	t.Helper()
	r := framework.StartReplica(t)
	ca := filepath.Join(t.TempDir(), "server-ca.pem")
	require.NoError(t, os.WriteFile(ca, framework.ServingCert(t).CAPEM, 0o600))
	return []string{"--server-url", "https://" + r.Addr, "--server-ca", ca}
}

// runVerify runs `kubectl zoo verify -o json --junit FILE args...` and
// returns its result and report (nil when it printed none), after checking
// that the JUnit file says what the JSON says.
func runVerify(t *testing.T, args ...string) (framework.Result, *verify.Report) {
	t.Helper()
	junit := filepath.Join(t.TempDir(), "verify.xml")
	res := framework.Zoo(t, append([]string{"verify", "-o", "json", "--junit", junit}, args...)...)
	if res.Stdout == "" {
		return res, nil
	}
	var rep verify.Report
	require.NoError(t, json.Unmarshal([]byte(res.Stdout), &rep), "stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	data, err := os.ReadFile(junit)
	require.NoError(t, err)
	var suites struct {
		Suites []struct {
			Failures int `xml:"failures,attr"`
			Tests    int `xml:"tests,attr"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.NewDecoder(bytes.NewReader(data)).Decode(&suites))
	failures, tests := 0, 0
	for _, s := range suites.Suites {
		failures, tests = failures+s.Failures, tests+s.Tests
	}
	require.Equal(t, rep.Count(verify.Escaped), failures, "the JUnit report's failures are the escapes")
	require.Len(t, rep.Results, tests)
	return res, &rep
}

// requireNothingLeft checks that no scratch tenant, none of their
// namespaces and none of their cluster-scoped objects is left.
func requireNothingLeft(t *testing.T) {
	t.Helper()
	ctx := t.Context()
	cfg, err := clientcmd.BuildConfigFromFlags("", framework.Cluster().Kubeconfig)
	require.NoError(t, err)
	zc, err := tenantctl.NewClient(cfg)
	require.NoError(t, err)
	records, err := zc.Dynamic.Resource(tenantapi.TenantGVR).List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, r := range records.Items {
		require.NotContains(t, verify.DefaultNames, r.GetName(), "a scratch tenant record is left")
	}
	selector := translate.TenantLabel + " in (" + strings.Join(verify.DefaultNames[:], ",") + ")"
	nss, err := zc.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	for _, ns := range nss.Items {
		for _, name := range verify.DefaultNames {
			require.False(t, strings.HasPrefix(ns.Name, name+translate.Separator), "namespace %s is left", ns.Name)
		}
	}
	rbac := zc.Kube.RbacV1()
	crs, err := rbac.ClusterRoles().List(ctx, metav1.ListOptions{LabelSelector: selector})
	require.NoError(t, err)
	require.Empty(t, crs.Items, "ClusterRoles of a scratch tenant are left")
	crbs, err := rbac.ClusterRoleBindings().List(ctx, metav1.ListOptions{LabelSelector: selector})
	require.NoError(t, err)
	require.Empty(t, crbs.Items, "ClusterRoleBindings of a scratch tenant are left")
}
