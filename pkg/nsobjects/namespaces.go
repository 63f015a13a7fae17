package nsobjects

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Namespace is an upstream namespace of a tenant, as a reconcile sees it.
type Namespace struct {
	Name        string
	Labels      map[string]string
	Terminating bool
}

// ListNamespaces returns the namespaces labeled for tenant t: from index
// when it is set and answers, else by a LIST by label (which the API
// server answers by filtering every namespace of the cluster).
func ListNamespaces(ctx context.Context, kube kubernetes.Interface, index tenantapi.NamespaceSource, t translate.Tenant) ([]corev1.Namespace, error) {
	if index != nil {
		if nss, ok := index(ctx, t); ok {
			return nss, nil
		}
	}
	sel := labels.SelectorFromSet(labels.Set{translate.TenantLabel: t.Name()}).String()
	list, err := kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, fmt.Errorf("list the namespaces of tenant %s: %w", t, err)
	}
	return list.Items, nil
}

// Owned keeps the namespaces of items that are t's (labeled for t and
// named with its prefix: a label alone is no proof, anyone who may label a
// namespace can set it), with whether each is being deleted.
func Owned(t translate.Tenant, items []corev1.Namespace) []Namespace {
	var out []Namespace
	for _, ns := range items {
		if !t.Owns(ns.Name) || ns.Labels[translate.TenantLabel] != t.Name() {
			continue
		}
		out = append(out, Namespace{Name: ns.Name, Labels: ns.Labels,
			Terminating: ns.Status.Phase == corev1.NamespaceTerminating || ns.DeletionTimestamp != nil})
	}
	return out
}

// TenantNamespaces is ListNamespaces, Owned.
func TenantNamespaces(ctx context.Context, kube kubernetes.Interface, index tenantapi.NamespaceSource, t translate.Tenant) ([]Namespace, error) {
	items, err := ListNamespaces(ctx, kube, index, t)
	if err != nil {
		return nil, err
	}
	return Owned(t, items), nil
}
