package verify

import (
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Target is what an attempt works with on one path: the attacker's clients
// on that path and the names as that path spells them.
type Target struct {
	// Path is the path the clients reach the cluster by.
	Path Path
	// Kube and Dynamic are the attacker's clients on Path.
	Kube    kubernetes.Interface
	Dynamic dynamic.Interface
	// Namespace is the attacker's namespace "default" as Path names it.
	Namespace string
	// VictimNamespace is the victim's namespace "default" as Path names it
	// (through the view: the name the victim's admins use).
	VictimNamespace string
	// Service is the attacker's Service that verify made in Namespace.
	Service string
	// Node is a node of the cluster, "" if it has none.
	Node string
	// VictimConfigMap is the victim's ConfigMap in VictimNamespace.
	VictimConfigMap string
	// Prefix is what Path needs in front of the name of an object of the
	// attacker's own cluster-scoped kinds ("" through the view), and Owner
	// the labels it needs on them (none through the view).
	Prefix string
	Owner  map[string]string
	// Attacker and Victim are the scratch tenants.
	Attacker, Victim translate.Tenant
	// Write are the options of the attempt's create: a server-side dry
	// run, but for the real create of a check with Readback on the serve
	// path.
	Write metav1.CreateOptions
	// Upstream is the platform admin's client, for Readback only.
	Upstream dynamic.Interface
	// Existing says the attacker is an existing tenant (--tenant): verify
	// made nothing in it and writes nothing for real.
	Existing bool
}

// realSuffix ends the names of what an attempt with Readback makes for
// real on t's path, so that they never meet the names of the dry runs nor
// those of the real writes of other paths.
func (t *Target) realSuffix() string {
	switch t.Path {
	case PathServer:
		return "-real-server"
	case PathServerServiceAccount:
		return "-real-server-sa"
	}
	return "-real"
}

// name is base, or base+realSuffix for the real write of a Readback.
func (t *Target) name(base string) string {
	if len(t.Write.DryRun) == 0 {
		return base + t.realSuffix()
	}
	return base
}

// Check is one entry of the catalog.
type Check struct {
	// ID is the published Multi-Tenancy Benchmarks ID, or the class's ID
	// of the check.
	ID string
	// Class groups the check in the report.
	Class string
	// Title says what is attempted.
	Title string
	// Paths are the paths the check applies to; nil is every path.
	Paths []Path
	// NotApplicable returns why the tenant's policy makes the check
	// irrelevant, or "".
	NotApplicable func(p policy.Policy) string
	// Twin, if set, is the same request without the attack: it must be
	// admitted, or a refusal of Attempt would say nothing about the attack.
	Twin func(ctx context.Context, t *Target) error
	// Attempt makes the attack: its creates with t.Write (a server-side dry
	// run, but for the real create of a check with Readback on the serve
	// path), every other write a dry run.
	Attempt func(ctx context.Context, t *Target) error
	// TwinRBAC says a twin refused by RBAC does not keep the attempt from
	// running: the path holds no right on the kind at all, and the attempt
	// is made and judged (refused by RBAC too, it is held by RBAC).
	TwinRBAC bool
	// Promise says the attempt is what the tenant must be able to do, or
	// a configuration that must be there: done, it is held (the promise
	// kept); refused, or errBroken, it is escaped.
	Promise bool
	// DirectHarmless, if set, says why the attempt is admitted yet
	// harmless where no proxy translates it (the tenant identity and the
	// ServiceAccount directly upstream): there it does not apply, for
	// that reason.
	DirectHarmless string
	// Scratch says the check needs what verify makes in its scratch
	// tenants (their Service, Role or claim).
	Scratch bool
	// NotFoundHeld says a 404 on the serve path is the proxy's naming
	// holding (the name reached only the attacker's own objects).
	NotFoundHeld bool
	// Readback, if set, judges what the proxy made of an attempt it
	// admitted on the serve path: the attempt is then made for real (in the
	// attacker's own namespace or cluster-scoped names, deleted with the
	// scratch tenant), and Readback reads what is stored upstream, as the
	// platform admin. It returns the layer that made it harmless, or "" and
	// why it is not.
	Readback func(ctx context.Context, t *Target) (layer, detail string, err error)
}

// applies says whether the check runs on path.
func (c *Check) applies(path Path) bool { return c.Paths == nil || slices.Contains(c.Paths, path) }

// run runs the check on t and judges the outcome.
func (c *Check) run(ctx context.Context, t *Target) Result {
	res := Result{ID: c.ID, Class: c.Class, Title: c.Title, Path: t.Path}
	if why := c.notOnExisting(t); why != "" {
		res.Status, res.Detail = NotApplicable, why
		return res
	}
	if c.DirectHarmless != "" && !t.Path.proxied() {
		res.Status, res.Detail = NotApplicable, c.DirectHarmless
		return res
	}
	if c.Twin != nil {
		if err := c.Twin(ctx, t); err != nil && !(c.TwinRBAC && refusedByRBAC(err, t.Path)) {
			res.Status, res.Detail = CouldNotRun, "the harmless twin of the attempt was refused too: "+oneLine(err.Error(), 250)
			return res
		}
	}
	attempt := *t
	attempt.Write = dryRun
	if c.Readback != nil && t.Path.proxied() {
		attempt.Write = metav1.CreateOptions{}
	}
	err := c.Attempt(ctx, &attempt)
	if c.Promise && ctx.Err() == nil {
		res.Status, res.Layer, res.Detail = judgePromise(err, t.Path)
		return res
	}
	if err == nil && c.Readback != nil && t.Path.proxied() {
		return c.readback(ctx, t, res)
	}
	if c.NotFoundHeld && t.Path.proxied() && apierrors.IsNotFound(err) {
		res.Status, res.Layer, res.Detail = Held, LayerProxyNames, oneLine(err.Error(), 300)
		return res
	}
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		res.Status, res.Detail = CouldNotRun, fmt.Sprintf("interrupted: %v", err)
		return res
	}
	res.Status, res.Layer, res.Detail = judge(err, t.Path)
	return res
}

