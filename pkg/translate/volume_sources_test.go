package translate

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// jsonNames are the JSON names of the fields of a struct type.
func jsonNames(ty reflect.Type) []string {
	var out []string
	for i := range ty.NumField() {
		out = append(out, strings.Split(ty.Field(i).Tag.Get("json"), ",")[0])
	}
	return out
}

// TestVolumeSourcesClassified: every source of the pinned API's pod volumes
// and PersistentVolumes is classified, in the place it is one, and nothing
// else is.
func TestVolumeSourcesClassified(t *testing.T) {
	pod, volume := map[string]VolumeSourceClass{}, map[string]VolumeSourceClass{}
	for _, s := range VolumeSources {
		assert.NotEmpty(t, s.Reason, s.Name)
		assert.True(t, s.Pod != 0 || s.Volume != 0, "%s is a source nowhere", s.Name)
		if s.Pod != 0 {
			pod[s.Name] = s.Pod
		}
		if s.Volume != 0 {
			volume[s.Name] = s.Volume
		}
	}
	for _, name := range jsonNames(reflect.TypeFor[corev1.VolumeSource]()) {
		assert.Contains(t, pod, name, "the pod volume source %s is not classified in VolumeSources", name)
	}
	for _, name := range jsonNames(reflect.TypeFor[corev1.PersistentVolumeSource]()) {
		assert.Contains(t, volume, name, "the PersistentVolume source %s is not classified in VolumeSources", name)
	}
	assert.Len(t, pod, len(jsonNames(reflect.TypeFor[corev1.VolumeSource]())), "a pod source the API does not have")
	assert.Len(t, volume, len(jsonNames(reflect.TypeFor[corev1.PersistentVolumeSource]())), "a volume source the API does not have")
	for _, name := range PVHostSources {
		assert.Equal(t, VolumeSourceMachine, volume[name], "%s is refused on volumes (refs_outside.go)", name)
	}
}

// TestVolumeSourcesOfThePolicy: an external source in any pod spec of the
// table, or on a PersistentVolume, is refused (403 naming the field) unless
// the tenant's policy lists it, on create bodies and on patches; the
// tenant's own sources pass.
func TestVolumeSourcesOfThePolicy(t *testing.T) {
	deployment := func(source string) map[string]any {
		return jsonObj(t, `{"metadata":{"name":"d","namespace":"default"},"spec":{"template":{"spec":{"containers":[{"name":"c","image":"i"}],
			"volumes":[{"name":"a","emptyDir":{}},{"name":"b",`+source+`}]}}}}`)
	}
	nfs := `"nfs":{"server":"10.0.0.5","path":"/exports/beta"}`
	pv := func(source string) map[string]any {
		return jsonObj(t, `{"metadata":{"name":"v"},"spec":{"capacity":{"storage":"1Gi"},`+source+`}}`)
	}
	none := New(MustTenant("acme"), Options{Shared: fakeShared{}, Platform: &fakePlatform{}})
	nfsOnly := New(MustTenant("acme"), Options{Shared: fakeShared{}, Platform: &fakePlatform{volumeSources: []string{"nfs"}}})
	bare := New(MustTenant("acme"), Options{Shared: fakeShared{}})

	for _, tc := range []struct {
		name   string
		tr     *Translator
		gr     string
		obj    map[string]any
		denied string
	}{
		{"a pod template's nfs, no policy", none, "deployments", deployment(nfs), "spec.template.spec.volumes[].nfs"},
		{"a pod template's nfs, no lookup at all", bare, "deployments", deployment(nfs), "spec.template.spec.volumes[].nfs"},
		{"a pod template's nfs, allowed", nfsOnly, "deployments", deployment(nfs), ""},
		{"a pod template's iSCSI, nfs allowed", nfsOnly, "deployments", deployment(`"iscsi":{"targetPortal":"10.0.0.6:3260","iqn":"iqn.x","lun":0}`),
			"spec.template.spec.volumes[].iscsi"},
		{"a pod template's gitRepo", nfsOnly, "deployments", deployment(`"gitRepo":{"repository":"http://169.254.169.254/"}`), "spec.template.spec.volumes[].gitRepo"},
		{"a pod template's own sources", none, "deployments", deployment(`"configMap":{"name":"cfg"}`), ""},
		{"a pod template's inline CSI volume", none, "deployments", deployment(`"csi":{"driver":"secrets-store.csi.k8s.io"}`), ""},
		{"a volume's CSI handle", nfsOnly, "persistentvolumes", pv(`"csi":{"driver":"ebs.csi.aws.com","volumeHandle":"vol-0beta"}`), "spec.csi"},
		{"a volume's nfs, allowed", nfsOnly, "persistentvolumes", pv(nfs), ""},
		{"a volume's cloud disk", nfsOnly, "persistentvolumes", pv(`"awsElasticBlockStore":{"volumeID":"vol-0beta"}`), "spec.awsElasticBlockStore"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			group := ""
			if tc.gr == "deployments" {
				group = "apps"
			}
			err := tc.tr.ObjectToUpstream(gr(group, tc.gr), tc.obj)
			if tc.denied == "" {
				require.NoError(t, err)
				return
			}
			requireForbidden(t, err, tc.denied)
			assert.Contains(t, err.Error(), "--volume-sources")
		})
	}
	for _, rule := range Kinds() {
		for _, path := range rule.PodSpecPaths() {
			t.Run("every pod spec: "+rule.Resource.String(), func(t *testing.T) {
				obj := map[string]any{"metadata": map[string]any{"name": "x", "namespace": "default"}}
				spec := obj
				for _, key := range strings.Split(path, ".") {
					next := map[string]any{}
					spec[key] = next
					spec = next
				}
				spec["volumes"] = []any{map[string]any{"name": "b", "nfs": map[string]any{"server": "10.0.0.5", "path": "/"}}}
				requireForbidden(t, none.ObjectToUpstream(rule.Resource, obj), path+".volumes[].nfs")
			})
		}
	}
}

// TestVolumeSourcePatches: a merge patch or JSON patch that adds an
// external source is judged like a whole object.
func TestVolumeSourcePatches(t *testing.T) {
	tr := New(MustTenant("acme"), Options{Shared: fakeShared{}, Platform: &fakePlatform{}})
	for _, tc := range []struct{ name, ct, body string }{
		{"merge patch", MediaMergePatch, `{"spec":{"template":{"spec":{"volumes":[{"name":"b","nfs":{"server":"10.0.0.5","path":"/"}}]}}}}`},
		{"json patch", MediaJSONPatch, `[{"op":"add","path":"/spec/template/spec/volumes/-","value":{"name":"b","nfs":{"server":"10.0.0.5","path":"/"}}}]`},
		{"json patch of the source alone", MediaJSONPatch, `[{"op":"add","path":"/spec/template/spec/volumes/0/nfs","value":{"server":"10.0.0.5","path":"/"}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tr.TranslateRequest(Request{Method: "PATCH", Path: "/apis/apps/v1/namespaces/default/deployments/d",
				Header: map[string][]string{"Content-Type": {tc.ct}}, Body: []byte(tc.body)})
			requireForbidden(t, err, "volumes[].nfs")
		})
	}
}
