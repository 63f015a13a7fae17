package admissionrules

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// WebhookKeysAnnotation records InstallConfig.WebhookKeys on the
// zoo-tenant-metadata policy, comma-separated, so that installing again
// keeps them.
const WebhookKeysAnnotation = translate.APIGroup + "/webhook-keys"

// InstallConfig is what the platform says about itself at install.
type InstallConfig struct {
	// WebhookKeys are label and annotation keys in the platform's domains
	// that the platform's own mutating webhooks add to pods (Istio's
	// sidecar.istio.io/status): zoo-tenant-metadata sees a pod after
	// them, so on pods it lets these keys through. The proxy judges what a
	// tenant sends, before any webhook, and refuses them still.
	WebhookKeys []string
}

// Validate refuses a key that is not a valid label or annotation key, and
// one tenants may set on pods anyway.
func (c InstallConfig) Validate() error {
	for _, k := range c.WebhookKeys {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return fmt.Errorf("--webhook-keys: %q is not a label or annotation key: %s", k, strings.Join(errs, "; "))
		}
		pods := translate.KindResource("", "Pod")
		if !translate.IsPlatformOwned(pods, false, k) && !translate.IsPlatformOwned(pods, true, k) {
			return fmt.Errorf("--webhook-keys: %s is not a platform-owned key of pods: tenants may set it already", k)
		}
	}
	return nil
}

// normalized returns the keys sorted, without repeats.
func (c InstallConfig) normalized() []string {
	keys := slices.Clone(c.WebhookKeys)
	slices.Sort(keys)
	return slices.Compact(keys)
}
