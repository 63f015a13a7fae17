package install

import (
	"context"
	"fmt"
	"strings"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/admissionrules"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

var vapGVR, _ = translate.ResourceFor(admissionv1.SchemeGroupVersion.WithKind("ValidatingAdmissionPolicy"))

// InstalledConfig reads the InstallConfig of the installed policies; an
// empty one when kubectl-zoo is not installed.
func (c *Client) InstalledConfig(ctx context.Context) (admissionrules.InstallConfig, error) {
	u, err := c.Dynamic.Resource(vapGVR).Get(ctx, admissionrules.MetadataPolicy, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return admissionrules.InstallConfig{}, nil
	}
	if err != nil {
		return admissionrules.InstallConfig{}, fmt.Errorf("read the installed configuration: %w", err)
	}
	var cfg admissionrules.InstallConfig
	for _, k := range strings.Split(u.GetAnnotations()[admissionrules.WebhookKeysAnnotation], ",") {
		if k != "" {
			cfg.WebhookKeys = append(cfg.WebhookKeys, k)
		}
	}
	return cfg, nil
}
