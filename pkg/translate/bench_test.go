package translate

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func configMapList(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"100"},"items":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"metadata":{"name":"cfg-%d","namespace":"acme-ns%d","uid":"%08d-0000-0000-0000-000000000000","resourceVersion":"%d","creationTimestamp":"2025-01-01T00:00:00Z","labels":{"app":"web"}},"data":{"key":"value-%d","other":"some longer configuration text for item %d"}}`, i, i%10, i, i, i, i)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// BenchmarkTranslateList10000ConfigMaps measures the streaming list path.
func BenchmarkTranslateList10000ConfigMaps(b *testing.B) {
	tr := newTestTranslator(b)
	rule, _ := LookupKind(gr("", "configmaps"))
	data := configMapList(10000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := tr.TranslateList(rule, bytes.NewReader(data), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTranslateWatchStream measures the watch path, 1000 events a run.
func BenchmarkTranslateWatchStream(b *testing.B) {
	tr := newTestTranslator(b)
	rule, _ := LookupKind(gr("", "configmaps"))
	var stream bytes.Buffer
	for i := 0; i < 1000; i++ {
		typ := []string{"ADDED", "MODIFIED", "DELETED", "BOOKMARK"}[i%4]
		fmt.Fprintf(&stream, `{"type":%q,"object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cfg-%d","namespace":"acme-ns%d","resourceVersion":"%d","labels":{"app":"web"}},"data":{"key":"value-%d"}}}`+"\n", typ, i, i%10, i, i)
	}
	data := stream.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := tr.TranslateWatch(rule, bytes.NewReader(data), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// TestListStreamsLargeLists checks a large list translates completely.
func TestListStreamsLargeLists(t *testing.T) {
	tr := newTestTranslator(t)
	rule, ok := LookupKind(gr("", "configmaps"))
	require.True(t, ok)
	var out bytes.Buffer
	require.NoError(t, tr.TranslateList(rule, bytes.NewReader(configMapList(2000)), &out))
	var doc map[string]any
	require.NoError(t, decodeJSON(out.Bytes(), &doc))
	require.Len(t, doc["items"], 2000)
	require.Equal(t, "ns1", doc["items"].([]any)[1].(map[string]any)["metadata"].(map[string]any)["namespace"])
}
