package tenantuser_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestUpstreamUserServesExactlyItsIdentity: alice@corp, a user the cluster
// knows by a login of its own, is granted zoo:acme:dev. With her own login
// she serves acme as dev and uses kubectl through it; she can serve no other
// tenant or user, impersonate nothing else directly upstream (no other user,
// group, tenant, ServiceAccount, zoo:admins, UID or extra), and after
// `user remove` nothing at all.
func TestUpstreamUserServesExactlyItsIdentity(t *testing.T) {
	framework.InstallTenants(t)
	alice := newUpstreamUser(t, "alice@corp")
	// What dev may do inside acme is the tenant's business: an edit
	// RoleBinding in acme's default namespace.
	framework.Kubectl(t, "create", "rolebinding", "tu-dev-edit", "-n", "acme-default", "--clusterrole=edit", "--user=zoo:acme:dev")
	defer framework.Kubectl(t, "delete", "rolebinding", "tu-dev-edit", "-n", "acme-default")

	t.Run("before the grant serve fails", func(t *testing.T) {
		requireServeRefused(t, alice, "acme", "dev")
	})

	out := mustZoo(t, "tenant", "user", "add", "acme", "--upstream-user", "alice@corp", "--as", "dev")
	assert.Equal(t, "tenant/acme: granted: upstream user \"alice@corp\" may act as zoo:acme:dev (kubectl zoo serve --tenant acme --user dev)\n", out)
	out = mustZoo(t, "tenant", "user", "add", "acme", "--upstream-user", "alice@corp", "--as", "dev")
	assert.Contains(t, out, "replaced")
	assert.Equal(t, "acme/alice@corp\n", mustZoo(t, "tenant", "user", "list", "acme", "-o", "name"))

	t.Run("serves acme as dev", func(t *testing.T) {
		p := alice.serve(t, "--tenant", "acme", "--user", "dev")
		var res framework.Result
		require.Eventually(t, func() bool { // RBAC's informers learn the grant
			res = p.kubectl(t, "create", "configmap", "tu-alice", "-n", "default", "--from-literal=k=v")
			return res.Err == nil
		}, 30*time.Second, 200*time.Millisecond, "stderr: %s", res.Stderr)
		got := p.kubectl(t, "get", "configmap", "tu-alice", "-n", "default", "-o", "jsonpath={.metadata.namespace}/{.data.k}")
		require.NoError(t, got.Err, got.Stderr)
		assert.Equal(t, "default/v", got.Stdout)
		framework.Kubectl(t, "get", "configmap", "tu-alice", "-n", "acme-default")
		// All-namespaces requests need serve's own identity to list
		// namespaces cluster-wide, which the grant does not give.
		all := p.kubectl(t, "get", "configmaps", "-A")
		require.Error(t, all.Err, all.Stdout)
		assert.Contains(t, all.Stderr, `User \"alice@corp\" cannot list resource \"namespaces\"`)
		del := p.kubectl(t, "delete", "configmap", "tu-alice", "-n", "default")
		require.NoError(t, del.Err, del.Stderr)
	})

	t.Run("serves no other tenant or user", func(t *testing.T) {
		requireServeRefused(t, alice, "beta", "dev")
		requireServeRefused(t, alice, "acme", "admin")
		requireServeRefused(t, alice, "acme", "bob")
	})

	t.Run("serves not with another group", func(t *testing.T) {
		// serve checks the user it impersonates when it starts; a group is
		// refused by the upstream on every request.
		p := alice.serve(t, "--tenant", "acme", "--user", "dev", "--group", "ops")
		res := p.kubectl(t, "get", "configmaps", "-n", "default")
		require.Error(t, res.Err)
		assert.Contains(t, res.Stderr, "Forbidden")
	})

	t.Run("impersonates nothing else upstream", func(t *testing.T) {
		allowed := rest.ImpersonationConfig{UserName: "zoo:acme:dev", Groups: []string{"zoo:tenant:acme"}}
		_, err := clientAs(t, alice, allowed).CoreV1().ConfigMaps("acme-default").List(t.Context(), metav1.ListOptions{})
		require.NoError(t, err, "the granted identity itself")
		for _, tc := range []struct {
			name string
			imp  rest.ImpersonationConfig
		}{
			{"acme's admin", rest.ImpersonationConfig{UserName: "zoo:acme:admin", Groups: []string{"zoo:tenant:acme"}}},
			{"zoo:admins", rest.ImpersonationConfig{UserName: "zoo:acme:dev", Groups: []string{"zoo:tenant:acme", "zoo:admins"}}},
			{"another tenant's user", rest.ImpersonationConfig{UserName: "zoo:beta:dev", Groups: []string{"zoo:tenant:beta"}}},
			{"another tenant's group", rest.ImpersonationConfig{UserName: "zoo:acme:dev", Groups: []string{"zoo:tenant:beta"}}},
			{"a group of acme", rest.ImpersonationConfig{UserName: "zoo:acme:dev", Groups: []string{"zoo:tenant:acme", "zoo:acme:ops"}}},
			{"system:masters", rest.ImpersonationConfig{UserName: "zoo:acme:dev", Groups: []string{"system:masters"}}},
			{"a ServiceAccount of acme", rest.ImpersonationConfig{UserName: "system:serviceaccount:acme-default:default"}},
			{"a UID", rest.ImpersonationConfig{UserName: "zoo:acme:dev", Groups: []string{"zoo:tenant:acme"}, UID: "1234"}},
			{"an extra", rest.ImpersonationConfig{UserName: "zoo:acme:dev", Groups: []string{"zoo:tenant:acme"}, Extra: map[string][]string{"scopes": {"x"}}}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, err := clientAs(t, alice, tc.imp).CoreV1().ConfigMaps("acme-default").List(t.Context(), metav1.ListOptions{})
				require.True(t, apierrors.IsForbidden(err), "%v", err)
				assert.Contains(t, err.Error(), "cannot impersonate")
			})
		}
		// The same with the real kubectl's --as and --as-group.
		for _, args := range [][]string{
			{"--as", "zoo:acme:admin", "--as-group", "zoo:tenant:acme"},
			{"--as", "zoo:acme:dev", "--as-group", "zoo:tenant:acme", "--as-group", "zoo:admins"},
			{"--as", "zoo:beta:dev", "--as-group", "zoo:tenant:beta"},
			{"--as", "zoo:acme:dev", "--as-group", "zoo:tenant:acme", "--as-uid", "1234"},
		} {
			res := framework.Run(t.Context(), nil, framework.KubectlPath(), append([]string{"--kubeconfig", alice.Kubeconfig, "get", "configmaps", "-n", "acme-default"}, args...)...)
			require.Error(t, res.Err, "kubectl %v", args)
			assert.Contains(t, res.Stderr, "cannot impersonate", "kubectl %v", args)
		}
	})

	t.Run("her own login reads only acme's record", func(t *testing.T) {
		own := clientAs(t, alice, rest.ImpersonationConfig{})
		for _, path := range []string{
			"/apis/zoo.kubectl-zoo.io/v1alpha1/tenants/beta",
			"/apis/zoo.kubectl-zoo.io/v1alpha1/tenants",
			"/api/v1/namespaces/acme-default/configmaps",
			"/api/v1/namespaces/acme-default/secrets",
		} {
			err := own.CoreV1().RESTClient().Get().AbsPath(path).Do(t.Context()).Error()
			require.True(t, apierrors.IsForbidden(err), "%s: %v", path, err)
		}
		require.NoError(t, own.CoreV1().RESTClient().Get().AbsPath("/apis/zoo.kubectl-zoo.io/v1alpha1/tenants/acme").Do(t.Context()).Error())
	})

	out = mustZoo(t, "tenant", "user", "remove", "acme", "--upstream-user", "alice@corp")
	assert.Equal(t, "tenant/acme: removed: upstream user \"alice@corp\" may no longer act as zoo:acme:dev\n", out)
	assert.Empty(t, mustZoo(t, "tenant", "user", "list", "acme", "-o", "name"))

	t.Run("after remove nothing", func(t *testing.T) {
		require.Eventually(t, func() bool {
			_, err := clientAs(t, alice, rest.ImpersonationConfig{UserName: "zoo:acme:dev", Groups: []string{"zoo:tenant:acme"}}).
				CoreV1().ConfigMaps("acme-default").List(t.Context(), metav1.ListOptions{})
			return apierrors.IsForbidden(err) && strings.Contains(err.Error(), "cannot impersonate")
		}, 30*time.Second, 200*time.Millisecond)
		requireServeRefused(t, alice, "acme", "dev")
	})
}

// requireServeRefused checks that serve as user of tenant with u's own login
// fails at once with one line: u may not impersonate zoo:<tenant>:<user>.
func requireServeRefused(t *testing.T, u upstreamUser, tenant, user string) {
	t.Helper()
	res := zoo(t, u.Kubeconfig, "serve", "--tenant", tenant, "--user", user, "--port", "0")
	framework.RequireOneLineError(t, res, `your credential (user "`+u.Name+`") is no tenant identity and may not impersonate zoo:`+tenant+":"+user)
}

// clientAs is a clientset with the user's own login, impersonating imp.
func clientAs(t *testing.T, u upstreamUser, imp rest.ImpersonationConfig) kubernetes.Interface {
	t.Helper()
	c, err := kubernetes.NewForConfig(u.config(t, imp))
	require.NoError(t, err)
	return c
}
