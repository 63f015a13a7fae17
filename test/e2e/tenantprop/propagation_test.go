package tenantprop_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantprop"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// markedSecret is a Secret in the tenant's default marked for propagation
// into the namespaces that selector admits.
func markedSecret(name, value, selector string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Secret
metadata:
  name: %s
  namespace: default
  labels:
    %s: "true"
    app: web
  annotations:
    %s: %q
stringData:
  token: %s
`, name, tenantprop.MarkerLabel, tenantprop.SelectAnnotation, selector, value)
}

func markedConfigMap(name, value string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: %s
  namespace: default
  labels:
    %s: "true"
data:
  v: %s
`, name, tenantprop.MarkerLabel, value)
}

// secretIn reads a Secret upstream; nil when there is none.
func secretIn(t *testing.T, ns, name string) *corev1.Secret {
	t.Helper()
	s, err := framework.AdminClient(t).CoreV1().Secrets(ns).Get(t.Context(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	require.NoError(t, err)
	return s
}

func configMapIn(t *testing.T, ns, name string) *corev1.ConfigMap {
	t.Helper()
	c, err := framework.AdminClient(t).CoreV1().ConfigMaps(ns).Get(t.Context(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	require.NoError(t, err)
	return c
}

// TestPropagationThroughServe: a Secret the tenant marks is copied, before
// the write is answered, into each of its other namespaces its selector
// admits (existing ones and ones made later), never onto an object of the
// tenant's own, and follows its source: data, namespace labels, deletion.
// A ServiceAccount token Secret is never copied. Copies exist only in the
// tenant's namespaces.
func TestPropagationThroughServe(t *testing.T) {
	const tenant = "props"
	newTenant(t, tenant, "")
	c := serve(t, tenant)
	c.k(t, "create", "namespace", "a")
	c.k(t, "label", "namespace", "a", "env=dev")
	c.k(t, "create", "namespace", "b")
	c.k(t, "label", "namespace", "b", "env=prod")
	c.k(t, "create", "configmap", "shared", "-n", "a", "--from-literal=mine=1")

	c.apply(t, markedSecret("pull", "one", "env!=prod"))
	c.apply(t, markedConfigMap("shared", "from-default"))
	// At once: the proxy copies before it answers.
	cp := secretIn(t, tenant+"-a", "pull")
	require.NotNil(t, cp, "copied into a")
	assert.Equal(t, "default", cp.Labels[translate.PropagatedFromLabel])
	assert.Equal(t, "web", cp.Labels["app"])
	assert.NotContains(t, cp.Labels, tenantprop.MarkerLabel, "a copy is no source")
	assert.Equal(t, "one", string(cp.Data["token"]))
	assert.NotNil(t, secretIn(t, tenant+"-kube-system", "pull"), "a namespace without env matches env!=prod")
	assert.Nil(t, secretIn(t, tenant+"-b", "pull"), "b is excluded by its label")
	mine := configMapIn(t, tenant+"-a", "shared")
	require.NotNil(t, mine)
	assert.Equal(t, map[string]string{"mine": "1"}, mine.Data, "the tenant's own object is never overwritten")
	assert.NotContains(t, mine.Labels, translate.PropagatedFromLabel)
	assert.NotNil(t, configMapIn(t, tenant+"-b", "shared"), "the ConfigMap has no selector: b gets it")

	// The tenant sees the copy, labeled with its source's namespace.
	assert.Equal(t, "default", c.k(t, "get", "secret", "pull", "-n", "a", "-o", `jsonpath={.metadata.labels.zoo\.kubectl-zoo\.io/propagated-from}`))
	events := c.k(t, "get", "events", "-n", "default", "--field-selector", "involvedObject.name=shared", "-o", "jsonpath={.items[*].message}")
	assert.Contains(t, events, "propagation never overwrites", "the tenant learns why a is skipped")

	// A namespace made later gets the copy when its create is answered; a
	// label that excludes it takes the copy away.
	c.k(t, "create", "namespace", "c")
	assert.NotNil(t, secretIn(t, tenant+"-c", "pull"))
	c.k(t, "label", "namespace", "c", "env=prod")
	assert.Nil(t, secretIn(t, tenant+"-c", "pull"))

	// The copies follow the source's data.
	c.apply(t, markedSecret("pull", "two", "env!=prod"))
	assert.Equal(t, "two", string(secretIn(t, tenant+"-a", "pull").Data["token"]))

	// A ServiceAccount token Secret is not copied.
	c.apply(t, fmt.Sprintf(`apiVersion: v1
kind: Secret
type: kubernetes.io/service-account-token
metadata:
  name: sa-token
  namespace: default
  labels:
    %s: "true"
  annotations:
    kubernetes.io/service-account.name: default
`, tenantprop.MarkerLabel))
	assert.Nil(t, secretIn(t, tenant+"-a", "sa-token"))

	// Every copy is in the tenant's own namespaces.
	all, err := framework.AdminClient(t).CoreV1().Secrets("").List(t.Context(), metav1.ListOptions{LabelSelector: translate.PropagatedFromLabel})
	require.NoError(t, err)
	for _, s := range all.Items {
		if s.Name == "pull" {
			assert.True(t, strings.HasPrefix(s.Namespace, tenant+"-"), s.Namespace)
		}
	}

	// Deleting the source deletes its copies; unmarking does too.
	c.k(t, "delete", "secret", "pull", "-n", "default")
	assert.Nil(t, secretIn(t, tenant+"-a", "pull"))
	assert.Nil(t, secretIn(t, tenant+"-kube-system", "pull"))
	c.k(t, "label", "configmap", "shared", "-n", "default", tenantprop.MarkerLabel+"-")
	assert.Nil(t, configMapIn(t, tenant+"-b", "shared"))
	assert.Equal(t, map[string]string{"mine": "1"}, configMapIn(t, tenant+"-a", "shared").Data)
}

// TestPropagatorIsConfined: the identity the proxy and the server write
// copies with, used directly upstream, can write nothing but copies of
// Secrets and ConfigMaps in tenant namespaces: it cannot change or delete
// a tenant's own object, write outside tenant namespaces, write another
// kind, write what the cluster or kubectl-zoo keeps in every namespace, or
// make a ServiceAccount token Secret.
func TestPropagatorIsConfined(t *testing.T) {
	const tenant = "propconf"
	newTenant(t, tenant, "")
	ns := tenant + "-default"
	admin().k(t, "create", "configmap", "own", "-n", ns, "--from-literal=k=v")
	p := asPropagator()
	copyCM := func(ns string) string {
		return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: forged\n  namespace: %s\n  labels:\n    %s: default\ndata:\n  k: x\n", ns, translate.PropagatedFromLabel)
	}
	cases := []struct {
		name   string
		policy bool // refused by zoo-propagator (else by RBAC)
		stdin  string
		args   []string
	}{
		{"overwrite a tenant's own object", true, strings.Replace(copyCM(ns), "name: forged", "name: own", 1), []string{"replace", "-f", "-"}},
		{"delete a tenant's own object", true, "", []string{"delete", "configmap", "own", "-n", ns}},
		{"write outside tenant namespaces", true, copyCM("default"), []string{"create", "-f", "-"}},
		{"write an object that is no copy", true, "", []string{"create", "configmap", "plain", "-n", ns}},
		{"write what the platform keeps in every namespace", true, strings.Replace(copyCM(ns), "name: forged", "name: zoo-kube-api-access", 1), []string{"create", "-f", "-"}},
		{"write another kind", false, "", []string{"create", "role", "r", "-n", ns, "--verb=get", "--resource=pods"}},
		{"make a ServiceAccount token Secret", true, fmt.Sprintf("apiVersion: v1\nkind: Secret\ntype: kubernetes.io/service-account-token\nmetadata:\n  name: tok\n  namespace: %s\n  labels:\n    %s: default\n  annotations:\n    kubernetes.io/service-account.name: default\n", ns, translate.PropagatedFromLabel), []string{"create", "-f", "-"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := p.run(t, tc.stdin, tc.args...)
			require.Error(t, res.Err, "stdout: %s", res.Stdout)
			assert.Contains(t, res.Stderr, "forbidden")
			if tc.policy {
				assert.Contains(t, res.Stderr, "ValidatingAdmissionPolicy 'zoo-propagator'")
			}
		})
	}
	own := configMapIn(t, ns, "own")
	require.NotNil(t, own)
	assert.NotContains(t, own.Labels, translate.PropagatedFromLabel)
	// What it is for stays possible: a copy in a tenant namespace.
	res := p.run(t, copyCM(ns), "create", "-f", "-")
	require.NoError(t, res.Err, "stderr: %s", res.Stderr)
}

// TestPropagationThroughServer: through two server replicas, a marked
// ConfigMap is copied before the write is answered, into existing and new
// namespaces, and follows its source; one marked directly upstream by the
// tenant identity (no proxy) is copied, and its copies removed, by the
// server's reconcile loop.
func TestPropagationThroughServer(t *testing.T) {
	const tenant = "propsrv"
	newTenant(t, tenant, "")
	c, _ := servers(t, tenant)
	c.k(t, "create", "namespace", "x")

	c.apply(t, markedConfigMap("cfg", "one"))
	require.NotNil(t, configMapIn(t, tenant+"-x", "cfg"))
	assert.Equal(t, "one", configMapIn(t, tenant+"-x", "cfg").Data["v"])
	c.k(t, "create", "namespace", "y")
	require.NotNil(t, configMapIn(t, tenant+"-y", "cfg"))
	c.apply(t, markedConfigMap("cfg", "two"))
	assert.Equal(t, "two", configMapIn(t, tenant+"-x", "cfg").Data["v"])
	assert.Equal(t, "two", configMapIn(t, tenant+"-y", "cfg").Data["v"])
	c.k(t, "delete", "configmap", "cfg", "-n", "default")
	assert.Nil(t, configMapIn(t, tenant+"-x", "cfg"))
	assert.Nil(t, configMapIn(t, tenant+"-y", "cfg"))

	// Directly upstream: the loop does the work.
	d := direct(tenant)
	d.apply(t, strings.Replace(markedConfigMap("direct", "d"), "namespace: default", "namespace: "+tenant+"-default", 1))
	require.Eventually(t, func() bool {
		return configMapIn(t, tenant+"-x", "direct") != nil && configMapIn(t, tenant+"-y", "direct") != nil
	},
		30*time.Second, 200*time.Millisecond, "the server's loop copies an object marked directly upstream")
	d.k(t, "delete", "configmap", "direct", "-n", tenant+"-default")
	require.Eventually(t, func() bool {
		return configMapIn(t, tenant+"-x", "direct") == nil && configMapIn(t, tenant+"-y", "direct") == nil
	},
		30*time.Second, 200*time.Millisecond, "the server's loop deletes the copies of a source deleted directly upstream")
}
