package translate

import (
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/util/sets"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/klog/v2"
)

func init() {
	// The API server's parser logs every query it cannot decode (limit=abc).
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
}

// apiserverInfo is the API server's own request classification.
var apiserverInfo = &apirequest.RequestInfoFactory{APIPrefixes: sets.NewString("api", "apis"), GrouplessAPIPrefixes: sets.NewString("api")}

// checkAgreesWithAPIServer checks that the proxy classifies method+target as
// the API server does, and that the API server classifies the translated
// upstream request as the proxy meant it; a request the two could read
// differently must be refused.
func checkAgreesWithAPIServer(t *testing.T, tr *Translator, method, target string) (forwarded bool) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "http://proxy"+target, nil)
	req.Method = method
	theirs, theirErr := apiserverInfo.NewRequestInfo(req)
	ours := ParseRequestInfo(method, req.URL.Path, req.URL.Query())
	u, err := tr.TranslateRequest(Request{Method: method, Path: req.URL.Path, Query: req.URL.Query(), Header: http.Header{}})
	if err != nil {
		return false // refused: nothing reaches the upstream
	}
	require.NoError(t, theirErr, "the proxy forwarded what the API server cannot classify")
	require.Equal(t, theirs.IsResourceRequest, ours.IsResourceRequest)
	if !ours.IsResourceRequest {
		return true
	}
	require.NotEmpty(t, theirs.Verb, "the API server has no verb for %s", method)
	assert.Equal(t, theirs.Verb, ours.Verb, "verb")
	assert.Equal(t, theirs.APIPrefix, ours.APIPrefix, "API prefix")
	assert.Equal(t, theirs.APIGroup, ours.APIGroup, "API group")
	assert.Equal(t, theirs.APIVersion, ours.APIVersion, "API version")
	assert.Equal(t, theirs.Resource, ours.Resource, "resource")
	assert.Equal(t, theirs.Subresource, ours.Subresource, "subresource")
	pathName := ""
	if len(theirs.Parts) > 1 {
		pathName = theirs.Parts[1]
	}
	assert.Equal(t, pathName, ours.Name, "name in the path")
	assert.Equal(t, scopedNamespace(theirs, req.URL.Path), ours.Namespace, "namespace")

	// The upstream reads the translated request as the proxy meant it.
	up := httptest.NewRequest(http.MethodGet, "http://upstream"+u.Path+"?"+u.Query.Encode(), nil)
	up.Method = u.Method
	upInfo, err := apiserverInfo.NewRequestInfo(up)
	require.NoError(t, err)
	assert.True(t, upInfo.IsResourceRequest)
	assert.Equal(t, ours.Verb, upInfo.Verb, "upstream verb of %s %s", u.Method, up.URL)
	assert.Equal(t, ours.Resource, upInfo.Resource, "upstream resource")
	assert.Equal(t, ours.Subresource, upInfo.Subresource, "upstream subresource")
	assert.Equal(t, ours.Namespace == "", scopedNamespace(upInfo, u.Path) == "", "upstream namespace %q", upInfo.Namespace)
	assert.Equal(t, theirs.Parts[min(len(theirs.Parts), 3):], upInfo.Parts[min(len(upInfo.Parts), 3):], "segments past the subresource")
	return true
}

// scopedNamespace is the namespace of an API server RequestInfo as
// RequestInfo.Namespace means it: the namespace the addressed resource lives
// in, so empty for /namespaces/{name}[/status|/finalize], which the API
// server reports with the namespace set to the name.
func scopedNamespace(info *apirequest.RequestInfo, path string) string {
	skip := 2 // api, version
	if info.APIPrefix != "api" {
		skip++ // the group
	}
	if info.Verb == "watch" && len(splitPath(path)) > skip && splitPath(path)[skip] == "watch" {
		skip++
	}
	if len(splitPath(path))-skip == len(info.Parts) { // the parts did not move past namespaces/{ns}
		return ""
	}
	return info.Namespace
}

