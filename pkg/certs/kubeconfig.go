package certs

import (
	"context"
	"fmt"
	"os"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Endpoint is where a written kubeconfig points.
type Endpoint struct {
	// Server is the URL; CAPEM verifies it.
	Server string
	CAPEM  []byte
	// ZooServer is true for the zoo server, false for the upstream API
	// server (a credential for `kubectl zoo serve`).
	ZooServer bool
}

// ResolveEndpoint picks where a certificate's kubeconfig points: the zoo
// server when it is installed (its Service URL, or serverURL, and the CA of
// ConfigMap zoo-system/zoo-server-ca), else the upstream API server of the
// caller's own config. A zoo-signed certificate needs the zoo server.
func ResolveEndpoint(ctx context.Context, c Client, signer, serverURL string) (Endpoint, error) {
	cm, err := c.Kube.CoreV1().ConfigMaps(tenantapi.ServerNamespace).Get(ctx, tenantapi.ServerCAConfigMap, metav1.GetOptions{})
	switch {
	case err == nil:
		url := serverURL
		if url == "" {
			url = tenantapi.ServerURL
		}
		return Endpoint{Server: url, CAPEM: []byte(cm.Data[tenantapi.ServerCAKey]), ZooServer: true}, nil
	case !apierrors.IsNotFound(err):
		return Endpoint{}, fmt.Errorf("read the zoo server's CA (configmap %s/%s): %w", tenantapi.ServerNamespace, tenantapi.ServerCAConfigMap, err)
	case signer == SignerZoo || serverURL != "":
		return Endpoint{}, fmt.Errorf("the zoo server is not installed (no configmap %s/%s): run `kubectl zoo install --server`",
			tenantapi.ServerNamespace, tenantapi.ServerCAConfigMap)
	}
	ca := c.Config.CAData
	if len(ca) == 0 && c.Config.CAFile != "" {
		if ca, err = os.ReadFile(c.Config.CAFile); err != nil {
			return Endpoint{}, fmt.Errorf("read the cluster's CA: %w", err)
		}
	}
	return Endpoint{Server: c.Config.Host, CAPEM: ca}, nil
}

// Kubeconfig is the kubeconfig of an issued certificate at ep: one
// cluster, user and context, all named zoo-<tenant>-<user>.
func Kubeconfig(is *Issued, ep Endpoint) *clientcmdapi.Config {
	name := "zoo-" + is.Tenant + "-" + is.Record.User
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: ep.Server, CertificateAuthorityData: ep.CAPEM}
	auth := &clientcmdapi.AuthInfo{ClientCertificateData: is.CertPEM, ClientKeyData: is.KeyPEM}
	if is.Record.Signer == SignerKubernetes {
		// The certificate's user may only impersonate its tenant identity
		// (grant.go). The zoo server removes Impersonate-* headers and
		// takes the identity from the record: the same kubeconfig serves
		// both, pointed at either.
		t := translate.MustTenant(is.Tenant)
		auth.Impersonate, auth.ImpersonateGroups = t.UpstreamUser(is.Record.User), t.UpstreamGroups(is.Record.Groups, false)
	}
	cfg.AuthInfos[name] = auth
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	cfg.CurrentContext = name
	return cfg
}

// WriteKubeconfig writes cfg to path readable by its owner only (0600, also
// when the file existed with wider permissions).
func WriteKubeconfig(cfg *clientcmdapi.Config, path string) error {
	b, err := clientcmd.Write(*cfg)
	if err != nil {
		return fmt.Errorf("encode the kubeconfig: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("write the kubeconfig: %w", err)
	}
	if err := f.Chmod(0o600); err != nil {
		_ = f.Close()
		return fmt.Errorf("write the kubeconfig: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		_ = f.Close()
		return fmt.Errorf("write the kubeconfig: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write the kubeconfig: %w", err)
	}
	return nil
}
