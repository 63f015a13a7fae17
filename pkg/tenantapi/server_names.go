package tenantapi

import (
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Names of what `kubectl zoo install --server` adds. The tenant name "zoo"
// is reserved, so no tenant owns (or can create) anything named "zoo-...".
const (
	// ServerNamespace holds the server: its ServiceAccount, Deployment,
	// Service and certificate. It is also the RegistryNamespace.
	ServerNamespace = RegistryNamespace
	// ServerName names the server's ServiceAccount, ClusterRole,
	// ClusterRoleBinding, Deployment, PodDisruptionBudget and Service.
	ServerName = "zoo-server"
	// ServerBaseName names ServerBaseClusterRole, the server's fixed
	// rights; it carries ServerAggregateLabel, so ServerClusterRole
	// aggregates it.
	ServerBaseName = "zoo-server-base"
	// ServerAggregateLabel (value "true") marks the ClusterRoles whose rules
	// the aggregated ServerClusterRole collects: ServerBaseClusterRole and
	// one per cluster-scoped CRD of a tenant (CRDServerClusterRole), which
	// TenantPolicy confines to the tenant's own API groups.
	ServerAggregateLabel = translate.APIGroup + "/aggregate-to-server"
	// ServerTLSSecret holds the serving certificate (tls.crt, tls.key) and
	// the CA that issued it (ca.crt).
	ServerTLSSecret = "zoo-server-tls"
	// ServerCAConfigMap publishes the CA (key ca.crt) for clients.
	ServerCAConfigMap = "zoo-server-ca"
	// ServerCAKey is the key of the CA bundle in ServerTLSSecret and
	// ServerCAConfigMap.
	ServerCAKey = "ca.crt"
	// ServerAuthenticationReader names the Role and RoleBinding in
	// kube-system that let the server read ClientCAConfigMap.
	ServerAuthenticationReader = "zoo-server-authentication-reader"
	// ServerPolicyLocks names the Role and RoleBinding in kube-system that
	// let the server take the tenants' policy locks.
	ServerPolicyLocks = "zoo-server-policy-locks"
	// ClientCAConfigMap is the ConfigMap in kube-system where the API
	// server publishes its client CA.
	ClientCAConfigMap = "extension-apiserver-authentication"
	// ServerPort is the port the server listens on in its pod.
	ServerPort = 8443
	// ServerServicePort is the port of the Service in front of the
	// replicas, which tenant pods are given.
	ServerServicePort = 443
	// ServerURL is where clients in the cluster reach the server.
	ServerURL = "https://" + ServerName + "." + ServerNamespace + ".svc"
	// DefaultServerImageRepository is the image goreleaser publishes
	// (.goreleaser.yaml, dockers_v2); the tag is the binary's version.
	DefaultServerImageRepository = "ghcr.io/kubectl-zoo/kubectl-zoo"
)
