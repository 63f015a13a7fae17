package verify

import (
	"context"
	"fmt"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// runExisting checks the existing tenant opts.Tenant against its policy
// without attacking anyone: as its first admin, through serve and directly,
// with dry runs and reads only. Nothing is made in it, so the checks that
// aim at verify's scratch objects, and those the proxy makes harmless
// (only a real write shows it), do not apply; neither does the
// ServiceAccount path.
func runExisting(ctx context.Context, client *tenantctl.Client, upstream *rest.Config, opts Options) (*Report, error) {
	info, _, err := client.GetTenant(ctx, opts.Tenant)
	if err != nil {
		return nil, err
	}
	pol, err := tenantapi.EffectivePolicy(info.Tenant)
	if err != nil {
		return nil, err
	}
	a := translate.MustTenant(opts.Tenant)
	admin := translate.DefaultAdminUser
	if len(info.Tenant.Spec.Admins) > 0 {
		admin = info.Tenant.Spec.Admins[0]
	}
	ns, err := tenantNamespace(ctx, client.Kube, a)
	if err != nil {
		return nil, err
	}
	node, err := firstNode(ctx, client.Kube)
	if err != nil {
		return nil, err
	}
	view, stop, err := opts.OpenView(ctx, upstream, a.Name())
	if err != nil {
		return nil, fmt.Errorf("serve the view of %s: %w", a, err)
	}
	defer stop()
	cfgs := map[Path]*rest.Config{PathServe: view, PathIdentity: identityConfig(upstream, a, admin)}
	// The victim is the scratch name: what the reads aim at is verify's.
	sc := scene{attacker: a, victim: translate.MustTenant(opts.Names[1]), namespace: ns, node: node, admin: client.Dynamic, existing: true}
	targets, err := newTargets(cfgs, sc, opts.RequestTimeout)
	if err != nil {
		return nil, err
	}
	note := serverPathResult(NotApplicable, "a client certificate of the server is recorded in the tenant's record; --tenant makes nothing in it")
	rep := &Report{Attacker: a.Name(), Results: append([]Result{note}, RunCatalog(ctx, Catalog(), pol, targets, opts.Progress)...)}
	if ctx.Err() != nil {
		return rep, fmt.Errorf("interrupted: %w", context.Cause(ctx))
	}
	rep.Results = append(rep.Results, environmentResults(ctx, client.Kube, ns, "", pol, rep.Results, nil)...)
	return rep, nil
}

// tenantNamespace is the upstream name of the tenant's namespace "default",
// or else of its first namespace.
func tenantNamespace(ctx context.Context, kube kubernetes.Interface, t translate.Tenant) (string, error) {
	list, err := kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: translate.TenantLabel + "=" + t.Name()})
	if err != nil {
		return "", fmt.Errorf("list the namespaces of tenant %s: %w", t, err)
	}
	var names []string
	for _, ns := range list.Items {
		if ns.DeletionTimestamp == nil && strings.HasPrefix(ns.Name, t.Prefix()) {
			names = append(names, ns.Name)
		}
	}
	if len(names) == 0 {
		return "", fmt.Errorf("tenant %s has no namespace to check in", t)
	}
	if slices.Contains(names, t.Prefix()+"default") {
		return t.Prefix() + "default", nil
	}
	slices.Sort(names)
	return names[0], nil
}
