package transfer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// obj parses one YAML object.
func obj(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	require.NoError(t, yaml.Unmarshal([]byte(doc), &u.Object))
	return u
}

// TestExportKindsFromTheTable holds the exported kinds to the kinds table:
// its namespaced, tenant-owned and shared rows, each skip with a reason, and
// every skip naming such a row.
func TestExportKindsFromTheTable(t *testing.T) {
	kinds := ExportKinds()
	seen := map[schema.GroupResource]bool{}
	for _, k := range kinds {
		seen[k.Resource] = true
		r, ok := translate.LookupKind(k.Resource)
		require.True(t, ok, k.Resource.String())
		assert.Contains(t, []translate.Treatment{translate.Namespaced, translate.TenantOwned, translate.Shared}, r.Treatment, k.Resource.String())
		assert.Equal(t, r.Treatment == translate.Shared, k.Shared, k.Resource.String())
	}
	for _, r := range translate.Kinds() {
		owned := r.Treatment == translate.Namespaced || r.Treatment == translate.TenantOwned || r.Treatment == translate.Shared
		assert.Equal(t, owned, seen[r.Resource], "%s (%s)", r.Resource, r.Treatment)
	}
	for gr, why := range exportSkipped {
		assert.True(t, seen[gr], "the skip of %s names no exported row", gr)
		assert.NotEmpty(t, why)
	}
	assert.Equal(t, "CustomResourceDefinition", kinds[0].Kind)
	assert.Equal(t, "Namespace", kinds[1].Kind)
	assert.ElementsMatch(t, []string{"ClusterRole", "ClusterRoleBinding"}, []string{kinds[2].Kind, kinds[3].Kind})
}

// TestSortObjects puts objects in apply order whatever order they come in.
func TestSortObjects(t *testing.T) {
	objs := []*unstructured.Unstructured{
		obj(t, "{apiVersion: shop.example.com/v1, kind: Widget, metadata: {name: w, namespace: a}}"),
		obj(t, "{apiVersion: shop.example.com/v1, kind: Shelf, metadata: {name: s}}"),
		obj(t, "{apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: b}}"),
		obj(t, "{apiVersion: apps/v1, kind: Deployment, metadata: {name: c, namespace: b}}"),
		obj(t, "{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: a}}"),
		obj(t, "{apiVersion: rbac.authorization.k8s.io/v1, kind: RoleBinding, metadata: {name: rb, namespace: a}}"),
		obj(t, "{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingAdmissionPolicy, metadata: {name: p}}"),
		obj(t, "{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRoleBinding, metadata: {name: crb}}"),
		obj(t, "{apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, metadata: {name: cr}}"),
		obj(t, "{apiVersion: v1, kind: Namespace, metadata: {name: b}}"),
		obj(t, "{apiVersion: v1, kind: Namespace, metadata: {name: a}}"),
		obj(t, "{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: widgets.shop.example.com}}"),
	}
	SortObjects(objs)
	var got []string
	for _, o := range objs {
		got = append(got, o.GetKind()+" "+o.GetNamespace()+"/"+o.GetName())
	}
	assert.Equal(t, []string{
		"CustomResourceDefinition /widgets.shop.example.com", "Namespace /a", "Namespace /b",
		"ClusterRole /cr", "ClusterRoleBinding /crb", "ValidatingAdmissionPolicy /p",
		"RoleBinding a/rb", "ConfigMap a/c", "Deployment b/c", "Deployment b/d", "Shelf /s", "Widget a/w",
	}, got)
}

