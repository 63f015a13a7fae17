package localproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strings"

	"golang.org/x/sync/errgroup"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// materializeParallelism bounds the concurrent upstream writes of one
// materialization (one per tenant namespace).
const materializeParallelism = 8

const rbacPath = "/apis/rbac.authorization.k8s.io/v1"

// materialize grants a stored tenant ClusterRoleBinding in every namespace of
// the tenant, impersonating the tenant identity.
func (p *Proxy) materialize(ctx context.Context, stored *rbacv1.ClusterRoleBinding) error {
	namespaces, _, err := p.tenantNamespaces(ctx)
	if err != nil {
		return err
	}
	return forEachNamespace(ctx, namespaces, func(ctx context.Context, ns string) error {
		rb, err := tenantctl.MaterializeClusterRoleBinding(p.tenant, stored, ns)
		if err != nil {
			return err
		}
		return p.applyRoleBinding(ctx, rb)
	})
}

// materializeInto grants every tenant ClusterRoleBinding in ns, a namespace
// the tenant has just created.
func (p *Proxy) materializeInto(ctx context.Context, ns string) error {
	crbs, err := p.storedClusterRoleBindings(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for i := range crbs {
		rb, err := tenantctl.MaterializeClusterRoleBinding(p.tenant, &crbs[i], ns)
		if err == nil {
			err = p.applyRoleBinding(ctx, rb)
		}
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// unmaterialize deletes the RoleBindings of the tenant ClusterRoleBinding
// crbName (upstream name) in every namespace of the tenant.
func (p *Proxy) unmaterialize(ctx context.Context, crbName string) error {
	namespaces, _, err := p.tenantNamespaces(ctx)
	if err != nil {
		return err
	}
	q := url.Values{"labelSelector": {tenantctl.MaterializedFromLabel + "=" + tenantctl.MaterializedLabelValue(crbName)}}
	return forEachNamespace(ctx, namespaces, func(ctx context.Context, ns string) error {
		return ignoreGone(p.tenantJSON(ctx, http.MethodDelete, rbacPath+"/namespaces/"+url.PathEscape(ns)+"/rolebindings", q, nil, nil))
	})
}

// pruneMaterialized deletes the materialized RoleBindings whose tenant
// ClusterRoleBinding no longer exists (after a deletecollection).
func (p *Proxy) pruneMaterialized(ctx context.Context) error {
	crbs, err := p.storedClusterRoleBindings(ctx)
	if err != nil {
		return err
	}
	live := map[string]bool{}
	for _, crb := range crbs {
		live[tenantctl.MaterializedLabelValue(crb.Name)] = true
	}
	namespaces, _, err := p.tenantNamespaces(ctx)
	if err != nil {
		return err
	}
	q := url.Values{"labelSelector": {tenantctl.MaterializedFromLabel}}
	return forEachNamespace(ctx, namespaces, func(ctx context.Context, ns string) error {
		var list rbacv1.RoleBindingList
		base := rbacPath + "/namespaces/" + url.PathEscape(ns) + "/rolebindings"
		if err := p.tenantJSON(ctx, http.MethodGet, base, q, nil, &list); err != nil {
			return ignoreGone(err)
		}
		var errs []error
		for _, rb := range list.Items {
			if !live[rb.Labels[tenantctl.MaterializedFromLabel]] {
				errs = append(errs, ignoreGone(p.tenantJSON(ctx, http.MethodDelete, base+"/"+url.PathEscape(rb.Name), nil, nil, nil)))
			}
		}
		return errors.Join(errs...)
	})
}

// storedClusterRoleBindings lists the tenant's stored ClusterRoleBindings
// (those with the subjects annotation) with the caller's own identity, as
// tenantNamespaces does: the tenant identity need not be allowed to list.
func (p *Proxy) storedClusterRoleBindings(ctx context.Context) ([]rbacv1.ClusterRoleBinding, error) {
	q := url.Values{"labelSelector": {p.tr.TenantSelector()}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.upstreamURL(rbacPath+"/clusterrolebindings", q).String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", translate.MediaJSON)
	resp, err := p.own.Do(req)
	if err != nil {
		return nil, err
	}
	var list rbacv1.ClusterRoleBindingList
	if err := decodeResponse(resp, &list); err != nil {
		return nil, fmt.Errorf("listing the tenant's ClusterRoleBindings: %w", err)
	}
	out := list.Items[:0]
	for _, crb := range list.Items {
		if _, stored := crb.Annotations[tenantctl.SubjectsAnnotation]; stored && p.tenant.Owns(crb.Name) {
			out = append(out, crb)
		}
	}
	return out, nil
}

// applyRoleBinding creates rb, or brings an existing one in line with it (a
// changed roleRef, which is immutable, means delete and create again).
func (p *Proxy) applyRoleBinding(ctx context.Context, rb *rbacv1.RoleBinding) error {
	base := rbacPath + "/namespaces/" + url.PathEscape(rb.Namespace) + "/rolebindings"
	body, err := json.Marshal(rb)
	if err != nil {
		return fmt.Errorf("encoding RoleBinding: %w", err)
	}
	err = p.tenantJSON(ctx, http.MethodPost, base, nil, body, nil)
	if err == nil || !isConflict(err) {
		return ignoreTerminating(err)
	}
	var cur rbacv1.RoleBinding
	if err := p.tenantJSON(ctx, http.MethodGet, base+"/"+url.PathEscape(rb.Name), nil, nil, &cur); err != nil {
		return err
	}
	if cur.RoleRef != rb.RoleRef {
		if err := ignoreGone(p.tenantJSON(ctx, http.MethodDelete, base+"/"+url.PathEscape(rb.Name), nil, nil, nil)); err != nil {
			return err
		}
		return p.tenantJSON(ctx, http.MethodPost, base, nil, body, nil)
	}
	if reflect.DeepEqual(cur.Subjects, rb.Subjects) && reflect.DeepEqual(cur.Labels, rb.Labels) {
		return nil
	}
	rb = rb.DeepCopy()
	rb.ResourceVersion = cur.ResourceVersion
	if body, err = json.Marshal(rb); err != nil {
		return fmt.Errorf("encoding RoleBinding: %w", err)
	}
	return p.tenantJSON(ctx, http.MethodPut, base+"/"+url.PathEscape(rb.Name), nil, body, nil)
}

// forEachNamespace runs fn for each namespace, a few at a time, and joins
// the errors.
func forEachNamespace(ctx context.Context, namespaces []string, fn func(context.Context, string) error) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(materializeParallelism)
	errs := make([]error, len(namespaces))
	for i, ns := range namespaces {
		g.Go(func() error {
			if err := fn(ctx, ns); err != nil {
				errs[i] = fmt.Errorf("namespace %s: %w", ns, err)
			}
			return nil
		})
	}
	_ = g.Wait()
	return errors.Join(errs...)
}

// tenantJSON sends one JSON request as the tenant identity and decodes the
// answer into out (if not nil); a non-2xx answer is a *statusError.
func (p *Proxy) tenantJSON(ctx context.Context, method, path string, query url.Values, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.upstreamURL(path, query).String(), rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", translate.MediaJSON)
	if body != nil {
		req.Header.Set("Content-Type", translate.MediaJSON)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return &statusError{code: resp.StatusCode, body: data}
	}
	if out != nil {
		return json.Unmarshal(data, out)
	}
	return nil
}

// ignoreGone treats a 404 (the namespace or the object went away) as done.
func ignoreGone(err error) error {
	var se *statusError
	if errors.As(err, &se) && se.code == http.StatusNotFound {
		return nil
	}
	return err
}

// ignoreTerminating treats a namespace that is being deleted (or already
// gone) as one that needs no RoleBinding.
func ignoreTerminating(err error) error {
	var se *statusError
	if errors.As(err, &se) && se.code == http.StatusForbidden && strings.Contains(string(se.body), "being terminated") {
		return nil
	}
	return ignoreGone(err)
}
