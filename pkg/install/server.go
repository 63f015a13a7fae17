package install

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
)

// Paths inside the server's pod.
const (
	serverTLSDir = "/etc/zoo/tls"
	serverTmpDir = "/tmp"
)

// ServerOptions parameterize ServerObjects.
type ServerOptions struct {
	// Replicas of the Deployment; at least 1.
	Replicas int32
	// Image of the server container.
	Image string
	// TLS is the serving certificate; nil means issue a new one.
	TLS *ServerTLS
	// ZooCA is the CA of `kubectl zoo cert issue --signer zoo`, which the
	// server accepts besides the cluster's client CA; nil means issue a new
	// one.
	ZooCA *certs.ZooCA
}

// Validate checks the options.
func (o ServerOptions) Validate() error {
	if o.Replicas < 1 {
		return fmt.Errorf("--replicas must be at least 1, not %d", o.Replicas)
	}
	if o.Image == "" {
		return errors.New("--image must not be empty")
	}
	return nil
}

// ServerObjects returns, in apply order, what `kubectl zoo install --server`
// adds beside InstallObjects: the namespace, the ServiceAccount and its RBAC
// (ServerClusterRole and the Role that reads the client CA), the serving
// certificate and its CA, the zoo CA (certs.ZooCASecret, certs.ZooCAConfigMap), the
// Service, the Deployment and its PodDisruptionBudget. Without opts.TLS it
// issues a new certificate, without opts.ZooCA a new zoo CA.
func ServerObjects(opts ServerOptions) ([]runtime.Object, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	tlsPair := opts.TLS
	if tlsPair == nil {
		var err error
		if tlsPair, err = NewServerTLS(); err != nil {
			return nil, err
		}
	}
	zooCA := opts.ZooCA
	if zooCA == nil {
		var err error
		if zooCA, err = certs.NewZooCA(); err != nil {
			return nil, err
		}
	}
	zooCASecret, zooCAConfigMap := zooCAObjects(zooCA)
	objs := []runtime.Object{
		&corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: tenantapi.ServerNamespace, Labels: serverNamespaceLabels()},
		},
		&corev1.ServiceAccount{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta: serverMeta(tenantapi.ServerName),
			// Only a pod that asks for the token gets it (the server's do).
			AutomountServiceAccountToken: ptr.To(false),
		},
	}
	objs = append(objs, ServerRBAC()...)
	objs = append(objs,
		&corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: serverMeta(tenantapi.ServerTLSSecret),
			Type:       corev1.SecretTypeTLS,
			Data: map[string][]byte{
				corev1.TLSCertKey: tlsPair.CertPEM, corev1.TLSPrivateKeyKey: tlsPair.KeyPEM, tenantapi.ServerCAKey: tlsPair.CAPEM,
			},
		},
		&corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: serverMeta(tenantapi.ServerCAConfigMap),
			Data:       map[string]string{tenantapi.ServerCAKey: string(tlsPair.CAPEM)},
		},
		zooCASecret, zooCAConfigMap,
		&corev1.Service{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: serverMeta(tenantapi.ServerName),
			Spec: corev1.ServiceSpec{
				Selector: serverSelector(),
				Ports: []corev1.ServicePort{{
					Name: "https", Protocol: corev1.ProtocolTCP, Port: tenantapi.ServerServicePort, TargetPort: intstr.FromString("https"),
				}},
			},
		},
		serverDeployment(opts, tlsPair),
		&policyv1.PodDisruptionBudget{
			TypeMeta:   metav1.TypeMeta{APIVersion: policyv1.SchemeGroupVersion.String(), Kind: "PodDisruptionBudget"},
			ObjectMeta: serverMeta(tenantapi.ServerName),
			Spec: policyv1.PodDisruptionBudgetSpec{
				MinAvailable: ptr.To(intstr.FromInt32(1)),
				Selector:     &metav1.LabelSelector{MatchLabels: serverSelector()},
			},
		},
	)
	return objs, nil
}

// ServerRBAC returns the server's RBAC, in apply order: ServerBaseClusterRole,
// ServerClusterRole that aggregates it and its binding, then the Role and
// RoleBinding in kube-system (client CA, policy locks). A test that
// runs the server as a local process applies exactly these (with the
// namespace and ServiceAccount) and uses a token of the ServiceAccount.
func ServerRBAC() []runtime.Object {
	return []runtime.Object{
		ServerBaseClusterRole(), ServerClusterRole(), ServerClusterRoleBinding(),
		ServerAuthenticationRole(), ServerAuthenticationRoleBinding(),
		ServerPolicyLockRole(), ServerPolicyLockRoleBinding(),
	}
}

// serverLabels mark what install --server applies.
func serverLabels() map[string]string {
	l := tenantapi.ManagedLabels()
	l["app.kubernetes.io/part-of"] = "kubectl-zoo"
	l["app.kubernetes.io/component"] = "server"
	return l
}

// serverNamespaceLabels enforce the restricted Pod Security profile in
// ServerNamespace: nothing there needs more than the server does.
func serverNamespaceLabels() map[string]string {
	l := serverLabels()
	l["pod-security.kubernetes.io/enforce"] = "restricted"
	return l
}

// serverSelector selects the server's pods.
func serverSelector() map[string]string {
	return map[string]string{"app.kubernetes.io/name": tenantapi.ServerName}
}

func serverMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: tenantapi.ServerNamespace, Labels: serverLabels()}
}