// TestOmit leaves out what the cluster, a controller or kubectl-zoo makes.
func TestOmit(t *testing.T) {
	service := obj(t, "{apiVersion: v1, kind: Service, metadata: {name: web, namespace: a}, spec: {selector: {app: web}}}")
	for _, tc := range []struct {
		name, doc, want string
		secrets         bool
	}{
		{"controller owned", "{apiVersion: apps/v1, kind: ReplicaSet, metadata: {name: r, ownerReferences: [{kind: Deployment, name: d, controller: true}]}}", "made by its controller (a Deployment)", false},
		{"crafted controller kind", `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, ownerReferences: [{kind: "X\e[2J", name: d, controller: true}]}}`, "made by its controller", false},
		{"owned, not by a controller", "{apiVersion: v1, kind: ConfigMap, metadata: {name: c, ownerReferences: [{kind: Deployment, name: d}]}}", "", false},
		{"propagated", "{apiVersion: v1, kind: ResourceQuota, metadata: {name: q, labels: {zoo.kubectl-zoo.io/propagated-from: zoo.policy}}}", "propagated by kubectl-zoo", false},
		{"standard", "{apiVersion: v1, kind: Namespace, metadata: {name: default, labels: {app.kubernetes.io/managed-by: kubectl-zoo}}}", "made by kubectl-zoo for every tenant", false},
		{"default account", "{apiVersion: v1, kind: ServiceAccount, metadata: {name: default, namespace: a}}", "made by the cluster in every namespace", false},
		{"other account", "{apiVersion: v1, kind: ServiceAccount, metadata: {name: builder, namespace: a}}", "", false},
		{"root CA", "{apiVersion: v1, kind: ConfigMap, metadata: {name: kube-root-ca.crt, namespace: a}}", "published by the cluster in every namespace", false},
		{"endpoints of a selector", "{apiVersion: v1, kind: Endpoints, metadata: {name: web, namespace: a}}", "made by the endpoints controller for its Service", false},
		{"endpoints of their own", "{apiVersion: v1, kind: Endpoints, metadata: {name: external, namespace: a}}", "", false},
		{"controller slice", "{apiVersion: discovery.k8s.io/v1, kind: EndpointSlice, metadata: {name: s, labels: {endpointslice.kubernetes.io/managed-by: endpointslice-controller.k8s.io}}}", "made by the endpoint slice controllers", false},
		{"provisioned volume", "{apiVersion: v1, kind: PersistentVolume, metadata: {name: pv, annotations: {pv.kubernetes.io/provisioned-by: csi.example.com}}}", "provisioned for its claim", false},
		{"secret", "{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: a}}", "Secrets (no --include-secrets)", false},
		{"secret included", "{apiVersion: v1, kind: Secret, metadata: {name: s, namespace: a}}", "", true},
		{"custom named default", "{apiVersion: shop.example.com/v1, kind: ServiceAccount, metadata: {name: default}}", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := NewExportSet([]*unstructured.Unstructured{service}, tc.secrets)
			assert.Equal(t, tc.want, set.Omit(obj(t, tc.doc)))
		})
	}
}

