package verify

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"k8s.io/client-go/kubernetes/scheme"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// verifyLabels are the labels of the pods of verify's workloads.
var verifyLabels = map[string]any{"app": ScratchObject}

// podSpecFields are, by kind, the fields (dotted paths) besides its pod
// spec that make an object of a kind with a pod spec valid and keep it from
// running anything when it is written for real (no replicas, suspended).
// Which kinds have a pod spec, and where, is the table's (podSpecPaths): a
// kind that needs nothing more (a Pod, a PodTemplate: the harmless pod is
// scheduled on no node) has no entry.
var podSpecFields = map[schema.GroupKind]map[string]any{
	{Kind: "ReplicationController"}: {
		"spec.replicas": int64(0), "spec.selector": verifyLabels, "spec.template.metadata.labels": verifyLabels},
	{Group: "apps", Kind: "Deployment"}: selectedWorkload,
	{Group: "apps", Kind: "ReplicaSet"}: selectedWorkload,
	{Group: "apps", Kind: "DaemonSet"}: { // its pods select no node
		"spec.selector.matchLabels": verifyLabels, "spec.template.metadata.labels": verifyLabels},
	{Group: "apps", Kind: "StatefulSet"}: {
		"spec.replicas": int64(0), "spec.serviceName": ScratchObject, "spec.selector.matchLabels": verifyLabels, "spec.template.metadata.labels": verifyLabels},
	{Group: "batch", Kind: "Job"}: {
		"spec.suspend": true, "spec.template.spec.restartPolicy": "Never"},
	{Group: "batch", Kind: "CronJob"}: {
		"spec.suspend": true, "spec.schedule": "0 0 1 1 *", "spec.jobTemplate.spec.template.spec.restartPolicy": "Never"},
}

// selectedWorkload are the fields of a Deployment's or a ReplicaSet's.
var selectedWorkload = map[string]any{
	"spec.replicas": int64(0), "spec.selector.matchLabels": verifyLabels, "spec.template.metadata.labels": verifyLabels}

// podSpecPaths are the kinds of the kinds table with a pod spec, and its
// path: where their affinity reference is.
func podSpecPaths() map[schema.GroupResource]string {
	out := map[schema.GroupResource]string{}
	for _, rule := range translate.Kinds() {
		for _, ref := range rule.Refs {
			if path, ok := strings.CutSuffix(ref.Field, ".affinity"); ok && ref.Target == translate.TargetSelector {
				out[rule.Resource] = path
			}
		}
	}
	return out
}

