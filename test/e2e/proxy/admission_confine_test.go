package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// Admission configuration and flow control are written by the proxy with
// its own identity once the translator has confined them
// (pkg/localproxy/confined.go). These tests are the attacks on that path:
// through the proxy, with the tenant identity directly upstream, and with a
// tenant pod's ServiceAccount token.

// tenantIdentity are kubectl's flags for acme's admin used directly upstream.
var tenantIdentity = []string{"--as", "zoo:acme:admin", "--as-group", "zoo:tenant:acme", "--as-group", "zoo:admins"}

// refusedUpstream runs kubectl against the upstream with extra flags and
// expects a refusal by RBAC.
func refusedUpstream(t *testing.T, kubeconfig string, flags []string, stdin string, args ...string) {
	t.Helper()
	var in []byte
	if stdin != "" {
		in = []byte(stdin)
	}
	res := framework.Run(t.Context(), in, framework.KubectlPath(), append(append([]string{"--kubeconfig", kubeconfig}, flags...), args...)...)
	require.Error(t, res.Err, "stdout: %s", res.Stdout)
	assert.Contains(t, res.Stderr, "forbidden")
}

// saKubeconfig returns a kubeconfig for the upstream with the token of the
// ServiceAccount default of acme's namespace ns (created through acme).
func saKubeconfig(t *testing.T, acme *served, ns string) string {
	t.Helper()
	cs := clientFor(t, acme)
	var tok *authenticationv1.TokenRequest
	require.Eventually(t, func() bool { // the default ServiceAccount comes from a controller
		var err error
		tok, err = cs.CoreV1().ServiceAccounts(ns).CreateToken(t.Context(), "default", &authenticationv1.TokenRequest{
			Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: new(int64(600))},
		}, metav1.CreateOptions{})
		return err == nil
	}, 30*time.Second, 200*time.Millisecond)
	cfg, err := clientcmd.LoadFromFile(framework.Cluster().Kubeconfig)
	require.NoError(t, err)
	for _, a := range cfg.AuthInfos {
		a.ClientCertificate, a.ClientKey, a.ClientCertificateData, a.ClientKeyData = "", "", nil, nil
		a.Token = tok.Status.Token
	}
	path := t.TempDir() + "/sa.kubeconfig"
	require.NoError(t, clientcmd.WriteToFile(*cfg, path))
	return path
}

// eventuallyRefused waits until creating the ConfigMap name in ns through s
// fails with a message containing msg (admission configuration takes a
// moment to load).
func eventuallyRefused(t *testing.T, s *served, ns, name, msg string) {
	t.Helper()
	var last string
	require.Eventually(t, func() bool {
		res := s.run(t, "", "create", "configmap", "-n", ns, name)
		if res.Err == nil {
			s.run(t, "", "delete", "configmap", "-n", ns, name)
			return false
		}
		last = res.Stderr
		return strings.Contains(res.Stderr, msg)
	}, 60*time.Second, 500*time.Millisecond, "last: %s", last)
}

// TestTenantAdmissionPolicyConfined: a tenant's ValidatingAdmissionPolicy
// that asks to judge every namespace and every cluster-scoped object judges
// only the tenant's own requests and objects; other tenants and the platform
// never meet it, cannot read it, and a tenant identity cannot write one
// directly upstream.
func TestTenantAdmissionPolicyConfined(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	acme.k(t, "create", "namespace", "vapconf")
	beta.k(t, "create", "namespace", "vapconf")
	admin(t, "create", "namespace", "zoo-e2e-vapconf")
	const policy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: deny-all}
spec:
  failurePolicy: Fail
  matchConstraints:
    namespaceSelector: {}
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], resources: [configmaps], operations: [CREATE]}
    - {apiGroups: [rbac.authorization.k8s.io], apiVersions: [v1], resources: [clusterroles], operations: [CREATE]}
  validations:
  - {expression: "false", message: "acme's policy says no"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: deny-all}
