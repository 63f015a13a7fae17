package verify_test

import (
	"context"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/verify"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// brokenBinding is the guarantee TestVerify breaks: the binding of the
// policy that keeps tenants off platform-owned metadata.
const brokenBinding = admissionrules.MetadataPolicy

// key names a result by check and path.
func key(r verify.Result) string { return r.ID + " [" + string(r.Path) + "]" }

// TestVerify: on the cluster as install leaves it every attempt holds, on
// every path, the server's too (a replica named by --server-url), and
// verify exits 0; a second run refuses while the first one's kept scratch
// tenants exist, unless --yes; with the binding of zoo-tenant-metadata
// deleted, exactly the attempts that only that binding's policy held
// escape, and verify exits non-zero with one line (the data plane, where
// pods do not run, could not run, by a pod's address nor a Service's).
func TestVerify(t *testing.T) {
	install(t)
	server := serverFlags(t)
	res, healthy := runVerify(t, append(server, "--keep")...)
	require.NoError(t, res.Err, "stderr: %s", res.Stderr)
	require.NotNil(t, healthy)
	held, heldOn := map[string]bool{}, map[verify.Path]int{}
	for _, r := range healthy.Results {
		switch r.Status {
		case verify.Held:
			assert.NotEmpty(t, r.Layer, "%s holds without a layer", key(r))
			heldOn[r.Path]++
		case verify.NotApplicable:
			assert.NotEmpty(t, r.Detail, "%s does not apply without a reason", key(r))
		default:
			t.Errorf("%s: %s (%s)", key(r), r.Status, r.Detail)
		}
		if r.Layer == "admission: "+brokenBinding {
			held[key(r)] = true
		}
	}
	require.NotEmpty(t, held, "no attempt was held by %s", brokenBinding)
	for _, p := range verify.Paths {
		assert.Positive(t, heldOn[p], "nothing was attempted and held on the path %s", p)
	}

	t.Run("refuses without --yes where its scratch tenants exist", func(t *testing.T) {
		res := framework.Zoo(t, "verify")
		framework.RequireOneLineError(t, res, "run again with --yes")
	})

	t.Run("reports the broken guarantee as escaped", func(t *testing.T) {
		admission := framework.AdminClient(t).AdmissionregistrationV1().ValidatingAdmissionPolicyBindings()
		require.NoError(t, admission.Delete(t.Context(), brokenBinding, metav1.DeleteOptions{}))
		t.Cleanup(func() { framework.MustZoo(t, "install") })
		// Pods do not run on the local kwok upstream: the data plane's
		// connection could not run, and says why, never held.
		res, broken := runVerify(t, append(server, "--yes", "--data-plane", "--image", "busybox:1.37", "--request-timeout", "10s")...)
		framework.RequireOneLineError(t, res, "attempts escaped")
		require.NotNil(t, broken)
		for _, id := range []string{verify.EnvNetworkID, verify.EnvNetworkServiceID} { // a pod's address, a Service's
			network := resultOf(t, broken, id)
			assert.Equal(t, verify.CouldNotRun, network.Status, "%s: %s", id, network.Detail)
			assert.Contains(t, network.Detail, "pods may not run on this cluster", id)
		}
		// An attempt the broken policy held escapes unless another layer
		// holds it too (a default class annotation is zoo-tenant-storage's
		// as well); nothing else escapes.
		escaped, alsoHeld := 0, 0
		for _, r := range broken.Results {
			switch {
			case r.Status == verify.Escaped:
				assert.True(t, held[key(r)], "%s escaped; %s did not hold it", key(r), brokenBinding)
				escaped++
			case held[key(r)]:
				assert.Equal(t, verify.Held, r.Status, "%s: %s", key(r), r.Detail)
				assert.NotEqual(t, "admission: "+brokenBinding, r.Layer, "%s is held by the deleted binding", key(r))
				alsoHeld++
			}
		}
		assert.Positive(t, escaped)
		assert.Equal(t, len(held), escaped+alsoHeld, "every attempt %s held is reported", brokenBinding)
		requireNothingLeft(t)
	})
}

// resultOf is the report's one result of id.
func resultOf(t *testing.T, rep *verify.Report, id string) verify.Result {
	t.Helper()
	for _, r := range rep.Results {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no result %s", id)
	return verify.Result{}
}

// TestVerifyInterrupted: SIGINT in the middle of a run ends it with a
// non-zero exit and leaves no scratch tenant, namespace or cluster object.
func TestVerifyInterrupted(t *testing.T) {
	install(t)
	cmd := exec.Command(framework.ZooPath(t), "--kubeconfig", framework.Cluster().Kubeconfig, "verify", "--yes")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
		}
	})
	victim := verify.DefaultNames[1] + "-default"
	require.Eventually(t, func() bool { // mid-run: the victim's namespace is being made
		_, err := framework.AdminClient(t).CoreV1().Namespaces().Get(context.Background(), victim, metav1.GetOptions{})
		return err == nil
	}, 2*time.Minute, 50*time.Millisecond, "verify never made the victim's namespace; stderr: %s", &stderr)
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	select {
	case err := <-done:
		require.Error(t, err, "an interrupted verify must not exit 0")
	case <-time.After(verify.CleanupTimeout + time.Minute):
		t.Fatalf("verify did not exit after SIGINT; stderr: %s", &stderr)
	}
	requireNothingLeft(t)
}
