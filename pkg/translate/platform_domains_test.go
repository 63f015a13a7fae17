package translate

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var grServices = gr("", "services")

// TestPlatformDomainKeys: which keys of which kinds the platform's domains
// and the allow-list make platform-owned.
func TestPlatformDomainKeys(t *testing.T) {
	cm := gr("", "configmaps")
	cases := []struct {
		gr         schema.GroupResource
		annotation bool
		key        string
		want       bool
	}{
		{grNamespace, true, "openshift.io/node-selector", true},
		{grNamespace, true, "openshift.io/sa.scc.uid-range", true},
		{grNamespace, false, "openshift.io/run-level", true},
		{grNamespace, true, "scheduler.alpha.kubernetes.io/defaultTolerations", true},
		{grNamespace, false, "field.cattle.io/projectId", true},
		{grNamespace, false, "istio-injection", true},
		{grNamespace, false, "istio.io/rev", true},
		{grNamespace, false, "cert-manager.io/disable-validation", true},
		{grNamespace, false, "admission.gatekeeper.sh/ignore", true},
		{grNamespace, true, "cni.projectcalico.org/ipv4pools", true},
		{grNamespace, true, "propagate.kubectl-zoo.io/select", true},
		{grNamespace, false, "k8s.io/x", true},
		// DRA's admin access: with it, a claim's adminAccess request is
		// allocated devices that other tenants' claims hold.
		{grNamespace, false, "resource.kubernetes.io/admin-access", true},
		{grNamespace, false, "a.image-policy.k8s.io/break-glass", true},
		{grNamespace, false, "argocd.argoproj.io/managed-by", true},
		{grNamespace, true, "kustomize.toolkit.fluxcd.io/reconcile", true},
		{grNamespace, false, "sub.app.kubernetes.io/name", true},
		{grNamespace, true, "kubectl.kubernetes.io/restartedAt", false}, // kubectl rollout restart writes it on pod templates; harmless elsewhere
		{grNamespace, false, "kubernetes.io/metadata.name", false},
		{grNamespace, true, "kubernetes.io/metadata.name", true},
		{grNamespace, false, "pod-security.kubernetes.io/enforce", true},
		{grNamespace, false, TenantLabel, false},
		{grNamespace, false, "app.kubernetes.io/name", false},
		{grNamespace, false, "app.kubernetes.io/managed-by", false},
		{grNamespace, true, "kubectl.kubernetes.io/last-applied-configuration", false},
		{grNamespace, true, "kubernetes.io/description", false},
		{grNamespace, false, "argocd.argoproj.io/instance", false},
		{grNamespace, false, "e2e-framework", false},
		{grNamespace, false, "e2e-run", false},
		{grNamespace, false, "team", false},
		{grNamespace, true, "meta.helm.sh/release-name", false},
		{grNamespace, false, "notkubernetes.io/x", false},
		{grNamespace, false, "kubernetes.io.example.com/x", false},
		{grNamespace, false, "example.com/istio-injection", false},
		// The API server refuses these as invalid keys; the proxy reads the
		// domain as DNS does and refuses them first.
		{grNamespace, false, "OpenShift.io/node-selector", true},
		{grNamespace, false, "openshift.io./node-selector", true},
		{grNamespace, false, "App.kubernetes.io/name", true},
		{grServices, false, "service.kubernetes.io/service-proxy-name", true},
		{grServices, false, "service.kubernetes.io/headless", true},
		{grServices, true, "service.beta.kubernetes.io/azure-pip-name", true},
		{grServices, true, "metallb.universe.tf/allow-shared-ip", true},
		{grServices, true, "lbipam.cilium.io/sharing-key", true},
		{grServices, true, "networking.gke.io/load-balancer-type", true},
		{grServices, true, "cloud.google.com/neg", true},
		{grServices, true, "service.beta.kubernetes.io/aws-load-balancer-internal", true},
		{grServices, false, "kubernetes.io/metadata.name", true},
		{grServices, true, "service.kubernetes.io/topology-mode", false},
		{grServices, false, "app.kubernetes.io/name", false},
		{grServices, false, "app", false},
		{grPV, true, "pv.kubernetes.io/provisioned-by", true},
		{grPV, true, "pv.kubernetes.io/bound-by-controller", true},
		{grPV, false, "topology.kubernetes.io/zone", false},
		{grPV, true, "volume.beta.kubernetes.io/storage-class", false}, // the kind's AnnotationRule refuses it outright
		{grPV, true, "Volume.beta.kubernetes.io/storage-class", false},
		{grPV, false, "team", false},
		{cm, false, "openshift.io/node-selector", false},
		{cm, false, "istio-injection", false},
		{gr("apps", "deployments"), true, "deployment.kubernetes.io/revision", false},
		{grStorageClass, true, "openshift.io/x", false},
		{grStorageClass, true, DefaultStorageClassAnnotation, true},
	}
	for _, tc := range cases {
		field := "label"
		if tc.annotation {
			field = "annotation"
		}
		t.Run(tc.gr.Resource+" "+field+" "+tc.key, func(t *testing.T) {
			assert.Equal(t, tc.want, IsPlatformOwned(tc.gr, tc.annotation, tc.key))
		})
	}
}

