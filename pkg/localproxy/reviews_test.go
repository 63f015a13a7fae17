package localproxy

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// reviewUpstream answers reviews as the API server would for an identity
// allowed to create them: it records who asked (Impersonate-User) and what.
type reviewUpstream struct {
	mu     sync.Mutex
	as     []string
	bodies []string
	// refuse makes it refuse the own identity (no Impersonate-User).
	refuse bool
	// answer is the TokenReview status it gives.
	answer string
}

func (u *reviewUpstream) handle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	body, _ := io.ReadAll(r.Body)
	imp := r.Header.Get("Impersonate-User")
	u.mu.Lock()
	u.as, u.bodies = append(u.as, imp), append(u.bodies, string(body))
	u.mu.Unlock()
	if imp != "" || u.refuse {
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,
 "message":"tokenreviews.authentication.k8s.io is forbidden: User \"system:serviceaccount:zoo-system:zoo-server\" cannot create resource \"tokenreviews\""}`)
		return
	}
	w.WriteHeader(http.StatusCreated)
	switch r.URL.Path {
	case "/apis/authentication.k8s.io/v1/tokenreviews":
		_, _ = io.WriteString(w, `{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","spec":{"token":"t"},"status":`+u.answer+`}`)
	default:
		_, _ = w.Write(body)
	}
}

func newReviewProxy(t *testing.T, up *reviewUpstream, admin bool) *Proxy {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(up.handle))
	t.Cleanup(ts.Close)
	p, err := New(Config{Upstream: &rest.Config{Host: ts.URL, BearerToken: "upstream-secret"}, Tenant: "acme", Token: testToken, Admin: admin})
	require.NoError(t, err)
	return p
}

// TestReviewsWithOwnIdentity: a tenant admin's TokenReviews and
// SubjectAccessReviews go upstream with the proxy's own identity, confined
// by the translator; anyone else's are refused without an upstream request;
// a refusal of the own identity does not name it.
func TestReviewsWithOwnIdentity(t *testing.T) {
	const (
		tokenReviews = "/apis/authentication.k8s.io/v1/tokenreviews"
		sars         = "/apis/authorization.k8s.io/v1/subjectaccessreviews"
	)
	t.Run("a token of the tenant", func(t *testing.T) {
		up := &reviewUpstream{answer: `{"authenticated":true,"user":{"username":"system:serviceaccount:acme-dev:builder","groups":["system:serviceaccounts","system:serviceaccounts:acme-dev","system:authenticated"]}}`}
		rec := request(newReviewProxy(t, up, true), http.MethodPost, tokenReviews, nil, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"t"}}`)
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		assert.Equal(t, []string{""}, up.as, "sent with the own identity")
		assert.JSONEq(t, `{"authenticated":true,"user":{"username":"system:serviceaccount:dev:builder","groups":["system:serviceaccounts","system:serviceaccounts:dev","system:authenticated"]}}`,
			statusOf(t, rec.Body.Bytes()))
	})
	t.Run("a token of another tenant reads as unauthenticated", func(t *testing.T) {
		up := &reviewUpstream{answer: `{"authenticated":true,"user":{"username":"zoo:beta:admin","groups":["zoo:tenant:beta"]}}`}
		rec := request(newReviewProxy(t, up, true), http.MethodPost, tokenReviews, nil, `{"apiVersion":"authentication.k8s.io/v1","kind":"TokenReview","spec":{"token":"t"}}`)
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		assert.NotContains(t, rec.Body.String(), "beta")
		assert.JSONEq(t, `{"authenticated":false,"error":"the token does not belong to this cluster"}`, statusOf(t, rec.Body.Bytes()))
	})
	t.Run("a SubjectAccessReview asks about the tenant's own", func(t *testing.T) {
		up := &reviewUpstream{}
		rec := request(newReviewProxy(t, up, true), http.MethodPost, sars, nil,
			`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"dev","groups":["system:masters"],"resourceAttributes":{"namespace":"prod","verb":"get","resource":"secrets"}}}`)
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		require.Equal(t, []string{""}, up.as)
		assert.JSONEq(t, `{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","spec":{"user":"zoo:acme:dev","groups":["zoo:acme:system:masters","zoo:tenant:acme"],"resourceAttributes":{"namespace":"acme-prod","verb":"get","resource":"secrets"}}}`,
			up.bodies[0])
		assert.NotContains(t, rec.Body.String(), "acme")
	})
	for _, path := range []string{tokenReviews, sars} {
		t.Run("a user who is not an admin "+path, func(t *testing.T) {
			up := &reviewUpstream{}
			rec := request(newReviewProxy(t, up, false), http.MethodPost, path, nil, `{"spec":{"token":"t","user":"dev"}}`)
			require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
			assert.Empty(t, up.as, "nothing went upstream")
		})
		t.Run("the own identity refused "+path, func(t *testing.T) {
			up := &reviewUpstream{refuse: true}
			rec := request(newReviewProxy(t, up, true), http.MethodPost, path, nil, `{"spec":{"token":"t","user":"dev"}}`)
			require.Equal(t, http.StatusForbidden, rec.Code, rec.Body.String())
			var st metav1.Status
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &st))
			assert.Equal(t, metav1.StatusReasonForbidden, st.Reason)
			assert.NotContains(t, st.Message, "zoo-server")
		})
	}
}

func statusOf(t *testing.T, body []byte) string {
	t.Helper()
	var obj struct {
		Status json.RawMessage `json:"status"`
	}
	require.NoError(t, json.Unmarshal(body, &obj))
	return string(obj.Status)
}
