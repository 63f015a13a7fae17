package translate

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestStorageClassRefs: a tenant volume's class is always in the tenant's
// prefix; a claim's class is the tenant's own, else the cluster's shared one,
// else the tenant's; and back. (fakeShared: acme owns "fast", the cluster
// has "standard".)
func TestStorageClassRefs(t *testing.T) {
	tr := newTestTranslator(t)
	cases := []struct {
		name     string
		gr       schema.GroupResource
		tenant   string
		upstream string
	}{
		{"PV own class", grPV, `{"spec":{"storageClassName":"fast"}}`, `{"spec":{"storageClassName":"acme-fast"}}`},
		{"PV shared class goes to the tenant's pool", grPV, `{"spec":{"storageClassName":"standard"}}`, `{"spec":{"storageClassName":"acme-standard"}}`},
		{"PV class that exists nowhere", grPV, `{"spec":{"storageClassName":"manual"}}`, `{"spec":{"storageClassName":"acme-manual"}}`},
		{"PV another tenant's class name stays in acme's pool", grPV, `{"spec":{"storageClassName":"beta-fast"}}`, `{"spec":{"storageClassName":"acme-beta-fast"}}`},
		{"PV empty class is the reserved class", grPV, `{"spec":{"storageClassName":""}}`, `{"spec":{"storageClassName":"acme-zoo-no-class"}}`},
		{"PVC own class", grPVC, `{"spec":{"storageClassName":"fast"}}`, `{"spec":{"storageClassName":"acme-fast"}}`},
		{"PVC shared class provisions from the cluster", grPVC, `{"spec":{"storageClassName":"standard"}}`, `{"spec":{"storageClassName":"standard"}}`},
		{"PVC class that exists nowhere", grPVC, `{"spec":{"storageClassName":"manual"}}`, `{"spec":{"storageClassName":"acme-manual"}}`},
		{"PVC another tenant's class", grPVC, `{"spec":{"storageClassName":"beta-fast"}}`, `{"spec":{"storageClassName":"acme-beta-fast"}}`},
		{"PVC empty class is the tenant's class-less volumes", grPVC, `{"spec":{"storageClassName":""}}`, `{"spec":{"storageClassName":"acme-zoo-no-class"}}`},
		{"PVC without class is left to the default", grPVC, `{"spec":{"volumeName":"pv1"}}`, `{"spec":{"volumeName":"acme-pv1"}}`},
		{"StatefulSet claim templates", gr("apps", "statefulsets"),
			`{"spec":{"volumeClaimTemplates":[{"spec":{"storageClassName":"manual"}},{"spec":{"storageClassName":"standard"}},{"spec":{}}]}}`,
			`{"spec":{"volumeClaimTemplates":[{"spec":{"storageClassName":"acme-manual"}},{"spec":{"storageClassName":"standard"}},{"spec":{}}]}}`},
		{"generic ephemeral volume", gr("", "pods"),
			`{"spec":{"volumes":[{"name":"v","ephemeral":{"volumeClaimTemplate":{"spec":{"storageClassName":"fast"}}}},{"name":"e","emptyDir":{}}]}}`,
			`{"spec":{"volumes":[{"name":"v","ephemeral":{"volumeClaimTemplate":{"spec":{"storageClassName":"acme-fast"}}}},{"name":"e","emptyDir":{}}]}}`},
		{"ephemeral volume in a deployment template", gr("apps", "deployments"),
			`{"spec":{"template":{"spec":{"volumes":[{"name":"v","ephemeral":{"volumeClaimTemplate":{"spec":{"storageClassName":"manual"}}}}]}}}}`,
			`{"spec":{"template":{"spec":{"volumes":[{"name":"v","ephemeral":{"volumeClaimTemplate":{"spec":{"storageClassName":"acme-manual"}}}}]}}}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := jsonObj(t, tc.tenant)
			require.NoError(t, tr.ObjectToUpstream(tc.gr, obj))
			jsonEq(t, tc.upstream, obj)
		})
	}

	out := []struct {
		name     string
		gr       schema.GroupResource
		upstream string
		tenant   string
	}{
		{"PV own class", grPV, `{"spec":{"storageClassName":"acme-fast"}}`, `{"spec":{"storageClassName":"fast"}}`},
		{"PV reserved class shown as none", grPV, `{"spec":{"storageClassName":"acme-zoo-no-class"}}`, `{"spec":{}}`},
		{"PVC reserved class shown as empty", grPVC, `{"spec":{"storageClassName":"acme-zoo-no-class"}}`, `{"spec":{"storageClassName":""}}`},
		{"PVC shared class", grPVC, `{"spec":{"storageClassName":"standard"}}`, `{"spec":{"storageClassName":"standard"}}`},
		{"PVC own class", grPVC, `{"spec":{"storageClassName":"acme-manual"}}`, `{"spec":{"storageClassName":"manual"}}`},
	}
	for _, tc := range out {
		t.Run("out "+tc.name, func(t *testing.T) {
			obj := jsonObj(t, tc.upstream)
			require.NoError(t, tr.ObjectToTenant(tc.gr, obj))
			jsonEq(t, tc.tenant, obj)
		})
	}
}

// TestStorageClassRefsWithoutLookup: without a SharedLookup a claim's class
// is assumed to be the cluster's, a volume's is still the tenant's.
func TestStorageClassRefsWithoutLookup(t *testing.T) {
	tr := New(MustTenant("acme"), Options{})
	pvc := jsonObj(t, `{"spec":{"storageClassName":"standard"}}`)
	require.NoError(t, tr.ObjectToUpstream(grPVC, pvc))
	jsonEq(t, `{"spec":{"storageClassName":"standard"}}`, pvc)
	pv := jsonObj(t, `{"spec":{"storageClassName":"standard"}}`)
	require.NoError(t, tr.ObjectToUpstream(grPV, pv))
	jsonEq(t, `{"spec":{"storageClassName":"acme-standard"}}`, pv)
}

// TestStorageAndDefaultRefusals: what a tenant may not set on volumes,
// claims and classes, whichever way it is sent.
func TestStorageAndDefaultRefusals(t *testing.T) {
	tr := newTestTranslator(t)
	const (
		pvs  = "/api/v1/persistentvolumes"
		pvcs = "/api/v1/namespaces/default/persistentvolumeclaims"
		scs  = "/apis/storage.k8s.io/v1/storageclasses"
		ics  = "/apis/networking.k8s.io/v1/ingressclasses"
	)
	cases := []struct {
		name, method, path, ct, body string
		msg                          string // "" means allowed
	}{
		{"default storage class", "POST", scs, "", `{"metadata":{"name":"mine","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}}}`, "storageclass.kubernetes.io/is-default-class"},
		{"beta default storage class", "POST", scs, "", `{"metadata":{"name":"mine","annotations":{"storageclass.beta.kubernetes.io/is-default-class":"true"}}}`, "storageclass.beta.kubernetes.io/is-default-class"},
		{"odd casing of the key", "POST", scs, "", `{"metadata":{"name":"mine","annotations":{"StorageClass.Kubernetes.io/Is-Default-Class":"true"}}}`, "is-default-class"},
		{"odd value", "POST", scs, "", `{"metadata":{"name":"mine","annotations":{"storageclass.kubernetes.io/is-default-class":"True"}}}`, "is-default-class"},
		{"empty value", "POST", scs, "", `{"metadata":{"name":"mine","annotations":{"storageclass.kubernetes.io/is-default-class":""}}}`, "is-default-class"},
		// "false" makes no class the default: a tenant may write it
		// (platform.go: the row's Allowed value), and remove the key.
		{"explicitly not default", "POST", scs, "", `{"metadata":{"name":"mine","annotations":{"storageclass.kubernetes.io/is-default-class":"false"}}}`, ""},
		{"explicitly not default, beta", "POST", scs, "", `{"metadata":{"name":"mine","annotations":{"storageclass.beta.kubernetes.io/is-default-class":"false"}}}`, ""},
		{"explicitly not default ingress class", "POST", ics, "", `{"metadata":{"name":"mine","annotations":{"ingressclass.kubernetes.io/is-default-class":"false"}}}`, ""},
		{"odd casing of the name part", "POST", scs, "", `{"metadata":{"name":"mine","annotations":{"storageclass.kubernetes.io/Is-Default-Class":"yes"}}}`, "is-default-class"},
		{"update to not default", "PUT", scs + "/mine", "", `{"metadata":{"name":"mine","annotations":{"storageclass.kubernetes.io/is-default-class":"false"}}}`, ""},
		{"merge patch to not default", "PATCH", scs + "/mine", MediaMergePatch, `{"metadata":{"annotations":{"ingressclass.kubernetes.io/is-default-class":"false"}}}`, ""},
		{"merge patch removing the key", "PATCH", scs + "/mine", MediaMergePatch, `{"metadata":{"annotations":{"storageclass.kubernetes.io/is-default-class":null}}}`, ""},
		{"json patch add of false", "PATCH", scs + "/mine", MediaJSONPatch, `[{"op":"add","path":"/metadata/annotations/storageclass.kubernetes.io~1is-default-class","value":"false"}]`, ""},
		{"json patch remove of the key", "PATCH", scs + "/mine", MediaJSONPatch, `[{"op":"remove","path":"/metadata/annotations/storageclass.kubernetes.io~1is-default-class"}]`, ""},
		{"json patch copy onto all annotations", "PATCH", scs + "/mine", MediaJSONPatch, `[{"op":"copy","from":"/metadata/labels","path":"/metadata/annotations"}]`, "is-default-class"},
		{"json patch move onto the whole metadata", "PATCH", ics + "/mine", MediaJSONPatch, `[{"op":"move","from":"/spec","path":"/metadata"}]`, "is-default-class"},
		{"update to default", "PUT", scs + "/mine", "", `{"metadata":{"name":"mine","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}}}`, "is-default-class"},
		{"merge patch to default", "PATCH", scs + "/mine", MediaMergePatch, `{"metadata":{"annotations":{"storageclass.kubernetes.io/is-default-class":"true"}}}`, "is-default-class"},
		{"strategic patch to default", "PATCH", scs + "/mine", MediaStrategic, `{"metadata":{"annotations":{"storageclass.beta.kubernetes.io/is-default-class":"true"}}}`, "is-default-class"},
		{"server-side apply of a default", "PATCH", scs + "/mine", MediaApplyPatch, "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata:\n  name: mine\n  annotations:\n    storageclass.kubernetes.io/is-default-class: \"true\"\nprovisioner: x\n", "is-default-class"},
		{"json patch add of the key", "PATCH", scs + "/mine", MediaJSONPatch, `[{"op":"add","path":"/metadata/annotations/storageclass.kubernetes.io~1is-default-class","value":"true"}]`, "is-default-class"},
		{"json patch replace of all annotations", "PATCH", scs + "/mine", MediaJSONPatch, `[{"op":"replace","path":"/metadata/annotations","value":{"storageclass.kubernetes.io/is-default-class":"true"}}]`, "is-default-class"},
		{"json patch copy onto the key", "PATCH", scs + "/mine", MediaJSONPatch, `[{"op":"copy","from":"/metadata/annotations/x","path":"/metadata/annotations/storageclass.kubernetes.io~1is-default-class"}]`, "is-default-class"},
		{"json patch move of labels onto annotations", "PATCH", scs + "/mine", MediaJSONPatch, `[{"op":"move","from":"/metadata/labels","path":"/metadata/annotations"}]`, "is-default-class"},
		{"json patch copy of other metadata is fine", "PATCH", scs + "/mine", MediaJSONPatch, `[{"op":"copy","from":"/metadata/annotations/a","path":"/metadata/annotations/b"}]`, ""},
		{"default ingress class", "POST", ics, "", `{"metadata":{"name":"mine","annotations":{"ingressclass.kubernetes.io/is-default-class":"true"}}}`, "ingressclass.kubernetes.io/is-default-class"},
		{"merge patch ingress class to default", "PATCH", ics + "/mine", MediaMergePatch, `{"metadata":{"annotations":{"ingressclass.kubernetes.io/is-default-class":"true"}}}`, "ingressclass.kubernetes.io/is-default-class"},
		{"reserved storage class name", "POST", scs, "", `{"metadata":{"name":"zoo-no-class"},"provisioner":"x"}`, "reserved"},
		{"PV of the reserved class", "POST", pvs, "", `{"metadata":{"name":"v"},"spec":{"storageClassName":"zoo-no-class"}}`, "reserved"},
		{"PVC of the reserved class", "POST", pvcs, "", `{"metadata":{"name":"c"},"spec":{"storageClassName":"zoo-no-class"}}`, "reserved"},
		{"PV beta class annotation", "POST", pvs, "", `{"metadata":{"name":"v","annotations":{"volume.beta.kubernetes.io/storage-class":"standard"}},"spec":{"storageClassName":"x"}}`, "volume.beta.kubernetes.io/storage-class"},
		{"PVC beta class annotation", "POST", pvcs, "", `{"metadata":{"name":"c","annotations":{"volume.beta.kubernetes.io/storage-class":"beta-fast"}}}`, "volume.beta.kubernetes.io/storage-class"},
		{"PVC beta class annotation by merge patch", "PATCH", pvcs + "/c", MediaMergePatch, `{"metadata":{"annotations":{"volume.beta.kubernetes.io/storage-class":"beta-fast"}}}`, "volume.beta.kubernetes.io/storage-class"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.ct != "" {
				h.Set("Content-Type", tc.ct)
			}
			_, err := tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Header: h, Body: []byte(tc.body)})
			if tc.msg == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			st := ToStatus(err)
			assert.Equal(t, int32(http.StatusForbidden), st.Code, st.Message)
			assert.Contains(t, st.Message, tc.msg)
			assert.NotContains(t, st.Message, "acme-", "the tenant sees its own names")
		})
	}
}

