package verify

import (
	"errors"
	"fmt"
	"regexp"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

var (
	reVAP         = regexp.MustCompile(`ValidatingAdmissionPolicy '([^']+)'`)
	rePodSecurity = regexp.MustCompile(`violates PodSecurity "([a-z]+)`)
	reWebhook     = regexp.MustCompile(`admission webhook "([^"]+)" denied`)
	reRBAC        = regexp.MustCompile(`cannot [a-z]+ resource "`)
)

// Layers that are not named by the refusal itself.
const (
	// LayerProxy is kubectl-zoo's translating proxy: its own 403 or 422,
	// before anything is sent upstream.
	LayerProxy = "kubectl-zoo proxy"
	// LayerRBAC is the upstream's authorizer.
	LayerRBAC = "RBAC"
	// LayerProxyNames is the proxy's naming: the name the tenant gave is
	// prefixed with its own, so another tenant's object is out of reach.
	LayerProxyNames = "kubectl-zoo proxy (names are prefixed)"
)

// judge turns the answer to an attempt on path into an outcome: nil is an
// escape; a refusal is held by the layer its message names (an admission
// policy, Pod Security, a webhook, RBAC) or, on the serve path, by the
// proxy; anything else could not run.
func judge(err error, path Path) (Status, string, string) {
	if err == nil {
		return Escaped, "", "the request was admitted"
	}
	msg := err.Error()
	var st apierrors.APIStatus
	if !errors.As(err, &st) {
		return CouldNotRun, "", oneLine(msg, 300)
	}
	code := st.Status().Code
	if code != 403 && code != 422 {
		return CouldNotRun, "", oneLine(fmt.Sprintf("%d: %s", code, msg), 300)
	}
	detail := oneLine(msg, 300)
	switch {
	case reVAP.MatchString(msg):
		return Held, "admission: " + reVAP.FindStringSubmatch(msg)[1], detail
	case rePodSecurity.MatchString(msg):
		return Held, "Pod Security (" + rePodSecurity.FindStringSubmatch(msg)[1] + ")", detail
	case reWebhook.MatchString(msg):
		return Held, "admission webhook: " + reWebhook.FindStringSubmatch(msg)[1], detail
	case code == 403 && reRBAC.MatchString(msg):
		return Held, LayerRBAC, detail
	case path.proxied():
		return Held, LayerProxy, detail
	case code == 403:
		return Held, "API server (403)", detail
	}
	return CouldNotRun, "", detail
}
