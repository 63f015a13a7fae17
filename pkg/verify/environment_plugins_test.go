package verify

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
)

// TestParsePluginsRan: the names of the admission metric's plugins, once
// each, and nothing of other metrics.
func TestParsePluginsRan(t *testing.T) {
	raw := []byte(`# HELP apiserver_admission_controller_admission_duration_seconds_count x
apiserver_admission_controller_admission_duration_seconds_count{name="PodSecurity",operation="CREATE",rejected="false",type="validate"} 3
apiserver_admission_controller_admission_duration_seconds_count{name="PodSecurity",operation="CREATE",rejected="true",type="validate"} 1
apiserver_admission_controller_admission_duration_seconds_count{name="LimitRanger",operation="CREATE",rejected="false",type="admit"} 2
apiserver_admission_webhook_admission_duration_seconds_count{name="x.example.com",operation="CREATE",rejected="false",type="validate"} 1
`)
	assert.Equal(t, []string{"LimitRanger", "PodSecurity"}, parsePluginsRan(raw))
}

// TestJudgePlugins: a plugin that ran holds; one the policy needs that did
// not run escapes; one it does not need does not apply; without metrics a
// plugin is judged by the effect an earlier result showed, else could not
// run.
func TestJudgePlugins(t *testing.T) {
	pol := policy.Policy{PodSecurity: "baseline"}
	byName := func(rs []Result) map[string]Result {
		out := map[string]Result{}
		for _, r := range rs {
			out[r.ID[len(EnvPluginPrefix):]] = r
		}
		return out
	}
	got := byName(judgePlugins([]string{"PodSecurity", "NodeRestriction"}, nil, pol, nil))
	require.Len(t, got, len(admissionPlugins))
	assert.Equal(t, Held, got["PodSecurity"].Status)
	assert.Equal(t, LayerPluginRan, got["PodSecurity"].Layer)
	assert.Equal(t, Held, got["NodeRestriction"].Status)
	assert.Equal(t, Escaped, got["ValidatingAdmissionPolicy"].Status, "kubectl-zoo needs it always")
	assert.Equal(t, NotApplicable, got["ResourceQuota"].Status, "the policy sets no quota")

	effects := []Result{{ID: EnvPodSecurityID, Status: Held, Layer: "Pod Security (baseline)"}, {ID: EnvAdmissionID, Status: Escaped}}
	got = byName(judgePlugins(nil, errors.New("forbidden"), pol, effects))
	assert.Equal(t, Held, got["PodSecurity"].Status)
	assert.Contains(t, got["PodSecurity"].Detail, "learned from the effect of "+EnvPodSecurityID)
	assert.Equal(t, CouldNotRun, got["ValidatingAdmissionPolicy"].Status, "no result shows it held")
	assert.Equal(t, NotApplicable, got["MutatingAdmissionWebhook"].Status)
}
