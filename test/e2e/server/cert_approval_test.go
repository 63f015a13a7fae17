package server_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	certificatesv1 "k8s.io/api/certificates/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

var csrNameRE = regexp.MustCompile(`CertificateSigningRequest (zoo-acme-[a-z0-9]+)`)

// TestCertIssueWithoutApprovalRights: an operator who may create CSRs and
// record certificates but not approve gets one line naming the
// `kubectl certificate approve` to run and exit 1; with --approval-timeout
// the command waits, and an administrator's approval completes it.
func TestCertIssueWithoutApprovalRights(t *testing.T) {
	setup(t)
	framework.ServerKubeconfig(t)
	ctx := context.Background()
	admin := framework.AdminClient(t)
	const name = "zoo-e2e-cert-operator"
	operator := certOperator(t, name)
	issueAs := func(args ...string) framework.Result {
		return framework.Run(t.Context(), nil, framework.ZooPath(t), append([]string{"--kubeconfig", operator, "cert", "issue",
			"--tenant", "acme", "--user", "dora", "--kubeconfig-out", filepath.Join(t.TempDir(), "kc")}, args...)...)
	}

	res := issueAs()
	require.Error(t, res.Err)
	line := strings.TrimSuffix(res.Stderr, "\n")
	assert.NotContains(t, line, "\n")
	assert.Regexp(t, `you may not approve CertificateSigningRequest zoo-acme-[a-z0-9]+ \(signer kubernetes.io/kube-apiserver-client\); have it approved with `+
		"`kubectl certificate approve zoo-acme-[a-z0-9]+`", line)
	_, err := admin.CertificatesV1().CertificateSigningRequests().Get(ctx, csrNameRE.FindStringSubmatch(line)[1], metav1.GetOptions{})
	assert.True(t, apierrors.IsNotFound(err), "the unapproved CSR is deleted: %v", err)

	// The zoo signer is no way around: the operator may not read its key.
	res = issueAs("--signer", "zoo")
	require.Error(t, res.Err)
	assert.Equal(t, "error: --signer zoo signs with the zoo CA's key, which you may not read (get secret zoo-system/zoo-client-ca)\n", res.Stderr)

	// With a timeout the command waits; an administrator approves.
	done := make(chan framework.Result, 1)
	go func() { done <- issueAs("--approval-timeout", "90s") }()
	approvePending(t, name)
	res = <-done
	require.NoError(t, res.Err, res.Stderr)
	assert.Regexp(t, csrNameRE, res.Stderr, "it said whom it waits for")
	assert.Contains(t, res.Stdout, "certificate ")
	assert.Contains(t, res.Stdout, "for user dora of tenant acme")

	removeCertOperator(t, name)
}

// certOperator makes an operator named name who may create CSRs and record
// certificates but not approve them, and returns its kubeconfig.
func certOperator(t *testing.T, name string) string {
	t.Helper()
	ctx := context.Background()
	admin := framework.AdminClient(t)
	_, err := admin.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{translate.APIGroup}, Resources: []string{tenantapi.TenantResource}, Verbs: []string{"get", "list", "patch"}},
			{APIGroups: []string{certificatesv1.GroupName}, Resources: []string{"certificatesigningrequests"}, Verbs: []string{"create", "get", "delete"}},
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}},
			// A certificate of the cluster's signer acts upstream by its
			// own grant (docs/certificates.md, "Revoking").
			{APIGroups: []string{rbacv1.GroupName}, Resources: []string{"clusterroles", "clusterrolebindings"},
				Verbs: []string{"get", "list", "create", "patch", "delete", "bind", "escalate"}},
		},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
		Subjects:   []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: name}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	auth := framework.ClusterCert(t, name)
	return framework.WriteClientKubeconfig(t, auth.ClientCertificateData, auth.ClientKeyData)
}

// removeCertOperator deletes what certOperator made.
func removeCertOperator(t *testing.T, name string) {
	t.Helper()
	admin := framework.AdminClient(t)
	require.NoError(t, admin.RbacV1().ClusterRoleBindings().Delete(context.Background(), name, metav1.DeleteOptions{}))
	require.NoError(t, admin.RbacV1().ClusterRoles().Delete(context.Background(), name, metav1.DeleteOptions{}))
}

// approvePending approves the first pending CSR of tenant acme that
// operator asked for, once there is one.
func approvePending(t *testing.T, operator string) {
	t.Helper()
	csr := ""
	require.Eventually(t, func() bool {
		csr = pendingCSR(t, operator)
		return csr != ""
	}, time.Minute, 100*time.Millisecond)
	framework.Kubectl(t, "certificate", "approve", csr)
}

// pendingCSR is the name of a pending CSR of tenant acme that operator
// asked for, or "".
func pendingCSR(t *testing.T, operator string) string {
	t.Helper()
	csrs, err := framework.AdminClient(t).CertificatesV1().CertificateSigningRequests().List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	for _, csr := range csrs.Items {
		if strings.HasPrefix(csr.Name, "zoo-acme-") && len(csr.Status.Conditions) == 0 && csr.Spec.Username == operator {
			return csr.Name
		}
	}
	return ""
}
