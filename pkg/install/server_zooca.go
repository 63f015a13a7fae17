package install

import (
	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// zooCAObjects are the Secret with the zoo CA's key and the ConfigMap with
// its certificate.
func zooCAObjects(z *certs.ZooCA) (*corev1.Secret, *corev1.ConfigMap) {
	return &corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: serverMeta(certs.ZooCASecret),
			Type:       corev1.SecretTypeTLS,
			Data:       map[string][]byte{corev1.TLSCertKey: z.CertPEM, corev1.TLSPrivateKeyKey: z.KeyPEM},
		}, &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: serverMeta(certs.ZooCAConfigMap),
			Data:       map[string]string{tenantapi.ServerCAKey: string(z.CertPEM)},
		}
}
