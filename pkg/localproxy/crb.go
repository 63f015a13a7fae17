package localproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantctl"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// A tenant ClusterRoleBinding is stored upstream without subjects
// (tenantctl.StoreClusterRoleBinding) and granted by one RoleBinding in each
// of the tenant's namespaces (tenantctl.MaterializeClusterRoleBinding), all
// written impersonating the tenant identity. serveClusterRoleBindings takes
// over the writes of ClusterRoleBindings; reads go through forward, which
// restores the subjects (restoreSubjects) before translation.

// serveClusterRoleBindings handles what tenant ClusterRoleBindings need and
// reports whether it answered the request: writes of ClusterRoleBindings, and
// the hiding of materialized RoleBindings. body is the tenant's own request
// body (patches are applied in the tenant's view).
func (p *Proxy) serveClusterRoleBindings(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest, body []byte) bool {
	i := u.Info
	if !i.IsResourceRequest || i.APIGroup != rbacv1.GroupName || i.Subresource != "" {
		return false
	}
	if i.Resource == "rolebindings" {
		if err := hideMaterialized(u); err != nil {
			writeStatus(w, translate.ToStatus(err))
			return true
		}
		return false
	}
	if !isClusterRoleBindings(u) {
		return false
	}
	switch i.Verb {
	case "create", "update":
		p.writeClusterRoleBinding(w, r, u)
	case "patch":
		p.patchClusterRoleBinding(w, r, u, body)
	case "delete", "deletecollection":
		p.deleteClusterRoleBindings(w, r, u)
	default:
		return false
	}
	return true
}

// writeClusterRoleBinding creates or replaces a tenant ClusterRoleBinding:
// stored without subjects, then materialized in every tenant namespace.
func (p *Proxy) writeClusterRoleBinding(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest) {
	var crb rbacv1.ClusterRoleBinding
	if err := json.Unmarshal(u.Body, &crb); err != nil {
		writeStatus(w, badRequest(fmt.Sprintf("decoding the ClusterRoleBinding: %v", err)))
		return
	}
	a, warnings, st := p.storeClusterRoleBinding(r, u, &crb, u.Method, u.Query)
	if st != nil {
		writeStatus(w, st)
		return
	}
	p.answer(w, u, a, warnings)
}

// storeClusterRoleBinding writes crb (upstream names, with subjects) to
// u.Path with method (POST or PUT) in its stored form, and materializes what
// the upstream stored. It returns the upstream answer and warnings for the
// tenant, or a Status when nothing was stored.
func (p *Proxy) storeClusterRoleBinding(r *http.Request, u *translate.UpstreamRequest, crb *rbacv1.ClusterRoleBinding,
	method string, query url.Values) (*upstreamAnswer, []string, *metav1.Status) {
	crb.APIVersion, crb.Kind = rbacv1.SchemeGroupVersion.String(), "ClusterRoleBinding"
	stored, err := tenantctl.StoreClusterRoleBinding(p.tenant, crb)
	if err == nil && stored.Name != "" {
		// Refuse before storing a name whose RoleBindings cannot exist.
		_, err = tenantctl.MaterializeClusterRoleBinding(p.tenant, stored, p.tenant.Prefix()+"default")
	}
	if err != nil {
		return nil, nil, &metav1.Status{Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid, Message: err.Error()}
	}
	data, err := json.Marshal(stored)
	if err != nil {
		return nil, nil, badRequest(err.Error())
	}
	a, err := p.sendAsTenant(r.Context(), r, u, method, u.Path, query, data)
	if err != nil {
		return nil, nil, unavailable(p.base.Host, err)
	}
	var warnings []string
	if a.code/100 == 2 && !isDryRun(query) {
		var got rbacv1.ClusterRoleBinding
		if err := json.Unmarshal(a.body, &got); err == nil && got.Name != "" {
			if err := p.materialize(r.Context(), &got); err != nil {
				klog.ErrorS(err, "materializing a tenant ClusterRoleBinding", "tenant", p.tenant.Name(), "clusterrolebinding", got.Name)
				warnings = append(warnings, "kubectl-zoo could not grant this ClusterRoleBinding in every namespace of the tenant: "+err.Error())
			}
		}
	}
	return a, warnings, nil
}

// deleteClusterRoleBindings deletes one binding (or a collection) upstream,
// then the RoleBindings that materialized it.
func (p *Proxy) deleteClusterRoleBindings(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest) {
	ctx := r.Context()
	resp, err := p.sendAsTenant(ctx, r, u, u.Method, u.Path, u.Query, u.Body)
	if err != nil {
		writeStatus(w, unavailable(p.base.Host, err))
		return
	}
	var warnings []string
	if resp.code/100 == 2 && !isDryRun(u.Query) {
		if u.Info.Verb == "delete" {
			err = p.unmaterialize(ctx, path.Base(u.Path))
		} else {
			err = p.pruneMaterialized(ctx)
		}
		if err != nil {
			klog.ErrorS(err, "removing the RoleBindings of deleted tenant ClusterRoleBindings", "tenant", p.tenant.Name())
			warnings = append(warnings, "kubectl-zoo could not remove every RoleBinding that granted the deleted ClusterRoleBinding: "+err.Error())
		}
	}
	p.answer(w, u, resp, warnings)
}