// TestPlatformDomainLists: the lists are well formed, and every entry of
// the allow-list lets something through that the domains would own.
func TestPlatformDomainLists(t *testing.T) {
	for _, d := range PlatformDomains() {
		t.Run(d.Domain, func(t *testing.T) {
			assert.Equal(t, strings.ToLower(d.Domain), d.Domain)
			assert.NotContains(t, d.Domain, "'", "domains are quoted into CEL as they are")
			assert.False(t, strings.HasSuffix(d.Domain, ".") || strings.HasPrefix(d.Domain, "."))
			assert.NotEmpty(t, d.Owner)
			assert.NotEmpty(t, d.Example)
			for _, u := range d.Unprefixed {
				assert.NotContains(t, u, "/")
			}
		})
	}
	for _, a := range TenantAllowedKeys() {
		t.Run("allow "+a.Key, func(t *testing.T) {
			assert.NotEmpty(t, a.Reason)
			assert.NotContains(t, a.Key, "'", "keys are quoted into CEL as they are")
			key := a.Key
			if strings.HasSuffix(key, "/") {
				key += "name"
			}
			_, owned := ownerDomain(key)
			assert.True(t, owned, "an allowed key outside the platform's domains is allowed anyway")
			for _, row := range PlatformMetadata() {
				assert.False(t, row.Matches(key), "the table's row %s has rules of its own", row.Key)
			}
			for _, res := range PlatformDomainResources() {
				assert.False(t, IsPlatformOwned(res, false, key))
				assert.False(t, IsPlatformOwned(res, true, key))
			}
		})
	}
	assert.ElementsMatch(t, []schema.GroupResource{grPod, grNamespace, grServices, grPV, grIngress}, PlatformDomainResources())
}

// domainPlatform adds to fakePlatform a namespace of a Rancher project and
// a Service with a GKE status annotation.
type domainPlatform struct{ fakePlatform }

func (f *domainPlatform) CurrentMetadata(path string) (Metadata, bool, error) {
	switch path {
	case "/api/v1/namespaces/acme-proj":
		f.lookups++
		return Metadata{Labels: map[string]string{TenantLabel: "acme", "field.cattle.io/projectId": "p-1"},
			Annotations: map[string]string{"field.cattle.io/projectId": "c-1:p-1"}}, true, nil
	case "/api/v1/namespaces/acme-default/services/web":
		f.lookups++
		return Metadata{Labels: map[string]string{"app": "web"},
			Annotations: map[string]string{"cloud.google.com/neg-status": "{}"}}, true, nil
	}
	return f.fakePlatform.CurrentMetadata(path)
}