spec:
  policyName: deny-all
  validationActions: [Deny]
`
	acme.apply(t, policy)
	eventuallyRefused(t, acme, "vapconf", "probe", "acme's policy says no")

	t.Run("other tenants and the platform are not judged", func(t *testing.T) {
		beta.k(t, "create", "configmap", "-n", "vapconf", "free")
		admin(t, "create", "configmap", "-n", "zoo-e2e-vapconf", "free")
		admin(t, "create", "configmap", "-n", "default", "zoo-e2e-vapconf-free")
		admin(t, "delete", "configmap", "-n", "default", "zoo-e2e-vapconf-free")
		beta.k(t, "create", "clusterrole", "vapconf-free", "--verb=get", "--resource=pods")
		admin(t, "create", "clusterrole", "zoo-e2e-vapconf-free", "--verb=get", "--resource=pods")
		admin(t, "delete", "clusterrole", "zoo-e2e-vapconf-free")
		res := acme.run(t, "", "create", "clusterrole", "vapconf-mine", "--verb=get", "--resource=pods")
		require.Error(t, res.Err, "the tenant's own cluster-scoped requests are judged")
		assert.Contains(t, res.Stderr, "acme's policy says no")
	})

	t.Run("the upstream object is confined and reads back as written", func(t *testing.T) {
		var up struct {
			Metadata struct {
				Labels map[string]string `json:"labels"`
			} `json:"metadata"`
			Spec struct {
				MatchConstraints struct {
					NamespaceSelector metav1.LabelSelector `json:"namespaceSelector"`
				} `json:"matchConstraints"`
				MatchConditions []struct{ Name, Expression string } `json:"matchConditions"`
			} `json:"spec"`
		}
		require.NoError(t, json.Unmarshal([]byte(admin(t, "get", "validatingadmissionpolicy", "acme-deny-all", "-o", "json")), &up))
		assert.Equal(t, "acme", up.Metadata.Labels["zoo.kubectl-zoo.io/tenant"])
		require.Len(t, up.Spec.MatchConstraints.NamespaceSelector.MatchExpressions, 1)
		assert.Equal(t, metav1.LabelSelectorRequirement{Key: "zoo.kubectl-zoo.io/tenant", Operator: "In", Values: []string{"acme"}},
			up.Spec.MatchConstraints.NamespaceSelector.MatchExpressions[0])
		require.Len(t, up.Spec.MatchConditions, 1)
		assert.Contains(t, up.Spec.MatchConditions[0].Expression, "'zoo:tenant:acme' in request.userInfo.groups)")
		mine := acme.k(t, "get", "validatingadmissionpolicy", "deny-all", "-o", "json")
		assert.NotContains(t, mine, "zoo.kubectl-zoo.io")
		assert.NotContains(t, mine, "acme-")
		assert.Contains(t, acme.k(t, "get", "validatingadmissionpolicybinding", "deny-all", "-o", "jsonpath={.spec.policyName}"), "deny-all")
	})

	t.Run("another tenant cannot see, bind or change it", func(t *testing.T) {
		assert.NotContains(t, beta.k(t, "get", "validatingadmissionpolicies", "-o", "name"), "deny-all")
		for _, name := range []string{"deny-all", "acme-deny-all"} {
			res := beta.run(t, "", "get", "validatingadmissionpolicy", name)
			require.Error(t, res.Err)
			assert.Contains(t, res.Stderr, "NotFound")
			res = beta.run(t, "", "delete", "validatingadmissionpolicy", name)
			require.Error(t, res.Err)
			assert.Contains(t, res.Stderr, "NotFound")
		}
		beta.apply(t, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: steal}
spec: {policyName: acme-deny-all, validationActions: [Deny]}
`)
		assert.Equal(t, "beta-acme-deny-all", admin(t, "get", "validatingadmissionpolicybinding", "beta-steal", "-o", "jsonpath={.spec.policyName}"))
		beta.k(t, "delete", "validatingadmissionpolicybinding", "steal")
	})

	t.Run("parameters from another tenant's cluster-scoped objects are refused", func(t *testing.T) {
		res := acme.run(t, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: peek}
spec:
  paramKind: {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], resources: [configmaps], operations: [CREATE]}
  validations:
  - {expression: "false", messageExpression: "string(params)"}
`, "apply", "-f", "-")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, "only from a namespaced kind")
	})

	t.Run("the tenant identity directly upstream is refused", func(t *testing.T) {
		refusedUpstream(t, framework.Cluster().Kubeconfig, tenantIdentity, strings.ReplaceAll(policy, "deny-all", "acme-direct"), "create", "-f", "-")
		refusedUpstream(t, framework.Cluster().Kubeconfig, tenantIdentity, "", "delete", "validatingadmissionpolicy", "acme-deny-all")
		refusedUpstream(t, framework.Cluster().Kubeconfig, tenantIdentity, "", "get", "validatingadmissionpolicies")
	})

	t.Run("a tenant pod's ServiceAccount token upstream is refused", func(t *testing.T) {
		sa := saKubeconfig(t, acme, "vapconf")
		refusedUpstream(t, sa, nil, strings.ReplaceAll(policy, "deny-all", "acme-sa"), "create", "-f", "-")
		refusedUpstream(t, sa, nil, "", "delete", "validatingadmissionpolicybinding", "acme-deny-all")
	})

	t.Run("a tenant user who is not an admin is refused through the proxy", func(t *testing.T) {
		dev := serve(t, "acme", "--user", "dev")
		res := dev.run(t, strings.ReplaceAll(policy, "deny-all", "by-dev"), "create", "-f", "-")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, "only the tenant's administrators may")
	})

	acme.k(t, "delete", "validatingadmissionpolicybinding", "deny-all")
	acme.k(t, "delete", "validatingadmissionpolicy", "deny-all")
	require.Eventually(t, func() bool {
		res := acme.run(t, "", "create", "configmap", "-n", "vapconf", "after")
		return res.Err == nil
	}, 60*time.Second, 500*time.Millisecond, "the policy stops judging once deleted")
	beta.k(t, "delete", "clusterrole", "vapconf-free")
	acme.k(t, "delete", "namespace", "vapconf", "--wait=false")
	beta.k(t, "delete", "namespace", "vapconf", "--wait=false")
	admin(t, "delete", "namespace", "zoo-e2e-vapconf", "--wait=false")
}

// TestPlatformConfinedObjectWithTenantPrefix: an admission policy the
// platform made whose name happens to start with a tenant's prefix is not
// the tenant's: through the proxy it does not exist (get, delete, list), and
// it stays.
func TestPlatformConfinedObjectWithTenantPrefix(t *testing.T) {
	acme := serve(t, "acme")
	res := framework.Run(t.Context(), []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: acme-platform}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], resources: [configmaps], operations: [CREATE]}
    objectSelector: {matchLabels: {zoo-e2e-never: "true"}}
  validations:
  - {expression: "true"}
`), framework.KubectlPath(), "--kubeconfig", framework.Cluster().Kubeconfig, "create", "-f", "-")
	require.NoError(t, res.Err, res.Stderr)
	for _, args := range [][]string{{"get", "validatingadmissionpolicy", "platform"}, {"delete", "validatingadmissionpolicy", "platform"},
		{"patch", "validatingadmissionpolicy", "platform", "--type=merge", "-p", `{"spec":{"failurePolicy":"Ignore"}}`}} {
		res := acme.run(t, "", args...)
		require.Error(t, res.Err, "%v", args)
		assert.Contains(t, res.Stderr, "NotFound", "%v", args)
	}
	assert.NotContains(t, acme.k(t, "get", "validatingadmissionpolicies", "-o", "name"), "platform")
	assert.Equal(t, "Fail", admin(t, "get", "validatingadmissionpolicy", "acme-platform", "-o", "jsonpath={.spec.failurePolicy}"))
	admin(t, "delete", "validatingadmissionpolicy", "acme-platform")
}

