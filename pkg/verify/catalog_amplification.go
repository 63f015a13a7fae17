package verify

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ClassAmplification is the class of one request that costs the proxy many
// upstream requests.
const ClassAmplification = "amplification"

// amplificationCheck: a StatefulSet whose claim templates name one more
// distinct storage class than translate.MaxSharedRefs, each a lookup the
// proxy makes upstream (twin: exactly the bound). Only the proxy looks
// shared names up, so only the paths through it (serve, the server) apply.
func amplificationCheck() Check {
	create := func(ctx context.Context, t *Target, classes int) error {
		_, err := t.Kube.AppsV1().StatefulSets(t.Namespace).Create(ctx, classesStatefulSet(classes), dryRun)
		return err
	}
	return Check{ID: "amplification/shared-references", Class: ClassAmplification, Paths: []Path{PathServe, PathServer, PathServerServiceAccount},
		Title:   fmt.Sprintf("make one write cost %d lookups of storage classes", translate.MaxSharedRefs+1),
		Twin:    func(ctx context.Context, t *Target) error { return create(ctx, t, translate.MaxSharedRefs) },
		Attempt: func(ctx context.Context, t *Target) error { return create(ctx, t, translate.MaxSharedRefs+1) }}
}

// classesStatefulSet is a StatefulSet of no replicas with a claim template
// per storage class zoo-verify-N, N < classes.
func classesStatefulSet(classes int) *appsv1.StatefulSet {
	labels := map[string]string{"app": "zoo-verify"}
	pod := harmlessPod()
	var templates []corev1.PersistentVolumeClaim
	for i := range classes {
		templates = append(templates, corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%d", i)},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				StorageClassName: ptr.To(fmt.Sprintf("zoo-verify-%d", i)),
				Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}})
	}
	return &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "zoo-verify-amp"},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](0), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template:             corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod.Spec},
			VolumeClaimTemplates: templates}}
}
