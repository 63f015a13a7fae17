package translate

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestOutsideReferences: fields that point outside the tenant's space are
// translated into it or refused with a 403 naming the field.
func TestOutsideReferences(t *testing.T) {
	tests := []struct {
		name    string
		gr      schema.GroupResource
		obj     map[string]any
		refused string // the field named in the 403, "" when admitted
		check   func(t *testing.T, obj map[string]any)
	}{{
		name:    "a Service with external IPs",
		gr:      gr("", "services"),
		obj:     map[string]any{"metadata": map[string]any{"name": "s", "namespace": "default"}, "spec": map[string]any{"externalIPs": []any{"203.0.113.9"}}},
		refused: "spec.externalIPs",
	}, {
		name: "a Service with an empty externalIPs list",
		gr:   gr("", "services"),
		obj:  map[string]any{"metadata": map[string]any{"name": "s", "namespace": "default"}, "spec": map[string]any{"externalIPs": []any{}}},
	}, {
		name: "a CRD whose conversion webhook is a URL",
		gr:   grCRD,
		obj: map[string]any{"metadata": map[string]any{"name": "xs.example.com"}, "spec": map[string]any{"group": "example.com",
			"conversion": map[string]any{"strategy": "Webhook", "webhook": map[string]any{"clientConfig": map[string]any{"url": "https://169.254.169.254/"}}}}},
		refused: "spec.conversion.webhook.clientConfig.url",
	}, {
		name:    "a hostPath volume",
		gr:      grPV,
		obj:     map[string]any{"metadata": map[string]any{"name": "pv"}, "spec": map[string]any{"hostPath": map[string]any{"path": "/"}}},
		refused: "spec.hostPath",
	}, {
		name:    "a local volume",
		gr:      grPV,
		obj:     map[string]any{"metadata": map[string]any{"name": "pv"}, "spec": map[string]any{"local": map[string]any{"path": "/var"}}},
		refused: "spec.local",
	}, {
		name: "a CSI volume's secrets land in the tenant's namespaces",
		gr:   grPV,
		obj: map[string]any{"metadata": map[string]any{"name": "pv"}, "spec": map[string]any{"csi": map[string]any{"driver": "d", "volumeHandle": "h",
			"nodePublishSecretRef": map[string]any{"name": "s", "namespace": "beta-default"}}}},
		check: func(t *testing.T, obj map[string]any) {
			ref := child(child(child(obj, "spec"), "csi"), "nodePublishSecretRef")
			assert.Equal(t, "acme-beta-default", ref["namespace"], "another tenant's upstream name becomes a name of acme's")
		},
	}, {
		name: "a StorageClass's secret namespaces land in the tenant's namespaces",
		gr:   grStorageClass,
		obj: map[string]any{"metadata": map[string]any{"name": "c"}, "provisioner": "p", "parameters": map[string]any{
			"csi.storage.k8s.io/provisioner-secret-namespace":  "kube-system",
			"csi.storage.k8s.io/node-stage-secret-namespace":   "${pvc.namespace}",
			"csi.storage.k8s.io/node-publish-secret-namespace": "beta-${pvc.name}",
			"adminSecretNamespace":                             "default",
			"type":                                             "kube-system",
		}},
		check: func(t *testing.T, obj map[string]any) {
			p := child(obj, "parameters")
			assert.Equal(t, "acme-kube-system", p["csi.storage.k8s.io/provisioner-secret-namespace"])
			assert.Equal(t, "${pvc.namespace}", p["csi.storage.k8s.io/node-stage-secret-namespace"])
			assert.Equal(t, "acme-beta-${pvc.name}", p["csi.storage.k8s.io/node-publish-secret-namespace"])
			assert.Equal(t, "acme-default", p["adminSecretNamespace"])
			assert.Equal(t, "kube-system", p["type"], "other parameters are the driver's")
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := New(MustTenant("acme"), Options{Platform: &fakePlatform{volumeSources: []string{"csi", "azureFile"}}}) // volume_sources.go
			err := tr.ObjectToUpstream(tt.gr, tt.obj)
			if tt.refused != "" {
				require.Error(t, err)
				st := ToStatus(err)
				assert.Equal(t, int32(http.StatusForbidden), st.Code)
				assert.Contains(t, st.Message, tt.refused+" may not be set by tenants")
				return
			}
			require.NoError(t, err)
			if tt.check != nil {
				tt.check(t, tt.obj)
			}
		})
	}
}

// TestPlatformStatusWritesAreRefused: a write of the status the platform's
// controllers own is refused with 403 naming the kind; reads pass.
func TestPlatformStatusWritesAreRefused(t *testing.T) {
	tr := newTestTranslator(t)
	for _, tc := range []struct{ method, path string }{
		{"PUT", "/api/v1/persistentvolumes/v/status"},
		{"PUT", "/api/v1/namespaces/default/services/web/status"},
		{"PATCH", "/api/v1/namespaces/default/resourcequotas/q/status"},
		{"PATCH", "/apis/networking.k8s.io/v1/namespaces/default/ingresses/i/status"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			h := http.Header{"Content-Type": {MediaMergePatch}}
			_, err := tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Header: h, Body: []byte(`{"status":{}}`)})
			require.Error(t, err)
			st := ToStatus(err)
			assert.Equal(t, int32(http.StatusForbidden), st.Code)
			assert.Contains(t, st.Message, "is written by the shared cluster's controllers")
			_, err = tr.TranslateRequest(Request{Method: "GET", Path: tc.path, Header: http.Header{}})
			assert.NoError(t, err, "reading the status works")
		})
	}
}
