package localproxy

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"sigs.k8s.io/yaml"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// patchRetries bounds how often a patch is applied again after the binding
// changed between its read and its write.
const patchRetries = 5

// putQueryKeys are the query parameters of a patch that an update takes too.
var putQueryKeys = []string{"dryRun", "fieldManager", "fieldValidation", "pretty"}

// patchClusterRoleBinding applies a tenant's patch to a tenant
// ClusterRoleBinding in the tenant's view: the upstream stores the binding
// without subjects, so the upstream cannot apply a patch that touches them.
// It reads the stored binding, rebuilds what the tenant sees, applies the
// patch (JSON, merge or strategic merge), translates the result back and
// replaces the stored binding, optimistically: on a conflict it starts over.
// Server-side apply is refused with 415.
func (p *Proxy) patchClusterRoleBinding(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest, patch []byte) {
	ct, _, _ := translate.ParseMediaType(r.Header.Get("Content-Type"))
	switch ct {
	case translate.MediaJSONPatch, translate.MediaMergePatch, translate.MediaStrategic:
	default:
		writeStatus(w, &metav1.Status{Code: http.StatusUnsupportedMediaType, Reason: metav1.StatusReasonUnsupportedMediaType,
			Message: fmt.Sprintf("patch type %q is not supported for ClusterRoleBindings through kubectl-zoo (their subjects are stored apart "+
				"from the binding upstream, so server-side apply cannot track them); use a json, merge or strategic patch, "+
				"`kubectl apply` without --server-side, or `kubectl replace`", r.Header.Get("Content-Type"))})
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
		crb, rv, st := p.patchedClusterRoleBinding(cur.body, ct, patch)
		if st != nil {
			writeStatus(w, st)
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

// patchedClusterRoleBinding applies patch (media type ct, tenant names) to the
// stored binding in stored (upstream JSON) and returns the result in upstream
// names with its subjects, and the resourceVersion that was read.
func (p *Proxy) patchedClusterRoleBinding(stored []byte, ct string, patch []byte) (*rbacv1.ClusterRoleBinding, string, *metav1.Status) {
	obj, err := translate.DecodeDocument(stored)
	if err != nil {
		return nil, "", badRequest(fmt.Sprintf("decoding the stored ClusterRoleBinding: %v", err))
	}
	p.restoreObject(obj)
	if err := p.tr.ObjectToTenant(grClusterRoleBindings, obj); err != nil {
		return nil, "", translate.ToStatus(err)
	}
	meta, _ := obj["metadata"].(map[string]any)
	rv, _ := meta["resourceVersion"].(string)
	view, err := json.Marshal(obj)
	if err != nil {
		return nil, "", badRequest(err.Error())
	}
	patched, err := applyPatch(ct, view, patch)
	if err != nil {
		return nil, "", &metav1.Status{Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid,
			Message: fmt.Sprintf("the patch cannot be applied to the ClusterRoleBinding: %v", err)}
	}
	if obj, err = translate.DecodeDocument(patched); err != nil {
		return nil, "", badRequest(fmt.Sprintf("decoding the patched ClusterRoleBinding: %v", err))
	}
	if err := p.tr.ObjectToUpstream(grClusterRoleBindings, obj); err != nil {
		return nil, "", translate.ToStatus(err)
	}
	up, err := json.Marshal(obj)
	if err != nil {
		return nil, "", badRequest(err.Error())
	}
	var crb rbacv1.ClusterRoleBinding
	if err := json.Unmarshal(up, &crb); err != nil {
		return nil, "", &metav1.Status{Code: http.StatusUnprocessableEntity, Reason: metav1.StatusReasonInvalid,
			Message: fmt.Sprintf("the patched ClusterRoleBinding is not valid: %v", err)}
	}
	return &crb, rv, nil
}

// applyPatch applies a JSON, merge or strategic merge patch to a
// ClusterRoleBinding document, as the API server would.
func applyPatch(ct string, doc, patch []byte) ([]byte, error) {
	switch ct {
	case translate.MediaJSONPatch:
		ops, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			return nil, fmt.Errorf("decoding json patch: %w", err)
		}
		return ops.Apply(doc)
	case translate.MediaMergePatch:
		js, err := yaml.YAMLToJSON(patch)
		if err != nil {
			return nil, fmt.Errorf("decoding merge patch: %w", err)
		}
		return jsonpatch.MergePatch(doc, js)
	case translate.MediaStrategic:
		js, err := yaml.YAMLToJSON(patch)
		if err != nil {
			return nil, fmt.Errorf("decoding strategic merge patch: %w", err)
		}
		return strategicpatch.StrategicMergePatch(doc, js, rbacv1.ClusterRoleBinding{})
	}
	return nil, fmt.Errorf("unsupported patch type %q", ct)
}