// TestRequestInfoAgreesWithAPIServer: the hand-written ParseRequestInfo (the
// hot path) classifies odd requests exactly as the API server's own
// RequestInfoFactory does, or the proxy refuses them.
func TestRequestInfoAgreesWithAPIServer(t *testing.T) {
	tr := newTestTranslator(t)
	for _, tc := range []struct {
		method, target string
		refused        bool
	}{
		{"GET", "/api/v1/namespaces/default/configmaps", false},
		{"GET", "/api/v1/namespaces/default/configmaps/", false},
		{"GET", "/api/v1/namespaces/default/configmaps?watch=yes", false},
		{"GET", "/api/v1/namespaces/default/configmaps?watch=1", false},
		{"GET", "/api/v1/namespaces/default/configmaps?watch=True", false},
		{"GET", "/api/v1/namespaces/default/configmaps?watch=", false},
		{"GET", "/api/v1/namespaces/default/configmaps?watch=FALSE", false},
		{"GET", "/api/v1/namespaces/default/configmaps?watch=0&watch=1", false},
		{"GET", "/api/v1/namespaces/default/configmaps?watch=false&watch=true", false},
		{"GET", "/api/v1/namespaces/default/configmaps?watch=true&limit=abc", false},
		{"GET", "/api/v1/namespaces/default/configmaps/cfg?watch=true", false},
		{"GET", "/api/v1/namespaces/default/configmaps?fieldSelector=metadata.name%3Dcfg&watch=1", false},
		{"GET", "/api/v1/watch/namespaces/default/configmaps", false},
		{"GET", "/api/v1/watch/namespaces/default/configmaps/cfg?watch=false", false},
		{"GET", "/api/v1/watch", true},
		{"HEAD", "/api/v1/namespaces/default/configmaps/cfg", false},
		{"OPTIONS", "/api/v1/namespaces/default/configmaps", true},
		{"CONNECT", "/api/v1/namespaces/default/pods/p/exec", true},
		{"TRACE", "/api/v1/namespaces/default/configmaps", true},
		{"DELETE", "/api/v1/namespaces/default/configmaps", false},
		{"DELETE", "/api/v1/namespaces/default/configmaps/", false},
		{"GET", "/api/v1/namespaces/default", false},
		{"GET", "/api/v1/namespaces/default/status", false},
		{"PUT", "/api/v1/namespaces/default/finalize", false},
		{"PUT", "/api/v1/namespaces/default/finalize/x", true},
		{"GET", "/api/v1/namespaces//configmaps", true},
		{"GET", "/api/v1//namespaces/default/configmaps", true},
		{"GET", "/api/v1/namespaces/default/configmaps/..", true},
		{"GET", "/api/v1/namespaces/default/configmaps/%2e%2e/%2e%2e/beta-default/configmaps/x", true},
		{"GET", "/api/v1/namespaces/default/configmaps/./cfg", true},
		// The API server reads a%2Fb as the name a and a subresource b,
		// which configmaps do not have: unclassified, so refused.
		{"GET", "/api/v1/namespaces/default/configmaps/a%2Fb", true},
		{"GET", "/api/v1/namespaces/default/configmaps/a%2F..%2F..%2Fbeta-default", true},
		{"GET", "/api/v1/proxy/namespaces/default/pods/p", true},
		{"GET", "/api/v1/namespaces/default/pods/p/proxy/", true},
		{"GET", "/api/v1/namespaces/default/services/s:80/proxy/x", true},
		{"GET", "/api/v1/nodes/n1/proxy/pods", true},
		{"POST", "/api/v1/namespaces/default/pods/p/exec?command=ls&command=-l", false},
		{"GET", "/api/v1/namespaces/default/pods/p/log?follow=true&follow=false", false},
		{"GET", "/apis/apps/v1/namespaces/default/deployments/d/scale", false},
		{"GET", "/apis/apps/v1/namespaces/default/deployments/d/scale/x", true},
		{"GET", "/apis/apps/v1/watch/deployments?labelSelector=a&labelSelector=b", false},
		{"GET", "/apis/apps", false},
		{"GET", "/apis/apps/v1", false},
		{"GET", "/apis/apps/v1/", false},
		{"GET", "/apis/../api/v1/namespaces", true},
		{"POST", "/apis", true},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "http://proxy"+tc.target, nil)
			_, err := tr.TranslateRequest(Request{Method: tc.method, Path: req.URL.Path, Query: req.URL.Query(), Header: http.Header{}})
			assert.Equal(t, tc.refused, err != nil, "refused: %v", err)
			checkAgreesWithAPIServer(t, tr, tc.method, tc.target)
		})
	}
}

