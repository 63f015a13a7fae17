package verify

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/users"
)

// ServerEndpoint is where verify reaches the zoo server (`install
// --server`).
type ServerEndpoint struct {
	// URL is the server's; "" is its Service's in-cluster URL
	// (tenantapi.ServerURL), when the Service exists.
	URL string
	// CAPEM verifies the server; nil is the CA of the ConfigMap
	// zoo-system/zoo-server-ca that install writes.
	CAPEM []byte
}

// The one result that says why the server paths did not run.
const (
	// ClassPaths groups what verify says of a path as a whole.
	ClassPaths = "paths"
	// ServerPathID is the ID of that result.
	ServerPathID = "path/server"
)

// serverReadyTimeout bounds the wait for the server to accept the
// attacker's new credentials (its informer of Tenant records).
const serverReadyTimeout = 30 * time.Second

// serverPathResult is the one result of the server paths when they do not
// run: status and why.
func serverPathResult(status Status, why string) Result {
	return Result{ID: ServerPathID, Class: ClassPaths, Title: "attack through the zoo server (install --server)",
		Path: PathServer, Status: status, Detail: why}
}

// serverConfigs are the attacker's configs on the server paths: a client
// certificate of its admin, issued and recorded as `cert issue` does, and
// the token saToken of its pod's ServiceAccount. When the server is not
// installed or cannot be reached it returns instead the one result that
// says why. ns is the attacker's namespace as the server names it.
func serverConfigs(ctx context.Context, c *tenantctl.Client, ep ServerEndpoint, a translate.Tenant, ns, saToken string, timeout time.Duration) (map[Path]*rest.Config, *Result, error) {
	ep, why, err := resolveServer(ctx, c, ep)
	switch {
	case err != nil:
		return nil, nil, err
	case why != "":
		return nil, new(serverPathResult(NotApplicable, why)), nil
	}
	req := certs.Request{Tenant: a.Name(), User: translate.DefaultAdminUser, TTL: certs.MinTTL, Signer: certs.SignerKubernetes}
	if err := req.Validate(); err != nil {
		return nil, nil, err
	}
	issued, err := certs.Issue(ctx, users.New(c.Client).Certs(), req)
	if err != nil {
		return nil, new(serverPathResult(CouldNotRun, "issue the attacker's client certificate: "+oneLine(err.Error(), 250))), nil
	}
	base := rest.Config{Host: ep.URL, Timeout: timeout, TLSClientConfig: rest.TLSClientConfig{CAData: ep.CAPEM}}
	cert, sa := rest.CopyConfig(&base), rest.CopyConfig(&base)
	cert.CertData, cert.KeyData = issued.CertPEM, issued.KeyPEM
	sa.BearerToken = saToken
	cfgs := map[Path]*rest.Config{PathServer: cert, PathServerServiceAccount: sa}
	for _, p := range []Path{PathServer, PathServerServiceAccount} {
		if err := awaitServer(ctx, cfgs[p], ns); err != nil {
			return nil, new(serverPathResult(CouldNotRun, fmt.Sprintf("the zoo server at %s did not accept the attacker (%s): %s", ep.URL, p, oneLine(err.Error(), 250)))), nil
		}
	}
	return cfgs, nil, nil
}

// resolveServer fills in ep from the cluster: the Service's URL and the
// CA install wrote; why says the server is not installed.
func resolveServer(ctx context.Context, c *tenantctl.Client, ep ServerEndpoint) (ServerEndpoint, string, error) {
	if ep.URL == "" {
		_, err := c.Kube.CoreV1().Services(tenantapi.ServerNamespace).Get(ctx, tenantapi.ServerName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return ep, fmt.Sprintf("the zoo server is not installed (no Service %s/%s; `kubectl zoo install --server` makes it)", tenantapi.ServerNamespace, tenantapi.ServerName), nil
		}
		if err != nil {
			return ep, "", fmt.Errorf("read the zoo server's Service: %w", err)
		}
		ep.URL = tenantapi.ServerURL
	}
	if ep.CAPEM != nil {
		return ep, "", nil
	}
	cm, err := c.Kube.CoreV1().ConfigMaps(tenantapi.ServerNamespace).Get(ctx, tenantapi.ServerCAConfigMap, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return ep, fmt.Sprintf("the zoo server is not installed (no ConfigMap %s/%s); pass --server-ca for a server of your own", tenantapi.ServerNamespace, tenantapi.ServerCAConfigMap), nil
	}
	if err != nil {
		return ep, "", fmt.Errorf("read the zoo server's CA: %w", err)
	}
	ep.CAPEM = []byte(cm.Data[tenantapi.ServerCAKey])
	return ep, "", nil
}

// awaitServer waits until the server lets cfg make (dry run) a ConfigMap in
// the namespace ns; it gives up at once when the server cannot be reached
// (no API answer).
func awaitServer(ctx context.Context, cfg *rest.Config, ns string) error {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	var last error
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, serverReadyTimeout, true, func(ctx context.Context) (bool, error) {
		_, last = client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ScratchObject}}, dryRun)
		var st apierrors.APIStatus
		if last != nil && !errors.As(last, &st) {
			return false, last
		}
		return last == nil, nil
	})
	if last != nil {
		return last
	}
	return err
}
