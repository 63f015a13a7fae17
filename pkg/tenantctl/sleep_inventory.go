package tenantctl

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// sleepResources are the resources sleep scales down (through their scale
// subresource) or suspends (CronJobs), by plural name.
var sleepResources = map[string]schema.GroupVersionResource{
	"deployments":            {Group: "apps", Version: "v1", Resource: "deployments"},
	"statefulsets":           {Group: "apps", Version: "v1", Resource: "statefulsets"},
	"replicasets":            {Group: "apps", Version: "v1", Resource: "replicasets"},
	"replicationcontrollers": {Version: "v1", Resource: "replicationcontrollers"},
	"cronjobs":               {Group: "batch", Version: "v1", Resource: "cronjobs"},
}

// sleepOrder lists sleepResources in the order sleep and wake visit them.
var sleepOrder = []string{"deployments", "statefulsets", "replicasets", "replicationcontrollers", "cronjobs"}

var (
	podsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	jobsGVR = schema.GroupVersionResource{Group: "batch", Version: "v1", Resource: "jobs"}
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
			items, err := c.listIn(ctx, sleepResources[res], ns.Name)
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
	if res == "cronjobs" {
		suspend, _, _ := unstructured.NestedBool(u.Object, "spec", "suspend")
		w.Suspend = ptr.To(suspend)
		return w, true
	}
	if owner := metav1.GetControllerOf(u); res == "replicasets" && owner != nil && owner.Kind == "Deployment" {
		return w, false
	}
	replicas, found, _ := unstructured.NestedInt64(u.Object, "spec", "replicas")
	if !found {
		replicas = 1
	}
	w.Replicas = ptr.To(int32(replicas))
	return w, true
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
