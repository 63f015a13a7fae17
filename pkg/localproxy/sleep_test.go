package localproxy

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestMayRunPods: the writes that may run pods are those of the kinds the
// kinds table gives a pod spec, and their scale.
func TestMayRunPods(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         bool
	}{
		{"POST", "/api/v1/namespaces/default/pods", true},
		{"PATCH", "/apis/apps/v1/namespaces/default/deployments/web", true},
		{"PUT", "/apis/apps/v1/namespaces/default/deployments/web/scale", true},
		{"PATCH", "/apis/apps/v1/namespaces/default/statefulsets/db/scale", true},
		{"POST", "/apis/batch/v1/namespaces/default/jobs", true},
		{"PATCH", "/apis/batch/v1/namespaces/default/cronjobs/nightly", true},
		{"POST", "/apis/apps/v1/namespaces/default/daemonsets", true},
		{"PUT", "/api/v1/namespaces/default/replicationcontrollers/rc/scale", true},
		{"GET", "/apis/apps/v1/namespaces/default/deployments/web", false},
		{"GET", "/api/v1/pods", false},
		{"DELETE", "/apis/apps/v1/namespaces/default/deployments/web", false},
		{"PATCH", "/apis/apps/v1/namespaces/default/deployments/web/status", false},
		{"POST", "/api/v1/namespaces/default/pods/p/eviction", false},
		{"POST", "/api/v1/namespaces/default/configmaps", false},
		{"POST", "/apis/example.com/v1/namespaces/default/deployments", false},
		{"POST", "/api/v1/namespaces/default/podtemplates", true},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			u := &translate.UpstreamRequest{Info: translate.ParseRequestInfo(tc.method, tc.path, url.Values{})}
			assert.Equal(t, tc.want, mayRunPods(u))
		})
	}
}
