package server_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

var (
	upstreamOnce sync.Once
	upstreamPath string
	upstreamErr  error
)

// serverKubeconfig is the upstream credential of the replicas: a token of
// the ServiceAccount zoo-system/zoo-server (TokenRequest, one hour) with
// exactly the RBAC `kubectl zoo install --server` grants, which the first
// call installs (its Deployment's pods are kwok's, they serve nothing).
func serverKubeconfig(t *testing.T) string {
	t.Helper()
	setup(t)
	upstreamOnce.Do(func() {
		ctx := context.Background()
		res := framework.Run(ctx, nil, framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig,
			"install", "--server", "--replicas", "1", "--image", "example.invalid/kubectl-zoo:e2e")
		if upstreamErr = res.Err; upstreamErr != nil {
			t.Logf("kubectl zoo install --server: %s", res.Stderr)
			return
		}
		var tok *authenticationv1.TokenRequest
		tok, upstreamErr = framework.AdminClient(t).CoreV1().ServiceAccounts(tenantctl.ServerNamespace).CreateToken(ctx, tenantctl.ServerName,
			&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(3600))}}, metav1.CreateOptions{})
		if upstreamErr != nil {
			return
		}
		c := framework.Cluster()
		cfg := clientcmdapi.NewConfig()
		cfg.Clusters["upstream"] = &clientcmdapi.Cluster{Server: c.Server, CertificateAuthorityData: c.CACertPEM()}
		cfg.AuthInfos["zoo-server"] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
		cfg.Contexts["upstream"] = &clientcmdapi.Context{Cluster: "upstream", AuthInfo: "zoo-server"}
		cfg.CurrentContext = "upstream"
		upstreamPath = filepath.Join(c.Dir, "zoo-server.kubeconfig") // removed with the cluster's state
		upstreamErr = clientcmd.WriteToFile(*cfg, upstreamPath)
	})
	require.NoError(t, upstreamErr)
	return upstreamPath
}
