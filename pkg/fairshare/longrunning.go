package fairshare

import (
	"net/url"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The verbs and subresources kube-apiserver treats as long-running (its
// server options pass them to genericfilters.BasicLongRunningRequestCheck;
// that package is not imported here for these two sets: it pulls in the
// API server's storage and tracing).
var (
	longRunningVerbs        = sets.New("watch", "proxy")
	longRunningSubresources = sets.New("attach", "exec", "proxy", "log", "portforward")
)

// LongRunning reports whether a request (classified by
// translate.ParseRequestInfo, which agrees with the API server's
// RequestInfoFactory) is long-running, by kube-apiserver's rule with one
// narrowing: a log is long-running only when it follows (`logs -f`); one
// that does not ends when the log is read and holds an in-flight slot.
// rawQuery is the request's query, parsed only for a log.
func LongRunning(info translate.RequestInfo, rawQuery string) bool {
	if longRunningVerbs.Has(info.Verb) {
		return true
	}
	if !info.IsResourceRequest || !longRunningSubresources.Has(info.Subresource) {
		return false
	}
	if info.Subresource == "log" {
		query, _ := url.ParseQuery(rawQuery) // what parses, as the API server reads it
		return follows(query)
	}
	return true
}

// follows reports whether a log request's query follows, as the API server
// decodes PodLogOptions.Follow (a bool query parameter).
func follows(query url.Values) bool {
	values := query["follow"]
	var follow bool
	_ = runtime.Convert_Slice_string_To_bool(&values, &follow, nil) // never fails
	return follow
}
