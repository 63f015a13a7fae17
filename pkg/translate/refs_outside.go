package translate

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// References that point outside the object's own space: secrets named by
// volumes and classes, addresses the cluster would route, URLs the API
// server would dial, paths on the shared machines. Each is translated into
// the tenant's space or refused; the zoo-tenant admission policy holds the
// same rules upstream (pkg/admissionrules/refs.go).

// PVSecretRefs are the SecretReferences ({name, namespace}) of a
// PersistentVolume's volume sources.
var PVSecretRefs = []string{
	"spec.csi.controllerPublishSecretRef", "spec.csi.nodeStageSecretRef", "spec.csi.nodePublishSecretRef",
	"spec.csi.controllerExpandSecretRef", "spec.csi.nodeExpandSecretRef",
	"spec.cephfs.secretRef", "spec.cinder.secretRef", "spec.flexVolume.secretRef", "spec.iscsi.secretRef",
	"spec.rbd.secretRef", "spec.scaleIO.secretRef", "spec.storageos.secretRef",
}

// PVHostSources are the volume sources of a PersistentVolume that name a
// path on the shared cluster's machines: a claim bound to such a volume
// gives a tenant pod the machine's files, which Pod Security does not see
// (it judges the pod's own volumes, not what its claims are bound to).
var PVHostSources = []string{"hostPath", "local"}

// pvOutsideRefs translate the secrets a tenant volume names into the
// tenant's namespaces and refuse volumes on a machine's paths.
func pvOutsideRefs() []Ref {
	refs := make([]Ref, 0, len(PVSecretRefs)+len(PVHostSources)+1)
	for _, path := range PVSecretRefs {
		refs = append(refs, namespaceRef(path, "namespace"))
	}
	refs = append(refs, namespaceRef("spec.azureFile", "secretNamespace"))
	for _, src := range PVHostSources {
		refs = append(refs, refusedField(TargetHostPath, grPV, "spec", src,
			"a volume on a path of the shared cluster's machines would give the tenant's pods that machine's files"))
	}
	return refs
}

// refusedField is a Ref to a target tenants may not name (Target.Refused):
// it refuses, on the way in, an object whose field path.key is set; the 403
// names the field.
func refusedField(target Target, gr schema.GroupResource, path, key, reason string) Ref {
	if !target.Refused() {
		panic("translate: refusedField of a target that is translated: " + target.String())
	}
	field := path + "." + key
	return Ref{Field: field, Target: target, Reason: reason, apply: func(m *mapper, obj map[string]any) error {
		if !m.in {
			return nil
		}
		return walk(obj, path, func(parent map[string]any) error {
			if v, set := parent[key]; set && !emptyValue(v) {
				return forbidden(gr, str(child(obj, "metadata"), "name"), fmt.Sprintf("%s may not be set by tenants: %s", field, reason))
			}
			return nil
		})
	}}
}

// emptyValue reports whether v is JSON null, "", [] or {}.
func emptyValue(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// storageClassSecretParams maps the parameters of a StorageClass that name
// the namespace of a secret the provisioner or the CSI driver reads
// (csi.storage.k8s.io/*-secret-namespace, and the in-tree provisioners'
// *SecretNamespace): a literal namespace is the tenant's; the template
// ${pvc.namespace} (PVCNamespaceTemplate) is resolved by the provisioner to
// the claim's namespace, which is the tenant's already. Anything else with a
// template in it is a literal here, so it lands in the tenant's space too.
var storageClassSecretParams = Ref{Field: "parameters.*-secret-namespace", Target: TargetNamespace, apply: func(m *mapper, obj map[string]any) error {
	params := child(obj, "parameters")
	for k := range params {
		if !IsSecretNamespaceParameter(k) {
			continue
		}
		if err := m.mapString(params, k, func(v string) (string, error) {
			if v == PVCNamespaceTemplate {
				return v, nil
			}
			return m.namespace(v)
		}); err != nil {
			return err
		}
	}
	return nil
}}

// PVCNamespaceTemplate is the one template a StorageClass's secret
// namespace may hold as it is: the namespace of the claim being provisioned.
const PVCNamespaceTemplate = "${pvc.namespace}"

// IsSecretNamespaceParameter reports whether a StorageClass parameter names
// the namespace of a secret.
func IsSecretNamespaceParameter(key string) bool {
	k := strings.ToLower(key)
	return strings.HasSuffix(k, "secret-namespace") || strings.HasSuffix(k, "secretnamespace")
}
