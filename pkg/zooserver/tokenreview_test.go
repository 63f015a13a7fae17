package zooserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestTokenReviewsAreBounded: made-up tokens cannot queue reviews without
// end; once maxTokenReviews are in flight, the next fails after a short
// wait rather than waiting behind them.
func TestTokenReviewsAreBounded(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(maxTokenReviews)
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started.Done()
		<-release
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"kind":"TokenReview","apiVersion":"authentication.k8s.io/v1","status":{"authenticated":false}}`))
	}))
	defer upstream.Close()
	client, err := kubernetes.NewForConfig(&rest.Config{Host: upstream.URL, QPS: 1000, Burst: 1000})
	require.NoError(t, err)
	r := newTokenReviewer(client)
	var done sync.WaitGroup
	for range maxTokenReviews {
		done.Go(func() {
			_, ok, err := r.AuthenticateToken(context.Background(), "made-up")
			assert.False(t, ok)
			assert.NoError(t, err)
		})
	}
	waited := make(chan struct{})
	go func() { started.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(30 * time.Second):
		close(release)
		t.Fatal("the reviews never reached the upstream")
	}
	_, ok, err := r.AuthenticateToken(context.Background(), "one more")
	require.Error(t, err)
	assert.False(t, ok)
	assert.Contains(t, err.Error(), "too many reviews in flight")
	close(release)
	done.Wait()
}
