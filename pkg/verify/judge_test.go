package verify

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestJudge: each refusal is held by the layer its message names, the
// proxy's own only on the serve path; an answer that is no refusal proves
// nothing.
func TestJudge(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	forbidden := func(msg string) error { return apierrors.NewForbidden(gr, "p", errors.New(msg)) }
	for _, tc := range []struct {
		name   string
		err    error
		path   Path
		status Status
		layer  string
	}{
		{"admitted", nil, PathIdentity, Escaped, ""},
		{"policy", forbidden("ValidatingAdmissionPolicy 'zoo-tenant' with binding 'zoo-tenant' denied request: no"), PathIdentity, Held, "admission: zoo-tenant"},
		{"policy through serve", forbidden("ValidatingAdmissionPolicy 'zoo-tenant-metadata' with binding 'x' denied request"), PathServe, Held, "admission: zoo-tenant-metadata"},
		{"pod security", forbidden(`violates PodSecurity "restricted:latest": runAsNonRoot != true`), PathServiceAccount, Held, "Pod Security (restricted)"},
		{"webhook", forbidden(`admission webhook "deny.example.com" denied the request`), PathIdentity, Held, "admission webhook: deny.example.com"},
		{"rbac", forbidden(`User "zoo:a:admin" cannot create resource "apiservices" in API group "apiregistration.k8s.io" at the cluster scope`), PathIdentity, Held, LayerRBAC},
		{"proxy", forbidden("apiservices are forbidden: APIService registration serves an API group to the whole shared cluster"), PathServe, Held, LayerProxy},
		{"proxy of the server", forbidden("apiservices are forbidden: APIService registration serves an API group to the whole shared cluster"), PathServer, Held, LayerProxy},
		{"proxy of the server, a pod's token", apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, "s", nil), PathServerServiceAccount, Held, LayerProxy},
		{"proxy invalid", apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, "s", nil), PathServe, Held, LayerProxy},
		{"other 403 upstream", forbidden("something else"), PathIdentity, Held, "API server (403)"},
		{"invalid upstream", apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, "s", nil), PathIdentity, CouldNotRun, ""},
		{"not found", apierrors.NewNotFound(gr, "p"), PathServe, CouldNotRun, ""},
		{"timeout", context.DeadlineExceeded, PathIdentity, CouldNotRun, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, layer, detail := judge(tc.err, tc.path)
			assert.Equal(t, tc.status, status)
			assert.Equal(t, tc.layer, layer)
			assert.NotEmpty(t, detail)
		})
	}
}
