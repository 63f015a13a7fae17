package translate

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakePlatform is the PlatformLookup of the tests: namespace acme-prod
// carries the platform's labels and annotations, storage class acme-fast a
// tenant's own; system-node-critical is a positive class, low a zero one.
type fakePlatform struct {
	level   string
	allowed map[string][]string
	lookups int
	// volumeSources and ingressHosts are the tenant policy's lists.
	volumeSources, ingressHosts []string
}

func (f *fakePlatform) AllowedVolumeSources() ([]string, error) { return f.volumeSources, nil }

func (f *fakePlatform) AllowedIngressHosts() ([]string, error) { return f.ingressHosts, nil }

func (f *fakePlatform) CurrentObject(string) (map[string]any, bool, error) { return nil, false, nil }

func (f *fakePlatform) CurrentMetadata(path string) (Metadata, bool, error) {
	f.lookups++
	switch path {
	case "/api/v1/namespaces/acme-prod":
		return Metadata{
			Labels: map[string]string{TenantLabel: "acme", MetadataNameLabel: "acme-prod", "team": "a",
				PodSecurityEnforce: "baseline", PodSecurityWarn: "baseline", PodSecurityAudit: "baseline"},
			Annotations: map[string]string{PriorityClassesAnnotation: "", "note": "x"},
		}, true, nil
	case "/apis/storage.k8s.io/v1/storageclasses/acme-fast":
		return Metadata{Labels: map[string]string{TenantLabel: "acme"}, Annotations: map[string]string{DefaultStorageClassAnnotation: "false"}}, true, nil
	case "/api/v1/namespaces/acme-broken":
		return Metadata{}, false, errors.New("boom")
	}
	return Metadata{}, false, nil
}

func (f *fakePlatform) PodSecurityLevel() (string, error) {
	if f.level == "" {
		return DefaultPodSecurityLevel, nil
	}
	return f.level, nil
}

func (f *fakePlatform) PriorityClassValue(name string) (int64, bool, error) {
	switch name {
	case "system-node-critical":
		return 2000001000, true, nil
	case "low":
		return 0, true, nil
	case "acme-high":
		return 0, true, nil
	}
	return 0, false, nil
}

func (f *fakePlatform) AllowedPriorityClasses(ns string) ([]string, error) {
	return f.allowed[ns], nil
}

func platformTranslator(f *fakePlatform) *Translator {
	return New(MustTenant("acme"), Options{Shared: fakeShared{}, Platform: f})
}