// referenceBases are the harmless objects of the namespaced kinds whose
// references verify attempts: a claim of no class, an ExternalName Service
// of the attacker's own Service, a NetworkPolicy that denies everything.
var referenceBases = map[schema.GroupKind]outsideBase{
	{Kind: "PersistentVolumeClaim"}: func(t *Target, name string) *unstructured.Unstructured {
		return object("v1", "PersistentVolumeClaim", t.Namespace, name, nil, map[string]any{"spec": map[string]any{
			"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}}})
	},
	{Kind: "Service"}: func(t *Target, name string) *unstructured.Unstructured { // an alias of the attacker's own Service
		return object("v1", "Service", t.Namespace, name, nil, map[string]any{"spec": map[string]any{
			"type": "ExternalName", "externalName": serviceDNSName(t.Namespace)}})
	},
	{Group: "networking.k8s.io", Kind: "NetworkPolicy"}: func(t *Target, name string) *unstructured.Unstructured {
		return object("networking.k8s.io/v1", "NetworkPolicy", t.Namespace, name, nil, map[string]any{"spec": map[string]any{
			"podSelector": map[string]any{"matchLabels": verifyLabels}, "policyTypes": []any{"Ingress", "Egress"}}})
	},
}

// outsideBases are the harmless objects of the kinds whose references
// verify attempts, by the kinds table's resource: referenceBases,
// classBases, admissionBases, endpointBases, and for every kind with a pod
// spec (podSpecPaths) the harmless pod (no node matches its selector) at
// the table's path, in the kind's version the client's scheme prefers,
// with the kind's podSpecFields.
func outsideBases() map[schema.GroupResource]outsideBase {
	out := map[schema.GroupResource]outsideBase{}
	for _, bases := range []map[schema.GroupKind]outsideBase{referenceBases, classBases, admissionBases, endpointBases} {
		for gk, base := range bases {
			if rule, ok := translate.LookupKindByKind(gk); ok {
				out[rule.Resource] = base
			}
		}
	}
	for gr, path := range podSpecPaths() {
		rule, _ := translate.LookupKind(gr)
		versions := scheme.Scheme.PrioritizedVersionsForGroup(gr.Group)
		if len(versions) == 0 {
			continue // a kind the client does not know: TestOutsideChecks names it
		}
		apiVersion := versions[0].WithKind(rule.Kind)
		fields := podSpecFields[apiVersion.GroupKind()]
		out[gr] = func(t *Target, name string) *unstructured.Unstructured {
			obj := object(apiVersion.GroupVersion().String(), apiVersion.Kind, t.Namespace, name, nil, map[string]any{})
			setField(obj.Object, strings.Split(path, "."), harmlessPodSpec(), nil)
			for field, v := range fields {
				setField(obj.Object, strings.Split(field, "."), runtime.DeepCopyJSONValue(v), nil)
			}
			return obj
		}
	}
	return out
}

// harmlessPodSpec is harmlessPod's spec, scheduled on no node.
func harmlessPodSpec() map[string]any {
	pod := harmlessPod()
	pod.Spec.NodeSelector = map[string]string{probeKey: "never"}
	spec, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&pod.Spec)
	if err != nil {
		panic(err) // a fixed pod spec always converts
	}
	return spec
}

// outsideValue is what an attempt sets a reference of target at field to,
// as a function of the target of the path; nil for one verify has no value
// of.
func outsideValue(target translate.Target, field string) func(t *Target) any {
	leaf := lastKey(field)
	switch {
	case target == translate.TargetShared && strings.HasSuffix(leaf, "ClassName"):
		return func(t *Target) any { return t.Victim.Prefix() + ScratchObject } // the victim's class (setUpVictimClasses)
	case target == translate.TargetOwned && leaf == "volumeName":
		return func(t *Target) any { return t.Victim.Prefix() + "data" }
	case target == translate.TargetSelector && leaf == "affinity":
		return func(*Target) any { return everyNamespaceAffinity() }
	case target == translate.TargetSelector && leaf == "namespaceSelector":
		return func(*Target) any { return map[string]any{} } // every namespace
	case target == translate.TargetOwned && leaf == "storageClassName":
		return func(t *Target) any { return t.Victim.Prefix() + ScratchObject } // the victim's class (setUpVictimClasses)
	case target == translate.TargetNamespace && (leaf == "namespace" || strings.HasSuffix(leaf, "-secret-namespace")):
		return func(t *Target) any { return t.VictimNamespace }
	case target == translate.TargetPlatform && leaf == "value":
		return func(*Target) any { return int64(1000000000) } // the highest a class not the system's may have
	case target == translate.TargetServiceName:
		return func(t *Target) any { return serviceDNSName(t.VictimNamespace) }
	case target == translate.TargetStorage && storageSamples[leaf] != nil:
		return func(*Target) any { return runtime.DeepCopyJSONValue(storageSamples[leaf]) }
	}
	if v := admissionValue(target, leaf); v != nil {
		return v
	}
	return endpointValue(target, leaf)
}

// everyNamespaceAffinity is a pod anti-affinity term that weighs the pods
// of every namespace.
func everyNamespaceAffinity() map[string]any {
	return map[string]any{"podAntiAffinity": map[string]any{"preferredDuringSchedulingIgnoredDuringExecution": []any{map[string]any{
		"weight": int64(1), "podAffinityTerm": map[string]any{"topologyKey": "kubernetes.io/hostname", "namespaceSelector": map[string]any{},
			"labelSelector": map[string]any{"matchLabels": map[string]any{"app": ScratchObject}}}}}}}
}

// storageSamples are a valid value of each source of storage outside the
// cluster, naming the victim's (an export, a target, a disk).
var storageSamples = map[string]map[string]any{
	"nfs":                  {"server": "192.0.2.20", "path": "/exports/zooverify2"},
	"iscsi":                {"targetPortal": "192.0.2.20:3260", "iqn": "iqn.2001-04.com.example:zooverify2", "lun": int64(0)},
	"fc":                   {"targetWWNs": []any{"500a0982991b8dc5"}, "lun": int64(0)},
	"rbd":                  {"monitors": []any{"192.0.2.20:6789"}, "image": "zooverify2"},
	"cephfs":               {"monitors": []any{"192.0.2.20:6789"}},
	"glusterfs":            typedSample(&corev1.GlusterfsVolumeSource{EndpointsName: "zooverify2", Path: "zooverify2"}),
	"quobyte":              {"registry": "192.0.2.20:7861", "volume": "zooverify2"},
	"scaleIO":              {"gateway": "https://192.0.2.20", "system": "zooverify2", "volumeName": "zooverify2", "secretRef": map[string]any{"name": "s"}},
	"storageos":            {"volumeName": "zooverify2"},
	"flocker":              {"datasetName": "zooverify2"},
	"portworxVolume":       {"volumeID": "zooverify2"},
	"gcePersistentDisk":    {"pdName": "zooverify2"},
	"awsElasticBlockStore": {"volumeID": "vol-0zooverify2"},
	"azureDisk":            {"diskName": "zooverify2", "diskURI": "https://zooverify2.blob.core.windows.net/vhds/zooverify2.vhd"},
	"azureFile":            {"secretName": "s", "shareName": "zooverify2"},
	"cinder":               {"volumeID": "zooverify2"},
	"vsphereVolume":        {"volumePath": "[ds] zooverify2.vmdk"},
	"photonPersistentDisk": {"pdID": "zooverify2"},
	"flexVolume":           {"driver": "example.com/zooverify2"},
	"gitRepo":              {"repository": "http://192.0.2.20/zooverify2.git"},
	"csi":                  {"driver": "zoo-verify.example.com", "volumeHandle": "zooverify2"},
}

// typedSample is a sample written with its typed API (where a field's
// name is a resource's).
func typedSample(source any) map[string]any {
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(source)
	if err != nil {
		panic(err) // a fixed source always converts
	}
	return out
}

// listSeed is the element an attempt adds to the empty list key of a field
// path, before setting the field in it, keyed by the list and the next key.
func listSeed(list, next string) map[string]any {
	claimSpec := map[string]any{"accessModes": []any{"ReadWriteOnce"}, "resources": map[string]any{"requests": map[string]any{"storage": "1Gi"}}}
	switch {
	case list == "volumes" && next == "ephemeral":
		return map[string]any{"name": "zoo-verify", "ephemeral": map[string]any{"volumeClaimTemplate": map[string]any{"spec": claimSpec}}}
	case list == "volumes":
		return map[string]any{"name": "zoo-verify"}
	case list == "ingress" || list == "egress" || list == "from" || list == "to":
		return map[string]any{}
	case list == "requests" || list == "firstAvailable": // a device request, a subrequest
		return map[string]any{"name": "zoo-verify"}
	case list == "volumeClaimTemplates":
		return map[string]any{"metadata": map[string]any{"name": "zoo-verify"}, "spec": claimSpec}
	}
	return map[string]any{}
}

// setOutside sets the path of keys of obj to value as setField does, but
// gives an empty or missing list one element (listSeed) to set it in.
func setOutside(obj map[string]any, keys []string, value any) {
	for i, k := range keys[:len(keys)-1] {
		key, list := strings.CutSuffix(k, "[]")
		if !list {
			continue
		}
		parent := fieldValues(obj, keys[:i])
		for _, p := range parent {
			m, ok := p.(map[string]any)
			if items, _ := m[key].([]any); ok && len(items) == 0 {
				m[key] = []any{listSeed(key, keys[i+1])}
			}
		}
	}
	setField(obj, keys, value, nil)
}

// serviceDNSName is the DNS name of verify's Service ScratchObject in ns.
func serviceDNSName(ns string) string { return ScratchObject + "." + ns + ".svc.cluster.local" }