// TestTenantWebhookConfined: a tenant's webhook may not dial a URL, its
// service is looked up in the tenant's namespace, and a webhook that fails
// closed on every namespace fails only the tenant's own requests.
func TestTenantWebhookConfined(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	acme.k(t, "create", "namespace", "whconf")
	beta.k(t, "create", "namespace", "whconf")
	webhook := func(kind, name, clientConfig string) string {
		return fmt.Sprintf(`apiVersion: admissionregistration.k8s.io/v1
kind: %s
metadata: {name: %s}
webhooks:
- name: deny.example.com
  clientConfig: %s
  rules:
  - {apiGroups: [""], apiVersions: [v1], resources: [configmaps], operations: [CREATE]}
  namespaceSelector: {}
  failurePolicy: Fail
  sideEffects: None
  timeoutSeconds: 2
  admissionReviewVersions: [v1]
  matchConditions:
  - {name: mine, expression: "true"}
`, kind, name, clientConfig)
	}
	for _, kind := range []string{"ValidatingWebhookConfiguration", "MutatingWebhookConfiguration"} {
		t.Run(kind+" with a URL is refused", func(t *testing.T) {
			for _, url := range []string{"https://169.254.169.254/latest", "https://kubernetes.default.svc/", "https://127.0.0.1:2379/"} {
				res := acme.run(t, webhook(kind, "ssrf", `{url: "`+url+`"}`), "create", "-f", "-")
				require.Error(t, res.Err, url)
				assert.Contains(t, res.Stderr, "url", url)
			}
		})
	}
	acme.apply(t, webhook("ValidatingWebhookConfiguration", "deny", `{service: {namespace: kube-system, name: nowhere, port: 443}}`))
	acme.apply(t, webhook("MutatingWebhookConfiguration", "mutate", `{service: {namespace: whconf, name: nowhere, port: 443}}`))
	assert.Equal(t, "acme-kube-system", admin(t, "get", "validatingwebhookconfiguration", "acme-deny", "-o", "jsonpath={.webhooks[0].clientConfig.service.namespace}"))
	assert.Equal(t, "acme-whconf", admin(t, "get", "mutatingwebhookconfiguration", "acme-mutate", "-o", "jsonpath={.webhooks[0].clientConfig.service.namespace}"))
	assert.Equal(t, `[{"expression":"true","name":"mine"}]`,
		acme.k(t, "get", "validatingwebhookconfiguration", "deny", "-o", "jsonpath={.webhooks[0].matchConditions}"), "the tenant's match conditions read back as written")
	eventuallyRefused(t, acme, "whconf", "probe", "failed calling webhook")

	t.Run("other tenants and the platform are not sent to it", func(t *testing.T) {
		beta.k(t, "create", "configmap", "-n", "whconf", "free")
		admin(t, "create", "configmap", "-n", "default", "zoo-e2e-whconf-free")
		admin(t, "delete", "configmap", "-n", "default", "zoo-e2e-whconf-free")
		assert.NotContains(t, beta.k(t, "get", "validatingwebhookconfigurations,mutatingwebhookconfigurations", "-o", "name"), "deny")
	})
	t.Run("the tenant identity directly upstream is refused", func(t *testing.T) {
		refusedUpstream(t, framework.Cluster().Kubeconfig, tenantIdentity, webhook("ValidatingWebhookConfiguration", "acme-direct",
			`{url: "https://169.254.169.254/"}`), "create", "-f", "-")
		refusedUpstream(t, framework.Cluster().Kubeconfig, tenantIdentity, "", "delete", "validatingwebhookconfiguration", "acme-deny")
	})
	t.Run("a tenant pod's ServiceAccount token upstream is refused", func(t *testing.T) {
		refusedUpstream(t, saKubeconfig(t, acme, "whconf"), nil, webhook("MutatingWebhookConfiguration", "acme-sa",
			`{url: "https://169.254.169.254/"}`), "create", "-f", "-")
	})
	acme.k(t, "delete", "validatingwebhookconfiguration", "deny")
	acme.k(t, "delete", "mutatingwebhookconfiguration", "mutate")
	acme.k(t, "delete", "namespace", "whconf", "--wait=false")
	beta.k(t, "delete", "namespace", "whconf", "--wait=false")
}

