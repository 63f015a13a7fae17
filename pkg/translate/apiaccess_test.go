package translate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

func newAPIAccessTranslator(t testing.TB) *Translator {
	t.Helper()
	tr := newTestTranslator(t)
	tr.opts.APIAccess = true
	return tr
}

// TestAPIAccessGolden injects the API access into every kind the kinds
// table says holds a pod spec (its golden tenant object), compares with
// testdata/translate/apiaccess/<kind>.upstream.yaml, and reads it back as
// the tenant wrote it — with and without the option (a local serve hides it
// too).
func TestAPIAccessGolden(t *testing.T) {
	tr := newAPIAccessTranslator(t)
	kinds := 0
	for _, rule := range Kinds() {
		if !rule.HasPodSpecs() {
			continue
		}
		kinds++
		name := goldenName(rule)
		t.Run(name, func(t *testing.T) {
			tenantFile := filepath.Join(goldenDir, name+".tenant.yaml")
			upstreamFile := filepath.Join(goldenDir, "apiaccess", name+".upstream.yaml")
			up := readYAML(t, tenantFile)
			require.NoError(t, tr.objectIn(rule, up))
			if *update {
				data, err := yaml.Marshal(normalize(t, up))
				require.NoError(t, err)
				require.NoError(t, os.MkdirAll(filepath.Dir(upstreamFile), 0o755))
				require.NoError(t, os.WriteFile(upstreamFile, data, 0o644))
			}
			assert.Equal(t, normalize(t, readYAML(t, upstreamFile)), normalize(t, up), "tenant → upstream")
			for _, reader := range []*Translator{tr, newTestTranslator(t)} {
				back := readYAML(t, upstreamFile)
				require.NoError(t, reader.objectOut(rule, back))
				assert.Equal(t, normalize(t, readYAML(t, tenantFile)), normalize(t, back), "upstream → tenant")
			}
			again := readYAML(t, upstreamFile)
			require.NoError(t, tr.objectOut(rule, again))
			require.NoError(t, tr.objectIn(rule, again))
			assert.Equal(t, normalize(t, up), normalize(t, again), "written back from the view: injected once")
		})
	}
	assert.Equal(t, 9, kinds, "pods, pod templates, replication controllers, deployments, replica sets, daemon sets, stateful sets, jobs and cron jobs")
}

