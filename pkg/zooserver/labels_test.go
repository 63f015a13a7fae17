package zooserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/localproxy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestMetricLabelsAreBounded: what a tenant sends never becomes a label
// value of its own choosing.
func TestMetricLabelsAreBounded(t *testing.T) {
	for _, tc := range []struct {
		name, method, path string
		code               int
		wantResource       string
		wantVerb           string
	}{
		{"a kind", http.MethodGet, "/api/v1/namespaces/default/configmaps/x", 200, "configmaps", "get"},
		{"a real subresource that answered", http.MethodGet, "/api/v1/namespaces/default/pods/p/log", 200, "pods/log", "get"},
		{"a known subresource name on a kind without it", http.MethodPost, "/api/v1/namespaces/default/configmaps/x/exec", 404, "configmaps/other", "create"},
		{"an unknown subresource", http.MethodGet, "/api/v1/namespaces/default/pods/p/zzz-random-1234", 404, "pods/other", "get"},
		{"a custom resource", http.MethodGet, "/apis/x.io/v1/widgets", 200, "custom", "list"},
		{"a non-resource path", http.MethodGet, "/random/" + strings.Repeat("x", 100), 404, "nonresource", "get"},
		{"a method no client sends", "FROBNICATE", "/api/v1/namespaces/default/configmaps", 405, "configmaps", "other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			info := translate.ParseRequestInfo(tc.method, tc.path, nil)
			assert.Equal(t, tc.wantResource, resourceLabel(info, tc.code))
			assert.Equal(t, tc.wantVerb, verbLabel(info))
		})
	}
	assert.Equal(t, "201", codeLabel(201))
	assert.Equal(t, "other", codeLabel(599))
	assert.Equal(t, "other", codeLabel(-1))
}

// TestAuditCutsTenantChosenFields: a name of 64 KiB makes a line of a few
// hundred bytes, marked as cut, that is still one JSON object.
func TestAuditCutsTenantChosenFields(t *testing.T) {
	var buf bytes.Buffer
	a := &auditLog{w: &buf}
	long := "x\n{\"tenant\":\"beta\"}" + strings.Repeat("y", 64<<10)
	info := translate.ParseRequestInfo(http.MethodDelete, "/api/v1/namespaces/default/configmaps/"+long, nil)
	a.write(identity("acme", "admin"), info, &localproxy.Outcome{Code: 404}, time.Now())
	line := buf.Bytes()
	require.Equal(t, 1, bytes.Count(line, []byte("\n")), "one line")
	assert.Less(t, len(line), 2<<10)
	var got map[string]any
	require.NoError(t, json.Unmarshal(line, &got))
	assert.Equal(t, "acme", got["tenant"])
	assert.Equal(t, true, got["truncated"])
	assert.Len(t, got["name"], maxAuditField)
}

// TestForgetTenantDeletesItsSeries: a deleted tenant's series go, every
// other tenant's stay.
func TestForgetTenantDeletesItsSeries(t *testing.T) {
	m := newMetrics(func() int { return 0 })
	for _, tenant := range []string{"gone", "kept"} {
		m.observe(tenant, "get", "configmaps", 200, 0.01)
		m.inflight.WithLabelValues(tenant).Inc()
		m.watches.WithLabelValues(tenant).Inc()
		m.upstreamErrors.WithLabelValues(tenant).Inc()
	}
	m.deleteTenantSeries("gone")
	families, err := m.registry.Gather()
	require.NoError(t, err)
	kept := 0
	for _, f := range families {
		for _, metric := range f.GetMetric() {
			for _, l := range metric.GetLabel() {
				if l.GetName() != "tenant" {
					continue
				}
				assert.NotEqual(t, "gone", l.GetValue(), "series %s of the deleted tenant", f.GetName())
				if l.GetValue() == "kept" {
					kept++
				}
			}
		}
	}
	assert.Equal(t, 5, kept, "requests, latency, inflight, watches, upstream errors")
}
