package main

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// timeTenantCommands times the tenant commands at 2 and at N tenants,
// taking turns between the sides: c.tenantLists `kubectl zoo tenant list`,
// then c.tenantOps `tenant create` of new tenants one by one, then `tenant
// delete --wait` of those again, so each side ends with the tenants it
// started with.
func timeTenantCommands(ctx context.Context, c config, sides []*side) ([]result, error) {
	zoo := func(ctx context.Context, s *side, args ...string) error {
		args = append([]string{"--kubeconfig", s.env.cluster.Kubeconfig, "tenant"}, args...)
		out, err := exec.CommandContext(ctx, c.zoo, args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("kubectl-zoo %s: %w: %s", strings.Join(args[2:], " "), err, out)
		}
		return nil
	}
	steps := []struct {
		name   string
		rounds int
		args   func(i int) []string
	}{
		{"kubectl zoo tenant list", c.tenantLists, func(int) []string { return []string{"list"} }},
		{"kubectl zoo tenant create", c.tenantOps, func(i int) []string { return []string{"create", fmt.Sprintf("n%d", i)} }},
		// --timeout is generous: the sides share 2 cores with the namespace
		// controller emptying the namespaces.
		{"kubectl zoo tenant delete --wait", c.tenantOps, func(i int) []string {
			return []string{"delete", fmt.Sprintf("n%d", i), "--wait", "--timeout", "15m"}
		}},
	}
	var out []result
	for _, step := range steps {
		lat, err := takeTurns(ctx, sideNames(sides), []string{step.name}, step.rounds, func(ctx context.Context, si, _, i int) error {
			return zoo(ctx, sides[si], step.args(i)...)
		})
		if err != nil {
			return nil, err
		}
		out = append(out, latencyRows("tenant commands", c.tenants, lat, sides[0].name, sides[1].name, []string{step.name})...)
	}
	return out, nil
}