// TestAPIAccessPodSpec covers who gets what in one pod spec.
func TestAPIAccessPodSpec(t *testing.T) {
	mount := `{"name":"zoo-kube-api-access","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","readOnly":true}`
	env := `{"name":"KUBERNETES_SERVICE_HOST","valueFrom":{"configMapKeyRef":{"name":"zoo-kube-api-access","key":"host"}}},` +
		`{"name":"KUBERNETES_SERVICE_PORT","valueFrom":{"configMapKeyRef":{"name":"zoo-kube-api-access","key":"port"}}}`
	volume := `{"name":"zoo-kube-api-access","projected":{"defaultMode":420,"sources":[` +
		`{"serviceAccountToken":{"path":"token","expirationSeconds":3607}},` +
		`{"configMap":{"name":"zoo-kube-api-access","items":[{"key":"ca.crt","path":"ca.crt"},{"key":"namespace","path":"namespace"}]}}]}}`
	cases := []struct {
		name, spec, want string
	}{
		{"every container, init and ephemeral ones too",
			`{"initContainers":[{"name":"i"}],"containers":[{"name":"a"},{"name":"b","env":[{"name":"X","value":"$(KUBERNETES_SERVICE_HOST)"}]}],"ephemeralContainers":[{"name":"e"}]}`,
			`{"initContainers":[{"name":"i","volumeMounts":[` + mount + `],"env":[` + env + `]}],` +
				`"containers":[{"name":"a","volumeMounts":[` + mount + `],"env":[` + env + `]},` +
				`{"name":"b","volumeMounts":[` + mount + `],"env":[` + env + `,{"name":"X","value":"$(KUBERNETES_SERVICE_HOST)"}]}],` +
				`"ephemeralContainers":[{"name":"e","volumeMounts":[` + mount + `],"env":[` + env + `]}],"volumes":[` + volume + `]}`},
		{"the pod opts out", `{"automountServiceAccountToken":false,"containers":[{"name":"a"}]}`,
			`{"automountServiceAccountToken":false,"containers":[{"name":"a"}]}`},
		{"the pod opts in explicitly", `{"automountServiceAccountToken":true,"containers":[{"name":"a"}]}`,
			`{"automountServiceAccountToken":true,"containers":[{"name":"a","volumeMounts":[` + mount + `],"env":[` + env + `]}],"volumes":[` + volume + `]}`},
		{"a container that mounts the path itself keeps its own",
			`{"containers":[{"name":"own","volumeMounts":[{"name":"t","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]},{"name":"a"}],"volumes":[{"name":"t","secret":{"secretName":"t"}}]}`,
			`{"containers":[{"name":"own","volumeMounts":[{"name":"t","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]},{"name":"a","volumeMounts":[` + mount + `],"env":[` + env + `]}],` +
				`"volumes":[{"name":"t","secret":{"secretName":"t"}},` + volume + `]}`},
		{"no container mounts it: no volume",
			`{"containers":[{"name":"own","volumeMounts":[{"name":"t","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}],"volumes":[{"name":"t","emptyDir":{}}]}`,
			`{"containers":[{"name":"own","volumeMounts":[{"name":"t","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}],"volumes":[{"name":"t","emptyDir":{}}]}`},
		{"a container naming its API server keeps it, and gets the files",
			`{"containers":[{"name":"a","env":[{"name":"KUBERNETES_SERVICE_HOST","value":"api.example.com"}]}]}`,
			`{"containers":[{"name":"a","env":[{"name":"KUBERNETES_SERVICE_HOST","value":"api.example.com"}],"volumeMounts":[` + mount + `]}],"volumes":[` + volume + `]}`},
		{"injected variables sent back are there once",
			`{"containers":[{"name":"a","env":[` + env + `,{"name":"Y","value":"1"}]}]}`,
			`{"containers":[{"name":"a","volumeMounts":[` + mount + `],"env":[` + env + `,{"name":"Y","value":"1"}]}],"volumes":[` + volume + `]}`},
		{"no containers (a partial apply configuration)", `{"serviceAccountName":"op"}`, `{"serviceAccountName":"op"}`},
	}
	tr := newAPIAccessTranslator(t)
	rule, _ := LookupKind(grPod)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			obj := map[string]any{"metadata": map[string]any{"name": "p", "namespace": "default"}}
			var spec map[string]any
			require.NoError(t, decodeJSON([]byte(c.spec), &spec))
			obj["spec"] = spec
			require.NoError(t, tr.objectIn(rule, obj))
			var want map[string]any
			require.NoError(t, decodeJSON([]byte(c.want), &want))
			assert.Equal(t, normalize(t, want), normalize(t, obj["spec"]))
			require.NoError(t, tr.objectOut(rule, obj))
			var orig map[string]any
			require.NoError(t, decodeJSON([]byte(c.spec), &orig))
			stripAPIAccess(orig) // the injected variables a client sent are not the tenant's
			assert.Equal(t, normalize(t, orig), normalize(t, obj["spec"]), "the tenant's view")
		})
	}
}

// TestAPIAccessReservedVolume: a tenant volume named as kubectl-zoo's would
// be hidden from its view, so it is refused (403 naming it), with and
// without the option.
func TestAPIAccessReservedVolume(t *testing.T) {
	for _, tr := range []*Translator{newAPIAccessTranslator(t), newTestTranslator(t)} {
		for _, rule := range Kinds() {
			if !rule.HasPodSpecs() {
				continue
			}
			obj := readYAML(t, filepath.Join(goldenDir, goldenName(rule)+".tenant.yaml"))
			require.NoError(t, podSpecs(rule, obj, func(spec map[string]any) error {
				spec["volumes"] = []any{map[string]any{"name": APIAccessName, "emptyDir": map[string]any{}}}
				return nil
			}))
			err := tr.objectIn(rule, obj)
			var e *Error
			require.ErrorAs(t, err, &e, rule.Kind)
			assert.Equal(t, 403, int(e.Code))
			assert.True(t, strings.Contains(e.Message, APIAccessName), e.Message)
		}
	}
}