// TestTenantFlowControlConfined: a tenant's FlowSchema classifies only the
// tenant's own requests, cannot name the platform's identities or rank
// before the platform's FlowSchemas, and its priority levels cannot take
// more than their bounded share of the API server.
func TestTenantFlowControlConfined(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	flowSchema := func(name, precedence, subject string) string {
		return fmt.Sprintf(`apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: FlowSchema
metadata: {name: %s}
spec:
  matchingPrecedence: %s
  priorityLevelConfiguration: {name: mine}
  distinguisherMethod: {type: ByUser}
  rules:
  - subjects: [%s]
    resourceRules:
    - {verbs: ["*"], apiGroups: ["*"], resources: ["*"], namespaces: ["*"], clusterScope: true}
    nonResourceRules:
    - {verbs: ["*"], nonResourceURLs: ["*"]}
`, name, precedence, subject)
	}
	level := func(name, shares string) string {
		return fmt.Sprintf(`apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: %s}
spec:
  type: Limited
  limited:
    nominalConcurrencyShares: %s
    lendablePercent: 100
    limitResponse: {type: Queue, queuing: {queues: 4, handSize: 2, queueLengthLimit: 50}}
`, name, shares)
	}
	refused := func(t *testing.T, manifest, msg string) {
		t.Helper()
		res := acme.run(t, manifest, "create", "-f", "-")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, msg)
	}
	everyone := `{kind: Group, group: {name: system:authenticated}}`
	t.Run("refusals", func(t *testing.T) {
		refused(t, flowSchema("masters", "1000", `{kind: Group, group: {name: system:masters}}`), "system:masters")
		refused(t, flowSchema("first", "1", everyone), "at least 1000")
		refused(t, flowSchema("every-sa", "1000", `{kind: ServiceAccount, serviceAccount: {namespace: "*", name: "*"}}`), "every namespace")
		refused(t, level("huge", "1000000"), "at most 10")
		refused(t, `apiVersion: flowcontrol.apiserver.k8s.io/v1
kind: PriorityLevelConfiguration
metadata: {name: exempt}
spec: {type: Exempt}
`, "Exempt")
	})

	acme.apply(t, level("mine", "5"))
	acme.apply(t, flowSchema("mine", "1000", everyone+`, {kind: User, user: {name: "zoo:beta:admin"}}`))
	var up struct {
		Spec struct {
			PriorityLevelConfiguration struct{ Name string } `json:"priorityLevelConfiguration"`
			Rules                      []struct {
				Subjects []struct {
					Kind  string
					User  *struct{ Name string }
					Group *struct{ Name string }
				}
			}
		}
		Metadata struct{ UID string }
	}
	require.NoError(t, json.Unmarshal([]byte(admin(t, "get", "flowschema", "acme-mine", "-o", "json")), &up))
	assert.Equal(t, "acme-mine", up.Spec.PriorityLevelConfiguration.Name)
	require.Len(t, up.Spec.Rules, 1)
	require.Len(t, up.Spec.Rules[0].Subjects, 2)
	assert.Equal(t, "zoo:tenant:acme", up.Spec.Rules[0].Subjects[0].Group.Name, "system:authenticated is the tenant's users")
	assert.Equal(t, "zoo:acme:zoo:beta:admin", up.Spec.Rules[0].Subjects[1].User.Name, "another tenant's user is a user of acme's")
	assert.Contains(t, acme.k(t, "get", "flowschema", "mine", "-o", "jsonpath={.spec.rules[0].subjects}"), "system:authenticated")

	t.Run("it classifies the tenant's requests and no one else's", func(t *testing.T) {
		flowSchemaOf := func(s *served) string {
			c, host := rawClient(t, s)
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, host+"/api/v1/namespaces/default/configmaps", nil)
			require.NoError(t, err)
			resp, err := c.Do(req)
			require.NoError(t, err)
			resp.Body.Close()
			return resp.Header.Get("X-Kubernetes-Pf-Flowschema-Uid")
		}
		require.Eventually(t, func() bool { return flowSchemaOf(acme) == up.Metadata.UID }, 30*time.Second, 500*time.Millisecond)
		assert.NotEqual(t, up.Metadata.UID, flowSchemaOf(beta))
	})

	t.Run("a tenant has a bounded number of priority levels", func(t *testing.T) {
		var made []string
		for i := range 10 {
			name := fmt.Sprintf("more-%d", i)
			res := acme.run(t, level(name, "1"), "create", "-f", "-")
			if res.Err != nil {
				assert.Contains(t, res.Stderr, "at most 5")
				break
			}
			made = append(made, name)
		}
		assert.Len(t, made, 4, "mine and 4 more")
		res := acme.run(t, level("applied", "1"), "apply", "--server-side", "-f", "-")
		require.Error(t, res.Err, "a server-side apply that creates counts as a create")
		assert.Contains(t, res.Stderr, "at most 5")
		acme.k(t, append([]string{"delete", "prioritylevelconfiguration"}, made...)...)
	})

	t.Run("the tenant identity directly upstream is refused", func(t *testing.T) {
		refusedUpstream(t, framework.Cluster().Kubeconfig, tenantIdentity, level("acme-direct", "1000"), "create", "-f", "-")
		refusedUpstream(t, framework.Cluster().Kubeconfig, tenantIdentity, "", "patch", "flowschema", "acme-mine", "--type=merge", "-p", `{"spec":{"matchingPrecedence":1}}`)
	})
	t.Run("a tenant pod's ServiceAccount token upstream is refused", func(t *testing.T) {
		acme.k(t, "create", "namespace", "fcconf")
		refusedUpstream(t, saKubeconfig(t, acme, "fcconf"), nil, level("acme-sa", "1000"), "create", "-f", "-")
		acme.k(t, "delete", "namespace", "fcconf", "--wait=false")
	})
	acme.k(t, "delete", "flowschema", "mine")
	acme.k(t, "delete", "prioritylevelconfiguration", "mine")
}

// TestConfinedKindsThroughServer: the server deployment's ServiceAccount
// holds the rights the proxy uses for these kinds (derived from the kinds
// table), so a tenant's admin reaches them through the server as through
// `serve`.
func TestConfinedKindsThroughServer(t *testing.T) {
	lb := servers(t)
	acme := viaServer(t, lb, "acme")
	acme.apply(t, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: via-server}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], resources: [configmaps], operations: [CREATE]}
  validations:
  - {expression: "true"}
`)
	assert.Equal(t, "acme", admin(t, "get", "validatingadmissionpolicy", "acme-via-server", "-o", "jsonpath={.metadata.labels.zoo\\.kubectl-zoo\\.io/tenant}"))
	assert.Equal(t, "validatingadmissionpolicy.admissionregistration.k8s.io/via-server\n", acme.k(t, "get", "validatingadmissionpolicies", "-o", "name"))
	acme.k(t, "delete", "validatingadmissionpolicy", "via-server")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := framework.AdminClient(t).AdmissionregistrationV1().ValidatingAdmissionPolicies().Get(ctx, "acme-via-server", metav1.GetOptions{})
	assert.Error(t, err, "deleted upstream")
}
