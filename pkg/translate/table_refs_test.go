package translate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestTableReferenceCells: the cells of `kubectl get` Tables that print a
// reference (the printers' columns, table_refs.go) read as the object's
// fields do: the tenant's names unprefixed, what is not the tenant's
// emptied as the printer shows a missing reference (fakeShared with
// tenants acme and beta).
func TestTableReferenceCells(t *testing.T) {
	tr := New(MustTenant("acme"), Options{Shared: sharedWithTenants{tenants: []string{"acme", "beta"}}})
	for _, tc := range []struct {
		name    string
		gr      schema.GroupResource
		columns []string
		cells   []any
		want    []any
	}{
		{"a claim of the tenant's volume and class", gr("", "persistentvolumeclaims"),
			[]string{"Name", "Status", "Volume", "Capacity", "Access Modes", "StorageClass", "VolumeAttributesClass"},
			[]any{"data", "Bound", "acme-pv1", "1Gi", "RWO", "acme-fast", "<unset>"},
			[]any{"data", "Bound", "pv1", "1Gi", "RWO", "fast", "<unset>"}},
		{"a claim of the cluster's class and volume", gr("", "persistentvolumeclaims"),
			[]string{"Name", "Volume", "StorageClass", "VolumeAttributesClass"},
			[]any{"data", "platform-pv", "standard", "gold"},
			[]any{"data", "", "standard", "gold"}},
		{"a claim of another tenant's classes", gr("", "persistentvolumeclaims"),
			[]string{"Name", "Volume", "StorageClass", "VolumeAttributesClass"},
			[]any{"data", "beta-pv", "beta-fast", "beta-gold"},
			[]any{"data", "", "", "<unset>"}},
		{"a claim without class", gr("", "persistentvolumeclaims"),
			[]string{"Name", "StorageClass"}, []any{"data", "acme-zoo-no-class"}, []any{"data", ""}},
		{"a volume's claim and class", grPV,
			[]string{"Name", "Claim", "StorageClass", "VolumeAttributesClass"},
			[]any{"acme-pv1", "acme-default/data", "acme-manual", "<unset>"},
			[]any{"pv1", "default/data", "manual", "<unset>"}},
		{"a volume claimed by another tenant, of a class outside the prefix", grPV,
			[]string{"Name", "Claim", "StorageClass"},
			[]any{"acme-pv1", "beta-default/data", "standard"},
			[]any{"pv1", "", ""}},
		{"ingresses", gr("networking.k8s.io", "ingresses"),
			[]string{"Name", "Class"}, []any{"web", "acme-nginx"}, []any{"web", "nginx"}},
		{"an ingress of another tenant's class", gr("networking.k8s.io", "ingresses"),
			[]string{"Name", "Class"}, []any{"web", "beta-nginx"}, []any{"web", "<none>"}},
		{"an ExternalName Service of the tenant's and one naming another namespace", gr("", "services"),
			[]string{"Name", "Type", "External-IP"}, []any{"web", "ExternalName", "db.acme-prod.svc.cluster.local"}, []any{"web", "ExternalName", "db.prod.svc.cluster.local"}},
		{"an ExternalName Service naming another tenant's Service", gr("", "services"),
			[]string{"Name", "External-IP"}, []any{"web", "db.beta-prod.svc"}, []any{"web", "<none>"}},
		{"a Service's external addresses", gr("", "services"),
			[]string{"Name", "External-IP"}, []any{"web", "203.0.113.1,<pending>"}, []any{"web", "203.0.113.1,<pending>"}},
		{"capacity", gr("storage.k8s.io", "csistoragecapacities"),
			[]string{"Name", "StorageClassName"}, []any{"c", "acme-fast"}, []any{"c", "fast"}},
		{"a flow schema", gr(flowGroup, "flowschemas"),
			[]string{"Name", "PriorityLevel"}, []any{"acme-fs", "acme-plc"}, []any{"fs", "plc"}},
		{"a policy binding", gr(admissionGroup, "validatingadmissionpolicybindings"),
			[]string{"Name", "PolicyName", "ParamRef"}, []any{"acme-b", "acme-p", "acme-default/params"}, []any{"b", "p", "default/params"}},
		{"a policy binding of another tenant's parameters", gr(admissionGroup, "mutatingadmissionpolicybindings"),
			[]string{"Name", "PolicyName", "ParamRef"}, []any{"acme-b", "beta-p", "beta-default/params"}, []any{"b", "", "<unset>"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rule := kindsByResource[tc.gr]
			require.NotNil(t, rule)
			var defs []any
			for _, c := range tc.columns {
				format := ""
				if c == "Name" {
					format = "name"
				}
				defs = append(defs, map[string]any{"name": c, "type": "string", "format": format})
			}
			meta := map[string]any{"name": tc.cells[0]}
			if rule.Treatment == Namespaced {
				meta["namespace"] = "acme-default"
			}
			if rule.Treatment == TenantOwned { // as every tenant-owned object upstream is
				meta["labels"] = map[string]any{TenantLabel: "acme"}
			}
			doc := map[string]any{"kind": "Table", "apiVersion": "meta.k8s.io/v1", "columnDefinitions": defs,
				"rows": []any{map[string]any{"cells": append([]any(nil), tc.cells...),
					"object": map[string]any{"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1", "metadata": meta}}}}
			require.NoError(t, tr.TranslateDocument(rule, doc))
			rows := doc["rows"].([]any)
			require.Len(t, rows, 1)
			assert.Equal(t, tc.want, rows[0].(map[string]any)["cells"])
		})
	}
}
