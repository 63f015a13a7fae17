package zooserver

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/request/bearertoken"
	"k8s.io/apiserver/pkg/authentication/request/union"
	"k8s.io/apiserver/pkg/authentication/request/x509"
	"k8s.io/apiserver/pkg/authentication/token/cache"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/server/dynamiccertificates"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// The cluster publishes the CA of its client certificates here, for
// servers that authenticate the cluster's users themselves (as aggregated
// API servers do).
const (
	authenticationConfigMapNamespace = "kube-system"
	authenticationConfigMapName      = "extension-apiserver-authentication"
	clientCAKey                      = "client-ca-file"
)

// tokenCacheTTL is how long a TokenReview's answer is reused: a revoked
// token (a deleted ServiceAccount or pod) acts for at most this long.
const tokenCacheTTL = 10 * time.Second

// authn authenticates callers with the API server's own authenticators
// (k8s.io/apiserver): client certificates verified against the cluster's
// client CA (followed live from kube-system/extension-apiserver-authentication)
// and, when given, the zoo CA file; bearer tokens through TokenReview
// upstream, answers cached for tokenCacheTTL.
type authn struct {
	// certs is the API server's x509 authenticator (chains verified
	// against cas), tokens its bearer-token one over TokenReview; union is
	// the two as the API server unions them, which AuthenticateRequest
	// (conncache.go) follows, verifying a connection's certificate once.
	certs, tokens, union authenticator.Request
	cas                  dynamiccertificates.CAContentProvider
	// providers are the CA sources cas unions; each must be loaded before
	// the server is ready, except the cluster's (clusterCA) once the
	// cluster is known to publish none (noClusterCA).
	providers   []dynamiccertificates.CAContentProvider
	clusterCA   dynamiccertificates.CAContentProvider
	noClusterCA atomic.Bool
	// caGeneration counts the CA bundles seen: a connection's verified
	// certificate is verified again after the CAs change.
	caGeneration atomic.Uint64
	run          []func(ctx context.Context, workers int)
}

// newAuthn builds the authenticator; start loads and follows its CAs.
// client follows the CAs; reviews runs the token reviews.
func newAuthn(client, reviews kubernetes.Interface, zooCAFile string) (*authn, error) {
	clusterCA, err := dynamiccertificates.NewDynamicCAFromConfigMapController("client-ca", authenticationConfigMapNamespace,
		authenticationConfigMapName, clientCAKey, client)
	if err != nil {
		return nil, fmt.Errorf("cluster client CA: %w", err)
	}
	a := &authn{clusterCA: clusterCA}
	a.run = []func(context.Context, int){clusterCA.Run, func(ctx context.Context, _ int) { a.awaitClusterCA(ctx, client) }}
	providers := []dynamiccertificates.CAContentProvider{clusterCA}
	if zooCAFile != "" {
		zooCA, err := dynamiccertificates.NewDynamicCAContentFromFile("zoo-client-ca", zooCAFile)
		if err != nil {
			return nil, fmt.Errorf("client CA file: %w", err)
		}
		providers = append(providers, zooCA)
		a.run = append(a.run, zooCA.Run)
	}
	a.init(providers, cache.New(newTokenReviewer(reviews), false, tokenCacheTTL, tokenCacheTTL))
	return a, nil
}

// init builds the authenticators over the CA providers and tokens.
func (a *authn) init(providers []dynamiccertificates.CAContentProvider, tokens authenticator.Token) {
	a.providers = providers
	a.cas = dynamiccertificates.NewUnionCAContentProvider(providers...)
	for _, p := range providers {
		if n, ok := p.(dynamiccertificates.Notifier); ok {
			n.AddListener(caListener{a})
		}
	}
	a.certs = x509.NewDynamic(a.cas.VerifyOptions, x509.CommonNameUserConversion)
	a.tokens = bearertoken.New(tokens)
	a.union = union.New(a.certs, a.tokens)
}

// caListener bumps the CA generation when a CA bundle changes.
type caListener struct{ a *authn }

// Enqueue implements dynamiccertificates.Listener.
func (l caListener) Enqueue() { l.a.caGeneration.Add(1) }

// start follows the CAs until ctx ends; ready says when they are loaded.
func (a *authn) start(ctx context.Context) {
	for _, run := range a.run {
		go run(ctx, 1)
	}
}

// ready reports whether every client CA is loaded. The zoo CA file loads
// at once but the cluster's arrives through an informer shortly after
// start: until then a kubernetes-signed certificate would be refused, so
// the server is not ready while any bundle is still empty, unless the
// cluster publishes none (awaitClusterCA).
func (a *authn) ready() bool {
	for _, p := range a.providers {
		if len(p.CurrentCABundleContent()) == 0 && (p != a.clusterCA || !a.noClusterCA.Load()) {
			return false
		}
	}
	return len(a.providers) > 0
}

// awaitClusterCA waits until the cluster's client CA is loaded, or reads
// that the cluster publishes none (an API server without --client-ca-file:
// no key in authenticationConfigMapName, or no ConfigMap), in which case
// the server is ready without it (its controller still loads one published
// later).
func (a *authn) awaitClusterCA(ctx context.Context, client kubernetes.Interface) {
	_ = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		if len(a.clusterCA.CurrentCABundleContent()) > 0 {
			return true, nil
		}
		cm, err := client.CoreV1().ConfigMaps(authenticationConfigMapNamespace).Get(ctx, authenticationConfigMapName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) || (err == nil && cm.Data[clientCAKey] == "") {
			klog.InfoS("the cluster publishes no client CA; only tokens and certificates of the zoo CA are accepted",
				"configMap", authenticationConfigMapNamespace+"/"+authenticationConfigMapName, "key", clientCAKey)
			a.noClusterCA.Store(true)
			return true, nil
		}
		return false, nil // published and loading, or not readable yet
	})
}

// Token reviews are work that anyone who reaches the server can cause (one
// per distinct token): they run on a client of their own, so that a flood
// of made-up tokens never delays the server's other upstream calls (its CA
// and tenant informers, the API access of tenant pods), at most
// maxTokenReviews at once, each bounded in time; a review that cannot start
// fails the request (401) instead of queueing.
const (
	maxTokenReviews     = 64
	tokenReviewTimeout  = 10 * time.Second
	tokenReviewQueueFor = 2 * time.Second
)

// tokenReviewer asks the upstream who a bearer token belongs to.
type tokenReviewer struct {
	client kubernetes.Interface
	slots  chan struct{}
}

func newTokenReviewer(client kubernetes.Interface) tokenReviewer {
	return tokenReviewer{client: client, slots: make(chan struct{}, maxTokenReviews)}
}

// AuthenticateToken implements authenticator.Token with one TokenReview for
// the API server's default audience.
func (t tokenReviewer) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	wait := time.NewTimer(tokenReviewQueueFor)
	defer wait.Stop()
	select {
	case t.slots <- struct{}{}:
		defer func() { <-t.slots }()
	case <-wait.C:
		return nil, false, errors.New("token review: too many reviews in flight")
	case <-ctx.Done():
		return nil, false, ctx.Err()
	}
	ctx, cancel := context.WithTimeout(ctx, tokenReviewTimeout)
	defer cancel()
	review, err := t.client.AuthenticationV1().TokenReviews().Create(ctx,
		&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil {
		return nil, false, fmt.Errorf("token review: %w", err)
	}
	if !review.Status.Authenticated {
		return nil, false, nil
	}
	u := review.Status.User
	return &authenticator.Response{User: &user.DefaultInfo{Name: u.Username, UID: u.UID, Groups: u.Groups}}, true, nil
}
