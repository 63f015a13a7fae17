package certs

import (
	"context"
	"crypto"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
)

// signKubernetes has the cluster's signer kubernetes.io/kube-apiserver-client
// sign through the CSR API: it creates the CSR, approves it when the caller
// may (else says how to and waits up to r.ApprovalTimeout), waits for the
// certificate and deletes the CSR.
func signKubernetes(ctx context.Context, c Client, r Request, subject pkix.Name, key crypto.Signer) ([]byte, error) {
	req, err := csrPEM(subject, key)
	if err != nil {
		return nil, err
	}
	csrs := c.Kube.CertificatesV1().CertificateSigningRequests()
	csr, err := csrs.Create(ctx, &certificatesv1.CertificateSigningRequest{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "zoo-" + r.Tenant + "-", Labels: map[string]string{tenantapi.ManagedByLabel: tenantapi.ManagedByValue}},
		Spec: certificatesv1.CertificateSigningRequestSpec{
			Request:           req,
			SignerName:        certificatesv1.KubeAPIServerClientSignerName,
			ExpirationSeconds: new(int32(r.TTL / time.Second)),
			Usages:            []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create a CertificateSigningRequest: %w", err)
	}
	name := csr.Name
	defer func() {
		_ = csrs.Delete(context.WithoutCancel(ctx), name, metav1.DeleteOptions{})
	}()
	csr.Status.Conditions = append(csr.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{
		Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "KubectlZooCertIssue",
		Message: fmt.Sprintf("approved by kubectl zoo cert issue for %s in %v", subject.CommonName, subject.Organization),
	})
	timeout := time.Minute
	_, err = csrs.UpdateApproval(ctx, name, csr, metav1.UpdateOptions{})
	switch {
	case apierrors.IsForbidden(err):
		if r.ApprovalTimeout <= 0 {
			return nil, fmt.Errorf("you may not approve CertificateSigningRequest %s (signer %s); have it approved with `kubectl certificate approve %s`, or pass --approval-timeout to wait",
				name, certificatesv1.KubeAPIServerClientSignerName, name)
		}
		r.Progress("You may not approve CertificateSigningRequest %s; waiting %s for someone who may: kubectl certificate approve %s",
			name, r.ApprovalTimeout, name)
		timeout = r.ApprovalTimeout
	case err != nil:
		return nil, fmt.Errorf("approve CertificateSigningRequest %s: %w", name, err)
	}
	var certPEM []byte
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		got, err := csrs.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, cond := range got.Status.Conditions {
			if (cond.Type == certificatesv1.CertificateDenied || cond.Type == certificatesv1.CertificateFailed) && cond.Status == corev1.ConditionTrue {
				return false, fmt.Errorf("CertificateSigningRequest %s was %s: %s", name, cond.Type, cond.Message)
			}
		}
		certPEM = got.Status.Certificate
		return len(certPEM) > 0, nil
	})
	if wait.Interrupted(err) || errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("CertificateSigningRequest %s got no certificate within %s (approved? does the cluster's signer %s issue certificates?)",
			name, timeout, certificatesv1.KubeAPIServerClientSignerName)
	}
	if err != nil {
		return nil, err
	}
	return certPEM, nil
}
