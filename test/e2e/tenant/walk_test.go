package tenant_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// localReasons says, per target that cannot name anything outside the
// tenant (translate.Target.NamesOutside), why no upstream probe is needed.
var localReasons = map[translate.Target]string{
	translate.TargetLocal: "the API server resolves the object in the referring object's own namespace, where only acme's objects live",
	translate.TargetRules: "rules grant only where they are bound, and acme binds only in its own namespaces (zoo-tenant rules 3 and 4)",
	translate.TargetText:  "text names nothing the API server or a controller resolves; the proxy only rewrites names it produced on the way out",
}

// betaFixtures are tenant beta's objects that the probes name (besides
// beta-default, beta-admin and the others `tenant create` makes).
const betaFixtures = `apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata: {name: beta-rc, labels: {zoo.kubectl-zoo.io/tenant: beta}}
handler: runc
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: beta-low, labels: {zoo.kubectl-zoo.io/tenant: beta}}
value: 0
preemptionPolicy: Never
---
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: beta-nginx, labels: {zoo.kubectl-zoo.io/tenant: beta}}
spec: {controller: example.com/beta}
---
apiVersion: storage.k8s.io/v1
kind: VolumeAttributesClass
metadata: {name: beta-gold, labels: {zoo.kubectl-zoo.io/tenant: beta}}
driverName: d.example.com
parameters: {iops: "100"}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: beta-fast, labels: {zoo.kubectl-zoo.io/tenant: beta}}
provisioner: d.example.com
`

// betaState is everything of beta's the probes aim at.
func betaState(t *testing.T) string {
	var b strings.Builder
	for _, args := range [][]string{
		{"get", "runtimeclasses,priorityclasses,ingressclasses,volumeattributesclasses,storageclasses,clusterroles,persistentvolumes,namespaces",
			"-l", "zoo.kubectl-zoo.io/tenant=beta", "-o", "jsonpath={range .items[*]}{.kind} {.metadata.name} {.metadata.resourceVersion}{\"\\n\"}{end}"},
		{"get", "all,secrets,configmaps,rolebindings,events,endpointslices,persistentvolumeclaims", "-n", "beta-default",
			"-o", "jsonpath={range .items[*]}{.kind} {.metadata.name} {.metadata.resourceVersion}{\"\\n\"}{end}"},
	} {
		b.WriteString(framework.Kubectl(t, args...))
	}
	return b.String()
}

