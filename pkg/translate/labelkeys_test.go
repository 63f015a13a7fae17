package translate

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAggregateLabelKeys: a tenant's ClusterRole aggregation labels
// (rbac.authorization.k8s.io/aggregate-to-*) are stored upstream as
// rbac.zoo.kubectl-zoo.io/aggregate-to-*, which the cluster's own admin, edit
// and view roles never select, in labels, the selectors of aggregationRules
// and managedFields, and read back as written.
func TestAggregateLabelKeys(t *testing.T) {
	tr := newTestTranslator(t)
	const (
		up  = `"rbac.zoo.kubectl-zoo.io/aggregate-to-admin":"true"`
		ten = `"rbac.authorization.k8s.io/aggregate-to-admin":"true"`
	)
	cases := []struct {
		name, tenant, upstream string
	}{
		{"labels", `{"metadata":{"name":"r","labels":{` + ten + `,"x":"y"}}}`,
			`{"metadata":{"name":"acme-r","labels":{` + up + `,"x":"y","zoo.kubectl-zoo.io/tenant":"acme"}}}`},
		{"other rbac labels stay", `{"metadata":{"name":"r","labels":{"rbac.authorization.k8s.io/other":"a"}}}`,
			`{"metadata":{"name":"acme-r","labels":{"rbac.authorization.k8s.io/other":"a","zoo.kubectl-zoo.io/tenant":"acme"}}}`},
		{"aggregationRule matchLabels", `{"metadata":{"name":"admin"},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{` + ten + `}}]}}`,
			`{"metadata":{"name":"acme-admin","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{` + up + `,"zoo.kubectl-zoo.io/tenant":"acme"}}]}}`},
		{"aggregationRule matchExpressions", `{"metadata":{"name":"a"},"aggregationRule":{"clusterRoleSelectors":[{"matchExpressions":[{"key":"rbac.authorization.k8s.io/aggregate-to-view","operator":"Exists"}]}]}}`,
			`{"metadata":{"name":"acme-a","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},"aggregationRule":{"clusterRoleSelectors":[{"matchExpressions":[{"key":"rbac.zoo.kubectl-zoo.io/aggregate-to-view","operator":"Exists"}],"matchLabels":{"zoo.kubectl-zoo.io/tenant":"acme"}}]}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			obj := jsonObj(t, tc.tenant)
			require.NoError(t, tr.ObjectToUpstream(grClusterRole, obj))
			jsonEq(t, tc.upstream, obj)
			back := jsonObj(t, tc.upstream)
			require.NoError(t, tr.ObjectToTenant(grClusterRole, back))
			jsonEq(t, tc.tenant, back)
		})
	}

	t.Run("managedFields read back in the tenant's keys", func(t *testing.T) {
		obj := jsonObj(t, `{"metadata":{"name":"acme-r","labels":{"zoo.kubectl-zoo.io/tenant":"acme"},"managedFields":[{"manager":"kubectl","apiVersion":"rbac.authorization.k8s.io/v1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:rbac.zoo.kubectl-zoo.io/aggregate-to-edit":{},"f:zoo.kubectl-zoo.io/tenant":{}}}}}]}}`)
		require.NoError(t, tr.ObjectToTenant(grClusterRole, obj))
		jsonEq(t, `{"metadata":{"name":"r","managedFields":[{"manager":"kubectl","apiVersion":"rbac.authorization.k8s.io/v1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:rbac.authorization.k8s.io/aggregate-to-edit":{}}}}}]}}`, obj)
	})
	t.Run("other kinds keep the keys", func(t *testing.T) {
		obj := jsonObj(t, `{"metadata":{"name":"c","namespace":"default","labels":{`+ten+`}}}`)
		require.NoError(t, tr.ObjectToUpstream(gr("", "configmaps"), obj))
		jsonEq(t, `{"metadata":{"name":"c","namespace":"acme-default","labels":{`+ten+`}}}`, obj)
	})
	t.Run("the upstream keys are refused", func(t *testing.T) {
		for _, obj := range []string{
			`{"metadata":{"name":"r","labels":{` + up + `}}}`,
			`{"metadata":{"name":"r"},"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{` + up + `}}]}}`,
			`{"metadata":{"name":"r"},"aggregationRule":{"clusterRoleSelectors":[{"matchExpressions":[{"key":"rbac.zoo.kubectl-zoo.io/aggregate-to-x","operator":"Exists"}]}]}}`,
		} {
			err := tr.ObjectToUpstream(grClusterRole, jsonObj(t, obj))
			require.Error(t, err, obj)
			assert.Equal(t, int32(http.StatusForbidden), ToStatus(err).Code, obj)
		}
	})
}

