package install

import (
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TenantCRD returns the cluster-scoped Tenant CustomResourceDefinition. The
// API server itself refuses invalid and reserved tenant names, so a tenant
// record made without kubectl-zoo still names a valid tenant.
func TenantCRD() *apiextensionsv1.CustomResourceDefinition {
	reserved := make([]string, 0, len(translate.ReservedTenantNames()))
	for _, name := range translate.ReservedTenantNames() {
		reserved = append(reserved, "'"+name+"'")
	}
	str := func(desc string) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "string", Description: desc}
	}
	open := func(desc string) apiextensionsv1.JSONSchemaProps {
		return apiextensionsv1.JSONSchemaProps{Type: "object", Description: desc, XPreserveUnknownFields: ptr.To(true)}
	}
	schema := &apiextensionsv1.JSONSchemaProps{
		Type:        "object",
		Description: "Tenant is one tenant of the shared cluster. Its name is the tenant's name; everything the tenant owns carries the prefix <name>- upstream.",
		Required:    []string{"spec"},
		XValidations: apiextensionsv1.ValidationRules{{
			Rule:    fmt.Sprintf("self.metadata.name.matches('^[a-z][a-z0-9]{0,%d}$')", translate.MaxTenantNameLength-1),
			Message: fmt.Sprintf("a tenant name must match ^[a-z][a-z0-9]{0,%d}$ (no '-')", translate.MaxTenantNameLength-1),
		}, {
			Rule:    fmt.Sprintf("!(self.metadata.name in [%s])", strings.Join(reserved, ", ")),
			Message: "this tenant name is reserved",
		}},
		Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"apiVersion": {Type: "string"},
			"kind":       {Type: "string"},
			"metadata":   {Type: "object"},
			"spec": {
				Type:        "object",
				Description: "What the cluster administrator asks for.",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"displayName": str("A human-readable name; informational only."),
					"admins": {
						Type:        "array",
						Description: "Tenant-local user names with full rights on everything the tenant owns (upstream users zoo:<tenant>:<admin>).",
						Items:       &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string", MinLength: ptr.To[int64](1)}},
						XListType:   ptr.To("set"),
					},
					"policy":       open("The tenant's policies; managed by `kubectl zoo policy`."),
					"certificates": open("Client certificates issued for the tenant; managed by `kubectl zoo cert`."),
				},
			},
			"status": {
				Type:        "object",
				Description: "What kubectl-zoo observed when it last reconciled the tenant.",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"namespaces":         {Type: "integer", Format: "int32", Description: "Number of the tenant's namespaces at the last reconcile."},
					"observedGeneration": {Type: "integer", Format: "int64"},
					"sleep":              open("The tenant's sleep state and the replicas and suspend flags `kubectl zoo tenant wake` restores; managed by `kubectl zoo tenant sleep|wake`."),
					"lastActivity":       {Type: "string", Format: "date-time", Description: "When a server replica last saw a request of the tenant's, recorded at a coarse interval; read for spec.policy.sleepAfter."},
					"conditions": {
						Type:         "array",
						XListType:    ptr.To("map"),
						XListMapKeys: []string{"type"},
						Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
							Type:     "object",
							Required: []string{"type", "status", "lastTransitionTime", "reason", "message"},
							Properties: map[string]apiextensionsv1.JSONSchemaProps{
								"type":               {Type: "string"},
								"status":             {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"True"`)}, {Raw: []byte(`"False"`)}, {Raw: []byte(`"Unknown"`)}}},
								"observedGeneration": {Type: "integer", Format: "int64"},
								"lastTransitionTime": {Type: "string", Format: "date-time"},
								"reason":             {Type: "string"},
								"message":            {Type: "string"},
							},
						}},
					},
				},
			},
		},
	}
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: apiextensionsv1.SchemeGroupVersion.String(), Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: tenantapi.TenantCRDName, Labels: tenantapi.ManagedLabels()},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: translate.APIGroup,
			Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: tenantapi.TenantResource, Singular: "tenant", Kind: tenantapi.TenantKind, ListKind: tenantapi.TenantKind + "List",
				Categories: []string{"zoo"},
			},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: tenantapi.Version, Served: true, Storage: true,
				Schema:       &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: schema},
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{
					{Name: "Ready", Type: "string", JSONPath: `.status.conditions[?(@.type=="Ready")].status`},
					{Name: "Namespaces", Type: "integer", JSONPath: ".status.namespaces"},
					{Name: "Sleep", Type: "string", JSONPath: ".status.sleep.state"},
					{Name: "Admins", Type: "string", JSONPath: ".spec.admins", Priority: 1},
					{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"},
				},
			}},
		},
	}
}
