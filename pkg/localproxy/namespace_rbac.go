package localproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// isNamespaceCreate reports whether u creates a namespace for real.
func isNamespaceCreate(u *translate.UpstreamRequest) bool {
	i := u.Info
	return i.IsResourceRequest && i.Verb == "create" && i.GroupResource() == namespacesResource &&
		i.Subresource == "" && len(u.Query["dryRun"]) == 0
}

// createdNamespace reports whether the upstream's answer code to u says u
// made a namespace: a create that succeeded, or a patch answered 201
// Created (a server-side apply of a namespace that did not exist, as
// `kubectl apply --server-side` sends). Either gets what a namespace of the
// tenant needs (afterNamespaceCreate), whatever the verb.
func createdNamespace(u *translate.UpstreamRequest, code int) bool {
	if isNamespaceCreate(u) {
		return code/100 == 2
	}
	i := u.Info
	return i.IsResourceRequest && i.Verb == "patch" && i.GroupResource() == namespacesResource &&
		i.Subresource == "" && len(u.Query["dryRun"]) == 0 && code == http.StatusCreated
}

// afterNamespaceCreate gives the tenant's admins their rights in a namespace
// the tenant has just created (platformobj.NamespaceRBAC), impersonating the
// same tenant identity, and returns the upstream answer to translate. A
// failure is logged and reported to the client as a Warning header.
func (p *Proxy) afterNamespaceCreate(ctx context.Context, w http.ResponseWriter, body io.ReadCloser) io.ReadCloser {
	data, err := io.ReadAll(body)
	body.Close()
	if err != nil {
		return io.NopCloser(bytes.NewReader(data))
	}
	var ns struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &ns); err == nil && ns.Metadata.Name != "" {
		p.policyObjects(ctx, w, ns.Metadata.Name) // policy_objects.go
		if err := p.namespaceRBAC(ctx, ns.Metadata.Name); err != nil {
			klog.ErrorS(err, "granting the tenant's admins their rights in a new namespace", "tenant", p.tenant.Name(), "namespace", ns.Metadata.Name)
			local, _ := p.tenant.TenantNamespace(ns.Metadata.Name)
			w.Header().Add("Warning", fmt.Sprintf("299 - %q", "kubectl-zoo could not grant the tenant's admins their rights in namespace "+local))
		}
		// The tenant's ClusterRoleBindings reach it too (crb.go).
		if err := p.grants.MaterializeInto(ctx, ns.Metadata.Name); err != nil {
			klog.ErrorS(err, "granting the tenant's ClusterRoleBindings in a new namespace", "tenant", p.tenant.Name(), "namespace", ns.Metadata.Name)
			local, _ := p.tenant.TenantNamespace(ns.Metadata.Name)
			w.Header().Add("Warning", fmt.Sprintf("299 - %q", "kubectl-zoo could not grant the tenant's ClusterRoleBindings in namespace "+local))
		}
	}
	return io.NopCloser(bytes.NewReader(data))
}

// namespaceRBAC creates platformobj.NamespaceRBAC in the upstream namespace ns.
func (p *Proxy) namespaceRBAC(ctx context.Context, ns string) error {
	rec, err := p.tenantRecord(ctx)
	if err != nil {
		return err
	}
	bindings, err := platformobj.NamespaceRBAC(rec, ns)
	if err != nil {
		return fmt.Errorf("namespace RBAC: %w", err)
	}
	for _, rb := range bindings {
		rb.APIVersion, rb.Kind = "rbac.authorization.k8s.io/v1", "RoleBinding"
		body, err := json.Marshal(rb)
		if err != nil {
			return fmt.Errorf("encoding RoleBinding: %w", err)
		}
		err = p.doJSON(ctx, http.MethodPost, "/apis/rbac.authorization.k8s.io/v1/namespaces/"+url.PathEscape(ns)+"/rolebindings", body, nil)
		if err != nil && !isConflict(err) {
			return fmt.Errorf("creating RoleBinding %s: %w", rb.Name, err)
		}
	}
	return nil
}

// statusError is a non-2xx upstream answer.
type statusError struct {
	code int
	body []byte
}

func (e *statusError) Error() string { return errUpstream(e.code, e.body).Error() }

func isConflict(err error) bool {
	se, ok := err.(*statusError)
	return ok && se.code == http.StatusConflict
}

// doJSON sends a JSON request as the tenant identity and decodes the answer
// into out (if not nil). It is tenantJSON without a query.
func (p *Proxy) doJSON(ctx context.Context, method, path string, body []byte, out any) error {
	return p.tenantJSON(ctx, method, path, nil, body, out)
}
