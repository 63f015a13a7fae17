package verify

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// DefaultRequestTimeout bounds each request verify makes when the caller
// sets no bound.
const DefaultRequestTimeout = 30 * time.Second

// Options configure Run.
type Options struct {
	// Upstream is the platform admin's config of the cluster to verify.
	Upstream *rest.Config
	// Names are the scratch tenants: the attacker, then the victim.
	Names [2]string
	// Tenant, if set, is an existing tenant to check instead of attacking
	// scratch tenants: dry runs and reads only, as its first admin, through
	// serve and directly (RunExisting).
	Tenant string
	// Yes lets Run delete and remake scratch tenants an earlier run left.
	Yes bool
	// Keep leaves the scratch tenants for inspection.
	Keep bool
	// RequestTimeout bounds every request; DefaultRequestTimeout if zero.
	RequestTimeout time.Duration
	// DataPlaneImage, if set, is an image with sh and nc (busybox's) that
	// verify runs pods of in the scratch tenants' namespaces, to see the
	// network plugin enforce the NetworkPolicy between them.
	DataPlaneImage string
	// Server is where the zoo server is; the zero value discovers the one
	// `install --server` made.
	Server ServerEndpoint
	// OpenView serves tenant's view in-process as `kubectl zoo serve`
	// serves it, as one of its admins, on upstream; it returns the view's
	// client config and a func that stops serving it.
	OpenView func(ctx context.Context, upstream *rest.Config, tenant string) (*rest.Config, func(), error)
	// Progress, if set, is told before each check.
	Progress func(done, total int, what string)
	// Log, if set, is told each step of the set-up and the clean-up.
	Log func(format string, args ...any)
}

// Run makes the scratch tenants, runs the catalog from the attacker against
// the victim and the platform on every path, and deletes the scratch
// tenants (unless Keep), also when ctx is cancelled or a step fails. The
// report holds what ran, also when an error ends the run early.
func Run(ctx context.Context, opts Options) (rep *Report, err error) {
	if opts.RequestTimeout == 0 {
		opts.RequestTimeout = DefaultRequestTimeout
	}
	if opts.Log == nil {
		opts.Log = func(string, ...any) {}
	}
	upstream := rest.CopyConfig(opts.Upstream)
	upstream.Timeout = opts.RequestTimeout
	upstream.WarningHandler = rest.NoWarnings{} // an attack's warnings (Pod Security's) are the report's business
	client, err := tenantctl.NewClient(upstream)
	if err != nil {
		return nil, err
	}
	if opts.Tenant != "" {
		return runExisting(ctx, client, upstream, opts)
	}
	s := &scratch{client: client, log: opts.Log}
	names := opts.Names[:]
	if err := s.preflight(ctx, names, opts.Yes); err != nil {
		return nil, err
	}
	defer func() {
		if opts.Keep {
			opts.Log("keeping scratch tenants %s and %s (--keep)", names[0], names[1])
			return
		}
		err = joinLine(err, s.remove(names))
	}()
	rep = &Report{Attacker: names[0], Victim: names[1]}
	set, stop, err := setUp(ctx, s, upstream, opts)
	defer stop()
	if err != nil {
		return rep, err
	}
	rep.Results = append(set.notes, RunCatalog(ctx, Catalog(), set.policy, set.targets, opts.Progress)...)
	if ctx.Err() != nil {
		return rep, fmt.Errorf("interrupted: %w", context.Cause(ctx))
	}
	var d *dataPlane
	if opts.DataPlaneImage != "" {
		d = &dataPlane{admin: client.Kube, image: opts.DataPlaneImage, timeout: 2 * opts.RequestTimeout}
	}
	victimNS := translate.MustTenant(names[1]).Prefix() + "default"
	rep.Results = append(rep.Results, environmentResults(ctx, client.Kube, set.namespace, victimNS, set.policy, rep.Results, d)...)
	return rep, nil
}

// setup is what setUp made ready: the attacker's target on every path
// that runs, its effective policy, and what is said of a path that does
// not run.
type setup struct {
	targets   []*Target
	policy    policy.Policy
	notes     []Result
	namespace string // the attacker's, upstream
}