// FuzzAPIAccessRoundTrip: for any pod spec a tenant writes, the tenant reads
// back what it wrote (less injected variables it sent), writing that view
// back gives the same upstream object, and the upstream holds the volume
// at most once and each mount and variable at most once per container.
func FuzzAPIAccessRoundTrip(f *testing.F) {
	for _, seed := range []string{
		`{"containers":[{"name":"a"}]}`,
		`{"automountServiceAccountToken":false,"containers":[{"name":"a"}]}`,
		`{"initContainers":[{"name":"i","env":[{"name":"KUBERNETES_SERVICE_PORT","value":"1"}]}],"containers":[{"name":"a","volumeMounts":[{"name":"x","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}],"volumes":[{"name":"x"}]}`,
		`{"containers":[{"name":"a","env":[{"name":"KUBERNETES_SERVICE_HOST","valueFrom":{"configMapKeyRef":{"name":"zoo-kube-api-access","key":"host"}}}],"volumeMounts":[{"name":"zoo-kube-api-access","mountPath":"/x"}]}]}`,
		`{"containers":"nope","volumes":[1,{"name":2}],"ephemeralContainers":[null,{"env":[]}]}`,
	} {
		f.Add(seed)
	}
	tr := newAPIAccessTranslator(f)
	rule, _ := LookupKind(grPod)
	f.Fuzz(func(t *testing.T, specJSON string) {
		var spec map[string]any
		if decodeJSON([]byte(specJSON), &spec) != nil || spec == nil {
			return
		}
		var orig map[string]any
		require.NoError(t, decodeJSON([]byte(specJSON), &orig))
		obj := map[string]any{"metadata": map[string]any{"name": "p", "namespace": "default"}, "spec": spec}
		if err := tr.objectIn(rule, obj); err != nil {
			return // refused: nothing stored
		}
		dropEmptyLists(spec)
		up := normalize(t, obj)
		for _, key := range containerLists {
			for _, c := range list(spec, key) {
				ctr := asMap(c)
				counts := map[string]int{}
				for _, m := range list(ctr, "volumeMounts") {
					if str(asMap(m), "name") == APIAccessName {
						counts["mount"]++
					}
				}
				for _, e := range list(ctr, "env") {
					if isAPIAccessVar(asMap(e)) {
						counts[str(asMap(e), "name")]++
					}
				}
				for what, n := range counts {
					assert.LessOrEqual(t, n, 1, "%s in %v", what, ctr)
				}
			}
		}
		volumes := 0
		for _, v := range list(spec, "volumes") {
			if str(asMap(v), "name") == APIAccessName {
				volumes++
			}
		}
		assert.LessOrEqual(t, volumes, 1)
		require.NoError(t, tr.objectOut(rule, obj))
		stripAPIAccess(orig)
		dropEmptyLists(orig)
		assert.Equal(t, normalize(t, orig), normalize(t, obj["spec"]), "the tenant's view")
		require.NoError(t, tr.objectIn(rule, obj))
		assert.Equal(t, up, normalize(t, obj), "written back from the view")
	})
}

// dropEmptyLists removes the empty lists that injection touches: the API
// server stores none (omitempty), so the tenant's view never has one.
func dropEmptyLists(spec map[string]any) {
	drop := func(obj map[string]any, keys ...string) {
		for _, k := range keys {
			if l, ok := obj[k].([]any); ok && len(l) == 0 {
				delete(obj, k)
			}
		}
	}
	drop(spec, "volumes")
	for _, key := range containerLists {
		for _, c := range list(spec, key) {
			if ctr := asMap(c); ctr != nil {
				drop(ctr, "env", "volumeMounts")
			}
		}
	}
}

