package localproxy

import (
	"encoding/json"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// walkCase is one reference of the kinds table, set alone in a minimal
// object to a value that names another tenant's object (tenant beta's
// namespace, volume, class, group, ServiceAccount) or the platform's.
type walkCase struct {
	// at is the JSON pointer of the reference in the tenant's object; the
	// object is built from base with value set there.
	at string
	// value is the JSON the tenant writes at `at`.
	value string
	// want is the JSON the upstream must store at `at`; empty when the
	// proxy must refuse the object (403 naming the field).
	want string
	// back is the JSON the tenant reads back at `at`, when not value (a
	// value the proxy caps).
	back string
	// base holds what the object needs besides the reference (merge keys
	// of lists, so that strategic merge patches apply).
	base string
}

// Values that name what is not acme's. The fake upstream stores beta's
// classes (labeled for beta) and the platform's (unlabeled): walkFixtures.
const (
	betaNS     = `"beta-default"`
	betaNSUp   = `"acme-beta-default"`
	betaGroup  = `["beta-x.io"]`
	betaGrUp   = `["acme-beta-x.io"]`
	betaTarget = `{"kind":"Pod","apiVersion":"v1","namespace":"beta-default","name":"p"}`
	betaTgtUp  = `{"kind":"Pod","apiVersion":"v1","namespace":"acme-beta-default","name":"p"}`
	betaSel    = `{"matchLabels":{"kubernetes.io/metadata.name":"beta-default"}}`
	betaSelUp  = `{"matchLabels":{"kubernetes.io/metadata.name":"acme-beta-default"},"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"In","values":["acme"]}]}`
	betaSA     = `[{"kind":"ServiceAccount","name":"x","namespace":"beta-default"}]`
	betaSAUp   = `[{"kind":"ServiceAccount","name":"x","namespace":"acme-beta-default"}]`
	betaUser   = `"system:serviceaccount:beta-default:x"`
	betaUserUp = `"system:serviceaccount:acme-beta-default:x"`
	betaClass  = `"beta-fast"`
	betaClsUp  = `"acme-beta-fast"`
	betaRole   = `{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"beta-admin"}`
	betaRoleUp = `{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"acme-beta-admin"}`
	betaAttrs  = `{"namespace":"beta-default","verb":"get","resource":"secrets"}`
	betaAttrUp = `{"namespace":"acme-beta-default","verb":"get","resource":"secrets"}`
	ownedCond  = `[{"name":"zoo.kubectl-zoo.io/tenant","expression":"true"}]`
	dialedURL  = `"https://203.0.113.11/"`
)

// refused is a case the proxy must refuse.
func refused(at, value string) walkCase { return walkCase{at: at, value: value} }

// mapped is a case the proxy must translate into want.
func mapped(at, value, want string) walkCase { return walkCase{at: at, value: value, want: want} }

// podSpecCases are the references of a pod spec at pointer p.
func podSpecCases(key, p string) map[string]walkCase {
	field := key + " " + pointerField(p)
	c := map[string]walkCase{
		field + ".priorityClassName": refused(p+"/priorityClassName", `"beta-low"`),
		field + ".runtimeClassName":  refused(p+"/runtimeClassName", `"beta-rc"`),
		field + ".volumes[].ephemeral.volumeClaimTemplate.spec.storageClassName": {at: p + "/volumes/0/ephemeral/volumeClaimTemplate/spec/storageClassName",
			value: betaClass, want: betaClsUp, base: nest(p, `{"volumes":[{"name":"v"}]}`)},
		field + ".affinity": mapped(p+"/affinity", betaAffinity, betaAffinityUp),
		field + ".volumes[].ephemeral.volumeClaimTemplate.spec.volumeName": {at: p + "/volumes/0/ephemeral/volumeClaimTemplate/spec/volumeName",
			value: `"beta-pv"`, want: `"acme-beta-pv"`, base: nest(p, `{"volumes":[{"name":"v"}]}`)},
		field + ".volumes[].ephemeral.volumeClaimTemplate.spec.volumeAttributesClassName": {at: p + "/volumes/0/ephemeral/volumeClaimTemplate/spec/volumeAttributesClassName",
			value: `"beta-gold"`, base: nest(p, `{"volumes":[{"name":"v"}]}`)},
	}
	for _, src := range translate.VolumeSources { // acme's policy allows them all (newWalkProxy)
		if src.Pod == translate.VolumeSourceExternal {
			v := zeroSource(reflect.TypeFor[corev1.VolumeSource](), src.Name)
			c[field+".volumes[]."+src.Name] = walkCase{at: p + "/volumes/0/" + src.Name, value: v, want: v, base: nest(p, `{"volumes":[{"name":"v"}]}`)}
		}
	}
	return c
}

// zeroSource is the JSON of a value of the source name of the struct type
// sources (a volume source naming storage outside the cluster, which the
// walk's policy allows: stored as written) that a protobuf round trip gives
// back as it is: every list holds one element, every pointer is set.
func zeroSource(sources reflect.Type, name string) string {
	for i := range sources.NumField() {
		f := sources.Field(i)
		if strings.Split(f.Tag.Get("json"), ",")[0] == name {
			data, err := json.Marshal(filled(f.Type.Elem()).Interface())
			if err != nil {
				panic(err)
			}
			return string(data)
		}
	}
	panic("no volume source " + name)
}

// filled is a zero value of ty with its lists of one filled element and
// its pointers set to filled values.
func filled(ty reflect.Type) reflect.Value {
	v := reflect.New(ty).Elem()
	switch ty.Kind() {
	case reflect.Struct:
		for i := range ty.NumField() {
			if ty.Field(i).IsExported() {
				v.Field(i).Set(filled(ty.Field(i).Type))
			}
		}
	case reflect.Slice:
		v = reflect.Append(reflect.MakeSlice(ty, 0, 1), filled(ty.Elem()))
	case reflect.Pointer:
		v = reflect.New(ty.Elem())
		v.Elem().Set(filled(ty.Elem()))
	}
	return v
}

// pvSourceCases are the external sources of a PersistentVolume.
func pvSourceCases() map[string]walkCase {
	c := map[string]walkCase{}
	for _, src := range translate.VolumeSources {
		if src.Volume == translate.VolumeSourceExternal {
			v := zeroSource(reflect.TypeFor[corev1.PersistentVolumeSource](), src.Name)
			c["persistentvolumes spec."+src.Name] = mapped("/spec/"+src.Name, v, v)
		}
	}
	return c
}

// A pod affinity term naming beta's namespace, and an anti-affinity term
// selecting every namespace: confined to acme's.
const (
	betaAffinity = `{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{},"topologyKey":"h","namespaces":["beta-default"]}]},` +
		`"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":{"topologyKey":"h","namespaceSelector":{}}}]}}`
	betaAffinityUp = `{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{},"topologyKey":"h","namespaces":["acme-beta-default"]}]},` +
		`"podAntiAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"podAffinityTerm":{"topologyKey":"h",` +
		`"namespaceSelector":{"matchExpressions":[{"key":"zoo.kubectl-zoo.io/tenant","operator":"In","values":["acme"]}]}}}]}}`
)

// nest wraps the JSON object inner into the pointer p.
func nest(p, inner string) string {
	steps := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i := len(steps) - 1; i >= 0; i-- {
		inner = `{"` + steps[i] + `":` + inner + `}`
	}
	return inner
}

func admissionPolicyCases(key string) map[string]walkCase {
	return map[string]walkCase{
		key + " spec.paramKind.apiVersion":                              mapped("/spec/paramKind/apiVersion", `"beta-x.io/v1"`, `"acme-beta-x.io/v1"`),
		key + " spec.matchConstraints.namespaceSelector":                mapped("/spec/matchConstraints/namespaceSelector", betaSel, betaSelUp),
		key + " spec.matchConstraints.resourceRules[].apiGroups":        mapped("/spec/matchConstraints/resourceRules/0/apiGroups", betaGroup, betaGrUp),
		key + " spec.matchConstraints.excludeResourceRules[].apiGroups": mapped("/spec/matchConstraints/excludeResourceRules/0/apiGroups", betaGroup, betaGrUp),
		key + " spec.matchConditions":                                   refused("/spec/matchConditions", ownedCond),
	}
}

func policyBindingCases(key string) map[string]walkCase {
	return map[string]walkCase{
		key + " spec.policyName":                                      mapped("/spec/policyName", `"beta-p"`, `"acme-beta-p"`),
		key + " spec.paramRef.namespace":                              mapped("/spec/paramRef/namespace", betaNS, betaNSUp),
		key + " spec.matchResources.namespaceSelector":                mapped("/spec/matchResources/namespaceSelector", betaSel, betaSelUp),
		key + " spec.matchResources.resourceRules[].apiGroups":        mapped("/spec/matchResources/resourceRules/0/apiGroups", betaGroup, betaGrUp),
		key + " spec.matchResources.excludeResourceRules[].apiGroups": mapped("/spec/matchResources/excludeResourceRules/0/apiGroups", betaGroup, betaGrUp),
	}
}

func webhookCases(key string) map[string]walkCase {
	base := `{"webhooks":[{"name":"w"}]}`
	c := map[string]walkCase{
		key + " webhooks[].clientConfig.service.namespace": mapped("/webhooks/0/clientConfig/service/namespace", betaNS, betaNSUp),
		key + " webhooks[].clientConfig.url":               refused("/webhooks/0/clientConfig/url", dialedURL),
		key + " webhooks[].namespaceSelector":              mapped("/webhooks/0/namespaceSelector", betaSel, betaSelUp),
		key + " webhooks[].matchConditions":                refused("/webhooks/0/matchConditions", ownedCond),
		key + " webhooks[].rules[].apiGroups":              mapped("/webhooks/0/rules/0/apiGroups", betaGroup, betaGrUp),
	}
	for k, v := range c {
		v.base = base
		c[k] = v
	}
	return c
}

func pvSecretCase(p string) walkCase { return mapped(p, betaNS, betaNSUp) }

// walkCases holds one case per reference of the kinds table, keyed by
// "<resource> <field>" (translate.KindRule.Resource and Ref.Field).
// TestProxyWalksTheKindsTable fails for a reference without a case.
var walkCases = merge(
	pvSourceCases(),
	podSpecCases("pods", "/spec"),
	podSpecCases("podtemplates", "/template/spec"),
	podSpecCases("replicationcontrollers", "/spec/template/spec"),
	podSpecCases("deployments.apps", "/spec/template/spec"),
	podSpecCases("replicasets.apps", "/spec/template/spec"),
	podSpecCases("daemonsets.apps", "/spec/template/spec"),
	podSpecCases("statefulsets.apps", "/spec/template/spec"),
	podSpecCases("jobs.batch", "/spec/template/spec"),
	podSpecCases("cronjobs.batch", "/spec/jobTemplate/spec/template/spec"),
	webhookCases("mutatingwebhookconfigurations.admissionregistration.k8s.io"),
	webhookCases("validatingwebhookconfigurations.admissionregistration.k8s.io"),
	admissionPolicyCases("validatingadmissionpolicies.admissionregistration.k8s.io"),
	admissionPolicyCases("mutatingadmissionpolicies.admissionregistration.k8s.io"),
	policyBindingCases("validatingadmissionpolicybindings.admissionregistration.k8s.io"),
	policyBindingCases("mutatingadmissionpolicybindings.admissionregistration.k8s.io"),
	map[string]walkCase{
		"resourceclaims.resource.k8s.io spec.devices.requests[].exactly.deviceClassName": {at: "/spec/devices/requests/0/exactly/deviceClassName",
			value: `"beta-gpu"`, base: `{"spec":{"devices":{"requests":[{"name":"r"}]}}}`},
		"resourceclaims.resource.k8s.io spec.devices.requests[].firstAvailable[].deviceClassName": {at: "/spec/devices/requests/0/firstAvailable/0/deviceClassName",
			value: `"beta-gpu"`, base: `{"spec":{"devices":{"requests":[{"name":"r","firstAvailable":[{"name":"s"}]}]}}}`},
		"resourceclaimtemplates.resource.k8s.io spec.spec.devices.requests[].exactly.deviceClassName": {at: "/spec/spec/devices/requests/0/exactly/deviceClassName",
			value: `"beta-gpu"`, base: `{"spec":{"spec":{"devices":{"requests":[{"name":"r"}]}}}}`},
		"resourceclaimtemplates.resource.k8s.io spec.spec.devices.requests[].firstAvailable[].deviceClassName": {at: "/spec/spec/devices/requests/0/firstAvailable/0/deviceClassName",
			value: `"beta-gpu"`, base: `{"spec":{"spec":{"devices":{"requests":[{"name":"r","firstAvailable":[{"name":"s"}]}]}}}}`},
		"statefulsets.apps spec.volumeClaimTemplates[].spec.storageClassName":          mapped("/spec/volumeClaimTemplates/0/spec/storageClassName", betaClass, betaClsUp),
		"statefulsets.apps spec.volumeClaimTemplates[].spec.volumeName":                mapped("/spec/volumeClaimTemplates/0/spec/volumeName", `"beta-pv"`, `"acme-beta-pv"`),
		"statefulsets.apps spec.volumeClaimTemplates[].spec.volumeAttributesClassName": refused("/spec/volumeClaimTemplates/0/spec/volumeAttributesClassName", `"beta-gold"`),
		"services spec.externalIPs":                               refused("/spec/externalIPs", `["203.0.113.10"]`),
		"services spec.loadBalancerIP":                            refused("/spec/loadBalancerIP", `"203.0.113.11"`),
		"services spec.externalName":                              mapped("/spec/externalName", `"web.beta-default.svc"`, `"web.acme-beta-default.svc"`),
		"endpoints subsets[].addresses[].ip":                      refused("/subsets/0/addresses/0/ip", `"10.0.0.1"`),
		"endpoints subsets[].notReadyAddresses[].ip":              refused("/subsets/0/notReadyAddresses/0/ip", `"127.0.0.1"`),
		"endpointslices.discovery.k8s.io addressType":             refused("/addressType", `"FQDN"`),
		"endpointslices.discovery.k8s.io endpoints[].addresses[]": refused("/endpoints/0/addresses", `["169.254.169.254"]`),
		"endpoints subsets[].addresses[].targetRef":               mapped("/subsets/0/addresses/0/targetRef", betaTarget, betaTgtUp),
		"endpoints subsets[].notReadyAddresses[].targetRef":       mapped("/subsets/0/notReadyAddresses/0/targetRef", betaTarget, betaTgtUp),
		"persistentvolumeclaims spec.volumeName":                  mapped("/spec/volumeName", `"beta-pv"`, `"acme-beta-pv"`),
		"persistentvolumeclaims spec.storageClassName":            mapped("/spec/storageClassName", betaClass, betaClsUp),
		"persistentvolumeclaims spec.volumeAttributesClassName":   refused("/spec/volumeAttributesClassName", `"beta-gold"`),
		"events involvedObject":                                   mapped("/involvedObject", betaTarget, betaTgtUp),
		"events related":                                          mapped("/related", betaTarget, betaTgtUp),
		// Text names nothing the API server resolves: kept as written.
		"events message": mapped("/message", `"pulled beta-default/x"`, `"pulled beta-default/x"`),
		"persistentvolumes spec.claimRef": mapped("/spec/claimRef", `{"namespace":"beta-default","name":"data"}`,
			`{"namespace":"acme-beta-default","name":"data"}`),
		"persistentvolumes spec.storageClassName":                                   mapped("/spec/storageClassName", betaClass, betaClsUp),
		"persistentvolumes spec.volumeAttributesClassName":                          refused("/spec/volumeAttributesClassName", `"beta-gold"`),
		"persistentvolumes spec.csi.controllerPublishSecretRef.namespace":           pvSecretCase("/spec/csi/controllerPublishSecretRef/namespace"),
		"persistentvolumes spec.csi.nodeStageSecretRef.namespace":                   pvSecretCase("/spec/csi/nodeStageSecretRef/namespace"),
		"persistentvolumes spec.csi.nodePublishSecretRef.namespace":                 pvSecretCase("/spec/csi/nodePublishSecretRef/namespace"),
		"persistentvolumes spec.csi.controllerExpandSecretRef.namespace":            pvSecretCase("/spec/csi/controllerExpandSecretRef/namespace"),
		"persistentvolumes spec.csi.nodeExpandSecretRef.namespace":                  pvSecretCase("/spec/csi/nodeExpandSecretRef/namespace"),
		"persistentvolumes spec.cephfs.secretRef.namespace":                         pvSecretCase("/spec/cephfs/secretRef/namespace"),
		"persistentvolumes spec.cinder.secretRef.namespace":                         pvSecretCase("/spec/cinder/secretRef/namespace"),
		"persistentvolumes spec.flexVolume.secretRef.namespace":                     pvSecretCase("/spec/flexVolume/secretRef/namespace"),
		"persistentvolumes spec.iscsi.secretRef.namespace":                          pvSecretCase("/spec/iscsi/secretRef/namespace"),
		"persistentvolumes spec.rbd.secretRef.namespace":                            pvSecretCase("/spec/rbd/secretRef/namespace"),
		"persistentvolumes spec.scaleIO.secretRef.namespace":                        pvSecretCase("/spec/scaleIO/secretRef/namespace"),
		"persistentvolumes spec.storageos.secretRef.namespace":                      pvSecretCase("/spec/storageos/secretRef/namespace"),
		"persistentvolumes spec.azureFile.secretNamespace":                          pvSecretCase("/spec/azureFile/secretNamespace"),
		"persistentvolumes spec.hostPath":                                           refused("/spec/hostPath", `{"path":"/"}`),
		"persistentvolumes spec.local":                                              refused("/spec/local", `{"path":"/"}`),
		"horizontalpodautoscalers.autoscaling spec.scaleTargetRef.apiVersion":       mapped("/spec/scaleTargetRef/apiVersion", `"beta-x.io/v1"`, `"acme-beta-x.io/v1"`),
		"networkpolicies.networking.k8s.io spec.ingress[].from[].namespaceSelector": mapped("/spec/ingress/0/from/0/namespaceSelector", betaSel, betaSelUp),
		"networkpolicies.networking.k8s.io spec.egress[].to[].namespaceSelector":    mapped("/spec/egress/0/to/0/namespaceSelector", betaSel, betaSelUp),
		"ingresses.networking.k8s.io spec.ingressClassName":                         refused("/spec/ingressClassName", `"beta-nginx"`),
		"ingresses.networking.k8s.io spec.defaultBackend.resource.apiGroup":         mapped("/spec/defaultBackend/resource/apiGroup", `"beta-x.io"`, `"acme-beta-x.io"`),
		"ingresses.networking.k8s.io spec.rules[].http.paths[].backend.resource.apiGroup": mapped("/spec/rules/0/http/paths/0/backend/resource/apiGroup",
			`"beta-x.io"`, `"acme-beta-x.io"`),
		// Hosts are checked against acme's policy ("*" in the walk), not translated.
		"ingresses.networking.k8s.io spec.rules[].host":              mapped("/spec/rules/0/host", `"shop.beta.io"`, `"shop.beta.io"`),
		"ingresses.networking.k8s.io spec.tls[].hosts":               mapped("/spec/tls/0/hosts", `["shop.beta.io"]`, `["shop.beta.io"]`),
		"ingresses.networking.k8s.io spec.defaultBackend":            mapped("/spec/defaultBackend", `{"service":{"name":"web","port":{"number":80}}}`, `{"service":{"name":"web","port":{"number":80}}}`),
		"ingressclasses.networking.k8s.io spec.parameters.apiGroup":  mapped("/spec/parameters/apiGroup", `"beta-x.io"`, `"acme-beta-x.io"`),
		"ingressclasses.networking.k8s.io spec.parameters.namespace": mapped("/spec/parameters/namespace", betaNS, betaNSUp),
		"endpointslices.discovery.k8s.io endpoints[].targetRef":      mapped("/endpoints/0/targetRef", betaTarget, betaTgtUp),
		"events.events.k8s.io regarding":                             mapped("/regarding", betaTarget, betaTgtUp),
		"events.events.k8s.io related":                               mapped("/related", betaTarget, betaTgtUp),
		"events.events.k8s.io note":                                  mapped("/note", `"pulled beta-default/x"`, `"pulled beta-default/x"`),
		"roles.rbac.authorization.k8s.io rules": {at: "/rules/0/resourceNames", value: `["beta-default"]`, want: `["acme-beta-default"]`,
			base: `{"rules":[{"apiGroups":[""],"resources":["namespaces"],"verbs":["get"]}]}`},
		"rolebindings.rbac.authorization.k8s.io subjects": mapped("/subjects", betaSA, betaSAUp),
		"rolebindings.rbac.authorization.k8s.io roleRef":  mapped("/roleRef", betaRole, betaRoleUp),
		"clusterroles.rbac.authorization.k8s.io rules": {at: "/rules/0/resourceNames", value: `["beta-default"]`, want: `["acme-beta-default"]`,
			base: `{"rules":[{"apiGroups":[""],"resources":["namespaces"],"verbs":["get"]}]}`},
		"clusterroles.rbac.authorization.k8s.io aggregationRule.clusterRoleSelectors": refused("/aggregationRule/clusterRoleSelectors",
			`[{"matchLabels":{"zoo.kubectl-zoo.io/tenant":"beta"}}]`),
		"clusterrolebindings.rbac.authorization.k8s.io subjects":      mapped("/subjects", betaSA, betaSAUp),
		"clusterrolebindings.rbac.authorization.k8s.io roleRef":       mapped("/roleRef", betaRole, betaRoleUp),
		"storageclasses.storage.k8s.io parameters.*-secret-namespace": mapped("/parameters/csi.storage.k8s.io~1provisioner-secret-namespace", betaNS, betaNSUp),
		// The platform's class: the scheduler believes capacity published
		// for it in any namespace.
		"csistoragecapacities.storage.k8s.io storageClassName":      mapped("/storageClassName", `"standard"`, `"acme-standard"`),
		"priorityclasses.scheduling.k8s.io value":                   {at: "/value", value: `1000000`, want: `0`, back: `0`},
		"customresourcedefinitions.apiextensions.k8s.io spec.group": mapped("/spec/group", `"beta-x.io"`, `"acme-beta-x.io"`),
		"customresourcedefinitions.apiextensions.k8s.io spec.conversion.webhook.clientConfig.service.namespace": mapped(
			"/spec/conversion/webhook/clientConfig/service/namespace", betaNS, betaNSUp),
		"customresourcedefinitions.apiextensions.k8s.io spec.conversion.webhook.clientConfig.url": refused("/spec/conversion/webhook/clientConfig/url", dialedURL),
		"flowschemas.flowcontrol.apiserver.k8s.io spec.priorityLevelConfiguration.name":           mapped("/spec/priorityLevelConfiguration/name", `"beta-plc"`, `"acme-beta-plc"`),
		"flowschemas.flowcontrol.apiserver.k8s.io spec.rules[].subjects": mapped("/spec/rules/0/subjects",
			`[{"kind":"ServiceAccount","serviceAccount":{"namespace":"beta-default","name":"x"}}]`,
			`[{"kind":"ServiceAccount","serviceAccount":{"namespace":"acme-beta-default","name":"x"}}]`),
		"flowschemas.flowcontrol.apiserver.k8s.io spec.rules[].resourceRules[].namespaces": mapped("/spec/rules/0/resourceRules/0/namespaces", `["beta-default"]`, `["acme-beta-default"]`),
		"flowschemas.flowcontrol.apiserver.k8s.io spec.rules[].resourceRules[].apiGroups":  mapped("/spec/rules/0/resourceRules/0/apiGroups", betaGroup, betaGrUp),
		"tokenreviews.authentication.k8s.io status.user":                                   mapped("/status/user/username", betaUser, betaUserUp),
		"selfsubjectreviews.authentication.k8s.io status.userInfo":                         mapped("/status/userInfo/username", betaUser, betaUserUp),
		"subjectaccessreviews.authorization.k8s.io spec.resourceAttributes":                mapped("/spec/resourceAttributes", betaAttrs, betaAttrUp),
		"subjectaccessreviews.authorization.k8s.io spec.user":                              mapped("/spec/user", betaUser, betaUserUp),
		"selfsubjectaccessreviews.authorization.k8s.io spec.resourceAttributes":            mapped("/spec/resourceAttributes", betaAttrs, betaAttrUp),
		"localsubjectaccessreviews.authorization.k8s.io spec.resourceAttributes":           mapped("/spec/resourceAttributes", betaAttrs, betaAttrUp),
		"localsubjectaccessreviews.authorization.k8s.io spec.user":                         mapped("/spec/user", betaUser, betaUserUp),
		// The authorizer's text names the upstream objects that decided:
		// emptied on the way out.
		"subjectaccessreviews.authorization.k8s.io status.reason":      {at: "/status/reason", value: `"beta-default"`, want: `"beta-default"`, back: `""`},
		"selfsubjectaccessreviews.authorization.k8s.io status.reason":  {at: "/status/reason", value: `"beta-default"`, want: `"beta-default"`, back: `""`},
		"localsubjectaccessreviews.authorization.k8s.io status.reason": {at: "/status/reason", value: `"beta-default"`, want: `"beta-default"`, back: `""`},
		"selfsubjectrulesreviews.authorization.k8s.io spec.namespace":  mapped("/spec/namespace", betaNS, betaNSUp),
		"selfsubjectrulesreviews.authorization.k8s.io status.resourceRules": mapped("/status/resourceRules",
			`[{"verbs":["get"],"apiGroups":["beta-x.io"],"resources":["things"]}]`, `[{"verbs":["get"],"apiGroups":["acme-beta-x.io"],"resources":["things"]}]`),
	},
)

func merge(ms ...map[string]walkCase) map[string]walkCase {
	out := map[string]walkCase{}
	for _, m := range ms {
		for k, v := range m {
			if _, dup := out[k]; dup {
				panic("walk case twice: " + k)
			}
			out[k] = v
		}
	}
	return out
}
