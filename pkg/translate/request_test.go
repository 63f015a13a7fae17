package translate

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/client-go/kubernetes/scheme"
)

func TestParseRequestInfo(t *testing.T) {
	cases := []struct {
		method, path, query string
		want                RequestInfo
	}{
		{"GET", "/api/v1/namespaces/default/pods", "", RequestInfo{IsResourceRequest: true, Verb: "list", APIPrefix: "api", APIVersion: "v1", Namespace: "default", Resource: "pods"}},
		{"GET", "/api/v1/namespaces/default/pods", "watch=true", RequestInfo{IsResourceRequest: true, Verb: "watch", APIPrefix: "api", APIVersion: "v1", Namespace: "default", Resource: "pods"}},
		{"GET", "/api/v1/watch/namespaces/default/pods/p", "", RequestInfo{IsResourceRequest: true, Verb: "watch", PathWatch: true, APIPrefix: "api", APIVersion: "v1", Namespace: "default", Resource: "pods", Name: "p"}},
		{"GET", "/api/v1/namespaces/default", "", RequestInfo{IsResourceRequest: true, Verb: "get", APIPrefix: "api", APIVersion: "v1", Resource: "namespaces", Name: "default"}},
		{"PUT", "/api/v1/namespaces/default/finalize", "", RequestInfo{IsResourceRequest: true, Verb: "update", APIPrefix: "api", APIVersion: "v1", Resource: "namespaces", Name: "default", Subresource: "finalize"}},
		{"POST", "/apis/apps/v1/namespaces/x/deployments", "", RequestInfo{IsResourceRequest: true, Verb: "create", APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1", Namespace: "x", Resource: "deployments"}},
		{"DELETE", "/apis/rbac.authorization.k8s.io/v1/clusterroles", "", RequestInfo{IsResourceRequest: true, Verb: "deletecollection", APIPrefix: "apis", APIGroup: "rbac.authorization.k8s.io", APIVersion: "v1", Resource: "clusterroles"}},
		{"GET", "/api/v1/namespaces/d/pods/p/proxy/a/b", "", RequestInfo{IsResourceRequest: true, Verb: "get", APIPrefix: "api", APIVersion: "v1", Namespace: "d", Resource: "pods", Name: "p", Subresource: "proxy", Rest: []string{"a", "b"}}},
		{"GET", "/apis/apps/v1", "", RequestInfo{Verb: "get", APIPrefix: "apis", APIGroup: "apps", APIVersion: "v1"}},
		{"GET", "/version", "", RequestInfo{Verb: "get"}},
	}
	for _, tc := range cases {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			require.NoError(t, err)
			got := ParseRequestInfo(tc.method, tc.path, q)
			tc.want.Path = tc.path
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestTranslateRequestPaths(t *testing.T) {
	tr := newTestTranslator(t)
	cases := []struct {
		name, method, path, query string
		wantPath, wantQuery       string
		plan                      Plan
		resp                      ResponseKind
		code                      int32
	}{
		{name: "namespaced get", method: "GET", path: "/api/v1/namespaces/default/configmaps/cfg", wantPath: "/api/v1/namespaces/acme-default/configmaps/cfg"},
		{name: "namespace get", method: "GET", path: "/api/v1/namespaces/default", wantPath: "/api/v1/namespaces/acme-default"},
		{name: "namespace list gets the tenant selector", method: "GET", path: "/api/v1/namespaces", query: "labelSelector=kubernetes.io/metadata.name in (a,b)&limit=5&continue=abc",
			wantPath: "/api/v1/namespaces", wantQuery: "continue=abc&labelSelector=kubernetes.io%2Fmetadata.name+in+%28acme-a%2Cacme-b%29%2Czoo.kubectl-zoo.io%2Ftenant%3Dacme&limit=5"},
		{name: "cluster role by name", method: "DELETE", path: "/apis/rbac.authorization.k8s.io/v1/clusterroles/view", wantPath: "/apis/rbac.authorization.k8s.io/v1/clusterroles/acme-view"},
		{name: "field selectors", method: "GET", path: "/api/v1/namespaces", query: "fieldSelector=metadata.name=default,metadata.namespace!=x",
			wantPath: "/api/v1/namespaces", wantQuery: "fieldSelector=metadata.name%3Dacme-default%2Cmetadata.namespace%21%3Dacme-x&labelSelector=zoo.kubectl-zoo.io%2Ftenant%3Dacme"},
		{name: "all-namespace list fans out", method: "GET", path: "/api/v1/pods", query: "watch=1", wantPath: "/api/v1/pods", wantQuery: "watch=true", plan: PlanFanOut},
		{name: "CR in a tenant group", method: "GET", path: "/apis/stable.example.com/v1/namespaces/default/crontabs/x", wantPath: "/apis/acme-stable.example.com/v1/namespaces/acme-default/crontabs/x"},
		{name: "CR list across namespaces fans out by discovered scope", method: "GET", path: "/apis/stable.example.com/v1/crontabs", wantPath: "/apis/acme-stable.example.com/v1/crontabs", plan: PlanFanOut},
		{name: "own storage class", method: "GET", path: "/apis/storage.k8s.io/v1/storageclasses/fast", wantPath: "/apis/storage.k8s.io/v1/storageclasses/acme-fast"},
		{name: "shared storage class", method: "GET", path: "/apis/storage.k8s.io/v1/storageclasses/standard", wantPath: "/apis/storage.k8s.io/v1/storageclasses/standard"},
		{name: "deleting a shared storage class", method: "DELETE", path: "/apis/storage.k8s.io/v1/storageclasses/standard", code: 403},
		{name: "nodes read", method: "GET", path: "/api/v1/nodes/n1", wantPath: "/api/v1/nodes/n1"},
		{name: "node write", method: "PATCH", path: "/api/v1/nodes/n1", code: 403},
		{name: "node proxy", method: "GET", path: "/api/v1/nodes/n1/proxy/pods", code: 403},
		{name: "apiservices", method: "GET", path: "/apis/apiregistration.k8s.io/v1/apiservices", code: 403},
		{name: "hidden", method: "GET", path: "/api/v1/componentstatuses", code: 404},
		{name: "review only created", method: "GET", path: "/apis/authentication.k8s.io/v1/tokenreviews", code: 403},
		{name: "pod logs", method: "GET", path: "/api/v1/namespaces/default/pods/p/log", wantPath: "/api/v1/namespaces/acme-default/pods/p/log", resp: ResponseRaw},
		{name: "bad label selector", method: "GET", path: "/api/v1/namespaces/default/pods", query: "labelSelector=a%20in%20(", code: 400},
		{name: "bad field selector", method: "GET", path: "/api/v1/namespaces/default/pods", query: "fieldSelector=a", code: 400},
		{name: "selecting on the ownership label", method: "GET", path: "/api/v1/namespaces", query: "labelSelector=zoo.kubectl-zoo.io/tenant=beta", code: 403},
		{name: "bad continue token on a fan out", method: "GET", path: "/api/v1/pods", query: "continue=xyz", code: 400},
		{name: "namespace too long", method: "GET", path: "/api/v1/namespaces/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/pods", code: 422},
		{name: "discovery of a tenant group", method: "GET", path: "/apis/stable.example.com/v1", wantPath: "/apis/acme-stable.example.com/v1", resp: ResponseDiscovery},
		{name: "discovery root", method: "GET", path: "/apis", wantPath: "/apis", resp: ResponseDiscovery},
		{name: "openapi v2", method: "GET", path: "/openapi/v2", wantPath: "/openapi/v2", resp: ResponseOpenAPIV2},
		{name: "openapi v3 group", method: "GET", path: "/openapi/v3/apis/stable.example.com/v1", query: "hash=abc", wantPath: "/openapi/v3/apis/acme-stable.example.com/v1", wantQuery: "hash=abc", resp: ResponseOpenAPIV3},
		{name: "version", method: "GET", path: "/version", wantPath: "/version", resp: ResponseRaw},
		{name: "metrics", method: "GET", path: "/metrics", code: 403},
		{name: "post to discovery", method: "POST", path: "/apis", code: 403},
		{name: "repeated field selectors: only the translated first is forwarded", method: "GET", path: "/api/v1/namespaces/default/configmaps",
			query:    "fieldSelector=metadata.namespace=default&fieldSelector=metadata.namespace=beta-default",
			wantPath: "/api/v1/namespaces/acme-default/configmaps", wantQuery: "fieldSelector=metadata.namespace%3Dacme-default"},
		{name: "an empty first field selector hides no second one", method: "GET", path: "/api/v1/namespaces/default/configmaps",
			query: "fieldSelector=&fieldSelector=metadata.namespace=beta-default", wantPath: "/api/v1/namespaces/acme-default/configmaps", wantQuery: "fieldSelector="},
		{name: "repeated label selectors on namespaces", method: "GET", path: "/api/v1/namespaces", query: "labelSelector=a&labelSelector=zoo.kubectl-zoo.io/tenant=beta",
			wantPath: "/api/v1/namespaces", wantQuery: "labelSelector=a%2Czoo.kubectl-zoo.io%2Ftenant%3Dacme"},
		{name: "watch=yes is a watch, as upstream", method: "GET", path: "/api/v1/namespaces/default/configmaps", query: "watch=yes&timeoutSeconds=5&timeoutSeconds=1",
			wantPath: "/api/v1/namespaces/acme-default/configmaps", wantQuery: "timeoutSeconds=5&watch=true"},
		{name: "watch=false then true is a list, as upstream", method: "GET", path: "/api/v1/namespaces/default/configmaps", query: "watch=false&watch=true",
			wantPath: "/api/v1/namespaces/acme-default/configmaps"},
		{name: "a get by name never watches", method: "GET", path: "/api/v1/namespaces/default/configmaps/cfg", query: "watch=true",
			wantPath: "/api/v1/namespaces/acme-default/configmaps/cfg"},
		{name: "dryRun keeps every value", method: "DELETE", path: "/api/v1/namespaces/default/configmaps/cfg", query: "dryRun=All&dryRun=All",
			wantPath: "/api/v1/namespaces/acme-default/configmaps/cfg", wantQuery: "dryRun=All&dryRun=All"},
		{name: "pod proxy dials the pod IP", method: "GET", path: "/api/v1/namespaces/default/pods/p:80/proxy/x", code: 403},
		{name: "service proxy dials endpoints", method: "GET", path: "/api/v1/namespaces/default/services/https:s:443/proxy/", code: 403},
		{name: "deprecated proxy verb", method: "GET", path: "/api/v1/proxy/namespaces/default/pods/p", code: 403},
		{name: "segments past a subresource", method: "GET", path: "/api/v1/namespaces/default/pods/p/log/x", code: 404},
		{name: "dot segments", method: "GET", path: "/api/v1/namespaces/default/configmaps/../../beta-default/configmaps/x", code: 400},
		{name: "empty segments", method: "GET", path: "/api/v1/namespaces//configmaps", code: 400},
		{name: "OPTIONS", method: "OPTIONS", path: "/api/v1/namespaces/default/configmaps", code: 405},
		{name: "CONNECT", method: "CONNECT", path: "/api/v1/namespaces/default/pods/p/exec", code: 405},
		{name: "watch path without a resource", method: "GET", path: "/api/v1/watch", code: 400},
		{name: "create on the all-namespaces path", method: "POST", path: "/api/v1/configmaps", code: 405},
		{name: "patch of a collection", method: "PATCH", path: "/api/v1/namespaces/default/configmaps", code: 405},
		{name: "update of a collection", method: "PUT", path: "/apis/rbac.authorization.k8s.io/v1/clusterroles", code: 405},
		{name: "deletecollection on the all-namespaces path fans out", method: "DELETE", path: "/api/v1/configmaps", wantPath: "/api/v1/configmaps", plan: PlanFanOut},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			require.NoError(t, err)
			u, err := tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Query: q, Header: http.Header{}})
			if tc.code != 0 {
				require.Error(t, err)
				assert.Equal(t, tc.code, ToStatus(err).Code, ToStatus(err).Message)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantPath, u.Path)
			assert.Equal(t, tc.wantQuery, u.Query.Encode())
			assert.Equal(t, tc.plan, u.Plan)
			assert.Equal(t, tc.resp, u.Response)
		})
	}
}