// TestPlatformDomainsThroughTheProxy: every kind of write of a key in a
// platform domain on a namespace or a Service is judged as the table's keys
// are; allowed keys and keys outside the domains pass.
func TestPlatformDomainsThroughTheProxy(t *testing.T) {
	const proj = "/api/v1/namespaces/proj"
	const svcs = "/api/v1/namespaces/default/services"
	const web = svcs + "/web"
	cases := []struct {
		name, method, path, ct, body string
		refusedKey                   string   // the key the 403 must name
		keeps                        []string // what the upstream body must carry when admitted
	}{
		{name: "create a namespace with OpenShift's node selector", method: "POST", path: "/api/v1/namespaces",
			body: `{"metadata":{"name":"new","annotations":{"openshift.io/node-selector":"role=infra"}}}`, refusedKey: "openshift.io/node-selector"},
		{name: "create a namespace leaving Istio's mesh", method: "POST", path: "/api/v1/namespaces",
			body: `{"metadata":{"name":"new","labels":{"istio-injection":"disabled"}}}`, refusedKey: "istio-injection"},
		{name: "create a namespace with recommended and framework labels", method: "POST", path: "/api/v1/namespaces",
			body:  `{"metadata":{"name":"new","labels":{"app.kubernetes.io/name":"x","e2e-run":"1","e2e-framework":"f"},"annotations":{"kubernetes.io/description":"d"}}}`,
			keeps: []string{`"app.kubernetes.io/name":"x"`, `"e2e-run":"1"`, `"kubernetes.io/description":"d"`}},
		{name: "create a namespace with an empty Istio opt-out", method: "POST", path: "/api/v1/namespaces",
			body: `{"metadata":{"name":"new","labels":{"istio-injection":""}}}`, refusedKey: "istio-injection"},
		{name: "create a namespace repeating its labels", method: "POST", path: "/api/v1/namespaces",
			body: `{"metadata":{"name":"new","labels":{"team":"a"},"labels":{"istio.io/dataplane-mode":"none"}}}`, refusedKey: "istio.io/dataplane-mode"},
		{name: "create a namespace repeating a key", method: "POST", path: "/api/v1/namespaces",
			body: `{"metadata":{"name":"new","annotations":{"openshift.io/node-selector":"","openshift.io/node-selector":"role=infra"}}}`, refusedKey: "openshift.io/node-selector"},
		{name: "merge patch nulling the annotations of a namespace in a project", method: "PATCH", path: proj, ct: MediaMergePatch,
			body: `{"metadata":{"annotations":null}}`, refusedKey: "field.cattle.io/projectId"},
		{name: "merge patch nulling the metadata of a namespace in a project", method: "PATCH", path: proj, ct: MediaMergePatch,
			body: `{"metadata":null}`, refusedKey: "field.cattle.io/projectId"},
		{name: "strategic patch replacing the annotations keeps the project", method: "PATCH", path: proj, ct: MediaStrategic,
			body:  `{"metadata":{"annotations":{"$patch":"replace","a":"b"}}}`,
			keeps: []string{`"field.cattle.io/projectId":"c-1:p-1"`, `"a":"b"`}},
		{name: "replace a namespace adding a project", method: "PUT", path: "/api/v1/namespaces/prod",
			body: `{"metadata":{"name":"prod","annotations":{"field.cattle.io/projectId":"c-1:p-9"}}}`, refusedKey: "field.cattle.io/projectId"},
		{name: "replace a namespace omitting its project keeps it", method: "PUT", path: proj,
			body:  `{"metadata":{"name":"proj","labels":{"team":"a"}}}`,
			keeps: []string{`"field.cattle.io/projectId":"p-1"`, `"field.cattle.io/projectId":"c-1:p-1"`, `"team":"a"`}},
		{name: "merge patch of a namespace's mesh revision", method: "PATCH", path: proj, ct: MediaMergePatch,
			body: `{"metadata":{"labels":{"istio.io/rev":"canary"}}}`, refusedKey: "istio.io/rev"},
		{name: "merge patch removing a project", method: "PATCH", path: proj, ct: MediaMergePatch,
			body: `{"metadata":{"annotations":{"field.cattle.io/projectId":null}}}`, refusedKey: "field.cattle.io/projectId"},
		{name: "strategic merge patch of a namespace's IP pool", method: "PATCH", path: proj, ct: MediaStrategic,
			body: `{"metadata":{"annotations":{"cni.projectcalico.org/ipv4pools":"[\"trusted\"]"}}}`, refusedKey: "cni.projectcalico.org/ipv4pools"},
		{name: "json patch adding a node selector", method: "PATCH", path: proj, ct: MediaJSONPatch,
			body: `[{"op":"add","path":"/metadata/annotations/openshift.io~1node-selector","value":"role=infra"}]`, refusedKey: "openshift.io/node-selector"},
		{name: "json patch removing a project", method: "PATCH", path: proj, ct: MediaJSONPatch,
			body: `[{"op":"remove","path":"/metadata/labels/field.cattle.io~1projectId"}]`, refusedKey: "field.cattle.io/projectId"},
		{name: "json patch copying onto the whole annotations", method: "PATCH", path: proj, ct: MediaJSONPatch,
			body: `[{"op":"copy","from":"/metadata/labels","path":"/metadata/annotations"}]`, refusedKey: "kubernetes.io"},
		{name: "apply of a namespace with Gatekeeper's exemption", method: "PATCH", path: proj, ct: MediaApplyPatch,
			body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"proj","labels":{"admission.gatekeeper.sh/ignore":"true"}}}`, refusedKey: "admission.gatekeeper.sh/ignore"},
		{name: "apply of a new namespace with cert-manager's opt-out", method: "PATCH", path: "/api/v1/namespaces/other", ct: MediaApplyPatch,
			body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"other","labels":{"cert-manager.io/disable-validation":"true"}}}`, refusedKey: "cert-manager.io/disable-validation"},
		{name: "create a volume a CSI provisioner will delete", method: "POST", path: "/api/v1/persistentvolumes",
			body:       `{"metadata":{"name":"v","annotations":{"pv.kubernetes.io/provisioned-by":"ebs.csi.aws.com"}},"spec":{"csi":{"driver":"ebs.csi.aws.com","volumeHandle":"vol-beta"},"persistentVolumeReclaimPolicy":"Delete"}}`,
			refusedKey: "pv.kubernetes.io/provisioned-by"},
		{name: "create a volume in a zone", method: "POST", path: "/api/v1/persistentvolumes",
			body:  `{"metadata":{"name":"v","labels":{"topology.kubernetes.io/zone":"a"}},"spec":{"csi":{"driver":"d","volumeHandle":"h"}}}`,
			keeps: []string{`"topology.kubernetes.io/zone":"a"`}},
		{name: "create a Service kube-proxy skips", method: "POST", path: svcs,
			body: `{"metadata":{"name":"s","labels":{"service.kubernetes.io/service-proxy-name":"other"}},"spec":{}}`, refusedKey: "service.kubernetes.io/service-proxy-name"},
		{name: "create a Service sharing a MetalLB address", method: "POST", path: svcs,
			body: `{"metadata":{"name":"s","annotations":{"metallb.universe.tf/allow-shared-ip":"beta"}},"spec":{}}`, refusedKey: "metallb.universe.tf/allow-shared-ip"},
		{name: "create a Service with recommended labels and topology", method: "POST", path: svcs,
			body:  `{"metadata":{"name":"s","labels":{"app.kubernetes.io/name":"s","app":"s"},"annotations":{"service.kubernetes.io/topology-mode":"Auto"}},"spec":{}}`,
			keeps: []string{`"service.kubernetes.io/topology-mode":"Auto"`, `"app.kubernetes.io/name":"s"`}},
		{name: "replace a Service omitting the platform's annotation keeps it", method: "PUT", path: web,
			body: `{"metadata":{"name":"web","labels":{"app":"web2"}},"spec":{}}`, keeps: []string{`"cloud.google.com/neg-status":"{}"`, `"app":"web2"`}},
		{name: "merge patch of a Service's Cilium sharing key", method: "PATCH", path: web, ct: MediaMergePatch,
			body: `{"metadata":{"annotations":{"lbipam.cilium.io/sharing-key":"beta"}}}`, refusedKey: "lbipam.cilium.io/sharing-key"},
		{name: "json patch replacing a Service's annotations drops nothing", method: "PATCH", path: web, ct: MediaJSONPatch,
			body: `[{"op":"replace","path":"/metadata/annotations","value":{"a":"b"}}]`, keeps: []string{`"cloud.google.com/neg-status":"{}"`, `"a":"b"`}},
		{name: "apply of a Service with a cloud load balancer's subnet", method: "PATCH", path: web, ct: MediaApplyPatch,
			body:       `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","annotations":{"networking.gke.io/internal-load-balancer-subnet":"platform"}}}`,
			refusedKey: "networking.gke.io/internal-load-balancer-subnet"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := New(MustTenant("acme"), Options{Shared: fakeShared{}, Platform: &domainPlatform{fakePlatform{volumeSources: []string{"csi"}}}})
			ct := tc.ct
			if ct == "" {
				ct = MediaJSON
			}
			u, err := tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Header: http.Header{"Content-Type": {ct}}, Body: []byte(tc.body)})
			if tc.refusedKey != "" {
				require.Error(t, err)
				st := ToStatus(err)
				assert.Equal(t, int32(http.StatusForbidden), st.Code, st.Message)
				assert.Contains(t, st.Message, tc.refusedKey)
				return
			}
			require.NoError(t, err)
			for _, s := range tc.keeps {
				assert.Contains(t, string(u.Body), s)
			}
		})
	}
}

// TestIngressAnnotationsOfThePlatform: the annotations ingress-nginx reads
// as raw configuration, extra hosts or addresses to dial, and the class
// annotation, are the platform's on an Ingress; those that shape only the
// routing of the tenant's own Ingress are the tenant's.
func TestIngressAnnotationsOfThePlatform(t *testing.T) {
	for _, key := range []string{"nginx.ingress.kubernetes.io/configuration-snippet", "nginx.ingress.kubernetes.io/server-snippet",
		"nginx.ingress.kubernetes.io/server-alias", "nginx.ingress.kubernetes.io/auth-url", "nginx.ingress.kubernetes.io/mirror-target",
		"nginx.ingress.kubernetes.io/from-to-www-redirect", "kubernetes.io/ingress.class", "cert-manager.io/cluster-issuer"} {
		assert.True(t, IsPlatformOwned(grIngress, true, key), key)
	}
	for _, key := range []string{"nginx.ingress.kubernetes.io/rewrite-target", "nginx.ingress.kubernetes.io/ssl-redirect",
		"nginx.ingress.kubernetes.io/proxy-body-size", "app.kubernetes.io/name", "example.com/team"} {
		assert.False(t, IsPlatformOwned(grIngress, true, key), key)
	}
}