// TestUpstreamWalksTheKindsTable walks the kinds table upstream: for every
// reference whose target can name something outside the tenant, tenant
// acme's admin identity used directly upstream — and, for namespaced kinds,
// the token of a ServiceAccount with every right in acme-default — writes
// an object whose field names tenant beta's object (or the platform's).
// It must be refused by the policy named in its case, or be accepted and
// harmless for the reason its case gives, changing nothing of beta's.
// Kinds tenants may not write upstream are refused by RBAC, which the walk
// checks with the authorizer; reviews store nothing. A reference without a
// case fails the test.
func TestUpstreamWalksTheKindsTable(t *testing.T) {
	install(t)
	createTenant(t, "acme")
	createTenant(t, "beta")
	mustZoo(t, "policy", "set", "acme", "--volume-sources", strings.Join(walkVolumeSources, ","), "--ingress-hosts", walkIngressHosts) // walk_sources_test.go
	res := kubectl(t, betaFixtures, "apply", "-f", "-")
	require.NoError(t, res.Err, res.Stderr)
	framework.Kubectl(t, "create", "secret", "generic", "gold", "-n", "beta-default", "--from-literal=k=v")
	admin := []string{"--as", "zoo:acme:admin", "--as-group", "zoo:tenant:acme", "--as-group", "zoo:admins"}
	framework.Kubectl(t, append(admin, "create", "serviceaccount", "walker", "-n", "acme-default")...)
	framework.Kubectl(t, append(admin, "create", "rolebinding", "walker", "-n", "acme-default",
		"--clusterrole="+tenantapi.TenantAdminClusterRole, "--serviceaccount=acme-default:walker")...)
	sa := tokenKubeconfig(t, strings.TrimSpace(framework.Kubectl(t, "create", "token", "walker", "-n", "acme-default")))
	before := betaState(t)

	for target, reason := range localReasons {
		require.False(t, target.NamesOutside(), "%s names something outside: it needs probes, not a reason", target)
		require.NotEmpty(t, reason)
	}
	for _, target := range translate.Targets() {
		_, ok := localReasons[target]
		require.True(t, target.NamesOutside() || ok, "target %s cannot name anything outside: say why in localReasons", target)
	}

	seen := map[string]bool{}
	rbacChecked := map[string]bool{}
	n := 0
	for _, rule := range translate.Kinds() {
		for _, ref := range rule.Refs {
			key := rule.Resource.String() + " " + ref.Field
			if !ref.Target.NamesOutside() {
				t.Logf("%s (%s): harmless upstream: %s", key, ref.Target, localReasons[ref.Target])
				continue
			}
			writable := rule.Treatment == translate.Namespaced || rule.UpstreamAccess() == translate.AccessWrite
			switch {
			case rule.Treatment == translate.Virtual || strings.HasSuffix(rule.Resource.Resource, "reviews"):
				t.Logf("%s (%s): harmless upstream: a review stores nothing and answers only about the identity that asks", key, ref.Target)
				continue
			case !writable:
				if !rbacChecked[rule.Resource.String()] {
					rbacChecked[rule.Resource.String()] = true
					t.Run(rule.Resource.String()+" by RBAC", func(t *testing.T) {
						for _, verb := range []string{"create", "update", "patch"} {
							res := kubectl(t, "", append(admin, "auth", "can-i", verb, rule.Resource.String())...)
							assert.Equal(t, "no", strings.TrimSpace(res.Stdout), "acme's admin may %s %s upstream", verb, rule.Resource)
						}
					})
				}
				continue
			}
			seen[key] = true
			c, ok := upstreamCases[key]
			if !assert.True(t, ok, "the reference %s (%s) can name something outside the tenant: add an upstream case (walk_cases_test.go)", key, ref.Target) {
				continue
			}
			require.True(t, (c.denial == "") != (c.harmless == ""), "%s: a case is refused or harmless", key)
			n++
			identities := []struct {
				name string
				run  func(stdin string, args ...string) framework.Result
			}{{"admin", func(stdin string, args ...string) framework.Result {
				return kubectl(t, stdin, append(admin, args...)...)
			}}}
			if rule.Treatment == translate.Namespaced {
				identities = append(identities, struct {
					name string
					run  func(stdin string, args ...string) framework.Result
				}{"ServiceAccount", func(stdin string, args ...string) framework.Result { return kubectlWith(t, sa, stdin, args...) }})
			}
			for i, id := range identities {
				obj := strings.ReplaceAll(c.obj, "NAME", fmt.Sprintf("walk-%d-%d", n, i))
				t.Run(key+" as "+id.name, func(t *testing.T) {
					res := id.run(obj, "create", "-f", "-")
					if c.denial != "" {
						require.Error(t, res.Err, "%s was accepted upstream: %s", key, res.Stdout)
						assert.Contains(t, res.Stderr, c.denial)
						return
					}
					require.NoError(t, res.Err, "%s: %s", key, res.Stderr)
					t.Logf("accepted, harmless: %s", c.harmless)
					del := kubectl(t, obj, "delete", "-f", "-", "--wait=false")
					require.NoError(t, del.Err, del.Stderr)
				})
			}
		}
	}
	for key := range upstreamCases {
		assert.True(t, seen[key], "upstreamCases has %q, which is no reference to probe upstream", key)
	}
	assert.Equal(t, before, betaState(t), "the walk changed tenant beta's objects")
	assert.Equal(t, "dg==", framework.Kubectl(t, "get", "secret", "gold", "-n", "beta-default", "-o", "jsonpath={.data.k}"))
	res = kubectl(t, betaFixtures, "delete", "-f", "-")
	require.NoError(t, res.Err, res.Stderr)
}
