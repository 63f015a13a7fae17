package verify

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
)

// enforcing is a clientset whose namespaces enforce Pod Security level
// (refusing the level pods above it as the API server words it), or that
// fails every pod create with fail.
func enforcing(level string, fail error) *fake.Clientset {
	c := fake.NewClientset()
	c.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if fail != nil {
			return true, nil, fail
		}
		pod := a.(clienttesting.CreateAction).GetObject().(*corev1.Pod)
		needs := "restricted"
		switch {
		case pod.Spec.HostPID:
			needs = "privileged"
		case pod.Spec.SecurityContext.RunAsNonRoot == nil:
			needs = "baseline"
		}
		if podSecurityRank[needs] < podSecurityRank[level] {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, pod.Name,
				errors.New(`violates PodSecurity "`+level+`:latest": host namespaces`))
		}
		return true, pod, nil
	})
	return c
}

// TestPodSecurityResult: the level a namespace enforces holds when it is at
// least the policy's and escapes when it is weaker; another refusal proves
// nothing.
func TestPodSecurityResult(t *testing.T) {
	for _, tc := range []struct {
		name, enforced, policy string
		fail                   error
		want                   Status
		layer                  string
	}{
		{"as the policy says", "baseline", "baseline", nil, Held, "Pod Security (baseline)"},
		{"stricter than the policy", "restricted", "baseline", nil, Held, "Pod Security (restricted)"},
		{"relabeled privileged", "privileged", "baseline", nil, Escaped, ""},
		{"weaker than restricted", "baseline", "restricted", nil, Escaped, ""},
		{"a quota refuses every pod", "baseline", "baseline", apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "p", errors.New("exceeded quota")), CouldNotRun, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := podSecurityResult(context.Background(), enforcing(tc.enforced, tc.fail), "zooverify1-default", policy.Policy{PodSecurity: tc.policy})
			assert.Equal(t, tc.want, res.Status, res.Detail)
			assert.Equal(t, tc.layer, res.Layer)
			assert.Equal(t, ClassEnvironment, res.Class)
		})
	}
}

// TestVersionResult: the tested minor release holds; another one could not
// be proven.
func TestVersionResult(t *testing.T) {
	for _, tc := range []struct {
		minor, git string
		want       Status
	}{
		{"34", "v1.34.4", Held},
		{"34+", "v1.34.2-eks-1", Held},
		{"35", "v1.35.0", CouldNotRun},
	} {
		t.Run(tc.git, func(t *testing.T) {
			c := fake.NewClientset()
			c.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{Major: "1", Minor: tc.minor, GitVersion: tc.git}
			res := versionResult(c)
			assert.Equal(t, tc.want, res.Status, res.Detail)
			assert.Contains(t, res.Detail, tc.git)
		})
	}
}

// TestAdmissionResult: the zoo policies are in force when they refused an
// attempt; attempts of the tenant identity none of them refused say they
// are not.
func TestAdmissionResult(t *testing.T) {
	refused := Result{Path: PathIdentity, Status: Held, Layer: "admission: zoo-tenant"}
	rbac := Result{Path: PathIdentity, Status: Held, Layer: LayerRBAC}
	serve := Result{Path: PathServe, Status: Held, Layer: LayerProxy}
	for _, tc := range []struct {
		name    string
		results []Result
		want    Status
	}{
		{"refused by zoo-tenant", []Result{serve, rbac, refused}, Held},
		{"none refused directly", []Result{serve, rbac}, Escaped},
		{"nothing attempted directly", []Result{serve}, CouldNotRun},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, admissionResult(tc.results).Status)
		})
	}
}