func TestFanOut(t *testing.T) {
	tr := newTestTranslator(t)
	tok := EncodeContinue(ContinueToken{Namespace: "acme-prod", Continue: "up123"})
	u, err := tr.TranslateRequest(Request{Method: "GET", Path: "/apis/apps/v1/deployments", Query: url.Values{"continue": {tok}, "limit": {"10"}}, Header: http.Header{}})
	require.NoError(t, err)
	require.Equal(t, PlanFanOut, u.Plan)
	require.NotNil(t, u.Start)
	assert.Equal(t, ContinueToken{Namespace: "acme-prod", Continue: "up123"}, *u.Start)
	path, q := u.ForNamespace("acme-prod", "up123")
	assert.Equal(t, "/apis/apps/v1/namespaces/acme-prod/deployments", path)
	assert.Equal(t, "continue=up123&limit=10", q.Encode())
	assert.Equal(t, "zoo.kubectl-zoo.io/tenant=acme", tr.TenantSelector())
}

func TestContinueToken(t *testing.T) {
	tr := newTestTranslator(t)
	cases := []struct {
		name  string
		plan  Plan
		token string
		want  ContinueToken
		bad   bool
	}{
		{"round trip", PlanFanOut, EncodeContinue(ContinueToken{Namespace: "acme-a", Continue: "c"}), ContinueToken{Namespace: "acme-a", Continue: "c"}, false},
		{"start of a namespace", PlanFanOut, EncodeContinue(ContinueToken{Namespace: "acme-b", ResourceVersion: "42"}), ContinueToken{Namespace: "acme-b", ResourceVersion: "42"}, false},
		{"forged for another tenant", PlanFanOut, EncodeContinue(ContinueToken{Namespace: "beta-a"}), ContinueToken{}, true},
		{"a shared part in a fan-out", PlanFanOut, EncodeContinue(ContinueToken{Namespace: "acme-a", Part: SharedPartOwn}), ContinueToken{}, true},
		{"shared, the cluster's part", PlanSharedList, EncodeContinue(ContinueToken{Part: SharedPartPlatform, Continue: "c", ResourceVersion: "7"}),
			ContinueToken{Part: SharedPartPlatform, Continue: "c", ResourceVersion: "7"}, false},
		{"shared, the tenant's part", PlanSharedList, EncodeContinue(ContinueToken{Part: SharedPartOwn}), ContinueToken{Part: SharedPartOwn}, false},
		{"shared, an unknown part", PlanSharedList, EncodeContinue(ContinueToken{Part: "beta"}), ContinueToken{}, true},
		{"shared, no part", PlanSharedList, EncodeContinue(ContinueToken{}), ContinueToken{}, true},
		{"shared, a namespace", PlanSharedList, EncodeContinue(ContinueToken{Namespace: "acme-a", Part: SharedPartOwn}), ContinueToken{}, true},
		{"a token for a forwarded request", PlanForward, EncodeContinue(ContinueToken{Part: SharedPartOwn}), ContinueToken{}, true},
		{"a resourceVersion that is not one", PlanSharedList, EncodeContinue(ContinueToken{Part: SharedPartOwn, ResourceVersion: "1&x=y"}), ContinueToken{}, true},
		{"no prefix", PlanFanOut, "abc", ContinueToken{}, true},
		{"bad base64", PlanFanOut, "zoo1.!!!", ContinueToken{}, true},
		{"bad json", PlanFanOut, "zoo1.bm90IGpzb24", ContinueToken{}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tr.DecodeContinue(tc.token, tc.plan)
			if tc.bad {
				require.Error(t, err)
				assert.Equal(t, int32(400), ToStatus(err).Code)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestTranslateRequestBodies(t *testing.T) {
	tr := newTestTranslator(t)
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}, Spec: corev1.PodSpec{PriorityClassName: "high"}}
	pb := encodeProtobuf(t, pod)
	cases := []struct {
		name, method, path, ct string
		body                   string
		want                   string
		wantCT                 string
		code                   int32
	}{
		{name: "create JSON", method: "POST", path: "/api/v1/namespaces/default/configmaps", ct: "application/json",
			body: `{"metadata":{"name":"c","namespace":"default"}}`, want: `{"metadata":{"name":"c","namespace":"acme-default"}}`, wantCT: MediaJSON},
		{name: "create YAML", method: "POST", path: "/api/v1/namespaces", ct: "application/yaml",
			body: "metadata:\n  name: prod\n", want: `{"metadata":{"name":"acme-prod","labels":{"zoo.kubectl-zoo.io/tenant":"acme",
				"pod-security.kubernetes.io/enforce":"baseline","pod-security.kubernetes.io/warn":"baseline","pod-security.kubernetes.io/audit":"baseline"}}}`, wantCT: MediaJSON},
		{name: "create protobuf", method: "POST", path: "/api/v1/namespaces/default/pods", ct: MediaProtobuf, body: string(pb),
			want: `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"acme-default"},"spec":{"containers":null,"priorityClassName":"acme-high"},"status":{}}`, wantCT: MediaJSON},
		{name: "shadowing a shared class", method: "POST", path: "/apis/storage.k8s.io/v1/storageclasses", body: `{"metadata":{"name":"standard"}}`, code: 403},
		{name: "eviction", method: "POST", path: "/api/v1/namespaces/default/pods/p/eviction", body: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p","namespace":"default"}}`,
			want: `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p","namespace":"acme-default"}}`, wantCT: MediaJSON},
		{name: "namespace finalize", method: "PUT", path: "/api/v1/namespaces/prod/finalize", body: `{"metadata":{"name":"prod"},"spec":{"finalizers":["kubernetes"]}}`,
			want: `{"metadata":{"name":"acme-prod","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},"spec":{"finalizers":["kubernetes"]}}`, wantCT: MediaJSON},
		{name: "delete options pass", method: "DELETE", path: "/api/v1/namespaces/default/pods/p", body: `{"kind":"DeleteOptions","gracePeriodSeconds":0}`,
			want: `{"kind":"DeleteOptions","gracePeriodSeconds":0}`, wantCT: MediaJSON},
		{name: "malformed JSON", method: "POST", path: "/api/v1/namespaces/default/configmaps", body: `{`, code: 400},
		{name: "not an object", method: "POST", path: "/api/v1/namespaces/default/configmaps", body: `null`, code: 400},
		{name: "malformed YAML", method: "POST", path: "/api/v1/namespaces/default/configmaps", ct: MediaYAML, body: "a: [", code: 400},
		{name: "malformed protobuf", method: "POST", path: "/api/v1/namespaces/default/configmaps", ct: MediaProtobuf, body: "k8s\x00junk", code: 400},
		{name: "CBOR", method: "POST", path: "/api/v1/namespaces/default/configmaps", ct: "application/cbor", body: "x", code: 415},
		{name: "json patch", method: "PATCH", path: "/api/v1/namespaces/default/persistentvolumeclaims/d", ct: MediaJSONPatch,
			body: `[{"op":"replace","path":"/spec/volumeName","value":"pv2"},{"op":"add","path":"/metadata/ownerReferences/-","value":{"apiVersion":"stable.example.com/v1","kind":"CronTab","name":"x"}},{"op":"remove","path":"/spec/storageClassName"}]`,
			want: `[{"op":"replace","path":"/spec/volumeName","value":"acme-pv2"},{"op":"add","path":"/metadata/ownerReferences/-","value":{"apiVersion":"acme-stable.example.com/v1","kind":"CronTab","name":"x"}},{"op":"remove","path":"/spec/storageClassName"}]`, wantCT: MediaJSONPatch},
		{name: "json patch replacing the labels of a namespace keeps ownership", method: "PATCH", path: "/api/v1/namespaces/prod", ct: MediaJSONPatch,
			body: `[{"op":"replace","path":"/metadata/labels","value":{"a":"b"}}]`,
			want: `[{"op":"replace","path":"/metadata/labels","value":{"a":"b","zoo.kubectl-zoo.io/tenant":"acme"}}]`, wantCT: MediaJSONPatch},
		{name: "json patch on the ownership label", method: "PATCH", path: "/api/v1/namespaces/prod", ct: MediaJSONPatch,
			body: `[{"op":"remove","path":"/metadata/labels/zoo.kubectl-zoo.io~1tenant"}]`, code: 403},
		{name: "json patch removing all labels of a namespace", method: "PATCH", path: "/api/v1/namespaces/prod", ct: MediaJSONPatch,
			body: `[{"op":"remove","path":"/metadata/labels"}]`, code: 403},
		{name: "json patch not a list", method: "PATCH", path: "/api/v1/namespaces/prod", ct: MediaJSONPatch, body: `{}`, code: 400},
		{name: "json patch op not an object", method: "PATCH", path: "/api/v1/namespaces/prod", ct: MediaJSONPatch, body: `[1]`, code: 400},
		{name: "merge patch", method: "PATCH", path: "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/r", ct: MediaMergePatch,
			body: `{"subjects":[{"kind":"User","name":"dev"}]}`, want: `{"subjects":[{"kind":"User","name":"zoo:acme:dev"}]}`, wantCT: MediaMergePatch},
		{name: "merge patch on the ownership label", method: "PATCH", path: "/api/v1/namespaces/prod", ct: MediaMergePatch,
			body: `{"metadata":{"labels":{"zoo.kubectl-zoo.io/tenant":null}}}`, code: 403},
		{name: "merge patch nulling labels", method: "PATCH", path: "/api/v1/namespaces/prod", ct: MediaMergePatch,
			body: `{"metadata":{"labels":null}}`, code: 403},
		{name: "strategic merge patch", method: "PATCH", path: "/apis/apps/v1/namespaces/default/deployments/web", ct: MediaStrategic,
			body: `{"spec":{"template":{"spec":{"priorityClassName":"high","$setElementOrder/containers":[{"name":"a"}]}}}}`,
			want: `{"spec":{"template":{"spec":{"priorityClassName":"acme-high","$setElementOrder/containers":[{"name":"a"}]}}}}`, wantCT: MediaStrategic},
		{name: "server-side apply", method: "PATCH", path: "/api/v1/namespaces/prod", ct: MediaApplyPatch,
			body: "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: prod\n",
			want: `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"acme-prod","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}}}`, wantCT: MediaApplyPatch},
		{name: "unknown patch type", method: "PATCH", path: "/api/v1/namespaces/prod", ct: "application/apply-patch+cbor", body: "x", code: 415},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.ct != "" {
				h.Set("Content-Type", tc.ct)
			}
			u, err := tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Header: h, Body: []byte(tc.body)})
			if tc.code != 0 {
				require.Error(t, err)
				assert.Equal(t, tc.code, ToStatus(err).Code, ToStatus(err).Message)
				return
			}
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(u.Body))
			assert.Equal(t, tc.wantCT, u.Header.Get("Content-Type"))
		})
	}
}