// TestAggregateLabelKeysInRequests: patches and list selectors of
// ClusterRoles name the upstream keys.
func TestAggregateLabelKeysInRequests(t *testing.T) {
	tr := newTestTranslator(t)
	const path = "/apis/rbac.authorization.k8s.io/v1/clusterroles"
	cases := []struct {
		name, method, path, query, ct, body string
		wantBody, wantSelector              string
		code                                int32
	}{
		{name: "merge patch", method: "PATCH", path: path + "/r", ct: MediaMergePatch,
			body:     `{"metadata":{"labels":{"rbac.authorization.k8s.io/aggregate-to-admin":"true","rbac.authorization.k8s.io/aggregate-to-view":null}}}`,
			wantBody: `{"metadata":{"labels":{"rbac.zoo.kubectl-zoo.io/aggregate-to-admin":"true","rbac.zoo.kubectl-zoo.io/aggregate-to-view":null,"zoo.kubectl-zoo.io/tenant":"acme"}}}`},
		{name: "json patch of one label", method: "PATCH", path: path + "/r", ct: MediaJSONPatch,
			body:     `[{"op":"add","path":"/metadata/labels/rbac.authorization.k8s.io~1aggregate-to-edit","value":"true"},{"op":"move","from":"/metadata/labels/rbac.authorization.k8s.io~1aggregate-to-view","path":"/metadata/labels/rbac.authorization.k8s.io~1aggregate-to-admin"}]`,
			wantBody: `[{"op":"add","path":"/metadata/labels/rbac.zoo.kubectl-zoo.io~1aggregate-to-edit","value":"true"},{"op":"move","from":"/metadata/labels/rbac.zoo.kubectl-zoo.io~1aggregate-to-view","path":"/metadata/labels/rbac.zoo.kubectl-zoo.io~1aggregate-to-admin"}]`},
		{name: "json patch of the labels", method: "PATCH", path: path + "/r", ct: MediaJSONPatch,
			body:     `[{"op":"replace","path":"/metadata/labels","value":{"rbac.authorization.k8s.io/aggregate-to-edit":"true"}}]`,
			wantBody: `[{"op":"replace","path":"/metadata/labels","value":{"rbac.zoo.kubectl-zoo.io/aggregate-to-edit":"true","zoo.kubectl-zoo.io/tenant":"acme"}}]`},
		{name: "json patch naming an upstream key", method: "PATCH", path: path + "/r", ct: MediaJSONPatch,
			body: `[{"op":"remove","path":"/metadata/labels/rbac.zoo.kubectl-zoo.io~1aggregate-to-edit"}]`, code: 403},
		{name: "list selector", method: "GET", path: path, query: "labelSelector=rbac.authorization.k8s.io/aggregate-to-admin=true",
			wantSelector: "rbac.zoo.kubectl-zoo.io/aggregate-to-admin=true,zoo.kubectl-zoo.io/tenant=acme"},
		{name: "list selector on an upstream key", method: "GET", path: path, query: "labelSelector=rbac.zoo.kubectl-zoo.io/aggregate-to-admin", code: 403},
		{name: "other kinds' selectors stay", method: "GET", path: "/api/v1/namespaces/d/configmaps", query: "labelSelector=rbac.authorization.k8s.io/aggregate-to-admin=true",
			wantSelector: "rbac.authorization.k8s.io/aggregate-to-admin=true"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			if tc.ct != "" {
				h.Set("Content-Type", tc.ct)
			}
			q, err := url.ParseQuery(tc.query)
			require.NoError(t, err)
			u, err := tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Query: q, Header: h, Body: []byte(tc.body)})
			if tc.code != 0 {
				require.Error(t, err)
				assert.Equal(t, tc.code, ToStatus(err).Code, ToStatus(err).Message)
				return
			}
			require.NoError(t, err)
			if tc.wantBody != "" {
				assert.JSONEq(t, tc.wantBody, string(u.Body))
			}
			if tc.wantSelector != "" {
				assert.Equal(t, tc.wantSelector, u.Query.Get("labelSelector"))
			}
		})
	}
}
