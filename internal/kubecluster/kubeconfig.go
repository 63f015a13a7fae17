package kubecluster

import (
	"fmt"
	"path/filepath"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

var metav1GetOptions = metav1.GetOptions{}

// writePKI generates the cluster's certificates and the kubeconfigs of the
// admin and of each component.
func (c *Cluster) writePKI() error {
	p, err := newPKI(filepath.Join(c.Dir, "pki"))
	if err != nil {
		return err
	}
	c.pki = p
	if err := p.serving("apiserver", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
		"kubernetes.default.svc.cluster.local"); err != nil {
		return err
	}
	if err := p.serving("kwok"); err != nil {
		return err
	}
	if err := p.serviceAccountKey(); err != nil {
		return err
	}
	if _, err := p.client("apiserver-kubelet-client", "kube-apiserver-kubelet-client", "system:masters"); err != nil {
		return err
	}
	clients := []struct{ file, user, group string }{
		{KubeconfigFileName, "zoo-admin", "system:masters"},
		{"kube-controller-manager.kubeconfig", "system:kube-controller-manager", ""},
		{"kube-scheduler.kubeconfig", "system:kube-scheduler", ""},
		{"kwok.kubeconfig", "kwok", "system:masters"},
	}
	for _, cl := range clients {
		var groups []string
		if cl.group != "" {
			groups = []string{cl.group}
		}
		kp, err := p.client(cl.file+"-client", cl.user, groups...)
		if err != nil {
			return err
		}
		if err := c.writeKubeconfig(filepath.Join(c.Dir, cl.file), cl.user, kp); err != nil {
			return err
		}
	}
	c.Kubeconfig = filepath.Join(c.Dir, KubeconfigFileName)
	return nil
}

// writeKubeconfig writes a self-contained kubeconfig (certificates embedded)
// with one context, "zoo-dev".
func (c *Cluster) writeKubeconfig(path, user string, kp *keyPair) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["zoo-dev"] = &clientcmdapi.Cluster{Server: c.Server, CertificateAuthorityData: c.pki.ca.CertPEM}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificateData: kp.CertPEM, ClientKeyData: kp.KeyPEM}
	cfg.Contexts["zoo-dev"] = &clientcmdapi.Context{Cluster: "zoo-dev", AuthInfo: user, Namespace: "default"}
	cfg.CurrentContext = "zoo-dev"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return fmt.Errorf("write kubeconfig %s: %w", path, err)
	}
	return nil
}

// CACertPEM returns the PEM of the CA that signs every certificate of the
// cluster, including those the CSR API issues.
func (c *Cluster) CACertPEM() []byte { return c.pki.ca.CertPEM }
