package fairshare

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// apiserverInfo is the API server's own request classification.
var apiserverInfo = &apirequest.RequestInfoFactory{APIPrefixes: sets.NewString("api", "apis"), GrouplessAPIPrefixes: sets.NewString("api")}

// apiserverLongRunning is kube-apiserver's rule
// (genericfilters.BasicLongRunningRequestCheck with its server's sets).
func apiserverLongRunning(info *apirequest.RequestInfo) bool {
	return longRunningVerbs.Has(info.Verb) || (info.IsResourceRequest && longRunningSubresources.Has(info.Subresource))
}

func TestLongRunning(t *testing.T) {
	for _, tc := range []struct {
		method, target string
		want           bool
	}{
		{"GET", "/api/v1/namespaces/default/configmaps/x", false},
		{"GET", "/api/v1/namespaces/default/configmaps", false},
		{"GET", "/api/v1/namespaces/default/configmaps?watch=true", true},
		{"GET", "/api/v1/namespaces/default/configmaps?watch=1", true},
		{"GET", "/api/v1/namespaces/default/configmaps?watch=false", false},
		{"GET", "/api/v1/watch/namespaces/default/configmaps", true},
		{"GET", "/apis/apps/v1/deployments?watch=true&resourceVersion=1", true},
		{"POST", "/api/v1/namespaces/default/pods/p/exec?command=ls", true},
		{"GET", "/api/v1/namespaces/default/pods/p/exec?command=ls", true},
		{"POST", "/api/v1/namespaces/default/pods/p/attach", true},
		{"POST", "/api/v1/namespaces/default/pods/p/portforward", true},
		{"GET", "/api/v1/namespaces/default/pods/p/proxy/metrics", true},
		{"GET", "/api/v1/namespaces/default/services/s:80/proxy/", true},
		{"GET", "/api/v1/namespaces/default/pods/p/log?follow=true", true},
		{"GET", "/api/v1/namespaces/default/pods/p/log", false},
		{"GET", "/api/v1/namespaces/default/pods/p/log?follow=false", false},
		{"GET", "/api/v1/namespaces/default/pods/p/status", false},
		{"POST", "/api/v1/namespaces/default/configmaps", false},
		{"GET", "/api", false},
		{"GET", "/openapi/v3", false},
		{"GET", "/version", false},
	} {
		t.Run(tc.method+" "+tc.target, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "http://proxy"+tc.target, nil)
			ours := translate.ParseRequestInfo(req.Method, req.URL.Path, req.URL.Query())
			assert.Equal(t, tc.want, LongRunning(ours, req.URL.RawQuery))
			theirs, err := apiserverInfo.NewRequestInfo(req)
			require.NoError(t, err)
			if ours.Subresource != "log" {
				assert.Equal(t, apiserverLongRunning(theirs), tc.want, "kube-apiserver's rule says otherwise")
			}
		})
	}
}

func TestWriteRefusal(t *testing.T) {
	for _, tc := range []struct {
		name       string
		ref        Refusal
		retryAfter string
		message    string
	}{
		{"rate", Refusal{Reason: ReasonRate, RetryAfter: 2500 * time.Millisecond, Limits: Limits{QPS: 5, Burst: 10}}, "3", "5 per second (burst 10)"},
		{"inflight", Refusal{Reason: ReasonInflight, RetryAfter: inflightRetryAfter, Limits: Limits{MaxInflight: 4}}, "1", "4 requests in flight"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			WriteRefusal(w, tc.ref)
			assert.Equal(t, http.StatusTooManyRequests, w.Code)
			assert.Equal(t, tc.retryAfter, w.Header().Get("Retry-After"))
			assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
			var st metav1.Status
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &st))
			assert.Equal(t, "Status", st.Kind)
			assert.Equal(t, metav1.StatusFailure, st.Status)
			assert.Equal(t, metav1.StatusReasonTooManyRequests, st.Reason)
			assert.EqualValues(t, http.StatusTooManyRequests, st.Code)
			require.NotNil(t, st.Details)
			assert.Equal(t, tc.retryAfter, strconv.Itoa(int(st.Details.RetryAfterSeconds)))
			assert.Contains(t, st.Message, tc.message)
		})
	}
}
