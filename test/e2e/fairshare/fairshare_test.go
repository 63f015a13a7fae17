package fairshare_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// acmeLimit is small enough that a burst exceeds it at once.
var acmeLimit = policy.RateLimit{QPS: 2, Burst: 4, MaxInflight: 3}

// endpoint is `serve` or the server, with a kubeconfig for each tenant.
type endpoint struct {
	acme, beta string
	// replica is the server's, nil for serve.
	replica *framework.Replica
}

// TestFairShare: per endpoint, once acme's record has a rate limit, a burst
// beyond it gets 429 with Retry-After and a TooManyRequests Status; beta,
// with a share of its own, gets every request through while acme floods;
// watches held open (as many as acme's max in-flight) take no slot, so a GET
// still succeeds beside them; kubectl meets the 429, waits and succeeds.
// The limits are set after the endpoint started: they apply without a
// restart.
func TestFairShare(t *testing.T) {
	framework.InstallTenants(t)
	for _, who := range []string{"acme", "beta"} {
		framework.Kubectl(t, "create", "configmap", "cfg", "-n", who+"-default")
	}
	for _, name := range []string{"serve", "server"} {
		t.Run(name, func(t *testing.T) {
			var ep endpoint
			if name == "serve" {
				ep.acme, ep.beta = serve(t, "acme"), serve(t, "beta")
			} else {
				ep.replica = framework.StartReplica(t)
				url := "https://" + ep.replica.Addr
				ep.acme = framework.ServerKubeconfigFor(t, url, framework.ClusterCert(t, "zoo:acme:admin", "zoo:tenant:acme"))
				ep.beta = framework.ServerKubeconfigFor(t, url, framework.ClusterCert(t, "zoo:beta:admin", "zoo:tenant:beta"))
			}
			acme, beta := rawClient(t, ep.acme), rawClient(t, ep.beta)
			require.Equal(t, http.StatusOK, acme.get(t, cfgPath).code, "before any limit")
			setRateLimit(t, "acme", acmeLimit)
			setRateLimit(t, "beta", policy.RateLimit{QPS: 1000, Burst: 1000, MaxInflight: 50})

			t.Run("a burst beyond the limit gets 429, Retry-After and a Status", func(t *testing.T) {
				seen := map[string]bool{}   // the reasons met: the bucket's and the in-flight bound's
				eventually(t, func() bool { // serve reads the record again within 10 s
					for _, a := range acme.burst(t, 30) {
						if a.code == http.StatusOK {
							continue
						}
						require.Equal(t, http.StatusTooManyRequests, a.code, a.body)
						seen[checkRefusal(t, a)] = true
					}
					return seen["rate"] && seen["inflight"]
				}, 30*time.Second, time.Second, "acme's limits never applied: %v", seen)
			})

			t.Run("another tenant is unaffected by the flood", func(t *testing.T) {
				stop, refused := acme.flood(t, 16)
				for range 50 {
					a := beta.get(t, cfgPath)
					require.Equal(t, http.StatusOK, a.code, "beta during acme's flood: %s", a.body)
				}
				stop()
				assert.Positive(t, refused.Load(), "acme's flood was refused")
			})

			t.Run("watches held open take no in-flight slot", func(t *testing.T) {
				var watches []io.Closer
				defer func() { // closed however the subtest ends, so that the next ones are not held up
					for _, w := range watches {
						_ = w.Close()
					}
				}()
				for range acmeLimit.MaxInflight {
					var body io.ReadCloser
					eventually(t, func() bool { // each start takes a token
						body = acme.watch(t)
						return body != nil
					}, 30*time.Second, 200*time.Millisecond)
					watches = append(watches, body)
				}
				eventually(t, func() bool {
					a := acme.get(t, cfgPath)
					require.NotContains(t, a.body, "in flight", "a watch held a slot")
					return a.code == http.StatusOK
				}, 30*time.Second, 200*time.Millisecond, "a GET beside %d open watches", len(watches))
			})

			t.Run("kubectl waits for Retry-After and succeeds", func(t *testing.T) {
				eventually(t, func() bool {
					acme.burst(t, 10) // spend the bucket
					res := framework.Run(t.Context(), nil, framework.KubectlPath(), "--kubeconfig", ep.acme, "-v=6",
						"get", "configmap", "cfg", "-n", "default", "-o", "name")
					require.NoError(t, res.Err, "kubectl through a spent share\n%s", res.Stderr)
					require.Equal(t, "configmap/cfg\n", res.Stdout)
					return strings.Contains(res.Stderr, "Got a Retry-After response") // client-go's log of a retry
				}, 60*time.Second, time.Second, "kubectl never met a 429")
			})

			if ep.replica != nil {
				t.Run("all of a tenant's identities share its share", func(t *testing.T) {
					dev := rawClient(t, framework.ServerKubeconfigFor(t, "https://"+ep.replica.Addr,
						framework.ClusterCert(t, "zoo:acme:dev", "zoo:tenant:acme")))
					eventually(t, func() bool {
						acme.burst(t, 10) // the admin spends the bucket
						a := dev.get(t, cfgPath)
						return a.code == http.StatusTooManyRequests && checkRefusal(t, a) == "rate"
					}, 30*time.Second, time.Second, "dev never met the bucket the admin spent")
				})
				t.Run("a credential the server refuses spends no share", func(t *testing.T) {
					forged := rawClient(t, framework.ServerKubeconfigFor(t, "https://"+ep.replica.Addr,
						framework.SelfSignedCert(t, "zoo:acme:admin", "zoo:tenant:acme")))
					time.Sleep(time.Duration(acmeLimit.Burst/acmeLimit.QPS+1) * time.Second) // acme's bucket fills up
					for _, a := range forged.burst(t, 30) {
						require.Equal(t, http.StatusUnauthorized, a.code, a.body)
					}
					for range acmeLimit.Burst - 1 {
						a := acme.get(t, cfgPath)
						require.Equal(t, http.StatusOK, a.code, "the forged requests spent acme's tokens: %s", a.body)
					}
				})
				admin := framework.Cluster().Config
				metrics := ep.replica.Scrape(t, admin.CertData, admin.KeyData)
				assert.Regexp(t, `zoo_server_throttled_requests_total\{reason="rate"\} [1-9]`, metrics)
				assert.Regexp(t, `zoo_server_throttled_requests_total\{reason="inflight"\} [1-9]`, metrics)
				assert.Regexp(t, `zoo_server_requests_total\{code="429",resource="configmaps",tenant="acme",verb="get"\} [1-9]`, metrics)
				assert.NotRegexp(t, `code="429"[^\n]*tenant="beta"`, metrics)
			}
			setRateLimit(t, "acme", policy.RateLimit{})
			setRateLimit(t, "beta", policy.RateLimit{})
		})
	}
}