// TestRequestInfoAgreesWithAPIServerRandom does the same for random paths,
// methods and queries built from the pieces the two parsers branch on.
func TestRequestInfoAgreesWithAPIServerRandom(t *testing.T) {
	tr := newTestTranslator(t)
	segments := []string{"api", "apis", "v1", "apps", "rbac.authorization.k8s.io", "stable.example.com", "namespaces",
		"default", "kube-system", "configmaps", "pods", "deployments", "clusterroles", "crontabs", "x", "status", "finalize",
		"scale", "exec", "log", "watch", "proxy", "", ".", "..", "%2e", "a%2Fb", "%2F"}
	methods := []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "get"}
	queries := []string{"", "watch=yes", "watch=1", "watch=True", "watch=", "watch=0", "watch=false&watch=true",
		"watch=true&watch=false", "limit=abc&watch=no", "fieldSelector=metadata.name%3Dx", "labelSelector=a&labelSelector=b",
		"fieldSelector=metadata.namespace%3Ddefault&fieldSelector=metadata.namespace%3Dbeta-default"}
	rng := rand.New(rand.NewSource(11))
	forwarded := 0
	// Resources and subresources the kinds table does not classify ("x" in
	// the core group, a ConfigMap's scale) are refused, so more requests
	// keep the forwarded ones above the bound.
	for i := 0; i < 5000; i++ {
		parts := []string{[]string{"api", "apis"}[rng.Intn(2)]}
		for n := rng.Intn(7); n > 0; n-- {
			parts = append(parts, segments[rng.Intn(len(segments))])
		}
		target := "/" + strings.Join(parts, "/")
		if rng.Intn(4) == 0 {
			target += "/"
		}
		if q := queries[rng.Intn(len(queries))]; q != "" {
			target += "?" + q
		}
		method := methods[rng.Intn(len(methods))]
		t.Run(fmt.Sprint(i, " ", method, " ", target), func(t *testing.T) {
			if checkAgreesWithAPIServer(t, tr, method, target) {
				forwarded++
			}
		})
	}
	assert.Greater(t, forwarded, 400, "the random requests must not all be refused")
}

// BenchmarkRequestInfo measures ParseRequestInfo beside the API server's
// RequestInfoFactory, which the equivalence tests above hold it to: the
// hand-written parser stays only while it pays on the hot path (every
// request through the proxy and the server is classified).
func BenchmarkRequestInfo(b *testing.B) {
	for _, target := range []string{
		"/api/v1/namespaces/default/configmaps/get-me",
		"/apis/apps/v1/namespaces/default/deployments?labelSelector=app%3Dweb&limit=500",
		"/api/v1/namespaces/default/pods?watch=true&resourceVersion=12345&allowWatchBookmarks=true",
	} {
		req := httptest.NewRequest(http.MethodGet, "http://proxy"+target, nil)
		b.Run("kubectl-zoo"+target, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = ParseRequestInfo(req.Method, req.URL.Path, req.URL.Query())
			}
		})
		b.Run("apiserver"+target, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := apiserverInfo.NewRequestInfo(req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
