package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/localproxy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/zooserver"
)

// identify asks the upstream who the caller's credential is. A tenant user's
// own credential (user zoo:<tenant>:<user> in group zoo:tenant:<tenant>, as a
// certificate from `kubectl zoo cert issue` carries them) is served as it is,
// without impersonation: --tenant may be omitted, and --tenant, --user and
// --group must agree with it. Any other credential must be allowed to
// impersonate the tenant user, and needs --tenant.
func (o *ServeOptions) identify(ctx context.Context) error {
	who, err := localproxy.WhoAmI(ctx, o.upstream)
	switch {
	case apierrors.IsNotFound(err):
		// A cluster before Kubernetes 1.28 (no SelfSubjectReview in
		// authentication.k8s.io/v1): impersonate, as serve always did.
		klog.V(1).InfoS("the upstream cannot say who your credential is; serve impersonates", "err", err)
		if o.Tenant == "" {
			return errors.New("--tenant is required: the upstream cannot say whether your credential is a tenant identity (no SelfSubjectReview)")
		}
		return nil
	case err != nil:
		return err
	}
	if name := who.GetName(); strings.HasPrefix(name, translate.IdentityPrefix) {
		id, err := zooserver.IdentityOf(who)
		if err != nil {
			return fmt.Errorf("your credential is no usable tenant identity: %w", err)
		}
		return o.serveAs(id)
	}
	if o.Tenant == "" {
		return fmt.Errorf("--tenant is required: your credential (user %q) is no tenant identity", who.GetName())
	}
	t, err := translate.NewTenant(o.Tenant)
	if err != nil {
		return err
	}
	target := t.UpstreamUser(o.User)
	ok, err := localproxy.MayImpersonate(ctx, o.upstream, target)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("your credential (user %q) is no tenant identity and may not impersonate %s: serve with a tenant user's certificate (kubectl zoo cert issue --signer kubernetes) or with a credential allowed to impersonate", who.GetName(), target)
	}
	return nil
}

// serveAs makes id the identity served, refusing flags that name another.
func (o *ServeOptions) serveAs(id zooserver.Identity) error {
	desc := fmt.Sprintf("your credential is user %q of tenant %s", id.User, id.Tenant)
	switch {
	case o.Tenant != "" && o.Tenant != id.Tenant.Name():
		return fmt.Errorf("--tenant %s contradicts your credential: %s, and serve impersonates no one with a tenant identity's credential", o.Tenant, desc)
	case o.userSet && o.User != id.User:
		return fmt.Errorf("--user %s contradicts your credential: %s, and serve impersonates no one with a tenant identity's credential", o.User, desc)
	}
	for _, g := range o.Groups {
		if !slices.Contains(id.Groups, g) {
			return fmt.Errorf("--group %s contradicts your credential: %s in groups [%s], and serve impersonates no one with a tenant identity's credential",
				g, desc, strings.Join(id.Groups, ", "))
		}
	}
	o.Tenant, o.User, o.Groups, o.direct = id.Tenant.Name(), id.User, id.Groups, true
	return nil
}

// defaultKubeconfigOut is where the tenant kubeconfig goes without
// --kubeconfig-out.
func defaultKubeconfigOut(tenant string) string {
	return filepath.Join(os.TempDir(), "kubectl-zoo", tenant+".kubeconfig")
}
