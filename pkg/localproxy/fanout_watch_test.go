package localproxy

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestOpenLegs: the watches of a fan-out open concurrently (bounded), come
// back in namespace order, and a failure is the first failing namespace's
// in that order, with every opened watch closed; a namespace the identity
// may not watch is left out and named, unless it may watch none.
func TestOpenLegs(t *testing.T) {
	var inFlight, most atomic.Int32
	p, _ := newTestProxy(t, func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(20 * time.Millisecond)
		ns := strings.Split(r.URL.Path, "/")[4]
		w.Header().Set("Content-Type", "application/json")
		if strings.HasPrefix(ns, "acme-err") {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"InternalError","code":500,"message":"etcd is down: configmaps in the namespace \"%s\""}`, ns)
			return
		}
		if strings.HasPrefix(ns, "acme-bad") {
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprintf(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":"configmaps is forbidden: User \"zoo:acme:admin\" cannot watch resource \"configmaps\" in API group \"\" in the namespace \"%s\""}`, ns)
			return
		}
		w.Header().Set("X-Namespace", ns)
	})
	u, err := p.tr.TranslateRequest(translate.Request{Method: "GET", Path: "/api/v1/configmaps", Query: map[string][]string{"watch": {"true"}}})
	require.NoError(t, err)
	r := httptest.NewRequest("GET", "/api/v1/configmaps?watch=true", nil)

	var nss []string
	for i := range 40 {
		nss = append(nss, fmt.Sprintf("acme-ns%02d", i))
	}
	legs, skipped, failed := p.openLegs(t.Context(), r, u, nss)
	require.Nil(t, failed)
	assert.Empty(t, skipped)
	require.Len(t, legs, len(nss))
	for i, l := range legs {
		assert.Equal(t, nss[i], l.Header.Get("X-Namespace"))
		l.Body.Close()
	}
	assert.Greater(t, most.Load(), int32(1), "opened one at a time")
	assert.LessOrEqual(t, most.Load(), int32(legOpeners))

	for _, tc := range []struct {
		name    string
		nss     []string
		code    int    // 0: served
		want    string // in the refusal
		skipped []string
	}{
		{"refused in some", []string{"acme-a", "acme-bad1", "acme-c", "acme-bad2"}, 0, "", []string{"acme-bad1", "acme-bad2"}},
		{"refused in all", []string{"acme-bad1", "acme-bad2"}, http.StatusForbidden, `in the namespace \"bad1\"`, nil},
		{"another failure", []string{"acme-a", "acme-bad1", "acme-err1", "acme-err2"}, http.StatusInternalServerError, "err1", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			legs, skipped, failed := p.openLegs(t.Context(), r, u, tc.nss)
			if tc.code == 0 {
				require.Nil(t, failed)
				assert.Equal(t, tc.skipped, skipped)
				for i, l := range legs {
					if strings.HasPrefix(tc.nss[i], "acme-bad") {
						assert.Nil(t, l)
						continue
					}
					require.NotNil(t, l, tc.nss[i])
					l.Body.Close()
				}
				return
			}
			require.NotNil(t, failed)
			assert.Nil(t, legs)
			rec := httptest.NewRecorder()
			failed(rec)
			assert.Equal(t, tc.code, rec.Code)
			assert.Contains(t, rec.Body.String(), tc.want, "the first failure in namespace order, translated")
		})
	}
}
