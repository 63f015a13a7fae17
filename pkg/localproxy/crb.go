package localproxy

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/crbstore"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Tenant ClusterRoleBindings live in pkg/crbstore: stored upstream without
// subjects and granted by one RoleBinding in each of the tenant's
// namespaces, all written impersonating the tenant identity. This file only
// wires them into the proxy: the behaviours clusterRoleBindings and
// materializedRoleBindings (behaviour_crb.go) take over their writes and
// hide the materialized RoleBindings; reads go through forward, where the
// former's after-phase restores the subjects (crbstore.Restore) before
// translation; afterNamespaceCreate grants them in a new namespace.

// putQueryKeys are the query parameters of a patch that an update takes too.
var putQueryKeys = []string{"dryRun", "fieldManager", "fieldValidation", "pretty"}

// isClusterRoleBindings reports whether u addresses ClusterRoleBindings (the
// resource itself, not a subresource).
func isClusterRoleBindings(u *translate.UpstreamRequest) bool {
	i := u.Info
	return i.IsResourceRequest && i.APIGroup == rbacv1.GroupName && i.Resource == crbstore.Resource.Resource &&
		i.Subresource == "" && u.Response == translate.ResponseObjects
}

// writeClusterRoleBinding creates or replaces a tenant ClusterRoleBinding.
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
// u.Path with method (POST or PUT) in its stored form (crbstore.Store), and
// grants what the upstream stored (crbstore.Grants.Materialize). It returns
// the upstream answer and warnings for the tenant, or a Status when nothing
// was stored.
func (p *Proxy) storeClusterRoleBinding(r *http.Request, u *translate.UpstreamRequest, crb *rbacv1.ClusterRoleBinding,
	method string, query url.Values) (*upstreamAnswer, []string, *metav1.Status) {
	crb.APIVersion, crb.Kind = rbacv1.SchemeGroupVersion.String(), "ClusterRoleBinding"
	stored, err := crbstore.Store(p.tenant, crb)
	if err == nil && stored.Name != "" {
		// Refuse before storing a name whose RoleBindings cannot exist.
		_, err = crbstore.Materialize(p.tenant, stored, p.tenant.Prefix()+"default")
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
			if err := p.grants.Materialize(r.Context(), &got); err != nil {
				klog.ErrorS(err, "materializing a tenant ClusterRoleBinding", "tenant", p.tenant.Name(), "clusterrolebinding", got.Name)
				warnings = append(warnings, "kubectl-zoo could not grant this ClusterRoleBinding in every namespace of the tenant: "+err.Error())
			}
		}
	}
	return a, warnings, nil
}

// patchClusterRoleBinding applies a tenant's patch to its view of a stored
// ClusterRoleBinding (crbstore.Patch) and stores the result as an update
// conditional on the version read; on a conflict it starts over.
func (p *Proxy) patchClusterRoleBinding(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest, patch []byte) {
	ct, _, _ := translate.ParseMediaType(r.Header.Get("Content-Type"))
	if err := crbstore.Patchable(ct); err != nil {
		writeStatus(w, translate.ToStatus(err))
		return
	}
	query := url.Values{}
	for _, k := range putQueryKeys {
		if v, ok := u.Query[k]; ok {
			query[k] = v
		}
	}
	get := *u
	get.Header = u.Header.Clone()
	get.Header.Set("Accept", translate.MediaJSON)
	for attempt := 1; ; attempt++ {
		cur, err := p.sendAsTenant(r.Context(), r, &get, http.MethodGet, u.Path, nil, nil)
		if err != nil {
			writeStatus(w, unavailable(p.base.Host, err))
			return
		}
		if cur.code != http.StatusOK {
			p.answer(w, u, cur, nil)
			return
		}
		crb, rv, err := crbstore.Patch(p.tr, cur.body, ct, patch)
		if err != nil {
			writeStatus(w, translate.ToStatus(err))
			return
		}
		a, warnings, st := p.storeClusterRoleBinding(r, u, crb, http.MethodPut, query)
		if st != nil {
			writeStatus(w, st)
			return
		}
		// Retry a lost race, unless the patch itself asked for a version.
		if a.code == http.StatusConflict && crb.ResourceVersion == rv && attempt < patchRetries {
			continue
		}
		p.answer(w, u, a, warnings)
		return
	}
}

// deleteClusterRoleBindings deletes one binding (or a collection) upstream,
// then revokes the RoleBindings that granted it.
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
			err = p.grants.Revoke(ctx, path.Base(u.Path))
		} else {
			err = p.grants.Prune(ctx)
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
		if u.Query == nil {
			u.Query = url.Values{}
		}
		u.Query.Set("labelSelector", crbstore.HiddenSelector(u.Query.Get("labelSelector")))
	case "create":
		var obj struct {
			Metadata struct {
				Name         string `json:"name"`
				GenerateName string `json:"generateName"`
			} `json:"metadata"`
		}
		_ = json.Unmarshal(u.Body, &obj)
		if crbstore.Reserved(obj.Metadata.Name) || crbstore.Reserved(obj.Metadata.GenerateName) {
			return &translate.Error{Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden,
				Message: fmt.Sprintf("RoleBinding names starting with %q are reserved for the RoleBindings that grant the tenant's ClusterRoleBindings", crbstore.MaterializedPrefix)}
		}
	default:
		if crbstore.Reserved(u.Info.Name) {
			return &translate.Error{Code: http.StatusNotFound, Reason: metav1.StatusReasonNotFound,
				Message: fmt.Sprintf("rolebindings.rbac.authorization.k8s.io %q not found", u.Info.Name),
				Details: &metav1.StatusDetails{Name: u.Info.Name, Group: roleBindings.Group, Kind: roleBindings.Resource}}
		}
	}
	return nil
}

func isDryRun(q url.Values) bool { return len(q["dryRun"]) > 0 }