// TestPlatformMetadataThroughTheProxy drives every kind of write a tenant
// could use to add, change or remove a platform-owned key.
func TestPlatformMetadataThroughTheProxy(t *testing.T) {
	const ns = "/api/v1/namespaces/prod"
	const fast = "/apis/storage.k8s.io/v1/storageclasses/fast"
	cases := []struct {
		name, method, path, ct, body string
		want                         string // JSON of the upstream body; "" when refused
		refusedKey                   string // the key the 403 must name
		level                        string // the tenant's level, when the name does not decide it
	}{
		// create
		{name: "create a namespace gets the tenant's level", method: "POST", path: "/api/v1/namespaces",
			body: `{"metadata":{"name":"new"}}`,
			want: `{"metadata":{"name":"acme-new","labels":{"zoo.kubectl-zoo.io/tenant":"acme","pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/warn":"restricted","pod-security.kubernetes.io/audit":"restricted"}}}`},
		{name: "create a namespace already labeled privileged", method: "POST", path: "/api/v1/namespaces",
			body: `{"metadata":{"name":"new","labels":{"pod-security.kubernetes.io/enforce":"privileged"}}}`, refusedKey: PodSecurityEnforce},
		{name: "create a namespace labeled at the tenant's own level", method: "POST", path: "/api/v1/namespaces",
			body: `{"metadata":{"name":"new","labels":{"pod-security.kubernetes.io/enforce":"restricted","kubernetes.io/metadata.name":"new"}}}`,
			want: `{"metadata":{"name":"acme-new","labels":{"kubernetes.io/metadata.name":"acme-new","zoo.kubectl-zoo.io/tenant":"acme","pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/warn":"restricted","pod-security.kubernetes.io/audit":"restricted"}}}`},
		{name: "a baseline tenant creates a restricted namespace (the e2e framework does)", method: "POST", path: "/api/v1/namespaces",
			body:  `{"metadata":{"name":"new","labels":{"pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/warn":"restricted","pod-security.kubernetes.io/audit":"restricted"}}}`,
			level: "baseline",
			want:  `{"metadata":{"name":"acme-new","labels":{"zoo.kubectl-zoo.io/tenant":"acme","pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/warn":"restricted","pod-security.kubernetes.io/audit":"restricted"}}}`},
		{name: "a baseline tenant names a stricter warn level only", method: "POST", path: "/api/v1/namespaces",
			body:  `{"metadata":{"name":"new","labels":{"pod-security.kubernetes.io/warn":"restricted"}}}`,
			level: "baseline",
			want:  `{"metadata":{"name":"acme-new","labels":{"zoo.kubectl-zoo.io/tenant":"acme","pod-security.kubernetes.io/enforce":"baseline","pod-security.kubernetes.io/warn":"restricted","pod-security.kubernetes.io/audit":"baseline"}}}`},
		{name: "a baseline tenant creates a privileged namespace", method: "POST", path: "/api/v1/namespaces",
			body:  `{"metadata":{"name":"new","labels":{"pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/audit":"privileged"}}}`,
			level: "baseline", refusedKey: PodSecurityAudit},
		{name: "a baseline tenant names a level that is none", method: "POST", path: "/api/v1/namespaces",
			body:  `{"metadata":{"name":"new","labels":{"pod-security.kubernetes.io/enforce":"Restricted"}}}`,
			level: "baseline", refusedKey: PodSecurityEnforce},
		{name: "create a namespace with an enforce-version", method: "POST", path: "/api/v1/namespaces",
			body: `{"metadata":{"name":"new","labels":{"pod-security.kubernetes.io/enforce-version":"v1.0"}}}`, refusedKey: "pod-security.kubernetes.io/enforce-version"},
		{name: "create a namespace with a node selector", method: "POST", path: "/api/v1/namespaces",
			body: `{"metadata":{"name":"new","annotations":{"scheduler.alpha.kubernetes.io/node-selector":"role=infra"}}}`, refusedKey: "scheduler.alpha.kubernetes.io/node-selector"},
		{name: "create a namespace allowing itself priority classes", method: "POST", path: "/api/v1/namespaces",
			body: `{"metadata":{"name":"new","annotations":{"zoo.kubectl-zoo.io/priority-classes":"system-node-critical"}}}`, refusedKey: PriorityClassesAnnotation},
		{name: "odd casing of a platform domain is still the platform's", method: "POST", path: "/api/v1/namespaces",
			body: `{"metadata":{"name":"new","labels":{"Pod-Security.kubernetes.io/enforce":"privileged"}}}`, refusedKey: "Pod-Security.kubernetes.io/enforce"},
		{name: "create a default storage class", method: "POST", path: "/apis/storage.k8s.io/v1/storageclasses",
			body: `{"metadata":{"name":"mine","annotations":{"storageclass.kubernetes.io/is-default-class":"true"}},"provisioner":"x"}`, refusedKey: "storageclass.kubernetes.io/is-default-class"},
		{name: "create a default ingress class", method: "POST", path: "/apis/networking.k8s.io/v1/ingressclasses",
			body: `{"metadata":{"name":"mine","annotations":{"ingressclass.kubernetes.io/is-default-class":"true"}}}`, refusedKey: "ingressclass.kubernetes.io/is-default-class"},
		{name: "pod-security labels on a ConfigMap are the tenant's", method: "POST", path: "/api/v1/namespaces/default/configmaps",
			body: `{"metadata":{"name":"c","labels":{"pod-security.kubernetes.io/enforce":"privileged"}}}`,
			want: `{"metadata":{"name":"c","labels":{"pod-security.kubernetes.io/enforce":"privileged"}}}`},
		// update
		{name: "update omitting platform keys keeps them", method: "PUT", path: ns,
			body: `{"metadata":{"name":"prod","labels":{"team":"b"}}}`,
			want: `{"metadata":{"name":"acme-prod","labels":{"team":"b","zoo.kubectl-zoo.io/tenant":"acme","pod-security.kubernetes.io/enforce":"baseline","pod-security.kubernetes.io/warn":"baseline","pod-security.kubernetes.io/audit":"baseline"},"annotations":{"zoo.kubectl-zoo.io/priority-classes":""}}}`},
		{name: "update with the platform keys unchanged", method: "PUT", path: ns,
			body: `{"metadata":{"name":"prod","labels":{"kubernetes.io/metadata.name":"prod","pod-security.kubernetes.io/enforce":"baseline","pod-security.kubernetes.io/warn":"baseline","pod-security.kubernetes.io/audit":"baseline"},"annotations":{"zoo.kubectl-zoo.io/priority-classes":""}}}`,
			want: `{"metadata":{"name":"acme-prod","labels":{"kubernetes.io/metadata.name":"acme-prod","zoo.kubectl-zoo.io/tenant":"acme","pod-security.kubernetes.io/enforce":"baseline","pod-security.kubernetes.io/warn":"baseline","pod-security.kubernetes.io/audit":"baseline"},"annotations":{"zoo.kubectl-zoo.io/priority-classes":""}}}`},
		{name: "update relabeling privileged", method: "PUT", path: ns,
			body: `{"metadata":{"name":"prod","labels":{"pod-security.kubernetes.io/enforce":"privileged"}}}`, refusedKey: PodSecurityEnforce},
		{name: "update relabeling restricted", method: "PUT", path: ns,
			body: `{"metadata":{"name":"prod","labels":{"pod-security.kubernetes.io/enforce":"restricted"}}}`,
			want: `{"metadata":{"name":"acme-prod","labels":{"zoo.kubectl-zoo.io/tenant":"acme","pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/warn":"baseline","pod-security.kubernetes.io/audit":"baseline"},"annotations":{"zoo.kubectl-zoo.io/priority-classes":""}}}`},
		{name: "update of a restricted tenant's baseline namespace keeping baseline", method: "PUT", path: ns, level: "restricted",
			body: `{"metadata":{"name":"prod","labels":{"pod-security.kubernetes.io/enforce":"baseline"}}}`,
			want: `{"metadata":{"name":"acme-prod","labels":{"zoo.kubectl-zoo.io/tenant":"acme","pod-security.kubernetes.io/enforce":"baseline","pod-security.kubernetes.io/warn":"baseline","pod-security.kubernetes.io/audit":"baseline"},"annotations":{"zoo.kubectl-zoo.io/priority-classes":""}}}`},
		{name: "update adding a toleration default", method: "PUT", path: ns,
			body: `{"metadata":{"name":"prod","annotations":{"scheduler.alpha.kubernetes.io/defaultTolerations":"[]"}}}`, refusedKey: "scheduler.alpha.kubernetes.io/defaultTolerations"},
		// A namespace's status is the platform's (PlatformStatus): its
		// update is refused before its metadata is looked at.
		{name: "update of the status subresource is refused", method: "PUT", path: ns + "/status",
			body:       `{"metadata":{"name":"prod","labels":{"pod-security.kubernetes.io/enforce":"privileged"}}}`,
			refusedKey: "the status of namespaces is written by the shared cluster's controllers"},
		{name: "update of a tenant storage class made default", method: "PUT", path: "/apis/storage.k8s.io/v1/storageclasses/fast",
			body: `{"metadata":{"name":"fast","annotations":{"storageclass.beta.kubernetes.io/is-default-class":"true"}},"provisioner":"x"}`, refusedKey: "storageclass.beta.kubernetes.io/is-default-class"},
		// A tenant may write a default-class annotation "false", and drop
		// it; never another value.
		{name: "update of a tenant storage class dropping its false default", method: "PUT", path: fast,
			body: `{"metadata":{"name":"fast"},"provisioner":"x"}`,
			want: `{"metadata":{"name":"acme-fast","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},"provisioner":"x"}`},
		{name: "update of a tenant storage class keeping false", method: "PUT", path: fast,
			body: `{"metadata":{"name":"fast","annotations":{"storageclass.kubernetes.io/is-default-class":"false"}},"provisioner":"x"}`,
			want: `{"metadata":{"name":"acme-fast","labels":{"zoo.kubectl-zoo.io/tenant":"acme"},"annotations":{"storageclass.kubernetes.io/is-default-class":"false"}},"provisioner":"x"}`},
		{name: "merge patch of false to true", method: "PATCH", path: fast, ct: MediaMergePatch,
			body: `{"metadata":{"annotations":{"storageclass.kubernetes.io/is-default-class":"true"}}}`, refusedKey: DefaultStorageClassAnnotation},
		{name: "merge patch removing false", method: "PATCH", path: fast, ct: MediaMergePatch,
			body: `{"metadata":{"annotations":{"storageclass.kubernetes.io/is-default-class":null}}}`,
			want: `{"metadata":{"annotations":{"storageclass.kubernetes.io/is-default-class":null},"labels":{"zoo.kubectl-zoo.io/tenant":"acme"}}}`},
		{name: "json patch replacing false by true", method: "PATCH", path: fast, ct: MediaJSONPatch,
			body: `[{"op":"replace","path":"/metadata/annotations/storageclass.kubernetes.io~1is-default-class","value":"true"}]`, refusedKey: DefaultStorageClassAnnotation},
		{name: "merge patch of a missing class to true", method: "PATCH", path: "/apis/storage.k8s.io/v1/storageclasses/missing", ct: MediaMergePatch,
			body: `{"metadata":{"annotations":{"storageclass.kubernetes.io/is-default-class":"true"}}}`, refusedKey: DefaultStorageClassAnnotation},
		{name: "json patch of a missing class to true", method: "PATCH", path: "/apis/storage.k8s.io/v1/storageclasses/missing", ct: MediaJSONPatch,
			body: `[{"op":"add","path":"/metadata/annotations/storageclass.kubernetes.io~1is-default-class","value":"true"}]`, refusedKey: DefaultStorageClassAnnotation},
		{name: "json patch removing all annotations", method: "PATCH", path: fast, ct: MediaJSONPatch,
			body: `[{"op":"remove","path":"/metadata/annotations"}]`, want: `[{"op":"remove","path":"/metadata/annotations"}]`},
		{name: "apply of the beta key true", method: "PATCH", path: fast, ct: MediaApplyPatch,
			body:       `{"apiVersion":"storage.k8s.io/v1","kind":"StorageClass","metadata":{"name":"fast","annotations":{"storageclass.beta.kubernetes.io/is-default-class":"true"}},"provisioner":"x"}`,
			refusedKey: BetaDefaultStorageClassAnnotation},
		// merge and strategic merge patches (kubectl label/annotate)
		{name: "kubectl label --overwrite enforce=privileged", method: "PATCH", path: ns, ct: MediaMergePatch,
			body: `{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"privileged"}}}`, refusedKey: PodSecurityEnforce},
		{name: "kubectl label enforce-", method: "PATCH", path: ns, ct: MediaStrategic,
			body: `{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":null}}}`, refusedKey: PodSecurityEnforce},
		{name: "merge patch setting the current value", method: "PATCH", path: ns, ct: MediaMergePatch,
			body: `{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"baseline","team":"c"}}}`,
			want: `{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"baseline","team":"c","zoo.kubectl-zoo.io/tenant":"acme"}}}`},
		{name: "kubectl label --overwrite enforce=restricted warn=restricted", method: "PATCH", path: ns, ct: MediaMergePatch,
			body: `{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/warn":"restricted"}}}`,
			want: `{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/warn":"restricted","zoo.kubectl-zoo.io/tenant":"acme"}}}`},
		{name: "kubectl label --overwrite audit=privileged", method: "PATCH", path: ns, ct: MediaStrategic,
			body: `{"metadata":{"labels":{"pod-security.kubernetes.io/audit":"privileged"}}}`, refusedKey: PodSecurityAudit},
		{name: "merge patch adding enforce-version", method: "PATCH", path: ns, ct: MediaMergePatch,
			body: `{"metadata":{"labels":{"pod-security.kubernetes.io/enforce-version":"v1.20"}}}`, refusedKey: "pod-security.kubernetes.io/enforce-version"},
		{name: "merge patch nulling annotations", method: "PATCH", path: ns, ct: MediaMergePatch,
			body: `{"metadata":{"annotations":null}}`, refusedKey: PriorityClassesAnnotation},
		{name: "merge patch nulling metadata", method: "PATCH", path: ns, ct: MediaMergePatch,
			body: `{"metadata":null}`, refusedKey: "pod-security.kubernetes.io/"},
		{name: "strategic replace of the labels keeps platform keys", method: "PATCH", path: ns, ct: MediaStrategic,
			body: `{"metadata":{"labels":{"$patch":"replace","team":"z"}}}`,
			want: `{"metadata":{"labels":{"$patch":"replace","team":"z","zoo.kubectl-zoo.io/tenant":"acme","pod-security.kubernetes.io/enforce":"baseline","pod-security.kubernetes.io/warn":"baseline","pod-security.kubernetes.io/audit":"baseline"}}}`},
		{name: "strategic delete of the annotations", method: "PATCH", path: ns, ct: MediaStrategic,
			body: `{"metadata":{"annotations":{"$patch":"delete"}}}`, refusedKey: PriorityClassesAnnotation},
		{name: "strategic retainKeys in metadata", method: "PATCH", path: ns, ct: MediaStrategic,
			body: `{"metadata":{"$retainKeys":["name"]}}`, refusedKey: "$retainKeys"},
		{name: "merge patch of other fields needs no lookup", method: "PATCH", path: ns, ct: MediaMergePatch,
			body: `{"spec":{"finalizers":["kubernetes"]}}`, want: `{"spec":{"finalizers":["kubernetes"]}}`},
		// json patch
		{name: "json patch replace enforce", method: "PATCH", path: ns, ct: MediaJSONPatch,
			body: `[{"op":"replace","path":"/metadata/labels/pod-security.kubernetes.io~1enforce","value":"privileged"}]`, refusedKey: PodSecurityEnforce},
		{name: "json patch replace enforce restricted", method: "PATCH", path: ns, ct: MediaJSONPatch,
			body: `[{"op":"replace","path":"/metadata/labels/pod-security.kubernetes.io~1enforce","value":"restricted"}]`,
			want: `[{"op":"replace","path":"/metadata/labels/pod-security.kubernetes.io~1enforce","value":"restricted"}]`},
		{name: "json patch replacing all labels with restricted keeps the others", method: "PATCH", path: ns, ct: MediaJSONPatch,
			body: `[{"op":"replace","path":"/metadata/labels","value":{"pod-security.kubernetes.io/enforce":"restricted"}}]`,
			want: `[{"op":"replace","path":"/metadata/labels","value":{"zoo.kubectl-zoo.io/tenant":"acme","pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/warn":"baseline","pod-security.kubernetes.io/audit":"baseline"}}]`},
		{name: "json patch remove enforce", method: "PATCH", path: ns, ct: MediaJSONPatch,
			body: `[{"op":"remove","path":"/metadata/labels/pod-security.kubernetes.io~1enforce"}]`, refusedKey: PodSecurityEnforce},
		{name: "json patch move enforce away", method: "PATCH", path: ns, ct: MediaJSONPatch,
			body: `[{"op":"move","from":"/metadata/labels/pod-security.kubernetes.io~1enforce","path":"/metadata/labels/x"}]`, refusedKey: PodSecurityEnforce},
		{name: "json patch copy onto warn", method: "PATCH", path: ns, ct: MediaJSONPatch,
			body: `[{"op":"copy","from":"/metadata/labels/team","path":"/metadata/labels/pod-security.kubernetes.io~1warn"}]`, refusedKey: PodSecurityWarn},
		{name: "json patch test and same value", method: "PATCH", path: ns, ct: MediaJSONPatch,
			body: `[{"op":"test","path":"/metadata/labels/pod-security.kubernetes.io~1enforce","value":"baseline"},{"op":"replace","path":"/metadata/labels/pod-security.kubernetes.io~1enforce","value":"baseline"}]`,
			want: `[{"op":"test","path":"/metadata/labels/pod-security.kubernetes.io~1enforce","value":"baseline"},{"op":"replace","path":"/metadata/labels/pod-security.kubernetes.io~1enforce","value":"baseline"}]`},
		{name: "json patch replacing all labels keeps platform keys", method: "PATCH", path: ns, ct: MediaJSONPatch,
			body: `[{"op":"replace","path":"/metadata/labels","value":{"a":"b"}}]`,
			want: `[{"op":"replace","path":"/metadata/labels","value":{"a":"b","zoo.kubectl-zoo.io/tenant":"acme","pod-security.kubernetes.io/enforce":"baseline","pod-security.kubernetes.io/warn":"baseline","pod-security.kubernetes.io/audit":"baseline"}}]`},
		{name: "json patch replacing all labels with privileged", method: "PATCH", path: ns, ct: MediaJSONPatch,
			body: `[{"op":"replace","path":"/metadata/labels","value":{"pod-security.kubernetes.io/enforce":"privileged"}}]`, refusedKey: PodSecurityEnforce},
		{name: "json patch removing the annotations", method: "PATCH", path: ns, ct: MediaJSONPatch,
			body: `[{"op":"remove","path":"/metadata/annotations"}]`, refusedKey: PriorityClassesAnnotation},
		{name: "json patch replacing the metadata", method: "PATCH", path: ns, ct: MediaJSONPatch,
			body: `[{"op":"replace","path":"/metadata","value":{"name":"prod","labels":{"pod-security.kubernetes.io/audit":"privileged"}}}]`, refusedKey: PodSecurityAudit},
		{name: "json patch replacing the whole object", method: "PATCH", path: ns, ct: MediaJSONPatch,
			body: `[{"op":"replace","path":"","value":{"metadata":{"name":"prod"}}}]`,
			want: `[{"op":"replace","path":"","value":{"metadata":{"name":"acme-prod","labels":{"zoo.kubectl-zoo.io/tenant":"acme","pod-security.kubernetes.io/enforce":"baseline","pod-security.kubernetes.io/warn":"baseline","pod-security.kubernetes.io/audit":"baseline"},"annotations":{"zoo.kubectl-zoo.io/priority-classes":""}}}}]`},
		// server-side apply
		{name: "apply omitting platform keys keeps them", method: "PATCH", path: ns, ct: MediaApplyPatch,
			body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"prod","labels":{"team":"a"}}}`,
			want: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"acme-prod","labels":{"team":"a","zoo.kubectl-zoo.io/tenant":"acme","pod-security.kubernetes.io/enforce":"baseline","pod-security.kubernetes.io/warn":"baseline","pod-security.kubernetes.io/audit":"baseline"},"annotations":{"zoo.kubectl-zoo.io/priority-classes":""}}}`},
		{name: "apply relabeling privileged", method: "PATCH", path: ns, ct: MediaApplyPatch,
			body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"prod","labels":{"pod-security.kubernetes.io/enforce":"privileged"}}}`, refusedKey: PodSecurityEnforce},
		{name: "apply creating a namespace gets the level", method: "PATCH", path: "/api/v1/namespaces/fresh", ct: MediaApplyPatch,
			body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fresh"}}`,
			want: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"acme-fresh","labels":{"zoo.kubectl-zoo.io/tenant":"acme","pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/warn":"restricted","pod-security.kubernetes.io/audit":"restricted"}}}`},
		{name: "apply relabeling restricted", method: "PATCH", path: ns, ct: MediaApplyPatch,
			body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"prod","labels":{"pod-security.kubernetes.io/enforce":"restricted"}}}`,
			want: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"acme-prod","labels":{"zoo.kubectl-zoo.io/tenant":"acme","pod-security.kubernetes.io/enforce":"restricted","pod-security.kubernetes.io/warn":"baseline","pod-security.kubernetes.io/audit":"baseline"},"annotations":{"zoo.kubectl-zoo.io/priority-classes":""}}}`},
		{name: "apply creating a privileged namespace", method: "PATCH", path: "/api/v1/namespaces/fresh", ct: MediaApplyPatch,
			body: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fresh","labels":{"pod-security.kubernetes.io/enforce":"privileged"}}}`, refusedKey: PodSecurityEnforce},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakePlatform{level: "restricted"}
			if !strings.HasPrefix(tc.name, "create") && !strings.HasPrefix(tc.name, "apply creating") && !strings.HasPrefix(tc.name, "odd") {
				f.level = "" // the existing namespace is at the default
			}
			if tc.level != "" {
				f.level = tc.level
			}
			tr := platformTranslator(f)
			h := http.Header{}
			h.Set("Content-Type", tc.ct)
			if tc.ct == "" {
				h.Set("Content-Type", MediaJSON)
			}
			u, err := tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Header: h, Body: []byte(tc.body)})
			if tc.refusedKey != "" {
				require.Error(t, err)
				st := ToStatus(err)
				assert.Equal(t, int32(http.StatusForbidden), st.Code, st.Message)
				assert.Contains(t, st.Message, tc.refusedKey)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(u.Body))
		})
	}
}

