package localproxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/platformobj"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The proxy's own identity needs rights on the cluster-scoped objects of a
// tenant's CRD groups (tenant_group.go). With `serve --tenant` it is the
// admin's kubeconfig, which has them; the server's ServiceAccount gets them
// from one ClusterRole per such CRD (platformobj.CRDServerClusterRole), which
// the proxy writes as the tenant whenever the tenant creates or changes a
// cluster-scoped CRD, and which the aggregated ClusterRole zoo-server
// collects. The garbage collector deletes it with its CRD.

// isCRDWrite reports whether u creates, replaces or server-side applies a
// CustomResourceDefinition for real. (Other patches are applied in the
// tenant's view, patch_view.go; a CRD's scope cannot change, and a role that
// is missing is written again on the first refusal, ownIdentityForbidden.)
func isCRDWrite(u *translate.UpstreamRequest) bool {
	return isWriteOf(u, crdsResource) && u.Plan != translate.PlanPatchInView
}

// isWriteOf reports whether u creates, replaces or patches an object of
// the resource gr (not a subresource) for real (not a dry run).
func isWriteOf(u *translate.UpstreamRequest, gr schema.GroupResource) bool {
	i := u.Info
	switch i.Verb {
	case "create", "update", "patch":
	default:
		return false
	}
	return i.IsResourceRequest && i.GroupResource() == gr &&
		i.Subresource == "" && len(u.Query["dryRun"]) == 0
}

// upstreamCRD is what the proxy reads of an upstream CRD.
type upstreamCRD struct {
	Metadata struct {
		Name string    `json:"name"`
		UID  types.UID `json:"uid"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		Scope string `json:"scope"`
		Names struct {
			Plural string `json:"plural"`
		} `json:"names"`
		Versions []struct {
			Subresources map[string]json.RawMessage `json:"subresources"`
		} `json:"versions"`
	} `json:"spec"`
}

// served returns what platformobj.CRDServerClusterRole needs of c.
func (c *upstreamCRD) served() platformobj.ServedCRD {
	s := platformobj.ServedCRD{Name: c.Metadata.Name, UID: c.Metadata.UID, Group: c.Spec.Group, Plural: c.Spec.Names.Plural}
	for _, v := range c.Spec.Versions {
		for sub := range v.Subresources {
			s.Subresources = append(s.Subresources, sub)
		}
	}
	return s
}

// afterCRDWrite gives the proxy's own identity its rights on the objects of
// the CRD in the upstream answer body, if it is a cluster-scoped CRD of the
// tenant, and returns the answer to translate. A failure is logged and
// reported to the client as a Warning header.
func (p *Proxy) afterCRDWrite(ctx context.Context, w http.ResponseWriter, body io.ReadCloser) io.ReadCloser {
	data, err := io.ReadAll(body)
	body.Close()
	if err != nil {
		return io.NopCloser(bytes.NewReader(data))
	}
	var crd upstreamCRD
	if json.Unmarshal(data, &crd) == nil && crd.Spec.Scope == "Cluster" && p.tenant.Owns(crd.Spec.Group) {
		if err := p.ensureCRDServerRole(ctx, &crd); err != nil {
			klog.ErrorS(err, "granting kubectl-zoo's server its rights on a cluster-scoped CRD", "tenant", p.tenant.Name(), "crd", crd.Metadata.Name)
			w.Header().Add("Warning", fmt.Sprintf("299 - %q", "kubectl-zoo's server may not serve the objects of this CRD: "+
				"it could not write the ClusterRole that grants it its rights on them"))
		}
	}
	return io.NopCloser(bytes.NewReader(data))
}

// ensureCRDServerRole creates or replaces platformobj.CRDServerClusterRole of
// crd, as the tenant.
func (p *Proxy) ensureCRDServerRole(ctx context.Context, crd *upstreamCRD) error {
	role, err := platformobj.CRDServerClusterRole(p.tenant, crd.served())
	if err != nil {
		return err
	}
	body, err := json.Marshal(role)
	if err != nil {
		return fmt.Errorf("encoding ClusterRole: %w", err)
	}
	const path = "/apis/rbac.authorization.k8s.io/v1/clusterroles"
	err = p.doJSON(ctx, http.MethodPost, path, body, nil)
	if !isConflict(err) {
		return err
	}
	var current struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	named := path + "/" + url.PathEscape(role.Name)
	if err := p.doJSON(ctx, http.MethodGet, named, nil, &current); err != nil {
		return err
	}
	role.ResourceVersion = current.Metadata.ResourceVersion
	if body, err = json.Marshal(role); err != nil {
		return fmt.Errorf("encoding ClusterRole: %w", err)
	}
	return p.doJSON(ctx, http.MethodPut, named, body, nil)
}

// ownIdentityForbidden answers a request that the upstream refused to the
// proxy's own identity (tenant_group.go) with a Forbidden status that does
// not name that identity (the server's ServiceAccount is none of the
// tenant's business). It is the server lacking the rights of the CRD's
// CRDServerClusterRole: the tenant's access review allowed the request. So it
// writes that ClusterRole again, as the tenant, for the next request.
func (p *Proxy) ownIdentityForbidden(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest, upstream []byte) {
	klog.InfoS("The upstream refused the proxy's own identity on a tenant's CRD group", "tenant", p.tenant.Name(),
		"path", u.Path, "upstream", string(upstream))
	group, _ := p.tenantGroupRequest(u)
	crdName := u.Info.Resource + "." + group
	// r's context sends with the proxy's own identity; this is the tenant's
	// business, done as the tenant.
	ctx := context.WithValue(r.Context(), ownIdentityKey{}, nil)
	var crd upstreamCRD
	err := p.doJSON(ctx, http.MethodGet, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+url.PathEscape(crdName), nil, &crd)
	if err == nil && crd.Spec.Scope == "Cluster" && p.tenant.Owns(crd.Spec.Group) {
		err = p.ensureCRDServerRole(ctx, &crd)
	}
	again := "has just written it again: retry in a few seconds"
	if err != nil {
		klog.ErrorS(err, "granting kubectl-zoo's server its rights on a cluster-scoped CRD", "tenant", p.tenant.Name(), "crd", crdName)
		again = "could not write it again as " + p.impersonatedUser() + ": an admin of the tenant may apply the CustomResourceDefinition again"
	}
	local := u.Info.Resource + "." + u.Info.APIGroup
	role := strings.TrimPrefix(platformobj.CRDServerClusterRoleName(p.tenant, u.Info.Resource, group), p.tenant.Prefix())
	writeStatus(w, &apierrors.NewForbidden(schema.GroupResource{Group: u.Info.APIGroup, Resource: u.Info.Resource}, u.Info.Name,
		fmt.Errorf("kubectl-zoo may not serve the objects of %s yet: the ClusterRole %s grants it that right; "+
			"kubectl-zoo writes it whenever the CustomResourceDefinition %s is created or replaced, and %s", local, role, local, again)).ErrStatus)
}
