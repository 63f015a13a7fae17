package verify

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
)

// EnvPluginPrefix starts the IDs of the admission plugins' results
// ("environment/admission-plugin/PodSecurity").
const EnvPluginPrefix = "environment/admission-plugin/"

// LayerPluginRan is the layer of a plugin the API server ran: its
// admission metrics count it.
const LayerPluginRan = "ran (the API server's admission metrics)"

// pluginMetric is the API server's metric of every admission plugin
// it runs, labeled with the plugin's name.
const pluginMetric = "apiserver_admission_controller_admission_duration_seconds_count{"

var rePluginName = regexp.MustCompile(`[{,]name="([^"]+)"`)

// admissionPlugin is an admission plugin verify reports on, and when
// kubectl-zoo relies on it under a tenant's policy.
type admissionPlugin struct {
	name string
	// needed says why the policy needs the plugin, or "".
	needed func(p policy.Policy) string
	// effect is the ID of an earlier result that shows the plugin's effect,
	// read when the metrics cannot be.
	effect string
}

// admissionPlugins are the plugins of the environment section.
var admissionPlugins = []admissionPlugin{
	{name: "PodSecurity", effect: EnvPodSecurityID, needed: func(p policy.Policy) string {
		if p.PodSecurity != "privileged" {
			return "the policy's Pod Security level " + p.PodSecurity
		}
		return ""
	}},
	{name: "ValidatingAdmissionPolicy", effect: EnvAdmissionID, needed: func(policy.Policy) string { return "kubectl-zoo's admission policies (zoo-tenant...)" }},
	{name: "ResourceQuota", needed: func(p policy.Policy) string {
		if len(p.Quota) > 0 {
			return "the policy's quota"
		}
		return ""
	}},
	{name: "LimitRanger", needed: func(p policy.Policy) string {
		if p.LimitRange != nil {
			return "the policy's container LimitRange"
		}
		return ""
	}},
	{name: "NodeRestriction", needed: func(policy.Policy) string { return "" }},
	{name: "ValidatingAdmissionWebhook", needed: func(policy.Policy) string { return "" }},
	{name: "MutatingAdmissionWebhook", needed: func(policy.Policy) string { return "" }},
}

// pluginResults say, per plugin of admissionPlugins, whether the API
// server runs it, learned from its admission metrics (read as the platform
// admin, after the catalog's attempts went through every plugin), else
// from the effect an earlier result showed. A plugin the policy needs that
// does not run is escaped.
func pluginResults(ctx context.Context, admin kubernetes.Interface, pol policy.Policy, results []Result) []Result {
	ran, err := pluginsRan(ctx, admin)
	return judgePlugins(ran, err, pol, results)
}

// judgePlugins judges admissionPlugins by the plugins the metrics showed
// ran, or by results where metricsErr says they could not be read.
func judgePlugins(ran []string, metricsErr error, pol policy.Policy, results []Result) []Result {
	var out []Result
	for _, p := range admissionPlugins {
		res := Result{ID: EnvPluginPrefix + p.name, Class: ClassEnvironment, Title: "the API server runs the admission plugin " + p.name}
		need := p.needed(pol)
		switch {
		case metricsErr != nil:
			res = pluginByEffect(res, p, need, metricsErr, results)
		case slices.Contains(ran, p.name):
			res.Status, res.Layer, res.Detail = Held, LayerPluginRan, "learned from the metric "+strings.TrimSuffix(pluginMetric, "{")+" of the API server that answered"
		case need != "":
			res.Status, res.Detail = Escaped, fmt.Sprintf("the API server's admission metrics show no run of %s, which %s needs", p.name, need)
		default:
			res.Status, res.Detail = NotApplicable, "it does not run (the API server's admission metrics show no run of it), and the tenant's policy does not need it"
		}
		out = append(out, res)
	}
	return out
}

// pluginByEffect judges a plugin by the effect an earlier result showed,
// where the metrics could not be read.
func pluginByEffect(res Result, p admissionPlugin, need string, metricsErr error, results []Result) Result {
	why := "the API server's metrics could not be read (" + oneLine(metricsErr.Error(), 150) + ")"
	for _, r := range results {
		if p.effect != "" && r.ID == p.effect && r.Status == Held {
			res.Status, res.Layer, res.Detail = Held, r.Layer, "learned from the effect of "+r.ID+" ("+r.Detail+"); "+why
			return res
		}
	}
	if need == "" {
		res.Status, res.Detail = NotApplicable, why+"; the tenant's policy does not need it"
		return res
	}
	res.Status, res.Detail = CouldNotRun, why+"; no result shows its effect"
	return res
}

// pluginsRan are the names of the admission plugins the API server's
// metrics count.
func pluginsRan(ctx context.Context, admin kubernetes.Interface) ([]string, error) {
	raw, err := admin.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, err
	}
	return parsePluginsRan(raw), nil
}

// parsePluginsRan reads the plugin names of pluginMetric from metrics text.
func parsePluginsRan(raw []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, pluginMetric) {
			continue
		}
		if m := rePluginName.FindStringSubmatch(line); m != nil && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	slices.Sort(out)
	return out
}