func TestPlatformMetadataLookups(t *testing.T) {
	t.Run("a patch that does not touch metadata reads nothing", func(t *testing.T) {
		f := &fakePlatform{}
		_, err := platformTranslator(f).TranslateRequest(Request{Method: "PATCH", Path: "/api/v1/namespaces/prod",
			Header: http.Header{"Content-Type": {MediaMergePatch}}, Body: []byte(`{"spec":{}}`)})
		require.NoError(t, err)
		assert.Zero(t, f.lookups)
	})
	t.Run("a ConfigMap update reads nothing", func(t *testing.T) {
		f := &fakePlatform{}
		_, err := platformTranslator(f).TranslateRequest(Request{Method: "PUT", Path: "/api/v1/namespaces/default/configmaps/c",
			Header: http.Header{"Content-Type": {MediaJSON}}, Body: []byte(`{"metadata":{"name":"c"}}`)})
		require.NoError(t, err)
		assert.Zero(t, f.lookups)
	})
	t.Run("a failed lookup refuses the write", func(t *testing.T) {
		_, err := platformTranslator(&fakePlatform{}).TranslateRequest(Request{Method: "PUT", Path: "/api/v1/namespaces/broken",
			Header: http.Header{"Content-Type": {MediaJSON}}, Body: []byte(`{"metadata":{"name":"broken"}}`)})
		require.Error(t, err)
		assert.Equal(t, int32(http.StatusServiceUnavailable), ToStatus(err).Code)
	})
}