// hideMaterialized keeps the materialized RoleBindings out of the tenant's
// view: lists, watches and deletecollections select them away upstream (so
// paging stays correct), and requests naming one by name find nothing.
func hideMaterialized(u *translate.UpstreamRequest) error {
	switch u.Info.Verb {
	case "list", "watch", "deletecollection":
		sel := "!" + tenantctl.MaterializedFromLabel
		if s := u.Query.Get("labelSelector"); s != "" {
			sel = s + "," + sel
		}
		if u.Query == nil {
			u.Query = url.Values{}
		}
		u.Query.Set("labelSelector", sel)
	case "create":
		var obj struct {
			Metadata struct {
				Name         string `json:"name"`
				GenerateName string `json:"generateName"`
			} `json:"metadata"`
		}
		_ = json.Unmarshal(u.Body, &obj)
		if reserved(obj.Metadata.Name) || reserved(obj.Metadata.GenerateName) {
			return &translate.Error{Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
				Message: fmt.Sprintf("RoleBinding names starting with %q are reserved for the RoleBindings that grant the tenant's ClusterRoleBindings", tenantctl.MaterializedPrefix)}
		}
	default:
		if reserved(u.Info.Name) {
			return &translate.Error{Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
				Message: fmt.Sprintf("rolebindings.rbac.authorization.k8s.io %q not found", u.Info.Name),
				Details: &metav1.StatusDetails{Name: u.Info.Name, Group: rbacv1.GroupName, Kind: "rolebindings"}}
		}
	}
	return nil
}

func reserved(name string) bool { return strings.HasPrefix(name, tenantctl.MaterializedPrefix) }

func isDryRun(q url.Values) bool { return len(q["dryRun"]) > 0 }

// upstreamAnswer is a whole upstream answer.
type upstreamAnswer struct {
	code   int
	header http.Header
	body   []byte
}

// sendAsTenant sends one request upstream as the tenant identity, with the
// headers of u (Accept) and a JSON body, and reads the whole answer.
func (p *Proxy) sendAsTenant(ctx context.Context, r *http.Request, u *translate.UpstreamRequest, method, upPath string,
	query url.Values, body []byte) (*upstreamAnswer, error) {
	up := *u
	up.Method, up.Body, up.Header = method, body, u.Header.Clone()
	if body != nil {
		up.Header.Set("Content-Type", translate.MediaJSON)
	} else {
		up.Header.Del("Content-Type")
	}
	return p.roundTripAsTenant(ctx, r, &up, upPath, query)
}

// roundTripAsTenant sends up to upPath with query as the tenant identity and
// reads the whole answer (at most maxBodyBytes).
func (p *Proxy) roundTripAsTenant(ctx context.Context, r *http.Request, up *translate.UpstreamRequest, upPath string,
	query url.Values) (*upstreamAnswer, error) {
	req, err := p.newUpstreamRequest(ctx, r, up, upPath, query)
	if err != nil {
		return nil, err
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes))
	if err != nil {
		return nil, fmt.Errorf("reading the upstream answer: %w", err)
	}
	return &upstreamAnswer{code: resp.StatusCode, header: resp.Header, body: data}, nil
}

// answer writes a whole upstream answer to the tenant: translated (with
// the subjects of ClusterRoleBindings restored), with extra Warning headers.
func (p *Proxy) answer(w http.ResponseWriter, u *translate.UpstreamRequest, a *upstreamAnswer, warnings []string) {
	copyHeaders(w.Header(), a.header)
	for _, msg := range warnings {
		w.Header().Add("Warning", fmt.Sprintf("299 - %q", msg))
	}
	if len(a.body) == 0 {
		w.WriteHeader(a.code)
		return
	}
	if ct := a.header.Get("Content-Type"); !translatable(ct) {
		// Never pass what the translator cannot read (as forward).
		w.Header().Del("Content-Type")
		writeStatus(w, &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusBadGateway, Reason: metav1.StatusReasonInternalError,
			Message: fmt.Sprintf("the upstream answered in %q, which kubectl-zoo cannot translate", ct)})
		return
	}
	w.Header().Set("Content-Type", "application/json")
	lw := &lazyWriter{w: w, code: a.code}
	var in io.Reader = bytes.NewReader(a.body)
	if isClusterRoleBindings(u) {
		in = p.restoreSubjects(io.NopCloser(in))
	}
	if err := p.tr.TranslateResponse(u, in, lw); err != nil && !lw.wrote {
		writeStatus(w, translate.ToStatus(err))
	}
}
