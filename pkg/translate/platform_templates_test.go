package translate

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// templatePlatform holds a Deployment whose template the platform's
// webhook gave Istio's injection label.
type templatePlatform struct{ fakePlatform }

const meshedDeployment = "/apis/apps/v1/namespaces/acme-default/deployments/meshed"

func (f *templatePlatform) CurrentObject(path string) (map[string]any, bool, error) {
	f.lookups++
	if path != meshedDeployment {
		return nil, false, nil
	}
	return map[string]any{"metadata": map[string]any{"name": "meshed"}, "spec": map[string]any{"template": map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app": "m", "sidecar.istio.io/inject": "true"}}}}}, true, nil
}

// TestPlatformKeysOfPods: a pod's own keys and those of every pod template
// of the kinds table are the platform's in its domains, but for the
// allow-list, the AppArmor annotations the API server keeps equal to the
// pod's fields, and the labels the Job strategy writes into a Job's
// template; an update may keep a template's key at its current value.
func TestPlatformKeysOfPods(t *testing.T) {
	const deps = "/apis/apps/v1/namespaces/default/deployments"
	pod := func(meta string) string {
		return `{"metadata":{"name":"p",` + meta + `},"spec":{"containers":[{"name":"c","image":"i"}]}}`
	}
	deployment := func(name, tplMeta string) string {
		return `{"metadata":{"name":"` + name + `"},"spec":{"selector":{"matchLabels":{"app":"m"}},"template":{"metadata":{` + tplMeta +
			`},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`
	}
	cases := []struct {
		name, method, ct, path, body string
		refusedKey                   string // the key the 403 must name, or "" when admitted
		lookups                      int    // reads of the current object
	}{
		{name: "a pod with Calico's fixed address", method: "POST", path: "/api/v1/namespaces/default/pods",
			body: pod(`"annotations":{"cni.projectcalico.org/ipAddrs":"[\"10.0.0.7\"]"}`), refusedKey: "cni.projectcalico.org/ipAddrs"},
		{name: "a pod on the platform's network", method: "POST", path: "/api/v1/namespaces/default/pods",
			body: pod(`"annotations":{"k8s.v1.cni.cncf.io/networks":"kube-system/infra"}`), refusedKey: "k8s.v1.cni.cncf.io/networks"},
		{name: "a pod leaving the mesh", method: "POST", path: "/api/v1/namespaces/default/pods",
			body: pod(`"labels":{"sidecar.istio.io/inject":"false"}`), refusedKey: "sidecar.istio.io/inject"},
		{name: "a pod with kubectl's default container and an AppArmor profile", method: "POST", path: "/api/v1/namespaces/default/pods",
			body: pod(`"labels":{"app.kubernetes.io/name":"p"},"annotations":{"kubectl.kubernetes.io/default-container":"c","container.apparmor.security.beta.kubernetes.io/c":"runtime/default"}`)},
		{name: "a Deployment whose pods join the platform's network", method: "POST", path: deps,
			body: deployment("d", `"annotations":{"k8s.v1.cni.cncf.io/networks":"kube-system/infra"}`), refusedKey: "k8s.v1.cni.cncf.io/networks of the pod template spec.template"},
		{name: "a Deployment whose pods keep the platform's nodes", method: "POST", path: deps,
			body: deployment("d", `"annotations":{"karpenter.sh/do-not-disrupt":"true"}`), refusedKey: "karpenter.sh/do-not-disrupt"},
		{name: "a Deployment restarted by kubectl", method: "POST", path: deps,
			body: deployment("d", `"labels":{"app":"m"},"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-11-28T12:00:00Z"}`)},
		{name: "a Deployment's template with a Job's label", method: "POST", path: deps,
			body: deployment("d", `"labels":{"batch.kubernetes.io/job-name":"j"}`), refusedKey: "batch.kubernetes.io/job-name"},
		{name: "a Job with the labels its strategy writes", method: "POST", path: "/apis/batch/v1/namespaces/default/jobs",
			body: `{"metadata":{"name":"j"},"spec":{"template":{"metadata":{"labels":{"batch.kubernetes.io/job-name":"j","batch.kubernetes.io/controller-uid":"u"}},"spec":{"containers":[{"name":"c","image":"i"}],"restartPolicy":"Never"}}}}`},
		{name: "a CronJob whose jobs' pods take a fixed address", method: "POST", path: "/apis/batch/v1/namespaces/default/cronjobs",
			body:       `{"metadata":{"name":"c"},"spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"metadata":{"annotations":{"cni.projectcalico.org/ipAddrs":"[\"10.0.0.7\"]"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}}}`,
			refusedKey: "cni.projectcalico.org/ipAddrs of the pod template spec.jobTemplate.spec.template"},
		{name: "a PodTemplate with Istio's revision", method: "POST", path: "/api/v1/namespaces/default/podtemplates",
			body:       `{"metadata":{"name":"t"},"template":{"metadata":{"labels":{"istio.io/rev":"canary"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}`,
			refusedKey: "istio.io/rev of the pod template template"},
		{name: "an update keeping the platform's key of a template", method: "PUT", path: deps + "/meshed",
			body: deployment("meshed", `"labels":{"app":"m","sidecar.istio.io/inject":"true"}`), lookups: 1},
		{name: "an update changing the platform's key of a template", method: "PUT", path: deps + "/meshed",
			body: deployment("meshed", `"labels":{"app":"m","sidecar.istio.io/inject":"false"}`), refusedKey: "sidecar.istio.io/inject", lookups: 1},
		{name: "an update adding a key the current template lacks", method: "PUT", path: deps + "/meshed",
			body: deployment("meshed", `"labels":{"app":"m"},"annotations":{"istio.io/rev":"x"}`), refusedKey: "istio.io/rev", lookups: 1},
		{name: "an update dropping the platform's key of a template", method: "PUT", path: deps + "/meshed",
			body: deployment("meshed", `"labels":{"app":"m"}`)},
		{name: "an apply keeping the platform's key of a template", method: "PATCH", ct: MediaApplyPatch, path: deps + "/meshed",
			body: deployment("meshed", `"labels":{"app":"m","sidecar.istio.io/inject":"true"}`), lookups: 1},
		{name: "an apply changing the platform's key of a template", method: "PATCH", ct: MediaApplyPatch, path: deps + "/meshed",
			body: deployment("meshed", `"labels":{"sidecar.istio.io/inject":"false"}`), refusedKey: "sidecar.istio.io/inject", lookups: 1},
		{name: "an apply of a new Deployment with the key", method: "PATCH", ct: MediaApplyPatch, path: deps + "/new",
			body: deployment("new", `"annotations":{"cni.projectcalico.org/ipAddrs":"x"}`), refusedKey: "cni.projectcalico.org/ipAddrs", lookups: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &templatePlatform{}
			tr := New(MustTenant("acme"), Options{Shared: fakeShared{}, Platform: p})
			ct := tc.ct
			if ct == "" {
				ct = MediaJSON
			}
			_, err := tr.TranslateRequest(Request{Method: tc.method, Path: tc.path, Header: http.Header{"Content-Type": {ct}}, Body: []byte(tc.body)})
			assert.Equal(t, tc.lookups, p.lookups, "reads of the current object")
			if tc.refusedKey == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			st := ToStatus(err)
			assert.Equal(t, int32(http.StatusForbidden), st.Code, st.Message)
			assert.Contains(t, st.Message, tc.refusedKey)
		})
	}
}

// TestPodTemplatePaths: every kind of the table with a pod template names
// it, and a pod's own spec is none.
func TestPodTemplatePaths(t *testing.T) {
	want := map[string][]string{
		"podtemplates": {"template"}, "replicationcontrollers": {"spec.template"}, "deployments.apps": {"spec.template"},
		"replicasets.apps": {"spec.template"}, "daemonsets.apps": {"spec.template"}, "statefulsets.apps": {"spec.template"},
		"jobs.batch": {"spec.template"}, "cronjobs.batch": {"spec.jobTemplate.spec.template"},
	}
	got := map[string][]string{}
	for _, k := range Kinds() {
		if p := k.PodTemplatePaths(); len(p) > 0 {
			got[k.Resource.String()] = p
		}
	}
	assert.Equal(t, want, got)
}