func encodeProtobuf(t *testing.T, obj runtime.Object) []byte {
	t.Helper()
	s := protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)
	data, err := runtime.Encode(s, obj)
	require.NoError(t, err)
	return data
}

func TestUpstreamAccept(t *testing.T) {
	cases := map[string]string{
		"": MediaJSON,
		"application/vnd.kubernetes.protobuf, */*":                        MediaJSON,
		"application/json;as=Table;v=v1;g=meta.k8s.io,application/json":   "application/json;as=Table;v=v1;g=meta.k8s.io, application/json",
		"application/vnd.kubernetes.protobuf":                             MediaJSON,
		"application/yaml":                                                MediaJSON,
		"application/cbor, bad;;":                                         MediaJSON,
		"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io": "application/json;as=Table;v=v1;g=meta.k8s.io",
		"application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1;g=meta.k8s.io, application/json":                                       "application/json;as=Table;v=v1;g=meta.k8s.io, application/json",
		"application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json": "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/json",
		"Application/YAML;as=Table;v=v1;g=meta.k8s.io":     "application/json;as=Table;v=v1;g=meta.k8s.io",
		"application/vnd.kubernetes.protobuf;stream=watch": MediaJSON,
	}
	for in, want := range cases {
		t.Run(in, func(t *testing.T) { assert.Equal(t, want, UpstreamAccept(in)) })
	}
}
