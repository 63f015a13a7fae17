package localproxy

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	restclientwatch "k8s.io/client-go/rest/watch"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The fake upstream answers in protobuf as the API server does when a
// client asks for it first: an object or a typed <Kind>List as a
// "k8s\x00" document (runtime.Unknown around the message), a watch as
// application/vnd.kubernetes.protobuf;stream=watch, frames of a 4-byte
// big-endian length and a metav1.WatchEvent whose object is such a
// document (apiserver's endpoints/handlers/watch.go: the protobuf
// StreamSerializer with its length-delimited framer, the object encoded
// with the embedded serializer). The walk decodes the proxy's answers the
// way client-go does (rest/watch.Decoder over the same framer).

var walkCodecs = serializer.NewCodecFactory(walkScheme)

// walkProtobufInfo is the protobuf serializer of walkCodecs (with its
// stream serializer and framer).
var walkProtobufInfo = func() runtime.SerializerInfo {
	info, ok := runtime.SerializerInfoForMediaType(walkCodecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok || info.StreamSerializer == nil {
		panic("no protobuf serializer")
	}
	return info
}()

// protobufAccept is what client-go sends for built-in kinds with
// ContentType protobuf and no AcceptContentTypes.
const protobufAccept = runtime.ContentTypeProtobuf + ", */*"

// wantsProtobuf reports whether the client asks for plain protobuf first.
func wantsProtobuf(r *http.Request) bool {
	first, _, _ := strings.Cut(r.Header.Get("Accept"), ",")
	mt, params, err := mime.ParseMediaType(strings.TrimSpace(first))
	return err == nil && mt == runtime.ContentTypeProtobuf && len(params) == 0
}

// typedObject decodes a stored JSON object into its Go type; ok is false
// for kinds without one.
func typedObject(obj map[string]any) (runtime.Object, bool) {
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gvk := schema.FromAPIVersionAndKind(av, kind)
	typed, err := walkScheme.New(gvk)
	if err != nil {
		return nil, false
	}
	if err := json.Unmarshal(mustJSON(obj), typed); err != nil {
		panic(err)
	}
	typed.GetObjectKind().SetGroupVersionKind(gvk)
	return typed, true
}

func encodeProtobuf(obj runtime.Object) []byte {
	var buf bytes.Buffer
	if err := walkProtobufInfo.Serializer.Encode(obj, &buf); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func answerObject(obj map[string]any, pb bool) (int, []byte, string) {
	if typed, ok := typedObject(obj); ok && pb {
		return http.StatusOK, encodeProtobuf(typed), runtime.ContentTypeProtobuf
	}
	return http.StatusOK, mustJSON(obj), translate.MediaJSON
}

func answerList(gvk schema.GroupVersionKind, items []map[string]any, pb bool) (int, []byte, string) {
	if list, err := walkScheme.New(gvk); err == nil && pb {
		typed := make([]runtime.Object, 0, len(items))
		for _, it := range items {
			o, ok := typedObject(it)
			if !ok {
				panic("an item without a Go type in a typed list")
			}
			typed = append(typed, o)
		}
		if err := meta.SetList(list, typed); err != nil {
			panic(err)
		}
		list.(metav1.ListInterface).SetResourceVersion("5")
		list.GetObjectKind().SetGroupVersionKind(gvk)
		return http.StatusOK, encodeProtobuf(list), runtime.ContentTypeProtobuf
	}
	return http.StatusOK, mustJSON(map[string]any{"kind": gvk.Kind, "apiVersion": gvk.GroupVersion().String(),
		"metadata": map[string]any{"resourceVersion": "5"}, "items": append([]map[string]any{}, items...)}), translate.MediaJSON
}

// answerWatch is a watch stream with each item once, ADDED, ended.
func answerWatch(items []map[string]any, pb bool) (int, []byte, string) {
	var b bytes.Buffer
	if pb {
		enc := streaming.NewEncoder(walkProtobufInfo.StreamSerializer.Framer.NewFrameWriter(&b), walkProtobufInfo.StreamSerializer.Serializer)
		for _, it := range items {
			typed, ok := typedObject(it)
			if !ok {
				pb = false
				break
			}
			if err := enc.Encode(&metav1.WatchEvent{Type: "ADDED", Object: runtime.RawExtension{Raw: encodeProtobuf(typed)}}); err != nil {
				panic(err)
			}
		}
		if pb {
			return http.StatusOK, b.Bytes(), runtime.ContentTypeProtobuf + ";stream=watch"
		}
		b.Reset()
	}
	for _, it := range items {
		b.Write(mustJSON(map[string]any{"type": "ADDED", "object": it}))
		b.WriteByte('\n')
	}
	return http.StatusOK, b.Bytes(), translate.MediaJSON
}

// readAnswer sends a GET with accept through p and returns the answer as
// JSON — the object, the list or the first watch event — decoded from the
// media type the proxy answered in, with that media type.
func readAnswer(t *testing.T, p *Proxy, path, accept string) (doc []byte, mediaType string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "http://proxy"+path, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	rec := httptest.NewRecorder()
	p.ServeHTTP(rec, req)
	require.Equal(t, http.StatusOK, rec.Code, "GET %s: %s", path, rec.Body)
	ct := rec.Header().Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	require.NoError(t, err, "the answer's Content-Type %q", ct)
	watching := strings.Contains(path, "watch=true")
	body := rec.Body.Bytes()
	switch {
	case mt == translate.MediaJSON:
		if watching {
			line, _, _ := bytes.Cut(body, []byte("\n"))
			var ev struct{ Object json.RawMessage }
			require.NoError(t, json.Unmarshal(line, &ev), "a JSON watch event: %s", line)
			return ev.Object, mt
		}
		return body, mt
	case mt == runtime.ContentTypeProtobuf && watching:
		require.Equal(t, "watch", params["stream"], "a watch answered in protobuf is a stream: %s", ct)
		frames := walkProtobufInfo.StreamSerializer.Framer.NewFrameReader(io.NopCloser(bytes.NewReader(body)))
		dec := restclientwatch.NewDecoder(streaming.NewDecoder(frames, walkProtobufInfo.StreamSerializer.Serializer), walkCodecs.UniversalDeserializer())
		typ, obj, err := dec.Decode()
		require.NoError(t, err, "the first protobuf watch event")
		require.Equal(t, "ADDED", string(typ))
		return mustJSON(obj), mt
	case mt == runtime.ContentTypeProtobuf:
		require.Empty(t, params, "a protobuf answer of %s", path)
		obj, _, err := walkCodecs.UniversalDeserializer().Decode(body, nil, nil)
		require.NoError(t, err, "the proxy's protobuf answer")
		return mustJSON(obj), mt
	}
	require.Failf(t, "an answer the client did not ask for", "%s answered in %q (Accept %q)", path, ct, accept)
	return nil, ""
}

// walkRead is one read of the case's object: the object, a list or a
// watch, with an Accept header.
type walkRead struct{ name, path, item, accept string }

// walkReads are the reads of the case's object of rule (in "default"): GET,
// LIST and WATCH, as JSON and, for kinds with a protobuf form, as
// client-go's protobuf clients ask. item is the pointer of the object in
// the answer readAnswer returns.
func walkReads(rule *translate.KindRule) []walkRead {
	coll := walkCollection(rule, "default")
	accepts := []string{""}
	gvk := schema.GroupVersionKind{Group: rule.Resource.Group, Version: walkVersion(rule.Resource.Group), Kind: rule.Kind}
	if _, err := walkScheme.New(gvk); err == nil {
		accepts = append(accepts, protobufAccept)
	}
	var out []walkRead
	for _, accept := range accepts {
		out = append(out, walkRead{"GET (Accept " + accept + ")", coll + "/" + walkName(rule), "", accept},
			walkRead{"LIST (Accept " + accept + ")", coll, "/items/0", accept},
			walkRead{"WATCH (Accept " + accept + ")", coll + "?watch=true", "", accept})
	}
	return out
}
