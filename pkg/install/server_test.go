package install

import (
	"crypto/x509"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// TestServerObjects checks what install --server applies: the kinds in
// apply order, labels, the namespace, and the pod's hardening.
func TestServerObjects(t *testing.T) {
	objs, err := ServerObjects(ServerOptions{Replicas: 3, Image: "example.com/zoo:v1"})
	require.NoError(t, err)
	var kinds []string
	var deploy *appsv1.Deployment
	for _, obj := range objs {
		u, err := upstream.ToUnstructured(obj)
		require.NoError(t, err)
		kinds = append(kinds, u.GetKind())
		_, err = upstream.GVROf(u)
		require.NoError(t, err, "install must know the resource of %s", u.GetKind())
		assert.Equal(t, tenantapi.ManagedByValue, u.GetLabels()[tenantapi.ManagedByLabel], u.GetName())
		assert.True(t, strings.HasPrefix(u.GetName(), "zoo-"), u.GetName())
		if ns := u.GetNamespace(); ns != "" {
			assert.Contains(t, []string{tenantapi.ServerNamespace, "kube-system"}, ns, u.GetName())
		}
		if d, ok := obj.(*appsv1.Deployment); ok {
			deploy = d
		}
	}
	assert.Equal(t, []string{"Namespace", "ServiceAccount", "ClusterRole", "ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding", "Role", "RoleBinding",
		"Secret", "ConfigMap", "Secret", "ConfigMap", "Service", "Deployment", "PodDisruptionBudget"}, kinds)

	require.NotNil(t, deploy)
	assert.Equal(t, int32(3), *deploy.Spec.Replicas)
	pod := deploy.Spec.Template.Spec
	assert.Equal(t, tenantapi.ServerName, pod.ServiceAccountName)
	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	assert.Equal(t, "example.com/zoo:v1", c.Image)
	assert.Equal(t, []string{"serve", "--listen=:8443", "--tls-cert-file=/etc/zoo/tls/tls.crt", "--tls-private-key-file=/etc/zoo/tls/tls.key",
		"--advertise-address=zoo-server.zoo-system.svc:443", "--advertise-ca-file=/etc/zoo/tls/ca.crt",
		"--client-ca-file=/etc/zoo/client-ca/ca.crt"}, c.Args)
	for _, v := range pod.Volumes {
		assert.NotEqual(t, certs.ZooCASecret, ptr.Deref(v.Secret, corev1.SecretVolumeSource{}).SecretName, "the server never gets the zoo CA's key")
	}
	assert.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
	assert.False(t, *c.SecurityContext.AllowPrivilegeEscalation)
	assert.True(t, *c.SecurityContext.RunAsNonRoot)
	assert.Equal(t, []corev1.Capability{"ALL"}, c.SecurityContext.Capabilities.Drop)
	assert.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, pod.SecurityContext.SeccompProfile.Type)
	assert.Equal(t, "/livez", c.LivenessProbe.HTTPGet.Path)
	assert.Equal(t, "/readyz", c.ReadinessProbe.HTTPGet.Path)
	assert.Equal(t, corev1.URISchemeHTTPS, c.ReadinessProbe.HTTPGet.Scheme)
	assert.False(t, c.Resources.Requests.Cpu().IsZero())
	assert.False(t, c.Resources.Limits.Memory().IsZero())
	var tmp bool
	for _, m := range c.VolumeMounts {
		tmp = tmp || (m.MountPath == "/tmp" && !m.ReadOnly)
	}
	assert.True(t, tmp, "the read-only root needs a writable /tmp for spilled answers")
	assert.Equal(t, corev1.LabelHostname, pod.Affinity.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution[0].PodAffinityTerm.TopologyKey)
}

func TestServerOptionsValidate(t *testing.T) {
	for _, tc := range []struct {
		opts ServerOptions
		want string
	}{
		{ServerOptions{Replicas: 0, Image: "x"}, "--replicas must be at least 1, not 0"},
		{ServerOptions{Replicas: -2, Image: "x"}, "--replicas must be at least 1, not -2"},
		{ServerOptions{Replicas: 1}, "--image must not be empty"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			_, err := ServerObjects(tc.opts)
			require.Error(t, err)
			assert.Equal(t, tc.want, err.Error())
		})
	}
}

// covers reports whether rule allows verb on group/resource (no wildcards
// are expected in the server's rules; a wildcard counts as a match).
func covers(rule rbacv1.PolicyRule, group, resource, verb string) bool {
	in := func(list []string, v string) bool { return slices.Contains(list, v) || slices.Contains(list, "*") }
	return in(rule.APIGroups, group) && in(rule.Resources, resource) && in(rule.Verbs, verb)
}

func allows(rules []rbacv1.PolicyRule, group, resource, verb string) bool {
	return allowsNamed(rules, group, resource, verb, "")
}

// allowsNamed is allows for the object name (a rule with resourceNames
// covers only those names; "" is any object, as a list is).
func allowsNamed(rules []rbacv1.PolicyRule, group, resource, verb, name string) bool {
	return slices.ContainsFunc(rules, func(r rbacv1.PolicyRule) bool {
		return covers(r, group, resource, verb) && (len(r.ResourceNames) == 0 || name != "" && slices.Contains(r.ResourceNames, name))
	})
}

