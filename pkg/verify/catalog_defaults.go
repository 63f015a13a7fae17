package verify

import (
	"context"
	"fmt"

	networkingv1 "k8s.io/api/networking/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// defaultKind is a class whose one object may be the cluster's default
// for every tenant: how an object of it is marked the default or not.
type defaultKind struct {
	gvk    schema.GroupVersionKind
	fields map[string]any
	// mark marks obj the default, or explicitly not.
	mark func(obj *unstructured.Unstructured, isDefault bool)
	// confined says the proxy writes the mark as not the default rather
	// than refusing it: held only by what it stored (read back).
	confined bool
}

// annotationMark marks an object the default by the annotation key.
func annotationMark(key string) func(*unstructured.Unstructured, bool) {
	return func(obj *unstructured.Unstructured, isDefault bool) {
		obj.SetAnnotations(map[string]string{key: fmt.Sprint(isDefault)})
	}
}

// defaultKinds are the classes with a cluster default.
var defaultKinds = []defaultKind{
	{gvk: storagev1.SchemeGroupVersion.WithKind("StorageClass"),
		fields: map[string]any{"provisioner": "zoo-verify.example.com/none"}, mark: annotationMark(translate.DefaultStorageClassAnnotation)},
	{gvk: networkingv1.SchemeGroupVersion.WithKind("IngressClass"),
		fields: map[string]any{"spec": map[string]any{"controller": "zoo-verify.example.com/none"}}, mark: annotationMark(translate.DefaultIngressClassAnnotation)},
	{gvk: schedulingv1.SchemeGroupVersion.WithKind("PriorityClass"),
		fields: map[string]any{"value": int64(0), "preemptionPolicy": "Never"}, confined: true,
		mark: func(obj *unstructured.Unstructured, isDefault bool) { obj.Object["globalDefault"] = isDefault }},
}

// defaultChecks: a class of the attacker's of every kind of defaultKinds
// marked the cluster's default (twin: marked not the default). A
// ServiceAccount holds no right on cluster-scoped classes.
func defaultChecks() []Check {
	var out []Check
	for _, k := range defaultKinds {
		gvr := translate.MustResourceFor(k.gvk)
		class := func(t *Target, name string, isDefault bool) *unstructured.Unstructured {
			obj := object(k.gvk.GroupVersion().String(), k.gvk.Kind, "", t.Prefix+name, t.Owner, cloneFields(k.fields))
			k.mark(obj, isDefault)
			return obj
		}
		c := Check{ID: "defaults/" + gvr.Resource, Class: ClassDefaults,
			Title: "make a " + k.gvk.Kind + " of the attacker's the cluster's default", Paths: []Path{PathServe, PathIdentity, PathServer},
			Twin: func(ctx context.Context, t *Target) error {
				_, err := t.Dynamic.Resource(gvr).Create(ctx, class(t, "zoo-verify-default", false), dryRun)
				return err
			},
			Attempt: func(ctx context.Context, t *Target) error {
				_, err := t.Dynamic.Resource(gvr).Create(ctx, class(t, t.name("zoo-verify-default"), true), t.Write)
				return err
			}}
		if k.confined {
			c.Readback = func(ctx context.Context, t *Target) (string, string, error) {
				stored, err := readObject(ctx, t, gvr, "", t.Attacker.Prefix()+"zoo-verify-default"+t.realSuffix())
				if err != nil {
					return "", "", err
				}
				if g, _, _ := unstructured.NestedBool(stored.Object, "globalDefault"); g {
					return "", "globalDefault is stored true", nil
				}
				return LayerProxyConfined, "globalDefault is stored false", nil
			}
		}
		out = append(out, c)
	}
	return out
}

// cloneFields is a deep copy of fields.
func cloneFields(fields map[string]any) map[string]any {
	return (&unstructured.Unstructured{Object: fields}).DeepCopy().Object
}