// TestPVClassCompletion: a whole volume without class gets the reserved
// class, a patch that does not touch the class leaves it alone, and a patch
// that removes it makes it the reserved class.
func TestPVClassCompletion(t *testing.T) {
	tr := allowingTranslator(t) // a CSI volume needs the policy's volume source (volume_sources.go)
	cases := []struct{ name, method, path, ct, body, want string }{
		{"create without class", "POST", "/api/v1/persistentvolumes", "",
			`{"metadata":{"name":"v"},"spec":{"csi":{"driver":"d","volumeHandle":"h"}}}`,
			`{"metadata":{"name":"acme-v","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},"spec":{"csi":{"driver":"d","volumeHandle":"h"},"storageClassName":"acme-zoo-no-class"}}`},
		{"update without spec", "PUT", "/api/v1/persistentvolumes/v", "",
			`{"metadata":{"name":"v"}}`,
			`{"metadata":{"name":"acme-v","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},"spec":{"storageClassName":"acme-zoo-no-class"}}`},
		{"server-side apply without class", "PATCH", "/api/v1/persistentvolumes/v", MediaApplyPatch,
			"apiVersion: v1\nkind: PersistentVolume\nmetadata:\n  name: v\n",
			`{"apiVersion":"v1","kind":"PersistentVolume","metadata":{"name":"acme-v","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},"spec":{"storageClassName":"acme-zoo-no-class"}}`},
		{"merge patch leaves the class alone", "PATCH", "/api/v1/persistentvolumes/v", MediaMergePatch,
			`{"spec":{"capacity":{"storage":"2Gi"}}}`, `{"spec":{"capacity":{"storage":"2Gi"}}}`},
		{"merge patch removing the class", "PATCH", "/api/v1/persistentvolumes/v", MediaMergePatch,
			`{"spec":{"storageClassName":null}}`, `{"spec":{"storageClassName":"acme-zoo-no-class"}}`},
		{"json patch replacing the class", "PATCH", "/api/v1/persistentvolumes/v", MediaJSONPatch,
			`[{"op":"replace","path":"/spec/storageClassName","value":"standard"}]`,
			`[{"op":"replace","path":"/spec/storageClassName","value":"acme-standard"}]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.ct != "" {
				h.Set("Content-Type", tc.ct)
			}
			u, err := tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Header: h, Body: []byte(tc.body)})
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(u.Body))
		})
	}
}