// TestServerClusterRole pins the server's rights: what the proxy's own
// identity reads (every shared kind of the kinds table, by name), what the
// server needs, and none of what it must not have.
func TestServerClusterRole(t *testing.T) {
	rules := ServerBaseClusterRole().Rules
	for _, r := range rules {
		for _, list := range [][]string{r.APIGroups, r.Resources, r.Verbs, r.NonResourceURLs} {
			assert.NotContains(t, list, "*", "no wildcards in %v", r)
		}
	}
	for _, k := range translate.Kinds() {
		if k.Treatment == translate.Shared {
			assert.True(t, allows(rules, k.Resource.Group, k.Resource.Resource, "get"), "shared kind %s", k.Resource)
			assert.False(t, allows(rules, k.Resource.Group, k.Resource.Resource, "list"), "shared kind %s is read by name only", k.Resource)
		}
	}
	for _, tc := range []struct{ group, resource, verb string }{
		{"", "users", "impersonate"}, {"", "groups", "impersonate"}, {"", "serviceaccounts", "impersonate"},
		{"authentication.k8s.io", "tokenreviews", "create"}, {"authorization.k8s.io", "subjectaccessreviews", "create"},
		{translate.APIGroup, tenantapi.TenantResource, "watch"}, {"", "namespaces", "list"}, {"", "namespaces", "watch"},
		{"rbac.authorization.k8s.io", "clusterrolebindings", "list"}, {"", "configmaps", "create"},
	} {
		assert.True(t, allows(rules, tc.group, tc.resource, tc.verb), "%s %s.%s", tc.verb, tc.resource, tc.group)
	}
	// The API access ConfigMap of tenant pods, and only it.
	for _, verb := range []string{"get", "update"} {
		assert.True(t, allowsNamed(rules, "", "configmaps", verb, translate.APIAccessName), verb)
		assert.False(t, allowsNamed(rules, "", "configmaps", verb, "kube-root-ca.crt"), verb)
	}
	assert.False(t, allows(rules, "", "configmaps", "list"))
	assert.False(t, allows(rules, "", "configmaps", "delete"))
	for _, tc := range []struct{ group, resource, verb string }{
		{"", "secrets", "get"}, {"", "secrets", "list"}, {"", "configmaps", "get"}, {"", "pods", "create"},
		{"", "namespaces", "create"}, {"", "namespaces", "delete"}, {translate.APIGroup, tenantapi.TenantResource, "update"},
		{"rbac.authorization.k8s.io", "clusterrolebindings", "create"}, {"rbac.authorization.k8s.io", "clusterroles", "escalate"},
		{"rbac.authorization.k8s.io", "clusterroles", "bind"}, {"certificates.k8s.io", "certificatesigningrequests", "create"},
		{"authentication.k8s.io", "selfsubjectreviews", "create"},
		{"authentication.k8s.io", "userextras/authentication.kubernetes.io/pod-name", "impersonate"},
		{"authentication.k8s.io", "uids", "impersonate"},
	} {
		assert.False(t, allows(rules, tc.group, tc.resource, tc.verb), "%s %s.%s", tc.verb, tc.resource, tc.group)
	}
	role := ServerAuthenticationRole()
	require.Len(t, role.Rules, 1)
	assert.Equal(t, []string{tenantapi.ClientCAConfigMap}, role.Rules[0].ResourceNames)
	assert.Equal(t, "kube-system", role.Namespace)
}

// TestServerTLS checks the issued certificate and when install keeps it.
func TestServerTLS(t *testing.T) {
	good, err := NewServerTLS()
	require.NoError(t, err)
	other, err := NewServerTLS()
	require.NoError(t, err)
	secret := func(tlsPair *ServerTLS) *corev1.Secret {
		return &corev1.Secret{Data: map[string][]byte{"tls.crt": tlsPair.CertPEM, "tls.key": tlsPair.KeyPEM, "ca.crt": tlsPair.CAPEM}}
	}
	certs, err := certutil.ParseCertsPEM(good.CertPEM)
	require.NoError(t, err)
	assert.Equal(t, []string{"zoo-server", "zoo-server.zoo-system", "zoo-server.zoo-system.svc", "zoo-server.zoo-system.svc.cluster.local"}, certs[0].DNSNames)
	assert.Equal(t, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, certs[0].ExtKeyUsage)
	assert.False(t, certs[0].IsCA)

	now := time.Now()
	for _, tc := range []struct {
		name string
		s    *corev1.Secret
		at   time.Time
		want string
	}{
		{"good", secret(good), now, ""},
		{"good for four more years", secret(good), now.Add(4 * 365 * 24 * time.Hour), ""},
		{"expires within the renewal margin", secret(good), now.Add(serverCertValidity - 30*24*time.Hour), "the certificate expires at"},
		{"another CA", secret(&ServerTLS{CAPEM: other.CAPEM, CertPEM: good.CertPEM, KeyPEM: good.KeyPEM}), now, "certificate signed by unknown authority"},
		{"another key", secret(&ServerTLS{CAPEM: good.CAPEM, CertPEM: good.CertPEM, KeyPEM: other.KeyPEM}), now, "private key does not match public key"},
		{"no CA", secret(&ServerTLS{CertPEM: good.CertPEM, KeyPEM: good.KeyPEM}), now, "ca.crt"},
		{"empty", &corev1.Secret{}, now, "certificate and key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ServerTLSFromSecret(tc.s, tc.at)
			if tc.want == "" {
				require.NoError(t, err)
				assert.Equal(t, good, got)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
