package translate

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// watchEvent is one event of a test stream.
type watchEvent struct {
	typ string
	obj runtime.Object
}

// protobufWatchStream frames events as the apiserver does for
// application/vnd.kubernetes.protobuf;stream=watch.
func protobufWatchStream(t testing.TB, events []watchEvent) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, ev := range events {
		frame, err := (&metav1.WatchEvent{Type: ev.typ, Object: runtime.RawExtension{Raw: pbEncode(t, ev.obj)}}).Marshal()
		require.NoError(t, err)
		require.NoError(t, binary.Write(&out, binary.BigEndian, uint32(len(frame))))
		out.Write(frame)
	}
	return out.Bytes()
}

// jsonWatchStream is the same events as a JSON watch stream.
func jsonWatchStream(t *testing.T, events []watchEvent) []byte {
	t.Helper()
	var out bytes.Buffer
	for _, ev := range events {
		fmt.Fprintf(&out, `{"type":%q,"object":%s}`+"\n", ev.typ, viaEncoding(t, ev.obj))
	}
	return out.Bytes()
}

// readProtobufEvents decodes a translated protobuf watch stream.
func readProtobufEvents(t *testing.T, stream []byte) []watchEvent {
	t.Helper()
	var events []watchEvent
	for len(stream) > 0 {
		require.GreaterOrEqual(t, len(stream), 4)
		n := binary.BigEndian.Uint32(stream)
		require.LessOrEqual(t, int(n), len(stream)-4)
		var ev metav1.WatchEvent
		require.NoError(t, ev.Unmarshal(stream[4:4+n]))
		events = append(events, watchEvent{typ: ev.Type, obj: decoded(t, ev.Object.Raw)})
		stream = stream[4+n:]
	}
	return events
}

// readJSONEvents decodes a translated JSON watch stream into Go types.
func readJSONEvents(t *testing.T, stream []byte) []watchEvent {
	t.Helper()
	var events []watchEvent
	dec := json.NewDecoder(bytes.NewReader(stream))
	for {
		var ev struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&ev); err == io.EOF {
			return events
		} else {
			require.NoError(t, err)
		}
		var tm metav1.TypeMeta
		require.NoError(t, json.Unmarshal(ev.Object, &tm))
		obj, err := newProtobufObject(tm.GroupVersionKind())
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(ev.Object, obj))
		obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		events = append(events, watchEvent{typ: ev.Type, obj: obj})
	}
}

// flushCounter counts flushes.
type flushCounter struct {
	bytes.Buffer
	flushes int
}

func (f *flushCounter) Flush() { f.flushes++ }

func TestTranslateProtobufWatchMatchesJSON(t *testing.T) {
	tr := newTestTranslator(t)
	rule := tr.Rule(schema.GroupResource{Resource: "configmaps"}, true)
	bookmark := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "77", Annotations: map[string]string{"k8s.io/initial-events-end": "true"}}}
	gone := &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusGone, Reason: metav1.StatusReasonExpired, Message: "too old resource version: 1 (2)"}
	events := []watchEvent{
		{"ADDED", ptr(configMap("a", "acme-default"))},
		{"MODIFIED", ptr(configMap("b", "beta-default"))}, // not the tenant's: dropped
		{"MODIFIED", ptr(configMap("c", "acme-default", withCROwner))},
		{"DELETED", ptr(configMap("d", "acme-default", withTenantLabel))},
		{"BOOKMARK", bookmark},
		{"ERROR", gone},
	}
	var pb flushCounter
	require.NoError(t, tr.TranslateProtobufWatch(rule, bytes.NewReader(protobufWatchStream(t, events)), &pb))
	var js bytes.Buffer
	require.NoError(t, tr.TranslateWatch(rule, bytes.NewReader(jsonWatchStream(t, events)), &js))

	got, want := readProtobufEvents(t, pb.Bytes()), readJSONEvents(t, js.Bytes())
	require.Len(t, got, len(events)-1)
	require.Len(t, want, len(got))
	assert.Equal(t, len(got), pb.flushes, "one flush an event")
	for i := range got {
		assert.Equal(t, want[i].typ, got[i].typ)
		assertSemanticallyEqual(t, want[i].obj, got[i].obj)
	}
	assert.Equal(t, "default", got[0].obj.(*corev1.ConfigMap).Namespace)
	assert.Equal(t, "stable.example.com/v1", got[1].obj.(*corev1.ConfigMap).OwnerReferences[0].APIVersion)
	assert.Equal(t, int32(http.StatusGone), got[4].obj.(*metav1.Status).Code)
}

func TestTranslateProtobufWatchRefusesMalformedStreams(t *testing.T) {
	tr := newTestTranslator(t)
	rule := tr.Rule(schema.GroupResource{Resource: "configmaps"}, true)
	valid := protobufWatchStream(t, []watchEvent{{"ADDED", ptr(configMap("a", "acme-default"))}})
	for name, stream := range map[string][]byte{
		"a cut length":           valid[:2],
		"a cut frame":            valid[:len(valid)-5],
		"an oversized frame":     {0xff, 0xff, 0xff, 0xff},
		"another kind":           protobufWatchStream(t, []watchEvent{{"ADDED", &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "acme-default"}}}}),
		"a Status outside ERROR": protobufWatchStream(t, []watchEvent{{"ADDED", &metav1.Status{Code: 500}}}),
		"not a document":         append([]byte{0, 0, 0, 4}, protowire4()...),
	} {
		t.Run(name, func(t *testing.T) {
			err := tr.TranslateProtobufWatch(rule, bytes.NewReader(stream), io.Discard)
			require.Error(t, err)
			assert.Equal(t, int32(http.StatusBadRequest), ToStatus(err).Code)
		})
	}
}

// protowire4 is a 4-byte WatchEvent whose object is not a protobuf document.
func protowire4() []byte { return []byte{0x12, 0x02, 0x0a, 0x00} }