// setUp makes the scratch tenants and the objects the checks aim at, and
// the attacker's target on every path; stop stops serving the view.
func setUp(ctx context.Context, s *scratch, upstream *rest.Config, opts Options) (*setup, func(), error) {
	stop := func() {}
	attacker, err := s.create(ctx, opts.Names[0])
	if err != nil {
		return nil, stop, err
	}
	if _, err := s.create(ctx, opts.Names[1]); err != nil {
		return nil, stop, err
	}
	set := &setup{}
	if set.policy, err = tenantapi.EffectivePolicy(attacker.Tenant); err != nil {
		return nil, stop, err
	}
	a, v := translate.MustTenant(opts.Names[0]), translate.MustTenant(opts.Names[1])
	ns := a.Prefix() + "default"
	set.namespace = ns
	if err := setUpObjects(ctx, s.client.Kube, ns, v.Prefix()+"default"); err != nil {
		return nil, stop, err
	}
	if err := setUpVictimClasses(ctx, s.client.Kube, v); err != nil {
		return nil, stop, err
	}
	node, err := firstNode(ctx, s.client.Kube)
	if err != nil {
		return nil, stop, err
	}
	s.log("serving the view of %s in-process", a)
	view, stop, err := opts.OpenView(ctx, upstream, a.Name())
	if err != nil {
		return nil, func() {}, fmt.Errorf("serve the view of %s: %w", a, err)
	}
	sa, err := serviceAccountConfig(ctx, s.client.Kube, upstream, ns, opts.RequestTimeout)
	if err != nil {
		return nil, stop, err
	}
	cfgs := map[Path]*rest.Config{PathServe: view, PathIdentity: identityConfig(upstream, a, translate.DefaultAdminUser), PathServiceAccount: sa}
	s.log("reaching the zoo server as %s", a)
	server, note, err := serverConfigs(ctx, s.client, opts.Server, a, strings.TrimPrefix(ns, a.Prefix()), sa.BearerToken, opts.RequestTimeout)
	if err != nil {
		return nil, stop, err
	}
	maps.Copy(cfgs, server)
	if note != nil {
		set.notes = append(set.notes, *note)
	}
	set.targets, err = newTargets(cfgs, scene{attacker: a, victim: v, namespace: ns, node: node, admin: s.client.Dynamic}, opts.RequestTimeout)
	return set, stop, err
}

// scene is what the targets of every path share: the tenants, the
// attacker's namespace (upstream name) and a node.
type scene struct {
	attacker, victim translate.Tenant
	namespace, node  string
	admin            dynamic.Interface
	existing         bool
}

// newTargets are the targets of the paths of cfgs, in Paths order.
func newTargets(cfgs map[Path]*rest.Config, sc scene, timeout time.Duration) ([]*Target, error) {
	var targets []*Target
	for _, p := range Paths {
		cfg, ok := cfgs[p]
		if !ok {
			continue
		}
		t, err := newTarget(p, cfg, timeout)
		if err != nil {
			return nil, err
		}
		t.Namespace, t.VictimNamespace, t.Attacker, t.Victim, t.Upstream = sc.namespace, sc.victim.Prefix()+"default", sc.attacker, sc.victim, sc.admin
		t.Prefix, t.Owner, t.Node, t.Existing = sc.attacker.Prefix(), tenantapi.OwnerLabels(sc.attacker), sc.node, sc.existing
		if p.proxied() { // the view names the attacker's own without its prefix
			t.Namespace, t.Prefix, t.Owner = strings.TrimPrefix(sc.namespace, sc.attacker.Prefix()), "", nil
		}
		targets = append(targets, t)
	}
	return targets, nil
}

// joinLine is err, and then cleanup's, on one line.
func joinLine(err, cleanup error) error {
	switch {
	case cleanup == nil:
		return err
	case err == nil:
		return cleanup
	}
	return fmt.Errorf("%w; and then: %w", err, cleanup)
}