// TestCleanForExport removes what the cluster populates, and keeps what the
// tenant wrote.
func TestCleanForExport(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"metadata", `{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: a, uid: u, resourceVersion: "1", generation: 2,
			creationTimestamp: "2026-01-01T00:00:00Z", managedFields: [{}], generateName: c-, ownerReferences: [{kind: X, name: x}],
			labels: {app: a, zoo.kubectl-zoo.io/tenant: t, x.zoo.kubectl-zoo.io/k: v}, annotations: {kubectl.kubernetes.io/last-applied-configuration: "{}", note: hello}},
			data: {k: v}, status: {}}`,
			`{apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: a, labels: {app: a}, annotations: {note: hello}}, data: {k: v}}`},
		{"namespace", `{apiVersion: v1, kind: Namespace, metadata: {name: shop, labels: {team: a, kubernetes.io/metadata.name: shop,
			pod-security.kubernetes.io/enforce: baseline}}, spec: {finalizers: [kubernetes]}, status: {phase: Active}}`,
			`{apiVersion: v1, kind: Namespace, metadata: {name: shop, labels: {team: a}}, spec: {}}`},
		{"service", `{apiVersion: v1, kind: Service, metadata: {name: s}, spec: {clusterIP: 10.0.0.1, clusterIPs: [10.0.0.1], ports: [{port: 80}]}}`,
			`{apiVersion: v1, kind: Service, metadata: {name: s}, spec: {ports: [{port: 80}]}}`},
		{"headless service", `{apiVersion: v1, kind: Service, metadata: {name: s}, spec: {clusterIP: None, clusterIPs: [None]}}`,
			`{apiVersion: v1, kind: Service, metadata: {name: s}, spec: {clusterIP: None, clusterIPs: [None]}}`},
		{"claim bound by the controller", `{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: c, finalizers: [kubernetes.io/pvc-protection, example.com/keep],
			annotations: {pv.kubernetes.io/bound-by-controller: "yes", pv.kubernetes.io/bind-completed: "yes"}}, spec: {volumeName: pvc-1}}`,
			`{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: c, finalizers: [example.com/keep]}, spec: {}}`},
		{"claim bound by the tenant", `{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: c, annotations: {pv.kubernetes.io/bind-completed: "yes"}}, spec: {volumeName: mine}}`,
			`{apiVersion: v1, kind: PersistentVolumeClaim, metadata: {name: c}, spec: {volumeName: mine}}`},
		{"job", `{apiVersion: batch/v1, kind: Job, metadata: {name: j}, spec: {selector: {matchLabels: {controller-uid: u}},
			template: {metadata: {creationTimestamp: null, labels: {app: j, controller-uid: u, batch.kubernetes.io/controller-uid: u, job-name: j, batch.kubernetes.io/job-name: j}}}}}`,
			`{apiVersion: batch/v1, kind: Job, metadata: {name: j}, spec: {template: {metadata: {labels: {app: j}}}}}`},
		{"job with its own selector", `{apiVersion: batch/v1, kind: Job, metadata: {name: j}, spec: {manualSelector: true, selector: {matchLabels: {job-name: j}}}}`,
			`{apiVersion: batch/v1, kind: Job, metadata: {name: j}, spec: {manualSelector: true, selector: {matchLabels: {job-name: j}}}}`},
		{"account token", `{apiVersion: v1, kind: Secret, type: kubernetes.io/service-account-token, metadata: {name: t,
			annotations: {kubernetes.io/service-account.name: builder, kubernetes.io/service-account.uid: u}}, data: {token: dG9rZW4=}}`,
			`{apiVersion: v1, kind: Secret, type: kubernetes.io/service-account-token, metadata: {name: t, annotations: {kubernetes.io/service-account.name: builder}}}`},
		{"opaque secret", `{apiVersion: v1, kind: Secret, type: Opaque, metadata: {name: s}, data: {token: dG9rZW4=}}`,
			`{apiVersion: v1, kind: Secret, type: Opaque, metadata: {name: s}, data: {token: dG9rZW4=}}`},
		{"pod", `{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {nodeName: n, containers: [{name: c}]}}`,
			`{apiVersion: v1, kind: Pod, metadata: {name: p}, spec: {containers: [{name: c}]}}`},
		{"statefulset", `{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: s, annotations: {deployment.kubernetes.io/revision: "1"}},
			spec: {volumeClaimTemplates: [{metadata: {name: d, creationTimestamp: null}, status: {phase: Pending}}]}}`,
			`{apiVersion: apps/v1, kind: StatefulSet, metadata: {name: s}, spec: {volumeClaimTemplates: [{metadata: {name: d}}]}}`},
		{"custom kind named as a built-in", `{apiVersion: shop.example.com/v1, kind: Service, metadata: {name: s}, spec: {clusterIP: 10.0.0.1}}`,
			`{apiVersion: shop.example.com/v1, kind: Service, metadata: {name: s}, spec: {clusterIP: 10.0.0.1}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := obj(t, tc.in)
			CleanForExport(got)
			assert.Equal(t, obj(t, tc.want).Object, got.Object)
		})
	}
}

// TestReadManifests reads YAML documents and JSON Lists, and refuses an
// object without a name.
func TestReadManifests(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
		err      string
	}{
		{"yaml", "---\napiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n---\n\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: a}\n",
			[]string{"Namespace/a", "ConfigMap/c"}, ""},
		{"json list", `{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}},
			{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}]}]}`,
			[]string{"Namespace/a", "Secret/s"}, ""},
		{"no name", "apiVersion: v1\nkind: ConfigMap\nmetadata: {namespace: a}\n", nil, "document 1: an object without apiVersion, kind or metadata.name"},
		{"not yaml", "apiVersion: v1\nkind: [\n", nil, "document 1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := ReadManifests(strings.NewReader(tc.in))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			var got []string
			for _, o := range objs {
				got = append(got, o.GetKind()+"/"+o.GetName())
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestExportDocListsSkippedKinds holds the table of skipped kinds in
// docs/export.md to exportSkipped.
func TestExportDocListsSkippedKinds(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "export.md"))
	require.NoError(t, err)
	rows := 0
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "| `") {
			rows++
		}
	}
	assert.Equal(t, len(exportSkipped), rows, "docs/export.md lists another number of skipped kinds")
	for gr, why := range exportSkipped {
		assert.Contains(t, string(doc), "| `"+gr.String()+"` | "+why+" |\n")
	}
}
