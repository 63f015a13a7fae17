package translate

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestEventTextOut: an Event's message (core/v1) and note (events.k8s.io/v1)
// read in the tenant's names where the names are those of the Event's own
// references, and nowhere else.
func TestEventTextOut(t *testing.T) {
	tr := New(MustTenant("acme"), Options{})
	core := func(ns, kind, name, msg string) string {
		return `{"apiVersion":"v1","kind":"Event","metadata":{"name":"e","namespace":"acme-shop"},` +
			`"involvedObject":{"apiVersion":"v1","kind":"` + kind + `","namespace":"` + ns + `","name":"` + name + `"},"message":` + quoteJSON(msg) + `}`
	}
	cases := []struct {
		name, body, field, want string
		gr                      schema.GroupResource
	}{
		{"scheduler", core("acme-shop", "Pod", "web-1", "Successfully assigned acme-shop/web-1 to kwok-node-0"), "message",
			"Successfully assigned shop/web-1 to kwok-node-0", gr("", "events")},
		{"several and at the start", core("acme-shop", "Pod", "web-1", "acme-shop/web-1 and acme-shop/web-2 (acme-shop/x)"), "message",
			"shop/web-1 and shop/web-2 (shop/x)", gr("", "events")},
		{"not inside a longer word", core("acme-shop", "Pod", "web-1", "pulled registry.io/acme-shop/app and xacme-shop/y"), "message",
			"pulled registry.io/acme-shop/app and xacme-shop/y", gr("", "events")},
		{"another tenant's namespace is not guessed at", core("acme-shop", "Pod", "web-1", "beta-shop/web-1 acme-other/x"), "message",
			"beta-shop/web-1 acme-other/x", gr("", "events")},
		{"the bare namespace name is free text", core("acme-shop", "Pod", "web-1", "namespace acme-shop is busy"), "message",
			"namespace acme-shop is busy", gr("", "events")},
		{"a tenant-owned cluster-scoped object", core("", "PersistentVolume", "acme-pv1", "Volume acme-pv1 bound; acme-pv10 not."), "message",
			"Volume pv1 bound; acme-pv10 not.", gr("", "events")},
		{"at the end of a sentence", core("", "PersistentVolume", "acme-pv1", "Released acme-pv1."), "message",
			"Released pv1.", gr("", "events")},
		{"a namespace's own event", core("", "Namespace", "acme-shop", "acme-shop is terminating"), "message",
			"shop is terminating", gr("", "events")},
		{"a node's name stays", core("", "Node", "acme-node", "acme-node is ready"), "message",
			"acme-node is ready", gr("", "events")},
		{"events.k8s.io note", `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e","namespace":"acme-shop"},` +
			`"regarding":{"apiVersion":"v1","kind":"Pod","namespace":"acme-shop","name":"web-1"},"note":"Successfully assigned acme-shop/web-1 to n"}`,
			"note", "Successfully assigned shop/web-1 to n", gr("events.k8s.io", "events")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var obj map[string]any
			require.NoError(t, json.Unmarshal([]byte(tc.body), &obj))
			require.NoError(t, tr.objectOut(kindsByResource[tc.gr], obj))
			assert.Equal(t, tc.want, obj[tc.field])
		})
	}
}

func TestEventTextInIsAsWritten(t *testing.T) {
	tr := New(MustTenant("acme"), Options{})
	var obj map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"apiVersion":"v1","kind":"Event","metadata":{"name":"e","namespace":"shop"},`+
		`"involvedObject":{"kind":"Pod","namespace":"shop","name":"web-1"},"message":"assigned shop/web-1"}`), &obj))
	require.NoError(t, tr.objectIn(kindsByResource[gr("", "events")], obj))
	assert.Equal(t, "assigned shop/web-1", obj["message"])
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestEventTableMessageOut: in a Table of Events whose rows carry only
// metadata, the Message cell is rewritten with the row's own namespace.
func TestEventTableMessageOut(t *testing.T) {
	tr := New(MustTenant("acme"), Options{})
	var table map[string]any
	require.NoError(t, json.Unmarshal([]byte(`{"kind":"Table","apiVersion":"meta.k8s.io/v1",
		"columnDefinitions":[{"name":"Last Seen"},{"name":"Object"},{"name":"Message"}],
		"rows":[{"cells":["1s","pod/web","Successfully assigned acme-shop/web to n; beta-shop/x stays"],
		"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"e","namespace":"acme-shop"}}}]}`), &table))
	require.NoError(t, tr.tableOut(kindsByResource[gr("", "events")], table))
	cells := table["rows"].([]any)[0].(map[string]any)["cells"].([]any)
	assert.Equal(t, "Successfully assigned shop/web to n; beta-shop/x stays", cells[2])
}