// TestPriorityThroughTheProxy: pods and every pod template may not name a
// cluster PriorityClass of positive value unless the namespace allows it.
func TestPriorityThroughTheProxy(t *testing.T) {
	cases := []struct {
		name, method, path, ct, body string
		allowed                      map[string][]string
		refused                      bool
	}{
		{name: "pod with system-node-critical", method: "POST", path: "/api/v1/namespaces/default/pods",
			body: `{"metadata":{"name":"p"},"spec":{"priorityClassName":"system-node-critical"}}`, refused: true},
		{name: "pod allowed by its namespace", method: "POST", path: "/api/v1/namespaces/default/pods",
			body:    `{"metadata":{"name":"p"},"spec":{"priorityClassName":"system-node-critical"}}`,
			allowed: map[string][]string{"acme-default": {"system-node-critical"}}},
		{name: "pod allowed in another namespace only", method: "POST", path: "/api/v1/namespaces/default/pods",
			body:    `{"metadata":{"name":"p"},"spec":{"priorityClassName":"system-node-critical"}}`,
			allowed: map[string][]string{"acme-prod": {"system-node-critical"}}, refused: true},
		{name: "pod with a zero class", method: "POST", path: "/api/v1/namespaces/default/pods",
			body: `{"metadata":{"name":"p"},"spec":{"priorityClassName":"low"}}`},
		{name: "pod with its tenant's own class", method: "POST", path: "/api/v1/namespaces/default/pods",
			body: `{"metadata":{"name":"p"},"spec":{"priorityClassName":"high"}}`},
		{name: "pod without a class", method: "POST", path: "/api/v1/namespaces/default/pods", body: `{"metadata":{"name":"p"},"spec":{}}`},
		{name: "pod update is not judged again (priority is immutable)", method: "PUT", path: "/api/v1/namespaces/default/pods/p",
			body: `{"metadata":{"name":"p"},"spec":{"priorityClassName":"system-node-critical"}}`},
		{name: "deployment", method: "POST", path: "/apis/apps/v1/namespaces/default/deployments",
			body: `{"metadata":{"name":"d"},"spec":{"template":{"spec":{"priorityClassName":"system-node-critical"}}}}`, refused: true},
		{name: "deployment update", method: "PUT", path: "/apis/apps/v1/namespaces/default/deployments/d",
			body: `{"metadata":{"name":"d"},"spec":{"template":{"spec":{"priorityClassName":"system-node-critical"}}}}`, refused: true},
		{name: "statefulset", method: "POST", path: "/apis/apps/v1/namespaces/default/statefulsets",
			body: `{"metadata":{"name":"s"},"spec":{"template":{"spec":{"priorityClassName":"system-node-critical"}}}}`, refused: true},
		{name: "daemonset", method: "POST", path: "/apis/apps/v1/namespaces/default/daemonsets",
			body: `{"metadata":{"name":"s"},"spec":{"template":{"spec":{"priorityClassName":"system-node-critical"}}}}`, refused: true},
		{name: "replicaset", method: "POST", path: "/apis/apps/v1/namespaces/default/replicasets",
			body: `{"metadata":{"name":"s"},"spec":{"template":{"spec":{"priorityClassName":"system-node-critical"}}}}`, refused: true},
		{name: "replicationcontroller", method: "POST", path: "/api/v1/namespaces/default/replicationcontrollers",
			body: `{"metadata":{"name":"s"},"spec":{"template":{"spec":{"priorityClassName":"system-node-critical"}}}}`, refused: true},
		{name: "podtemplate", method: "POST", path: "/api/v1/namespaces/default/podtemplates",
			body: `{"metadata":{"name":"s"},"template":{"spec":{"priorityClassName":"system-node-critical"}}}`, refused: true},
		{name: "job", method: "POST", path: "/apis/batch/v1/namespaces/default/jobs",
			body: `{"metadata":{"name":"j"},"spec":{"template":{"spec":{"priorityClassName":"system-node-critical"}}}}`, refused: true},
		{name: "cronjob", method: "POST", path: "/apis/batch/v1/namespaces/default/cronjobs",
			body: `{"metadata":{"name":"c"},"spec":{"jobTemplate":{"spec":{"template":{"spec":{"priorityClassName":"system-node-critical"}}}}}}`, refused: true},
		{name: "strategic patch of a deployment's template", method: "PATCH", path: "/apis/apps/v1/namespaces/default/deployments/d", ct: MediaStrategic,
			body: `{"spec":{"template":{"spec":{"priorityClassName":"system-node-critical"}}}}`, refused: true},
		{name: "json patch of a cronjob's template", method: "PATCH", path: "/apis/batch/v1/namespaces/default/cronjobs/c", ct: MediaJSONPatch,
			body: `[{"op":"add","path":"/spec/jobTemplate/spec/template/spec/priorityClassName","value":"system-node-critical"}]`, refused: true},
		{name: "apply of a job", method: "PATCH", path: "/apis/batch/v1/namespaces/default/jobs/j", ct: MediaApplyPatch,
			body: `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j"},"spec":{"template":{"spec":{"priorityClassName":"system-node-critical"}}}}`, refused: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tr := platformTranslator(&fakePlatform{allowed: tc.allowed})
			ct := tc.ct
			if ct == "" {
				ct = MediaJSON
			}
			_, err := tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Header: http.Header{"Content-Type": {ct}}, Body: []byte(tc.body)})
			if !tc.refused {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			st := ToStatus(err)
			assert.Equal(t, int32(http.StatusForbidden), st.Code, st.Message)
			assert.Contains(t, st.Message, "system-node-critical")
		})
	}
}

func TestPlatformTable(t *testing.T) {
	for _, row := range PlatformMetadata() {
		t.Run(row.Key, func(t *testing.T) {
			assert.NotEmpty(t, row.Reader)
			assert.Equal(t, strings.ToLower(row.Key), row.Key, "keys are matched case-sensitively, as the API server does")
		})
	}
	_, ok := platformKey(grNamespace, false, TenantLabel)
	assert.False(t, ok, "the ownership label has rules of its own")
	_, ok = platformKey(grNamespace, false, MetadataNameLabel)
	assert.False(t, ok, "the API server keeps kubernetes.io/metadata.name")
	_, ok = platformKey(grNamespace, false, "pod-security.kubernetes.io/enforce-version")
	assert.True(t, ok)
	_, ok = platformKey(grNamespace, false, "app.kubernetes.io/name")
	assert.False(t, ok, "recommended labels stay the tenant's")
	assert.Equal(t, []string{"a", " b"}, ParsePriorityClasses("a,, b,"))
	require.NoError(t, ValidatePodSecurityLevel("baseline"))
	require.Error(t, ValidatePodSecurityLevel("Baseline"))
}
