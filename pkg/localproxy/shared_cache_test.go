package localproxy

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var grStorageClass = schema.GroupResource{Group: "storage.k8s.io", Resource: "storageclasses"}

func TestSharedCache(t *testing.T) {
	now := time.Unix(0, 0)
	c := newSharedCache(2*time.Second, 3)
	c.now = func() time.Time { return now }
	var fetches atomic.Int64
	fetch := func() sharedEntry { fetches.Add(1); return sharedEntry{exists: true} }

	t.Run("a repeat within the TTL is answered from the cache", func(t *testing.T) {
		c.get(grStorageClass, "fast", fetch)
		c.get(grStorageClass, "fast", fetch)
		assert.Equal(t, int64(1), fetches.Load())
	})
	t.Run("after the TTL it is fetched again", func(t *testing.T) {
		now = now.Add(2 * time.Second)
		c.get(grStorageClass, "fast", fetch)
		assert.Equal(t, int64(2), fetches.Load())
	})
	t.Run("forget drops the kind's entries", func(t *testing.T) {
		c.forget(grStorageClass)
		c.get(grStorageClass, "fast", fetch)
		assert.Equal(t, int64(3), fetches.Load())
	})
	t.Run("the cache never holds more than its size", func(t *testing.T) {
		for i := range 100 {
			c.get(grStorageClass, fmt.Sprintf("c%d", i), fetch)
			c.mu.Lock()
			n := len(c.entries)
			c.mu.Unlock()
			require.LessOrEqual(t, n, 3)
		}
	})
	t.Run("concurrent misses of one object make one fetch", func(t *testing.T) {
		c := newSharedCache(time.Minute, 10)
		var n atomic.Int64
		release := make(chan struct{})
		slow := func() sharedEntry { n.Add(1); <-release; return sharedEntry{exists: true} }
		var wg sync.WaitGroup
		for range 50 {
			wg.Go(func() { assert.True(t, c.get(grStorageClass, "fast", slow).exists) })
		}
		time.Sleep(50 * time.Millisecond)
		close(release)
		wg.Wait()
		assert.Equal(t, int64(1), n.Load())
	})
}

// TestSharedLookupsAreCachedAndBounded drives the production path: creates
// of StatefulSets whose volume claim templates name storage classes. Each
// distinct class is looked up upstream once per TTL, however many requests
// name it, and an object naming too many distinct classes is refused with
// 422 before the proxy has sent more than the bound of lookups.
func TestSharedLookupsAreCachedAndBounded(t *testing.T) {
	var lookups atomic.Int64
	p, _ := newTestProxy(t, func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/apis/storage.k8s.io":
			jsonHandler(200, `{"kind":"APIGroup","name":"storage.k8s.io","versions":[{"groupVersion":"storage.k8s.io/v1","version":"v1"}]}`)(w, r)
		case r.URL.Path == "/apis/storage.k8s.io/v1":
			jsonHandler(200, `{"kind":"APIResourceList","groupVersion":"storage.k8s.io/v1","resources":[{"name":"storageclasses","namespaced":false,"kind":"StorageClass","verbs":["get"]}]}`)(w, r)
		case strings.HasPrefix(r.URL.Path, "/apis/storage.k8s.io/v1/storageclasses/"):
			lookups.Add(1)
			jsonHandler(404, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`)(w, r)
		default:
			jsonHandler(201, `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db","namespace":"acme-default"}}`)(w, r)
		}
	})
	statefulSet := func(classes ...string) string {
		var templates []string
		for i, c := range classes {
			templates = append(templates, fmt.Sprintf(`{"metadata":{"name":"v%d"},"spec":{"storageClassName":%q}}`, i, c))
		}
		return `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"db"},"spec":{"volumeClaimTemplates":[` + strings.Join(templates, ",") + `]}}`
	}
	create := func(body string) int {
		return request(p, http.MethodPost, "/apis/apps/v1/namespaces/default/statefulsets", map[string]string{"Content-Type": "application/json"}, body).Code
	}

	for range 20 {
		require.Equal(t, http.StatusCreated, create(statefulSet("fast", "fast", "standard")))
	}
	// "fast" and "standard", each as the tenant's own (acme-fast,
	// acme-standard) and, since the tenant has none, as the cluster's: two
	// lookups per distinct name at most, whatever the number of requests.
	assert.Equal(t, int64(4), lookups.Load(), "repeats within the TTL must come from the cache")

	var many []string
	for i := range 5000 {
		many = append(many, fmt.Sprintf("class-%d", i))
	}
	before := lookups.Load()
	assert.Equal(t, http.StatusUnprocessableEntity, create(statefulSet(many...)))
	assert.LessOrEqual(t, lookups.Load()-before, int64(2*64), "one object may cost at most two lookups for each of MaxSharedRefs names")
}
