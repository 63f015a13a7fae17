package verify

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
)

// TestRunCatalog: a check that does not apply is one result with its
// reason and no path; a refused twin makes the attempt prove nothing, but
// for RBAC's refusal where the check says the path may hold no right on
// the kind (the attempt is then judged); a 404
// holds only on the serve path and only where the check says so; the paths
// a check names are the only ones it runs on.
func TestRunCatalog(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	refused := func(context.Context, *Target) error {
		return apierrors.NewForbidden(gr, "x", errors.New(`User "u" cannot get resource "configmaps"`))
	}
	notFound := func(context.Context, *Target) error { return apierrors.NewNotFound(gr, "x") }
	admitted := func(context.Context, *Target) error { return nil }
	catalog := []Check{
		{ID: "na", NotApplicable: func(policy.Policy) string { return "the policy allows it" }, Attempt: admitted},
		{ID: "twin", Twin: refused, Attempt: refused},
		{ID: "twin rbac", Twin: refused, TwinRBAC: true, Attempt: refused},
		{ID: "twin rbac, attempt admitted", Twin: refused, TwinRBAC: true, Attempt: admitted},
		{ID: "404", NotFoundHeld: true, Attempt: notFound},
		{ID: "serve only", Paths: []Path{PathServe}, Attempt: admitted},
		{ID: "rbac", Attempt: refused},
	}
	targets := []*Target{{Path: PathServe}, {Path: PathIdentity}}
	var got []string
	for _, r := range RunCatalog(context.Background(), catalog, policy.Default(), targets, nil) {
		got = append(got, r.ID+" "+string(r.Path)+": "+string(r.Status)+" "+r.Layer)
	}
	assert.Equal(t, []string{
		"na : not applicable ",
		"twin serve: could not run ",
		"twin tenant identity: could not run ",
		"twin rbac serve: held RBAC",
		"twin rbac tenant identity: held RBAC",
		"twin rbac, attempt admitted serve: escaped ",
		"twin rbac, attempt admitted tenant identity: escaped ",
		"404 serve: held " + LayerProxyNames,
		"404 tenant identity: could not run ",
		"serve only serve: escaped ",
		"rbac serve: held RBAC",
		"rbac tenant identity: held RBAC",
	}, got)
}

// TestReadback: on the serve path an admitted attempt of a check with
// Readback is a real write, judged by what was stored; on the other paths
// it stays a dry run judged by the answer.
func TestReadback(t *testing.T) {
	for _, tc := range []struct {
		name   string
		layer  string
		err    error
		status Status
	}{
		{"made harmless", LayerProxyNames, nil, Held},
		{"stored as sent", "", nil, Escaped},
		{"unreadable", "", errors.New("gone"), CouldNotRun},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var writes []bool
			c := Check{ID: "r",
				Attempt: func(_ context.Context, t *Target) error {
					writes = append(writes, len(t.Write.DryRun) == 0)
					return nil
				},
				Readback: func(context.Context, *Target) (string, string, error) { return tc.layer, "stored so", tc.err }}
			serve := c.run(context.Background(), &Target{Path: PathServe})
			assert.Equal(t, tc.status, serve.Status)
			assert.Equal(t, tc.layer, serve.Layer)
			identity := c.run(context.Background(), &Target{Path: PathIdentity})
			assert.Equal(t, Escaped, identity.Status)
			assert.Equal(t, []bool{true, false}, writes, "real on serve, a dry run elsewhere")
		})
	}
}

// TestRunCatalogExisting: against an existing tenant (--tenant) a check
// that aims at verify's scratch objects does not apply, nor, on the serve
// path, one whose harmlessness only a real write shows; the others run.
func TestRunCatalogExisting(t *testing.T) {
	admitted := func(context.Context, *Target) error { return nil }
	readback := func(context.Context, *Target) (string, string, error) { return LayerProxyNames, "", nil }
	catalog := []Check{
		{ID: "scratch", Scratch: true, Attempt: admitted},
		{ID: "readback", Attempt: admitted, Readback: readback},
		{ID: "plain", Attempt: admitted},
	}
	targets := []*Target{{Path: PathServe, Existing: true}, {Path: PathIdentity, Existing: true}}
	var got []string
	for _, r := range RunCatalog(context.Background(), catalog, policy.Default(), targets, nil) {
		got = append(got, r.ID+" "+string(r.Path)+": "+string(r.Status))
	}
	assert.Equal(t, []string{
		"scratch serve: not applicable", "scratch tenant identity: not applicable",
		"readback serve: not applicable", "readback tenant identity: escaped",
		"plain serve: escaped", "plain tenant identity: escaped",
	}, got)
}