// checkRefusal checks a 429 answer's Retry-After and Status, and returns
// which limit refused it.
func checkRefusal(t *testing.T, a answer) (reason string) {
	t.Helper()
	after, err := strconv.Atoi(a.retryAfter)
	require.NoError(t, err, "Retry-After %q", a.retryAfter)
	assert.GreaterOrEqual(t, after, 1)
	var st metav1.Status
	require.NoError(t, json.Unmarshal([]byte(a.body), &st), a.body)
	assert.Equal(t, "Status", st.Kind)
	assert.Equal(t, metav1.StatusReasonTooManyRequests, st.Reason)
	assert.EqualValues(t, http.StatusTooManyRequests, st.Code)
	require.NotNil(t, st.Details)
	assert.EqualValues(t, after, st.Details.RetryAfterSeconds)
	switch {
	case strings.Contains(st.Message, "2 per second (burst 4)"):
		return "rate"
	case strings.Contains(st.Message, "3 requests in flight"):
		return "inflight"
	}
	require.Fail(t, "the Status names neither of acme's limits", st.Message)
	return ""
}

// cfgPath is the tenant's ConfigMap default/cfg.
const cfgPath = "/api/v1/namespaces/default/configmaps/cfg"

// client sends requests with a kubeconfig's credentials and no retries.
type client struct {
	http *http.Client
	host string
}

type answer struct {
	code       int
	retryAfter string
	body       string
}

func rawClient(t *testing.T, kubeconfig string) *client {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	require.NoError(t, err)
	hc, err := rest.HTTPClientFor(cfg)
	require.NoError(t, err)
	return &client{http: hc, host: cfg.Host}
}

func (c *client) get(t *testing.T, path string) answer {
	t.Helper()
	resp, err := c.http.Get(c.host + path)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{code: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), body: string(body)}
}

// burst sends n GETs at once.
func (c *client) burst(t *testing.T, n int) []answer {
	t.Helper()
	out := make([]answer, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { out[i] = c.get(t, cfgPath) })
	}
	wg.Wait()
	return out
}

// flood sends GETs from n clients until stop; refused counts the 429s.
func (c *client) flood(t *testing.T, n int) (stop func(), refused *atomic.Int64) {
	t.Helper()
	refused = &atomic.Int64{}
	var done atomic.Bool
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for !done.Load() {
				resp, err := c.http.Get(c.host + cfgPath)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusTooManyRequests {
					refused.Add(1)
				}
			}
		})
	}
	return func() { done.Store(true); wg.Wait() }, refused
}

// watch opens a watch of the tenant's ConfigMaps in default and returns its
// body, held open, or nil when it was refused (for a token).
func (c *client) watch(t *testing.T) io.ReadCloser {
	t.Helper()
	resp, err := c.http.Get(c.host + "/api/v1/namespaces/default/configmaps?watch=true")
	require.NoError(t, err)
	if resp.StatusCode == http.StatusOK {
		return resp.Body
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode, string(body))
	require.NotContains(t, string(body), "in flight", "a watch was refused for a slot")
	return nil
}

// eventually calls cond every interval, in the test's goroutine (cond may
// fail the test), until it holds; it fails the test after d.
func eventually(t *testing.T, cond func() bool, d, interval time.Duration, msgAndArgs ...any) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			require.Fail(t, "the condition never held", msgAndArgs...)
		}
		time.Sleep(interval)
	}
}