// refusedByRBAC says err is RBAC's refusal on path.
func refusedByRBAC(err error, path Path) bool {
	status, layer, _ := judge(err, path)
	return status == Held && layer == LayerRBAC
}

// notOnExisting is why the check cannot run against an existing tenant
// (--tenant) on t's path, or "".
func (c *Check) notOnExisting(t *Target) string {
	switch {
	case !t.Existing:
		return ""
	case c.Scratch:
		return "it aims at objects verify makes in its scratch tenants; --tenant makes none"
	case c.Readback != nil && t.Path.proxied():
		return "the proxy makes it harmless rather than refusing it, which only a real write shows; --tenant writes nothing"
	}
	return ""
}

// readback judges an attempt the serve path admitted by what it stored.
func (c *Check) readback(ctx context.Context, t *Target, res Result) Result {
	layer, detail, err := c.Readback(ctx, t)
	switch {
	case err != nil:
		res.Status, res.Detail = CouldNotRun, "read back what the proxy stored: "+oneLine(err.Error(), 250)
	case layer == "":
		res.Status, res.Detail = Escaped, "admitted and stored as sent: "+detail
	default:
		res.Status, res.Layer, res.Detail = Held, layer, "admitted, made harmless: "+detail
	}
	return res
}

// RunCatalog runs every check of catalog against each target (one per
// path), judging each against pol, the attacker's effective policy. progress,
// if set, is told before each attempt.
func RunCatalog(ctx context.Context, catalog []Check, pol policy.Policy, targets []*Target, progress func(done, total int, what string)) []Result {
	var out []Result
	total := len(catalog)
	for i := range catalog {
		c := &catalog[i]
		if progress != nil {
			progress(i, total, c.ID)
		}
		if why := notApplicable(c, pol); why != "" {
			out = append(out, Result{ID: c.ID, Class: c.Class, Title: c.Title, Status: NotApplicable, Detail: why})
			continue
		}
		for _, t := range targets {
			if ctx.Err() != nil {
				return out
			}
			if c.applies(t.Path) {
				out = append(out, c.run(ctx, t))
			}
		}
	}
	if progress != nil {
		progress(total, total, "")
	}
	return out
}

func notApplicable(c *Check, pol policy.Policy) string {
	if c.NotApplicable == nil {
		return ""
	}
	return c.NotApplicable(pol)
}
