package translate

import (
	"bytes"
	"strings"
	"testing"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
)

// TestOpenAPIV2Protobuf: /openapi/v2 asked for as client-go's discovery
// asks is answered in protobuf, translated (the tenant's CRD group without
// its prefix, another tenant's left out) and parseable as client-go parses
// it; asked for in JSON, or with JSON first, it stays JSON; a Status stays
// JSON.
func TestOpenAPIV2Protobuf(t *testing.T) {
	for accept, want := range map[string]bool{
		MediaOpenAPIV2Protobuf:                              true,
		MediaOpenAPIV2Protobuf + ", application/json":       true,
		"application/json, " + MediaOpenAPIV2Protobuf:       false,
		"application/json;q=0.9, " + MediaOpenAPIV2Protobuf: true,
		"": false, "application/json": false, "*/*": false,
	} {
		assert.Equal(t, want, prefersOpenAPIV2Protobuf(accept), "%q", accept)
	}
	tr := newTestTranslator(t)
	u, err := tr.TranslateRequest(Request{Method: "GET", Path: "/openapi/v2", Header: map[string][]string{"Accept": {mediaOpenAPIV2ProtobufDeprecated}}})
	require.NoError(t, err)
	require.Equal(t, ResponseOpenAPIV2Protobuf, u.Response)
	assert.Equal(t, MediaJSON, u.Header.Get("Accept"), "the upstream is asked for JSON")

	upstream := `{"swagger":"2.0","info":{"title":"Kubernetes","version":"v1.34.4"},"paths":{},"definitions":{` +
		`"com.example.acme-stable.v1.CronTab":{"type":"object","x-kubernetes-group-version-kind":[{"group":"acme-stable.example.com","kind":"CronTab","version":"v1"}]},` +
		`"com.example.beta-stable.v1.CronTab":{"type":"object","x-kubernetes-group-version-kind":[{"group":"beta-stable.example.com","kind":"CronTab","version":"v1"}]}}}`
	var out bytes.Buffer
	require.NoError(t, tr.TranslateResponse(u, strings.NewReader(upstream), &out))
	doc := &openapiv2.Document{}
	require.NoError(t, proto.Unmarshal(out.Bytes(), doc), "client-go's parse")
	assert.Equal(t, "2.0", doc.GetSwagger())
	var groups []string
	for _, d := range doc.GetDefinitions().GetAdditionalProperties() {
		for _, ext := range d.GetValue().GetVendorExtension() {
			groups = append(groups, ext.GetValue().GetYaml())
		}
	}
	joined := strings.Join(groups, " ")
	assert.Contains(t, joined, "stable.example.com")
	assert.NotContains(t, joined, "acme-stable", "the tenant's own group without its prefix")
	assert.NotContains(t, joined, "beta-stable", "another tenant's group left out")

	out.Reset()
	require.NoError(t, tr.TranslateResponse(u, strings.NewReader(`{"kind":"Status","apiVersion":"v1","status":"Failure","code":503,"message":"x"}`), &out))
	assert.Contains(t, out.String(), `"kind":"Status"`)
}
