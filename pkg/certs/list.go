package certs

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
)

// Listed is one recorded certificate with its tenant and status, as
// `cert list -o json|yaml` prints it.
type Listed struct {
	Serial   string     `json:"serial"`
	Tenant   string     `json:"tenant"`
	User     string     `json:"user"`
	Groups   []string   `json:"groups,omitempty"`
	Signer   string     `json:"signer"`
	NotAfter time.Time  `json:"notAfter"`
	Status   string     `json:"status"`
	Revoked  *time.Time `json:"revoked,omitempty"`
}

// CertificateList is what `cert list -o json|yaml` prints.
type CertificateList struct {
	Items []Listed `json:"items"`
}

// List returns the recorded certificates of tenant (every tenant's when
// empty), sorted by tenant, user and notAfter, with their status at now.
func List(ctx context.Context, c Client, tenant string, now time.Time) ([]Listed, error) {
	var records []*unstructured.Unstructured
	if tenant != "" {
		u, err := getTenant(ctx, c.Dynamic, tenant)
		if err != nil {
			return nil, err
		}
		records = append(records, u)
	} else {
		list, err := c.Dynamic.Resource(tenantapi.TenantGVR).List(ctx, metav1.ListOptions{})
		switch {
		case apierrors.IsNotFound(err):
			return nil, tenantapi.ErrNotInstalled
		case err != nil:
			return nil, fmt.Errorf("list tenants: %w", err)
		}
		for i := range list.Items {
			records = append(records, &list.Items[i])
		}
	}
	var out []Listed
	for _, u := range records {
		certs, err := CertificatesOf(u)
		if err != nil {
			return nil, err
		}
		for _, r := range certs.Issued {
			out = append(out, listed(u.GetName(), r, now))
		}
	}
	slices.SortStableFunc(out, func(a, b Listed) int {
		if c := strings.Compare(a.Tenant, b.Tenant); c != 0 {
			return c
		}
		if c := strings.Compare(a.User, b.User); c != 0 {
			return c
		}
		return a.NotAfter.Compare(b.NotAfter)
	})
	return out, nil
}

func listed(tenant string, r Record, now time.Time) Listed {
	return Listed{Serial: r.Serial, Tenant: tenant, User: r.User, Groups: r.Groups, Signer: r.Signer,
		NotAfter: r.NotAfter, Status: r.Status(now), Revoked: r.Revoked}
}

// PrintTable prints certificates as `cert list` does.
func PrintTable(w io.Writer, certs []Listed, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	fmt.Fprintln(tw, "SERIAL\tTENANT\tUSER\tGROUPS\tSIGNER\tNOT-AFTER\tSTATUS")
	for _, c := range certs {
		groups := strings.Join(c.Groups, ",")
		if groups == "" {
			groups = "<none>"
		}
		left := c.NotAfter.Sub(now)
		when := c.NotAfter.UTC().Format(time.RFC3339)
		if left > 0 {
			when += " (" + duration.HumanDuration(left) + ")"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Serial, c.Tenant, c.User, groups, c.Signer, when, c.Status)
	}
	return tw.Flush()
}
