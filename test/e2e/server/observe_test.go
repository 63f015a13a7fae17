package server_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestServerHealthMetricsAndAudit: /livez and /readyz answer anyone;
// /metrics answers only those the upstream allows get /metrics, with
// per-tenant counters; every write leaves one audit line naming the tenant,
// the user, and the object on both sides; reads leave none.
func TestServerHealthMetricsAndAudit(t *testing.T) {
	setup(t)
	r := framework.StartReplica(t)
	acmeAuth := framework.ClusterCert(t, "zoo:acme:admin", "zoo:tenant:acme")
	acme := framework.ServerKubeconfigFor(t, "https://"+r.Addr, acmeAuth)
	framework.KubectlAs(t, acme, "create", "configmap", "audited", "-n", "default")
	framework.KubectlAs(t, acme, "get", "configmap", "audited", "-n", "default")
	// client-go's own protobuf: the audit line names it as well, read from
	// the body's metadata alone (translate.ProtobufObjectMeta).
	cfg, err := clientcmd.BuildConfigFromFlags("", acme)
	require.NoError(t, err)
	cfg.ContentType = runtime.ContentTypeProtobuf
	protoClient, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err)
	_, err = protoClient.CoreV1().ConfigMaps("default").Create(t.Context(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "audited-proto-"}}, metav1.CreateOptions{})
	require.NoError(t, err)

	for _, path := range []string{"/livez", "/readyz"} {
		code, body := r.Get(t, path, nil, nil)
		assert.Equal(t, http.StatusOK, code, "%s: %s", path, body)
	}
	code, _ := r.Get(t, "/metrics", nil, nil)
	assert.Equal(t, http.StatusUnauthorized, code, "/metrics without a credential")
	code, _ = r.Get(t, "/metrics", acmeAuth.ClientCertificateData, acmeAuth.ClientKeyData)
	assert.Equal(t, http.StatusForbidden, code, "/metrics for a tenant")
	admin := framework.Cluster().Config
	metrics := r.Scrape(t, admin.CertData, admin.KeyData)
	assert.Contains(t, metrics, `zoo_server_requests_total{code="201",resource="configmaps",tenant="acme",verb="create"} 2`)
	assert.Contains(t, metrics, `zoo_server_requests_total{code="200",resource="configmaps",tenant="acme",verb="get"} 1`)
	assert.Contains(t, metrics, `zoo_server_request_duration_seconds_count{tenant="acme",verb="create"} 2`)
	assert.Contains(t, metrics, `zoo_server_inflight_requests{tenant="acme"} 0`)
	assert.Contains(t, metrics, "zoo_server_unauthorized_requests_total")
	assert.Contains(t, metrics, "zoo_server_upstream_errors_total")
	assert.NotContains(t, metrics, `tenant="beta"`, "beta made no request")

	f, err := os.Open(r.AuditLog)
	require.NoError(t, err)
	defer f.Close()
	var lines []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var line map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), sc.Text())
		lines = append(lines, line)
	}
	require.Len(t, lines, 2, "one line a write (the get leaves none)")
	assert.Equal(t, "audited-proto-", lines[1]["name"], "a protobuf create names its generateName")
	assert.Equal(t, "audited-proto-", lines[1]["upstreamName"])
	assert.Equal(t, "acme-default", lines[1]["upstreamNamespace"])
	l := lines[0]
	assert.Equal(t, "acme", l["tenant"])
	assert.Equal(t, "admin", l["user"])
	assert.Equal(t, "create", l["verb"])
	assert.Equal(t, "configmaps", l["resource"])
	assert.Equal(t, "default", l["namespace"])
	assert.Equal(t, "audited", l["name"])
	assert.Equal(t, "audited", l["upstreamName"])
	assert.Equal(t, "configmaps", l["upstreamResource"])
	assert.Equal(t, "acme-default", l["upstreamNamespace"])
	assert.EqualValues(t, 201, l["code"])
	assert.NotEmpty(t, l["time"])
	assert.NotNil(t, l["latencySeconds"])
}

// TestServerForgetsADeletedTenantsSeries: the series of a tenant go with
// its record, so a server's metrics do not grow with every tenant it ever
// served; another tenant's stay.
func TestServerForgetsADeletedTenantsSeries(t *testing.T) {
	setup(t)
	r := framework.StartReplica(t)
	zoo := func(args ...string) {
		res := framework.Run(t.Context(), nil, framework.ZooPath(t), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig}, args...)...)
		require.NoError(t, res.Err, res.Stderr)
	}
	zoo("tenant", "create", "metgone")
	for _, tenant := range []string{"metgone", "acme"} {
		kc := framework.ServerKubeconfigFor(t, "https://"+r.Addr, framework.ClusterCert(t, "zoo:"+tenant+":admin", "zoo:tenant:"+tenant))
		framework.KubectlAs(t, kc, "get", "configmaps", "-n", "default")
	}
	admin := framework.Cluster().Config
	metrics := r.Scrape(t, admin.CertData, admin.KeyData)
	require.Contains(t, metrics, `tenant="metgone"`)
	zoo("tenant", "delete", "metgone", "--wait=false")
	require.Eventually(t, func() bool {
		return !strings.Contains(r.Scrape(t, admin.CertData, admin.KeyData), `tenant="metgone"`)
	}, time.Minute, 200*time.Millisecond, "the deleted tenant's series stay")
	assert.Contains(t, r.Scrape(t, admin.CertData, admin.KeyData), `zoo_server_requests_total{code="200",resource="configmaps",tenant="acme",verb="list"}`)
}
