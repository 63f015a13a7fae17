package tenantapi

import (
	"encoding/json"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// PolicyOf returns the policy stored in a tenant record's spec.policy, as
// written (unset fields stay unset; see policy.Effective). A record without
// one has the zero Policy.
func PolicyOf(t *Tenant) (policy.Policy, error) {
	var p policy.Policy
	if t.Spec.Policy == nil || len(t.Spec.Policy.Raw) == 0 {
		return p, nil
	}
	if err := json.Unmarshal(t.Spec.Policy.Raw, &p); err != nil {
		return p, fmt.Errorf("tenant %s: spec.policy: %w", t.Name, err)
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("tenant %s: spec.policy: %w", t.Name, err)
	}
	return p, nil
}

// SetPolicy stores p in the record's spec.policy.
func SetPolicy(t *Tenant, p policy.Policy) error {
	raw, err := json.Marshal(p)
	if err != nil {
		return fmt.Errorf("tenant %s: encode spec.policy: %w", t.Name, err)
	}
	t.Spec.Policy = &apiextensionsv1.JSON{Raw: raw}
	return nil
}

// EffectivePolicy is the policy kubectl-zoo enforces for a tenant: its
// record's spec.policy with every unset field taken from policy.Default().
// A record written before spec.policy held the Pod Security level keeps the
// level of its annotation translate.PodSecurityLevelAnnotation until `policy
// set` or `tenant create` moves it into spec.policy (the annotation is read
// only when spec.policy names no level).
func EffectivePolicy(t *Tenant) (policy.Policy, error) {
	p, err := PolicyOf(t)
	if err != nil {
		return p, err
	}
	if p.PodSecurity == "" {
		if level, ok := t.Annotations[translate.PodSecurityLevelAnnotation]; ok {
			if err := translate.ValidatePodSecurityLevel(level); err != nil {
				return p, fmt.Errorf("tenant %s: annotation %s: %w", t.Name, translate.PodSecurityLevelAnnotation, err)
			}
			p.PodSecurity = level
		}
	}
	return policy.Effective(p, policy.Default()), nil
}

// PodSecurityLevel returns the Pod Security level of a tenant's namespaces:
// spec.policy.podSecurity of its record (EffectivePolicy), or
// translate.DefaultPodSecurityLevel.
func PodSecurityLevel(t *Tenant) (string, error) {
	p, err := EffectivePolicy(t)
	if err != nil {
		return "", err
	}
	return p.PodSecurity, nil
}

// NamespaceLimitError is the refusal of a namespace that would exceed the
// tenant's limit; its message is the same through the proxy and upstream.
func NamespaceLimitError(tenant string, limit int32) string {
	return fmt.Sprintf("tenant %s may have at most %d namespaces", tenant, limit)
}