// TestAPIAccessManagedFields: the field sets of managedFields lose the
// injected fields, of the whole object (the fast path that copies most of
// it raw included) and of a Table row's metadata; a container's own mount
// of the path and its own variables stay.
func TestAPIAccessManagedFields(t *testing.T) {
	const fields = `{"f:spec":{"f:containers":{` +
		`"k:{\"name\":\"operator\"}":{".":{},"f:env":{".":{},"k:{\"name\":\"ENDPOINT\"}":{".":{},"f:name":{},"f:value":{}},` +
		`"k:{\"name\":\"KUBERNETES_SERVICE_HOST\"}":{".":{},"f:name":{},"f:valueFrom":{".":{},"f:configMapKeyRef":{}}},` +
		`"k:{\"name\":\"KUBERNETES_SERVICE_PORT\"}":{".":{},"f:name":{},"f:valueFrom":{".":{},"f:configMapKeyRef":{}}}},` +
		`"f:volumeMounts":{".":{},"k:{\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}":{".":{},"f:mountPath":{},"f:name":{},"f:readOnly":{}}}},` +
		`"k:{\"name\":\"sidecar\"}":{".":{},"f:volumeMounts":{".":{},"k:{\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}":{".":{},"f:mountPath":{},"f:name":{}}}}},` +
		`"f:volumes":{".":{},"k:{\"name\":\"own\"}":{".":{},"f:emptyDir":{},"f:name":{}},"k:{\"name\":\"zoo-kube-api-access\"}":{".":{},"f:name":{},"f:projected":{}}}}}`
	const want = `{"f:spec":{"f:containers":{` +
		`"k:{\"name\":\"operator\"}":{".":{},"f:env":{".":{},"k:{\"name\":\"ENDPOINT\"}":{".":{},"f:name":{},"f:value":{}}}},` +
		`"k:{\"name\":\"sidecar\"}":{".":{},"f:volumeMounts":{".":{},"k:{\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}":{".":{},"f:mountPath":{},"f:name":{}}}}},` +
		`"f:volumes":{".":{},"k:{\"name\":\"own\"}":{".":{},"f:emptyDir":{},"f:name":{}}}}}`
	meta := `"metadata":{"name":"p","namespace":"acme-ops","managedFields":[{"apiVersion":"v1","fieldsType":"FieldsV1","manager":"kube-controller-manager","fieldsV1":` + fields + `}]}`
	spec := `"spec":{"containers":[{"name":"operator","env":[` +
		`{"name":"KUBERNETES_SERVICE_HOST","valueFrom":{"configMapKeyRef":{"name":"zoo-kube-api-access","key":"host"}}},` +
		`{"name":"KUBERNETES_SERVICE_PORT","valueFrom":{"configMapKeyRef":{"name":"zoo-kube-api-access","key":"port"}}},{"name":"ENDPOINT","value":"x"}],` +
		`"volumeMounts":[{"name":"zoo-kube-api-access","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","readOnly":true}]},` +
		`{"name":"sidecar","volumeMounts":[{"name":"own","mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}],` +
		`"volumes":[{"name":"own","emptyDir":{}},{"name":"zoo-kube-api-access","projected":{}}]}`
	tr := newTestTranslator(t)
	rule, _ := LookupKind(grPod)
	for name, doc := range map[string]string{
		"pod":                  `{"apiVersion":"v1","kind":"Pod",` + meta + `,` + spec + `}`,
		"table row's metadata": `{"apiVersion":"meta.k8s.io/v1","kind":"PartialObjectMetadata",` + meta + `}`,
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, tr.objectOutRaw(rule, []byte(doc), &buf))
			var got map[string]any
			require.NoError(t, decodeJSON(buf.Bytes(), &got))
			entry := asMap(list(child(got, "metadata"), "managedFields")[0])
			var wantFields map[string]any
			require.NoError(t, decodeJSON([]byte(want), &wantFields))
			assert.Equal(t, normalize(t, wantFields), normalize(t, entry["fieldsV1"]))
			assert.NotContains(t, buf.String(), APIAccessName)
		})
	}
}
