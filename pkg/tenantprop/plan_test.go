package tenantprop

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

func obj(resource, ns, name string, labels map[string]any, extra map[string]any) Object {
	kind := "ConfigMap"
	if resource == "secrets" {
		kind = "Secret"
	}
	o := map[string]any{"apiVersion": "v1", "kind": kind,
		"metadata": map[string]any{"namespace": ns, "name": name, "labels": labels, "resourceVersion": "7", "uid": "u-" + ns + "-" + name}}
	for k, v := range extra {
		if k == "annotations" {
			o["metadata"].(map[string]any)["annotations"] = v
			continue
		}
		o[k] = v
	}
	return Object{Resource: resource, Unstructured: &unstructured.Unstructured{Object: o}}
}

var marked = map[string]any{MarkerLabel: "true"}

func names(objs []Object) []string {
	var out []string
	for _, o := range objs {
		out = append(out, fmt.Sprintf("%s %s/%s", o.Resource, o.GetNamespace(), o.GetName()))
	}
	return out
}

func TestCompute(t *testing.T) {
	acme, err := translate.NewTenant("acme")
	require.NoError(t, err)
	nss := []Namespace{
		{Name: "acme-default", Labels: map[string]string{"kubernetes.io/metadata.name": "acme-default"}},
		{Name: "acme-a", Labels: map[string]string{"kubernetes.io/metadata.name": "acme-a", "env": "dev"}},
		{Name: "acme-b", Labels: map[string]string{"kubernetes.io/metadata.name": "acme-b", "env": "prod"}},
		{Name: "acme-gone", Terminating: true},
	}
	data := map[string]any{"data": map[string]any{"k": "v"}}
	copyFrom := func(resource, ns, name, from string, extra map[string]any) Object {
		return obj(resource, ns, name, map[string]any{translate.PropagatedFromLabel: from}, extra)
	}
	cases := []struct {
		name                   string
		sources, copies        []Object
		create, update, delete []string
		skips                  []string // substrings of the reasons
	}{{
		name:    "a marked object is copied into every other live namespace",
		sources: []Object{obj("secrets", "acme-default", "pull", marked, data)},
		create:  []string{"secrets acme-a/pull", "secrets acme-b/pull"},
	}, {
		name: "the selector excludes namespaces by label, the tenant's metadata.name included",
		sources: []Object{obj("configmaps", "acme-default", "c", marked, map[string]any{"data": map[string]any{"k": "v"},
			"annotations": map[string]any{SelectAnnotation: "env!=prod,kubernetes.io/metadata.name!=a"}})},
		copies: []Object{copyFrom("configmaps", "acme-b", "c", "default", data)},
		delete: []string{"configmaps acme-b/c"},
	}, {
		name:    "a copy follows its source, and one without a source goes",
		sources: []Object{obj("configmaps", "acme-default", "c", marked, map[string]any{"data": map[string]any{"k": "new"}})},
		copies: []Object{copyFrom("configmaps", "acme-a", "c", "default", data), copyFrom("configmaps", "acme-b", "c", "default", map[string]any{"data": map[string]any{"k": "new"}}),
			copyFrom("configmaps", "acme-a", "old", "default", data)},
		update: []string{"configmaps acme-a/c"},
		delete: []string{"configmaps acme-a/old"},
	}, {
		name:    "a ServiceAccount token Secret is never copied",
		sources: []Object{obj("secrets", "acme-default", "tok", marked, map[string]any{"type": "kubernetes.io/service-account-token"})},
		skips:   []string{"ServiceAccount token"},
	}, {
		name:    "two sources of one name: the first (by namespace) keeps its copy, neither overwrites the other",
		sources: []Object{obj("configmaps", "acme-default", "c", marked, data), obj("configmaps", "acme-a", "c", marked, data)},
		copies:  []Object{copyFrom("configmaps", "acme-b", "c", "a", data)},
		create:  []string{},
		skips:   []string{"not copied into namespace b: the marked object of namespace a has the same name"},
	}, {
		name:    "too large",
		sources: []Object{obj("configmaps", "acme-default", "big", marked, map[string]any{"data": map[string]any{"k": strings.Repeat("x", MaxSourceBytes)}})},
		skips:   []string{"at most"},
	}, {
		name:    "what the platform keeps in every namespace is never propagated",
		sources: []Object{obj("configmaps", "acme-default", "zoo-kube-api-access", marked, data), obj("configmaps", "acme-default", "kube-root-ca.crt", marked, data)},
		skips:   []string{"never propagated", "never propagated"},
	}, {
		name:    "a bad selector",
		sources: []Object{obj("configmaps", "acme-default", "c", marked, map[string]any{"annotations": map[string]any{SelectAnnotation: "!!"}})},
		skips:   []string{"not a label selector"},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := Compute(acme, nss, tc.sources, tc.copies)
			assert.ElementsMatch(t, tc.create, names(p.Create))
			assert.ElementsMatch(t, tc.update, names(p.Update))
			assert.ElementsMatch(t, tc.delete, names(p.Delete))
			require.Len(t, p.Skips, len(tc.skips))
			for i, s := range tc.skips {
				assert.Contains(t, p.Skips[i].Reason, s)
			}
			for _, c := range append(p.Create, p.Update...) {
				assert.NotContains(t, c.GetLabels(), MarkerLabel, "a copy is no source")
				assert.NotEmpty(t, c.GetLabels()[translate.PropagatedFromLabel])
				assert.True(t, acme.Owns(c.GetNamespace()))
			}
		})
	}
}

func TestComputeBoundsSources(t *testing.T) {
	acme, _ := translate.NewTenant("acme")
	var sources []Object
	for i := range MaxSources + 5 {
		sources = append(sources, obj("configmaps", "acme-default", fmt.Sprintf("c%03d", i), marked, nil))
	}
	p := Compute(acme, []Namespace{{Name: "acme-default"}, {Name: "acme-a"}}, sources, nil)
	assert.Len(t, p.Create, MaxSources)
	assert.Len(t, p.Skips, 5)
}

// No namespace is named like the policy objects' label value, so no copy
// (labelled with its source's namespace) can pass for a policy object.
func TestNoNamespaceIsNamedLikeThePolicyLabelValue(t *testing.T) {
	assert.NotEmpty(t, validation.IsDNS1123Label(translate.PropagatedFromPolicy))
}
