package tenantctl

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// sleepKind is a row of translate.SleepKinds, with the version client-go
// prefers for its group.
type sleepKind struct {
	gvr    schema.GroupVersionResource
	action translate.SleepAction
}

// sleepResources are the resources sleep scales down (through their scale
// subresource) or suspends, by plural name (SleptWorkload.Resource), and
// sleepOrder the order sleep and wake visit them: the kinds table's rows
// with a Sleep action, in table order.
var sleepResources, sleepOrder = func() (map[string]sleepKind, []string) {
	byName := map[string]sleepKind{}
	var order []string
	for _, row := range translate.SleepKinds() {
		gvr := row.Resource.WithVersion(scheme.Scheme.PrioritizedVersionsForGroup(row.Resource.Group)[0].Version)
		byName[row.Resource.Resource] = sleepKind{gvr: gvr, action: row.Sleep}
		order = append(order, row.Resource.Resource)
	}
	return byName, order
}()

var (
	podsGVR = translate.MustResourceFor(corev1.SchemeGroupVersion.WithKind("Pod"))
	jobsGVR = translate.MustResourceFor(batchv1.SchemeGroupVersion.WithKind("Job"))
)

// inventory is what a tenant runs now, namespace by namespace.
type inventory struct {
	// Workloads are the scalable workloads (ReplicaSets a Deployment
	// controls left out: the Deployment scales them) and CronJobs.
	Workloads []tenantapi.SleptWorkload
	// Pods are bare pods (no controller) as namespace/name.
	Pods []string
	// Jobs are Jobs not finished, as namespace/name.
	Jobs []string
}

// byKey indexes the workloads by SleptWorkload.Key.
func (inv inventory) byKey() map[string]tenantapi.SleptWorkload {
	out := make(map[string]tenantapi.SleptWorkload, len(inv.Workloads))
	for _, w := range inv.Workloads {
		out[w.Key()] = w
	}
	return out
}

// takeInventory lists what tenant t runs in its namespaces (label and
// prefix: only the tenant's); its bare pods and Jobs only withPods.
func (c *Client) takeInventory(ctx context.Context, t translate.Tenant, withPods bool) (inventory, error) {
	var inv inventory
	namespaces, err := c.TenantNamespacesFrom(ctx, t, false)
	if err != nil {
		return inv, err
	}
	for _, ns := range namespaces {
		for _, res := range sleepOrder {
			items, err := c.listIn(ctx, sleepResources[res].gvr, ns.Name)
			if err != nil {
				return inv, err
			}
			for i := range items {
				if w, ok := sleptWorkload(res, &items[i]); ok {
					inv.Workloads = append(inv.Workloads, w)
				}
			}
		}
		if !withPods {
			continue
		}
		if err := c.inventoryPods(ctx, ns.Name, &inv); err != nil {
			return inv, err
		}
	}
	return inv, nil
}

// inventoryPods adds the bare pods and unfinished Jobs of a namespace.
func (c *Client) inventoryPods(ctx context.Context, ns string, inv *inventory) error {
	pods, err := c.listIn(ctx, podsGVR, ns)
	if err != nil {
		return err
	}
	for i := range pods {
		if metav1.GetControllerOf(&pods[i]) == nil && pods[i].GetDeletionTimestamp() == nil {
			inv.Pods = append(inv.Pods, ns+"/"+pods[i].GetName())
		}
	}
	jobs, err := c.listIn(ctx, jobsGVR, ns)
	if err != nil {
		return err
	}
	for i := range jobs {
		if !jobFinished(&jobs[i]) && jobs[i].GetDeletionTimestamp() == nil {
			inv.Jobs = append(inv.Jobs, ns+"/"+jobs[i].GetName())
		}
	}
	return nil
}

// listIn lists one resource in one namespace.
func (c *Client) listIn(ctx context.Context, gvr schema.GroupVersionResource, ns string) ([]unstructured.Unstructured, error) {
	list, err := c.Dynamic.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list %s in %s: %w", gvr.Resource, ns, err)
	}
	return list.Items, nil
}

// sleptWorkload reads a workload's replicas or suspend flag; ok is false
// for a ReplicaSet a Deployment controls.
func sleptWorkload(res string, u *unstructured.Unstructured) (tenantapi.SleptWorkload, bool) {
	w := tenantapi.SleptWorkload{Resource: res, Namespace: u.GetNamespace(), Name: u.GetName(), UID: u.GetUID()}
	if sleepResources[res].action == translate.SleepSuspend {
		suspend, _, _ := unstructured.NestedBool(u.Object, "spec", "suspend")
		w.Suspend = ptr.To(suspend)
		return w, true
	}
	if controlledByDeployment(res, u) {
		return w, false
	}
	replicas, found, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
	if !found {
		replicas = 1
	}
	w.Replicas = ptr.To(int32(replicas))
	return w, true
}

// replicaSets is the resource of ReplicaSets, which a Deployment scales.
var replicaSets = translate.ResourceOf(appsv1.GroupName, "ReplicaSet")

// controlledByDeployment reports whether u is a ReplicaSet a Deployment
// controls, which sleep leaves to its Deployment. Only this pair: an
// object that names another kind's object its controller (which a tenant
// may write) still sleeps.
func controlledByDeployment(res string, u *unstructured.Unstructured) bool {
	owner := metav1.GetControllerOf(u)
	return res == replicaSets && owner != nil && owner.Kind == "Deployment"
}

// jobFinished reports whether a Job has a Complete or Failed condition.
func jobFinished(u *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if (m["type"] == "Complete" || m["type"] == "Failed") && m["status"] == "True" {
			return true
		}
	}
	return false
}
