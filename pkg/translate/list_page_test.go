package translate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// legAnswers are upstream answers of the legs of an all-namespaces list:
// the lists, Tables and Statuses a fan-out joins.
var legAnswers = []struct {
	name string
	gr   schema.GroupResource
	body string
}{
	{"configmaps", schema.GroupResource{Resource: "configmaps"},
		`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"42","continue":"abc","remainingItemCount":3},"items":[` +
			`{"metadata":{"name":"a","namespace":"acme-shop","resourceVersion":"40","labels":{"app":"web"}},"data":{"k":"v <&>"}},` +
			`{"metadata":{"name":"b","namespace":"acme-shop","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"a","uid":"1"}]},"binaryData":{"x":"AA=="}},` +
			`{"metadata":{"name":"c","namespace":"kube-system"}},` + // not the tenant's: left out
			`{"metadata":{"name":"d","namespace":"beta-shop"}}]}`},
	{"numbers stay exact", schema.GroupResource{Resource: "pods"},
		`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"7"},"items":[{"metadata":{"name":"p","namespace":"acme-a",` +
			`"generation":9007199254740993},"spec":{"serviceAccountName":"default","activeDeadlineSeconds":9007199254740993,` +
			`"containers":[{"name":"c","image":"x","resources":{"limits":{"cpu":"1.50"}}}]}}]}`},
	{"rolebindings", schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"},
		`{"kind":"RoleBindingList","apiVersion":"rbac.authorization.k8s.io/v1","metadata":{"resourceVersion":"5"},"items":[` +
			`{"metadata":{"name":"r","namespace":"acme-a"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"acme-view"},` +
			`"subjects":[{"kind":"User","name":"zoo:acme:ann"},{"kind":"Group","name":"zoo:tenant:acme"},{"kind":"ServiceAccount","name":"s","namespace":"acme-a"}]}]}`},
	{"events", schema.GroupResource{Resource: "events"},
		`{"kind":"EventList","apiVersion":"v1","metadata":{"resourceVersion":"8"},"items":[{"metadata":{"name":"e","namespace":"acme-shop"},` +
			`"involvedObject":{"apiVersion":"v1","kind":"Pod","namespace":"acme-shop","name":"web-1"},"message":"assigned acme-shop/web-1","reason":"Scheduled"}]}`},
	{"custom resources", schema.GroupResource{Group: "acme-stable.example.com", Resource: "crontabs"},
		`{"kind":"CronTabList","apiVersion":"acme-stable.example.com/v1","metadata":{"resourceVersion":"9"},"items":[` +
			`{"apiVersion":"acme-stable.example.com/v1","kind":"CronTab","metadata":{"name":"c","namespace":"acme-a"},"spec":{"cron":"* * * * *"}}]}`},
	{"table", schema.GroupResource{Resource: "configmaps"},
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"11","continue":"t"},"columnDefinitions":[` +
			`{"name":"Namespace","type":"string"},{"name":"Name","type":"string","format":"name"},{"name":"Data","type":"integer"}],"rows":[` +
			`{"cells":["acme-a","x",2],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"x","namespace":"acme-a"}}},` +
			`{"cells":["kube-system","y",1],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"y","namespace":"kube-system"}}}]}`},
	{"table of rolebindings", schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"},
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"12"},"columnDefinitions":[{"name":"Name","type":"string","format":"name"},` +
			`{"name":"Role","type":"string"},{"name":"Users","type":"string"},{"name":"Groups","type":"string"},{"name":"ServiceAccounts","type":"string"}],"rows":[` +
			`{"cells":["r","ClusterRole/acme-view","zoo:acme:ann","zoo:tenant:acme","acme-a/s"],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"r","namespace":"acme-a"}}}]}`},
	{"table without rows", schema.GroupResource{Resource: "configmaps"},
		`{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":"13"},"columnDefinitions":[]}`},
	{"items null", schema.GroupResource{Resource: "configmaps"}, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":null}`},
	{"no items", schema.GroupResource{Resource: "configmaps"}, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"}}`},
	{"metadata after the items", schema.GroupResource{Resource: "configmaps"},
		`{"kind":"ConfigMapList","items":[{"metadata":{"name":"a","namespace":"acme-a"}}],"apiVersion":"v1","metadata":{"resourceVersion":"3","continue":"c"}}`},
	{"two arrays", schema.GroupResource{Resource: "configmaps"},
		`{"kind":"ConfigMapList","items":[{"metadata":{"name":"a","namespace":"acme-a"}}],"items":[{"metadata":{"name":"b","namespace":"acme-b"}}]}`},
	{"status of a deletecollection", schema.GroupResource{Resource: "configmaps"},
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"kind":"configmaps","namespace":"acme-a"}}`},
	{"items not objects", schema.GroupResource{Resource: "configmaps"}, `{"kind":"ConfigMapList","items":[1]}`},
	{"items not a list", schema.GroupResource{Resource: "configmaps"}, `{"kind":"ConfigMapList","items":{"a":1}}`},
}

// stricter are the leg answers where the decoded document skipped what is
// malformed and the stream refuses it, as TranslateList refuses a list of
// one namespace.
var stricter = map[string]bool{"items not objects": true, "items not a list": true}

// TestTranslateListPageAsDocument: a leg's answer translated as a stream
// (TranslateListPage) is what translating it decoded (DecodeDocument,
// TranslateDocument) was: the same items, head, resourceVersion and
// continue, or a failure with the same code.
func TestTranslateListPageAsDocument(t *testing.T) {
	tr := newTestTranslator(t)
	for _, tc := range legAnswers {
		t.Run(tc.name, func(t *testing.T) {
			rule := tr.Rule(tc.gr, true)
			doc, err := DecodeDocument([]byte(tc.body))
			require.NoError(t, err)
			page, pageErr := tr.TranslateListPage(rule, []byte(tc.body))
			if stricter[tc.name] {
				require.NoError(t, tr.TranslateDocument(rule, doc))
				require.Error(t, pageErr)
				assert.Equal(t, int32(400), ToStatus(pageErr).Code)
				return
			}
			if docErr := tr.TranslateDocument(rule, doc); docErr != nil {
				require.Error(t, pageErr, "the document failed: %v", docErr)
				assert.Equal(t, ToStatus(docErr).Code, ToStatus(pageErr).Code)
				return
			}
			require.NoError(t, pageErr)
			key := "items"
			if doc["kind"] == "Table" {
				key = "rows"
			}
			assert.Equal(t, key, page.Key)
			want, _ := doc[key].([]any)
			got, err := DecodeDocument([]byte(`{"items":[` + string(page.Items) + `]}`))
			require.NoError(t, err)
			assert.Equal(t, normalized(t, want), normalized(t, got["items"]))
			assert.Equal(t, int64(len(want)), page.Kept)
			meta, _ := doc["metadata"].(map[string]any)
			assert.Equal(t, meta["resourceVersion"], nonEmpty(page.ResourceVersion))
			assert.Equal(t, meta["continue"], nonEmpty(page.Continue))
			delete(doc, key)
			delete(doc, "metadata")
			assert.Equal(t, normalized(t, doc), normalized(t, page.Head))
		})
	}
}

// nonEmpty is s, or nil if empty: a missing field of a decoded document.
func nonEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// normalized is v as decoding its JSON gives it: translated documents hold
// typed values too.
func normalized(t *testing.T, v any) any {
	t.Helper()
	if v == nil {
		v = []any{}
	}
	var buf bytes.Buffer
	require.NoError(t, encodeAny(&buf, v))
	out, err := decodeAny(buf.Bytes())
	require.NoError(t, err)
	return out
}

// TestTranslateListPageCounts: a page counts the items it read and those it
// kept, and an answer that is not JSON, or not a list's, fails.
func TestTranslateListPageCounts(t *testing.T) {
	tr := newTestTranslator(t)
	rule, _ := LookupKind(schema.GroupResource{Resource: "configmaps"})
	page, err := tr.TranslateListPage(rule, []byte(legAnswers[0].body))
	require.NoError(t, err)
	assert.Equal(t, int64(4), page.Read)
	assert.Equal(t, int64(2), page.Kept)
	assert.Equal(t, "42", page.ResourceVersion)
	assert.Equal(t, "abc", page.Continue)
	for _, bad := range []string{``, `[]`, `{"kind":"ConfigMapList","items":[`, `{"kind":"ConfigMapList","items":[],}`, `{"kind":}`} {
		t.Run(bad, func(t *testing.T) {
			_, err := tr.TranslateListPage(rule, []byte(bad))
			require.Error(t, err)
			assert.Equal(t, int32(400), ToStatus(err).Code)
		})
	}
}

// TestWriteJoinedList: the joined list is the document EncodeDocument
// writes of the head with the items of every page under key and the
// metadata, byte for byte, whatever the sizes of the pages.
func TestWriteJoinedList(t *testing.T) {
	large := `{"data":{"x":"` + strings.Repeat("y", 40<<10) + `"}}`
	for _, tc := range []struct {
		name      string
		head      map[string]any
		key       string
		items     []string
		rv, cont  string
		wantItems string
	}{
		{name: "no page", head: map[string]any{"kind": "ConfigMapList", "apiVersion": "v1"}, key: "items", rv: "7", wantItems: `[]`},
		{name: "pages, empty ones among them", head: map[string]any{"kind": "ConfigMapList", "apiVersion": "v1"}, key: "items",
			items: []string{``, `{"a":1},{"b":2}`, ``, `{"c":3}`}, rv: "7", cont: "next", wantItems: `[{"a":1},{"b":2},{"c":3}]`},
		{name: "table", head: map[string]any{"kind": "Table", "apiVersion": "meta.k8s.io/v1", "columnDefinitions": []any{}}, key: "rows",
			items: []string{`{"cells":[]}`}, rv: "1", wantItems: `[{"cells":[]}]`},
		{name: "large pages", head: map[string]any{"kind": "ConfigMapList"}, key: "items",
			items: []string{`{"a":1}`, large, large + "," + large, `{"b":2}`}, rv: "2",
			wantItems: `[{"a":1},` + large + "," + large + "," + large + `,{"b":2}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var items [][]byte
			for _, it := range tc.items {
				items = append(items, []byte(it))
			}
			var got bytes.Buffer
			require.NoError(t, WriteJoinedList(&got, tc.head, tc.key, items, tc.rv, tc.cont))
			doc := map[string]any{"metadata": map[string]any{"resourceVersion": tc.rv}}
			if tc.cont != "" {
				doc["metadata"].(map[string]any)["continue"] = tc.cont
			}
			for k, v := range tc.head {
				doc[k] = v
			}
			all, err := decodeAny([]byte(tc.wantItems))
			require.NoError(t, err)
			doc[tc.key] = all
			var want bytes.Buffer
			require.NoError(t, EncodeDocument(&want, doc))
			assert.Equal(t, want.String(), got.String())
		})
	}
	err := WriteJoinedList(failWriter{}, map[string]any{}, "items", [][]byte{[]byte(large)}, "1", "")
	require.Error(t, err)
}
