package admissionrules

import (
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Pod templates upstream (translate/platform_templates.go): a controller
// copies a template's labels and annotations to every pod it makes, so
// zoo-tenant-metadata judges the templates of the kinds table
// (translate.KindRule.PodTemplatePaths) by the pods' rules: a tenant's
// write may not add a platform-owned key to a template, nor change one
// (one the template had keeps its value; dropping it only makes pods
// without it, as a tenant's own pod may be), but for the labels the API
// server writes into a kind's templates (translate.TemplateAPIServerKeys).

// podRes is the CEL literal of the resource whose rules a template's keys
// follow.
var podRes = quote("/pods")

// templateResources are the resources whose objects hold pod templates.
func templateResources() []schema.GroupResource {
	var out []schema.GroupResource
	for _, k := range translate.Kinds() {
		if len(k.PodTemplatePaths()) > 0 {
			out = append(out, k.Resource)
		}
	}
	return out
}

// templateMapCEL is the CEL map of the labels (field "labels") or
// annotations of the request's pod template in root (object or
// oldObject), {} where there is none: one branch per template path of the
// kinds table, taken by the request's resource.
func templateMapCEL(root, field string) string {
	byPath := map[string][]string{}
	var paths []string
	for _, k := range translate.Kinds() {
		for _, p := range k.PodTemplatePaths() {
			if _, seen := byPath[p]; !seen {
				paths = append(paths, p)
			}
			byPath[p] = append(byPath[p], k.Resource.Group+"/"+k.Resource.Resource)
		}
	}
	out := "{}"
	for i := len(paths) - 1; i >= 0; i-- {
		p := paths[i]
		full := root + "." + p + ".metadata." + field
		out = "variables.res in " + celList(byPath[p]) + " ? (" + hasPathCEL(root, p+".metadata."+field) + " ? " + full + " : {}) :\n  " + out
	}
	return root + " == null ? {} : " + out
}

// hasPathCEL is the CEL test that every step of the dotted path below root
// is set.
func hasPathCEL(root, path string) string {
	var tests []string
	cur := root
	for _, step := range strings.Split(path, ".") {
		cur += "." + step
		tests = append(tests, "has("+cur+")")
	}
	return strings.Join(tests, " && ")
}

// badTemplateKeysCEL is the list of the platform-owned labels
// (annotations) that the request's pod template adds or changes.
func badTemplateKeysCEL(annotation bool) string {
	cur, old := "variables.tplLabels", "variables.oldTplLabels"
	if annotation {
		cur, old = "variables.tplAnnotations", "variables.oldTplAnnotations"
	}
	exempt := ""
	byResource := map[string][]string{}
	var order []string
	for _, k := range translate.TemplateAPIServerKeys() {
		res := k.Resource.Group + "/" + k.Resource.Resource
		if !slices.Contains(order, res) {
			order = append(order, res)
		}
		byResource[res] = append(byResource[res], k.Key)
	}
	for _, res := range order {
		if !annotation {
			exempt += " && !(variables.res == " + quote(res) + " && k in " + celList(byResource[res]) + ")"
		}
	}
	return cur + ".filter(k, (" + platformKeyCELOf(annotation, podRes) + ") &&\n  !(k in " + old + " && " + old + "[k] == " + cur + "[k])" + exempt + ")"
}

// templateVariables are zoo-tenant-metadata's variables of the templates
// rule; they read variables.res.
func templateVariables() []admissionv1.Variable {
	return []admissionv1.Variable{
		{Name: "tplLabels", Expression: templateMapCEL("object", "labels")},
		{Name: "oldTplLabels", Expression: templateMapCEL("oldObject", "labels")},
		{Name: "tplAnnotations", Expression: templateMapCEL("object", "annotations")},
		{Name: "oldTplAnnotations", Expression: templateMapCEL("oldObject", "annotations")},
		{Name: "badTplLabels", Expression: cel(badTemplateKeysCEL(false))},
		{Name: "badTplAnnotations", Expression: cel(badTemplateKeysCEL(true))},
	}
}

// templateValidations refuse a write whose pod template adds or changes a
// platform-owned key.
func templateValidations() []admissionv1.Validation {
	var out []admissionv1.Validation
	for _, what := range []string{"labels", "annotations"} {
		v := "variables.badTpl" + strings.ToUpper(what[:1]) + what[1:]
		out = append(out, admissionv1.Validation{
			Expression: "!variables.judged || size(" + v + ") == 0",
			MessageExpression: "'the " + what + " ' + " + v + ".join(', ') + ' of the pod template belong to the platform (the pods made from it would carry them): tenant ' + " +
				"variables.tenant + ' may not add or change them'",
			Reason: ptr.To(metav1.StatusReasonForbidden),
		})
	}
	return out
}
