package tenantctl

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/cli-runtime/pkg/printers"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

// TenantInfo is a tenant record with what was observed about it live.
type TenantInfo struct {
	// Tenant is the record.
	Tenant *tenantapi.Tenant
	// Namespaces are the tenant's namespaces now (upstream names).
	Namespaces []string
}

// ListTenants returns every tenant, sorted by name, with its namespaces
// counted live, and the raw list for -o json|yaml|name. It pages through the
// tenant records and the tenants' namespaces chunkSize at a time (0: one
// request each), so that no single upstream answer grows with the number of
// tenants; what it returns does: it is a list of every tenant.
func (c *Client) ListTenants(ctx context.Context, chunkSize int64) ([]TenantInfo, *unstructured.UnstructuredList, error) {
	if err := c.CheckInstalled(ctx); err != nil {
		return nil, nil, err
	}
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion(tenantapi.TenantGVR.GroupVersion().String())
	list.SetKind(tenantapi.TenantKind + "List")
	rv, err := upstream.ListPaged(ctx, chunkSize, metav1.ListOptions{}, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.Dynamic.Resource(tenantapi.TenantGVR).List(ctx, opts)
	}, func(obj runtime.Object) error {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return fmt.Errorf("a tenant record of type %T", obj)
		}
		list.Items = append(list.Items, *u)
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list tenants: %w", err)
	}
	list.SetResourceVersion(rv)
	byTenant := map[string][]string{}
	_, err = upstream.ListPaged(ctx, chunkSize, metav1.ListOptions{LabelSelector: translate.TenantLabel}, func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		return c.Kube.CoreV1().Namespaces().List(ctx, opts)
	}, func(obj runtime.Object) error {
		ns, ok := obj.(*corev1.Namespace)
		if !ok {
			return fmt.Errorf("a namespace of type %T", obj)
		}
		owner := ns.Labels[translate.TenantLabel]
		if t, _, ok := translate.SplitUpstreamName(ns.Name); ok && t.Name() == owner {
			byTenant[owner] = append(byTenant[owner], ns.Name)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("list tenant namespaces: %w", err)
	}
	infos := make([]TenantInfo, 0, len(list.Items))
	for i := range list.Items {
		t, err := tenantapi.TenantFromUnstructured(&list.Items[i])
		if err != nil {
			return nil, nil, err
		}
		infos = append(infos, TenantInfo{Tenant: t, Namespaces: byTenant[t.Name]})
	}
	slices.SortFunc(infos, func(a, b TenantInfo) int { return strings.Compare(a.Tenant.Name, b.Tenant.Name) })
	return infos, list, nil
}

// GetTenant returns one tenant with its namespaces, and the raw record.
func (c *Client) GetTenant(ctx context.Context, name string) (TenantInfo, *unstructured.Unstructured, error) {
	t, err := translate.NewTenant(name)
	if err != nil {
		return TenantInfo{}, nil, err
	}
	if err := c.CheckInstalled(ctx); err != nil {
		return TenantInfo{}, nil, err
	}
	u, err := c.Dynamic.Resource(tenantapi.TenantGVR).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return TenantInfo{}, nil, fmt.Errorf("tenant %q not found", name)
	}
	if err != nil {
		return TenantInfo{}, nil, fmt.Errorf("get tenant %q: %w", name, err)
	}
	tenant, err := tenantapi.TenantFromUnstructured(u)
	if err != nil {
		return TenantInfo{}, nil, err
	}
	namespaces, err := c.TenantNamespaces(ctx, t)
	if err != nil {
		return TenantInfo{}, nil, err
	}
	info := TenantInfo{Tenant: tenant}
	for _, ns := range namespaces {
		info.Namespaces = append(info.Namespaces, ns.Name)
	}
	slices.Sort(info.Namespaces)
	return info, u, nil
}

// PrintTable prints tenants as `kubectl get` does: NAME, NAMESPACES, STATUS,
// SLEEP, ADMINS, AGE.
func PrintTable(w io.Writer, infos []TenantInfo, now time.Time) error {
	tw := printers.GetNewTabWriter(w)
	fmt.Fprintln(tw, "NAME\tNAMESPACES\tSTATUS\tSLEEP\tADMINS\tAGE")
	for _, info := range infos {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", info.Tenant.Name, len(info.Namespaces), info.Tenant.Phase(),
			sleepSummary(info.Tenant, metav1.NewTime(now)), strings.Join(info.Tenant.Spec.Admins, ","), age(info.Tenant.CreationTimestamp, now))
	}
	return tw.Flush()
}

// Describe prints the details of one tenant.
func Describe(w io.Writer, info TenantInfo, now time.Time) error {
	tn := info.Tenant
	t, err := tn.TenantOf()
	if err != nil {
		return err
	}
	tw := printers.GetNewTabWriter(w)
	line := func(k, v string) { fmt.Fprintf(tw, "%s:\t%s\n", k, v) }
	line("Name", tn.Name)
	if tn.Spec.DisplayName != "" {
		line("Display name", tn.Spec.DisplayName)
	}
	line("Status", tn.Phase())
	line("Sleep", sleepSummary(tn, metav1.NewTime(now)))
	line("Age", age(tn.CreationTimestamp, now))
	line("Upstream prefix", t.Prefix())
	line("Tenant group", t.TenantGroup())
	admins := make([]string, 0, len(tn.Spec.Admins))
	for _, a := range tn.Spec.Admins {
		admins = append(admins, a+" ("+t.UpstreamUser(a)+")")
	}
	line("Admins", strings.Join(admins, ", "))
	line("Namespaces", fmt.Sprintf("%d", len(info.Namespaces)))
	for _, ns := range info.Namespaces {
		local, _ := t.TenantNamespace(ns)
		fmt.Fprintf(tw, "  %s\t→ %s\n", local, ns)
	}
	for _, c := range tn.Status.Conditions {
		line("Condition "+c.Type, fmt.Sprintf("%s (%s) %s", c.Status, c.Reason, c.Message))
	}
	line("Connect", "kubectl zoo serve --tenant "+tn.Name)
	return tw.Flush()
}

func age(ts metav1.Time, now time.Time) string {
	if ts.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(ts.Time))
}

// sleepSummary is the sleep state for `tenant list`: awake, asleep <age>,
// falling asleep or waking.
func sleepSummary(t *tenantapi.Tenant, now metav1.Time) string {
	s := t.Status.Sleep
	switch {
	case s == nil || (s.State == tenantapi.SleepStateAwake && s.Converged):
		return "awake"
	case s.State == tenantapi.SleepStateAwake:
		return "waking"
	case !s.Converged:
		return "falling asleep"
	}
	return "asleep " + age(s.Since, now.Time)
}
