package server_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

// TestCertOfDeletedTenantRefused: a certificate issued for tenant certgone
// acts for it; once certgone is deleted and a new tenant of the same name is
// made, the old certificate (of either signer) is refused by both replicas,
// although the new record knows nothing of it, while one issued for the new
// tenant works; upstream the old certificate of the cluster's signer lost
// its grant with the old record.
func TestCertOfDeletedTenantRefused(t *testing.T) {
	lb, replicas := zooCAReplicas(t)
	zoo := func(args ...string) string {
		res := framework.Run(t.Context(), nil, framework.ZooPath(t), append([]string{"--kubeconfig", framework.Cluster().Kubeconfig}, args...)...)
		require.NoError(t, res.Err, "kubectl zoo %v: %s", args, res.Stderr)
		return res.Stdout
	}
	zoo("tenant", "create", "certgone")
	zooSerial, zooKC := issue(t, lb.URL(), "--tenant", "certgone", "--user", "ann", "--signer", "zoo")
	k8sSerial, k8sKC := issue(t, lb.URL(), "--tenant", "certgone", "--user", "ben", "--ttl", "1h")
	for _, kc := range slices.Concat(atReplicas(t, zooKC, replicas), atReplicas(t, k8sKC, replicas)) {
		_, err := whoami(t, kc)
		require.NoError(t, err)
	}

	zoo("tenant", "delete", "certgone")
	zoo("tenant", "create", "certgone")
	for serial, kc := range map[string]string{zooSerial: zooKC, k8sSerial: k8sKC} {
		for _, at := range atReplicas(t, kc, replicas) {
			var err error
			require.Eventually(t, func() bool {
				_, err = whoami(t, at)
				return apierrors.IsUnauthorized(err) && strings.Contains(err.Error(), "earlier tenant")
			}, revocationBound, 10*time.Millisecond, "the new record is at every replica within the bound: %v", err)
			assert.Contains(t, err.Error(), "certificate "+serial+" was issued for an earlier tenant of this name")
		}
	}
	// Upstream the certificate of the cluster's signer acted only through
	// its grant, which went with the old record (garbage collected).
	var err error
	require.Eventually(t, func() bool {
		_, err = whoami(t, upstreamKubeconfig(t, k8sKC))
		return apierrors.IsForbidden(err)
	}, 30*time.Second, 100*time.Millisecond, "the old certificate may no longer act upstream")
	assert.Contains(t, err.Error(), "cannot impersonate resource")

	_, fresh := issue(t, lb.URL(), "--tenant", "certgone", "--user", "ann", "--signer", "zoo")
	for _, kc := range atReplicas(t, fresh, replicas) {
		who, err := whoami(t, kc)
		require.NoError(t, err)
		assert.Equal(t, "ann system:authenticated", who)
	}
	zoo("tenant", "delete", "certgone")
}

// TestCertRevokeByUserCatchesAnIssueInFlight: `cert revoke --tenant T --user
// U` while a certificate of U is being issued (signed, not yet recorded: an
// operator's CSR waiting for approval) revokes that one too: the issue
// records it revoked, drops its key and fails with one line.
func TestCertRevokeByUserCatchesAnIssueInFlight(t *testing.T) {
	setup(t)
	framework.ServerKubeconfig(t)
	const name = "zoo-e2e-cert-racer"
	operator := certOperator(t, name)
	earlier, _ := issue(t, "https://zoo.example", "--tenant", "acme", "--user", "racy")

	done := make(chan framework.Result, 1)
	go func() {
		done <- framework.Run(t.Context(), nil, framework.ZooPath(t), "--kubeconfig", operator, "cert", "issue", "--tenant", "acme",
			"--user", "racy", "--approval-timeout", "90s", "--kubeconfig-out", filepath.Join(t.TempDir(), "kc"))
	}()
	// Once the operator's CSR is pending, revoke, then approve.
	require.Eventually(t, func() bool { return pendingCSR(t, name) != "" }, time.Minute, 100*time.Millisecond)
	res := zooCert(t, "revoke", "--tenant", "acme", "--user", "racy")
	require.NoError(t, res.Err, res.Stderr)
	assert.Contains(t, res.Stdout, "certificate "+earlier+" of user racy of tenant acme revoked")
	approvePending(t, name)

	res = <-done
	require.Error(t, res.Err, res.Stdout)
	line := strings.TrimSpace(res.Stderr[strings.LastIndex(strings.TrimSpace(res.Stderr), "\n")+1:])
	assert.Regexp(t, `^error: certificate [0-9a-f]+ is recorded revoked and its key discarded: all certificates of user "racy" were revoked while it was being issued; issue it again$`, line)
	assert.NotContains(t, res.Stdout, "certificate ", "no certificate is handed out")

	list := zooCert(t, "list", "--tenant", "acme", "-o", "json")
	require.NoError(t, list.Err)
	var got certs.CertificateList
	require.NoError(t, json.Unmarshal([]byte(list.Stdout), &got))
	statuses := map[string]string{}
	for _, c := range got.Items {
		if c.User == "racy" {
			statuses[c.Serial] = c.Status
		}
	}
	assert.Len(t, statuses, 2, "the earlier certificate and the one in flight: %v", statuses)
	for serial, status := range statuses {
		assert.Equal(t, certs.StatusRevoked, status, serial)
	}
	// A later issue is not caught: the revocation is behind it.
	later, _ := issue(t, "https://zoo.example", "--tenant", "acme", "--user", "racy")
	assert.NotContains(t, statuses, later)
	removeCertOperator(t, name)
}
