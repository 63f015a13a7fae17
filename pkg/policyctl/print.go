package policyctl

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
)

// PrintPolicy prints a tenant's effective policy (`policy show`): output
// "yaml" or "json" prints the policy document itself, in the form `install
// --default-policy` reads; "" prints a table of one row per policy, each
// value in the form of its `policy set` flag.
func PrintPolicy(w io.Writer, output, tenant string, p policy.Policy) error {
	switch output {
	case "json", "yaml":
		b, err := json.MarshalIndent(p, "", "    ")
		if err == nil && output == "yaml" {
			b, err = yaml.JSONToYAML(b)
		}
		if err != nil {
			return fmt.Errorf("encode the policy of tenant %q: %w", tenant, err)
		}
		if output == "json" {
			b = append(b, '\n')
		}
		_, err = w.Write(b)
		return err
	case "":
	default:
		return fmt.Errorf("--output must be one of json|yaml, not %q", output)
	}
	none := func(s string) string {
		if s == "" {
			return "<none>"
		}
		return s
	}
	maxNS := ""
	if p.MaxNamespaces != nil {
		maxNS = fmt.Sprint(*p.MaxNamespaces)
	}
	rate := ""
	if r := p.RateLimit; r != nil {
		rate = fmt.Sprintf("qps=%d,burst=%d,max-inflight=%d", r.QPS, r.Burst, r.MaxInflight)
	}
	sleepAfter := ""
	if p.SleepAfter != nil {
		sleepAfter = p.SleepAfter.Duration.String()
	}
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	fmt.Fprintf(tw, "TENANT\tPOLICY\tVALUE\n")
	for _, row := range [][2]string{
		{"max-namespaces", none(maxNS)},
		{"quota", none(policy.FormatResourceList(p.Quota))},
		{"limit-range", none(policy.FormatLimitRange(p.LimitRange))},
		{"pod-security", none(p.PodSecurity)},
		{"network-isolation", none(p.NetworkIsolation)},
		{"priority-classes", none(strings.Join(p.PriorityClasses, ","))},
		{"external-names", none(strings.Join(p.ExternalNames, ","))},
		{"volume-sources", none(strings.Join(p.VolumeSources, ","))},
		{"ingress-hosts", none(strings.Join(p.IngressHosts, ","))},
		{"rate-limit", none(rate)},
		{"sleep-after", none(sleepAfter)},
	} {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", tenant, row[0], row[1])
	}
	return tw.Flush()
}
