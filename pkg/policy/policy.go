// Package policy is the tenant policy of kubectl-zoo: what `kubectl zoo
// policy set` stores in a Tenant record's spec.policy, and what the proxy,
// the server and the upstream admission enforce. It is pure: no network, no
// IO; parsing the CLI's flag values and validating a policy live here so that
// `policy set`, `install --default-policy` and the enforcers agree on one type.
package policy

import (
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Network isolation modes.
const (
	// NetworkIsolationTenant lets a tenant's pods reach only the tenant's own
	// namespaces and the cluster's DNS.
	NetworkIsolationTenant = "tenant"
	// NetworkIsolationNone adds no NetworkPolicy.
	NetworkIsolationNone = "none"
)

// Policy is a tenant's policy, stored at spec.policy of its Tenant record.
// An unset field means the cluster default (see Default and Effective).
type Policy struct {
	// MaxNamespaces bounds the number of the tenant's namespaces; nil is no
	// bound.
	MaxNamespaces *int32 `json:"maxNamespaces,omitempty"`
	// Quota is the tenant-wide quota: the sum over all the tenant's
	// namespaces, in ResourceQuota resource names (requests.cpu, pods, ...).
	Quota corev1.ResourceList `json:"quota,omitempty"`
	// LimitRange is the container LimitRange of every tenant namespace.
	LimitRange *LimitRange `json:"limitRange,omitempty"`
	// PodSecurity is the Pod Security level enforced on every tenant
	// namespace: privileged, baseline or restricted.
	PodSecurity string `json:"podSecurity,omitempty"`
	// NetworkIsolation is "tenant" or "none".
	NetworkIsolation string `json:"networkIsolation,omitempty"`
	// PriorityClasses are the cluster PriorityClasses (of positive value) the
	// tenant's pods may use, beside the tenant's own (capped at 0).
	PriorityClasses []string `json:"priorityClasses,omitempty"`
	// ExternalNames are the DNS names outside the cluster ("*." and a name
	// for exactly one label in front) a Service of the tenant's may have as
	// its externalName, beside the tenant's own Services; none by default.
	ExternalNames []string `json:"externalNames,omitempty"`
	// VolumeSources are the volume sources naming storage outside the
	// cluster (nfs, iscsi, csi on a PersistentVolume, ...;
	// translate.ExternalVolumeSources) the tenant's pods and volumes may
	// use; none by default.
	VolumeSources []string `json:"volumeSources,omitempty"`
	// IngressHosts are the host names the tenant's Ingresses may name (a
	// name, "*." and a name for exactly one label in front, or "*" for
	// every host and rules without one); none by default.
	IngressHosts []string `json:"ingressHosts,omitempty"`
	// RateLimit is the tenant's fair share of the proxy and the server.
	RateLimit *RateLimit `json:"rateLimit,omitempty"`
	// SleepAfter is how long the server lets the tenant go without a
	// request from any of its identities before it puts it to sleep
	// (`tenant sleep`); nil never.
	SleepAfter *metav1.Duration `json:"sleepAfter,omitempty"`
}

// LimitRange is the container limits of a LimitRange.
type LimitRange struct {
	// Default is the default limit of a container.
	Default corev1.ResourceList `json:"default,omitempty"`
	// DefaultRequest is the default request of a container.
	DefaultRequest corev1.ResourceList `json:"defaultRequest,omitempty"`
	// Max is the largest limit a container may ask for.
	Max corev1.ResourceList `json:"max,omitempty"`
	// Min is the smallest request a container may ask for.
	Min corev1.ResourceList `json:"min,omitempty"`
}

// RateLimit is a tenant's share of a proxy or server: a token bucket of QPS
// refilled per second holding at most Burst, and at most MaxInflight
// requests at once (long-running requests do not count). Zero is no limit.
type RateLimit struct {
	// QPS is the sustained requests per second.
	QPS int32 `json:"qps,omitempty"`
	// Burst is the bucket size; at least QPS.
	Burst int32 `json:"burst,omitempty"`
	// MaxInflight is the number of requests served at once.
	MaxInflight int32 `json:"maxInflight,omitempty"`
}

// Default is the cluster default policy when `install` was given none: Pod
// Security baseline, network isolation on, no cluster PriorityClass of
// positive value, no quota and no rate limit.
func Default() Policy {
	return Policy{PodSecurity: translate.DefaultPodSecurityLevel, NetworkIsolation: NetworkIsolationTenant}
}

// Effective is p with every unset field taken from defaults.
func Effective(p, defaults Policy) Policy {
	out := p
	if out.MaxNamespaces == nil {
		out.MaxNamespaces = defaults.MaxNamespaces
	}
	if out.Quota == nil {
		out.Quota = defaults.Quota
	}
	if out.LimitRange == nil {
		out.LimitRange = defaults.LimitRange
	}
	if out.PodSecurity == "" {
		out.PodSecurity = defaults.PodSecurity
	}
	if out.NetworkIsolation == "" {
		out.NetworkIsolation = defaults.NetworkIsolation
	}
	if out.PriorityClasses == nil {
		out.PriorityClasses = defaults.PriorityClasses
	}
	if out.RateLimit == nil {
		out.RateLimit = defaults.RateLimit
	}
	if out.ExternalNames == nil {
		out.ExternalNames = defaults.ExternalNames
	}
	if out.VolumeSources == nil {
		out.VolumeSources = defaults.VolumeSources
	}
	if out.IngressHosts == nil {
		out.IngressHosts = defaults.IngressHosts
	}
	if out.SleepAfter == nil {
		out.SleepAfter = defaults.SleepAfter
	}
	return out
}

// Validate reports every invalid field of p, joined.
func (p Policy) Validate() error {
	var errs []error
	if p.MaxNamespaces != nil && *p.MaxNamespaces < 1 {
		errs = append(errs, fmt.Errorf("maxNamespaces must be at least 1, not %d", *p.MaxNamespaces))
	}
	errs = append(errs, validateList("quota", p.Quota))
	if lr := p.LimitRange; lr != nil {
		errs = append(errs, validateList("limitRange.default", lr.Default), validateList("limitRange.defaultRequest", lr.DefaultRequest),
			validateList("limitRange.max", lr.Max), validateList("limitRange.min", lr.Min))
	}
	if p.PodSecurity != "" {
		if err := translate.ValidatePodSecurityLevel(p.PodSecurity); err != nil {
			errs = append(errs, fmt.Errorf("podSecurity: %w", err))
		}
	}
	switch p.NetworkIsolation {
	case "", NetworkIsolationTenant, NetworkIsolationNone:
	default:
		errs = append(errs, fmt.Errorf("networkIsolation must be %q or %q, not %q", NetworkIsolationTenant, NetworkIsolationNone, p.NetworkIsolation))
	}
	for _, name := range p.PriorityClasses {
		for _, msg := range validation.IsDNS1123Subdomain(name) {
			errs = append(errs, fmt.Errorf("priorityClasses: %q: %s", name, msg))
		}
	}
	for _, name := range p.ExternalNames {
		if err := translate.ValidateExternalNamePattern(name); err != nil {
			errs = append(errs, fmt.Errorf("externalNames: %w", err))
		}
	}
	for _, name := range p.VolumeSources {
		if err := translate.ValidateVolumeSource(name); err != nil {
			errs = append(errs, fmt.Errorf("volumeSources: %w", err))
		}
	}
	for _, host := range p.IngressHosts {
		if err := translate.ValidateIngressHostPattern(host); err != nil {
			errs = append(errs, fmt.Errorf("ingressHosts: %w", err))
		}
	}
	if r := p.RateLimit; r != nil {
		if r.QPS < 0 || r.Burst < 0 || r.MaxInflight < 0 {
			errs = append(errs, errors.New("rateLimit: qps, burst and maxInflight must not be negative"))
		}
		if r.QPS > 0 && r.Burst < r.QPS {
			errs = append(errs, fmt.Errorf("rateLimit: burst (%d) must be at least qps (%d)", r.Burst, r.QPS))
		}
	}
	if p.SleepAfter != nil && p.SleepAfter.Duration < time.Second {
		errs = append(errs, fmt.Errorf("sleepAfter must be at least 1s, not %s", p.SleepAfter.Duration))
	}
	return errors.Join(errs...)
}

func validateList(field string, list corev1.ResourceList) error {
	var errs []error
	for name, q := range list {
		for _, msg := range validation.IsQualifiedName(string(name)) {
			errs = append(errs, fmt.Errorf("%s: %q: %s", field, name, msg))
		}
		if q.Sign() < 0 {
			errs = append(errs, fmt.Errorf("%s: %s must not be negative", field, name))
		}
	}
	return errors.Join(errs...)
}
