package openapisnap

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCamelWords(t *testing.T) {
	for name, want := range map[string][]string{
		"podIPs":             {"pod", "ips"},
		"externalIPs":        {"external", "ips"},
		"hostIP":             {"host", "ip"},
		"URL":                {"url"},
		"IPFamilies":         {"ip", "families"},
		"nodeStageSecretRef": {"node", "stage", "secret", "ref"},
		"$ref":               {"ref"},
		"name":               {"name"},
		"x-kubernetes-map":   {"x", "kubernetes", "map"},
		"":                   {""},
	} {
		t.Run(name, func(t *testing.T) { assert.Equal(t, want, camelWords(name)) })
	}
}

func TestFlag(t *testing.T) {
	for _, c := range []struct {
		name, format, json, typ string
		want                    string
	}{
		{"secretRef", "", "string", "", "name"},
		{"claimName", "", "string", "", "name"},
		{"name", "", "string", "", ""},
		{"namespace", "", "string", "", "name"},
		{"namespaceSelector", "", "object", "meta.LabelSelector", "name"},
		{"externalName", "", "string", "", "name"},
		{"podIPs", "", "string", "", "name"},
		{"hostNetwork", "", "boolean", "", "name"},
		{"targetPortal", "", "string", "", "name"},
		{"server", "", "string", "", "name"},
		{"image", "", "string", "", ""},
		{"replicas", "int32", "integer", "", ""},
		{"caBundle", "byte", "string", "", ""},
		{"website", "uri", "string", "", "format"},
		{"target", "", "object", "core.ObjectReference", "type"},
		{"imagePullSecrets", "", "object", "core.LocalObjectReference", "type"},
		{"runAsUser", "int64", "integer", "", ""},
		{"manualSelector", "", "boolean", "", ""},
		{"hostPort", "int32", "integer", "", "name"},
		{"nodeAffinity", "", "object", "core.NodeAffinity", ""},
	} {
		t.Run(c.name+"/"+c.typ, func(t *testing.T) { assert.Equal(t, c.want, Flag(c.name, c.format, c.json, c.typ)) })
	}
}

func TestSnapshotRoundTrip(t *testing.T) {
	s := &Snapshot{Version: "v1.34.4",
		Resources: []Resource{{GroupVersion: "v1", Name: "pods", Kind: "core/Pod", Namespaced: true},
			{GroupVersion: "apps/v1", Name: "deployments/scale", Kind: "autoscaling/Scale", Namespaced: true}},
		Fields: []Field{{Kind: "core/Pod", Path: "spec.nodeName", Def: "core.PodSpec.nodeName", Type: "string", Format: "-", Versions: []string{"v1"}}}}
	var buf bytes.Buffer
	require.NoError(t, s.Write(&buf))
	got, err := Read(&buf)
	require.NoError(t, err)
	assert.Equal(t, s, got)

	_, err = Read(bytes.NewBufferString("field core/Pod spec.nodeName\n"))
	assert.ErrorContains(t, err, "line 1")
}
