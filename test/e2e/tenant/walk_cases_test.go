package tenant_test

import (
	"strings"
)

// upstreamCase is one reference of the kinds table written by tenant acme's
// identity directly upstream, naming tenant beta's object (or the
// platform's). Exactly one of denial and harmless is set.
type upstreamCase struct {
	// obj is the object in upstream form (JSON); NAME is replaced by a
	// name of the case's own.
	obj string
	// denial is a substring of the refusal, naming the policy.
	denial string
	// harmless says why accepting the object changes nothing outside acme.
	harmless string
}

const (
	// byTenantPolicy is zoo-tenant itself (byAdmission, attack_test.go,
	// is a prefix of the other policies' names too).
	byTenantPolicy = "ValidatingAdmissionPolicy 'zoo-tenant' with binding"
	otherClass     = "may not name another tenant's class"
	claimJudged    = "the claim the controller makes from this template is judged by zoo-tenant-storage (rule 4): a claim never asks for another tenant's class"
	volumeJudged   = "the claim the controller makes from this template is judged by zoo-tenant-storage (rule 3): a claim created in a tenant's namespace names only the tenant's volumes"
	attrsJudged    = "the claim the controller makes from this template is judged by zoo-tenant-storage (rule 6): an object in a tenant's namespace never names another tenant's class"
	informational  = "a targetRef only records which object an address belongs to; nothing routes or reads by it"
)

// nsObject is a namespaced object of acme in upstream form.
func nsObject(apiVersion, kind, body string) string {
	return `{"apiVersion":"` + apiVersion + `","kind":"` + kind + `","metadata":{"name":"NAME","namespace":"acme-default"},` + body + `}`
}

// clusterObject is a cluster-scoped object of acme in upstream form.
func clusterObject(apiVersion, kind, body string) string {
	return `{"apiVersion":"` + apiVersion + `","kind":"` + kind + `","metadata":{"name":"acme-NAME","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},` + body + `}`
}

const container = `"containers":[{"name":"c","image":"busybox"}]`

// podSpecUpstreamCases are the pod spec references of a workload kind;
// wrap puts a pod spec (JSON object) into the kind's body.
func podSpecUpstreamCases(key, apiVersion, kind, field string, wrap func(spec string) string) map[string]upstreamCase {
	obj := func(extra string) string { return nsObject(apiVersion, kind, wrap(`{`+container+`,`+extra+`}`)) }
	return mergeUpstream(podSourceCases(key, field, obj), map[string]upstreamCase{
		key + " " + field + ".priorityClassName": {obj: obj(`"priorityClassName":"beta-low"`), denial: byStorage},
		key + " " + field + ".runtimeClassName":  {obj: obj(`"runtimeClassName":"beta-rc"`), denial: byStorage},
		key + " " + field + ".volumes[].ephemeral.volumeClaimTemplate.spec.storageClassName": {obj: obj(`"volumes":[{"name":"v","ephemeral":{"volumeClaimTemplate":{"spec":` +
			`{"accessModes":["ReadWriteOnce"],"storageClassName":"beta-fast","resources":{"requests":{"storage":"1Gi"}}}}}}]`), harmless: claimJudged},
		key + " " + field + ".affinity": {obj: obj(`"affinity":{"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[` +
			`{"topologyKey":"kubernetes.io/hostname","labelSelector":{},"namespaces":["beta-default"]}]}}`), denial: byTenantPolicy},
		key + " " + field + ".volumes[].ephemeral.volumeClaimTemplate.spec.volumeName": {obj: obj(`"volumes":[{"name":"v","ephemeral":{"volumeClaimTemplate":{"spec":` +
			`{"accessModes":["ReadWriteOnce"],"volumeName":"beta-pv","resources":{"requests":{"storage":"1Gi"}}}}}}]`), harmless: volumeJudged},
		key + " " + field + ".volumes[].ephemeral.volumeClaimTemplate.spec.volumeAttributesClassName": {obj: obj(`"volumes":[{"name":"v","ephemeral":{"volumeClaimTemplate":{"spec":` +
			`{"accessModes":["ReadWriteOnce"],"volumeAttributesClassName":"beta-gold","resources":{"requests":{"storage":"1Gi"}}}}}}]`), harmless: attrsJudged},
	})
}

func template(spec string) string {
	return `"template":{"metadata":{"labels":{"app":"walk"}},"spec":` + spec + `}`
}

func selected(spec string) string {
	return `"spec":{"selector":{"matchLabels":{"app":"walk"}},` + template(spec) + `}`
}

func jobSpec(spec string) string {
	return strings.Replace(spec, `{"containers"`, `{"restartPolicy":"Never","containers"`, 1)
}

const (
	betaTargetRef = `{"kind":"Pod","namespace":"beta-default","name":"p"}`
	betaRoleRef   = `"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"beta-admin"}`
	betaSubjects  = `"subjects":[{"kind":"ServiceAccount","name":"default","namespace":"beta-default"}]`
	viewRoleRef   = `"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"acme-view"}`
	pvSpec        = `"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"storageClassName":"acme-fast"`
)

func pvObject(source string) string {
	return clusterObject("v1", "PersistentVolume", `"spec":{`+pvSpec+`,`+source+`}`)
}

func pvSecret(source, ref string) upstreamCase {
	return upstreamCase{obj: pvObject(`"` + source + `":{` + ref + `}`), denial: "the namespaces tenant acme names must start with acme-"}
}

const csi = `"driver":"d.example.com","volumeHandle":"h",`

// upstreamCases holds one case per reference of the kinds table whose
// target can name something outside the tenant, on a kind tenant acme may
// write upstream; TestUpstreamWalksTheKindsTable fails for one without.
var upstreamCases = mergeUpstream(
	pvSourceUpstreamCases(), // walk_sources_test.go
	ingressHostUpstreamCases(),
	podSpecUpstreamCases("pods", "v1", "Pod", "spec", func(s string) string { return `"spec":` + s }),
	podSpecUpstreamCases("podtemplates", "v1", "PodTemplate", "template.spec", template),
	podSpecUpstreamCases("replicationcontrollers", "v1", "ReplicationController", "spec.template.spec",
		func(s string) string { return `"spec":{"selector":{"app":"walk"},` + template(s) + `}` }),
	podSpecUpstreamCases("deployments.apps", "apps/v1", "Deployment", "spec.template.spec", selected),
	podSpecUpstreamCases("replicasets.apps", "apps/v1", "ReplicaSet", "spec.template.spec", selected),
	podSpecUpstreamCases("daemonsets.apps", "apps/v1", "DaemonSet", "spec.template.spec", selected),
	podSpecUpstreamCases("statefulsets.apps", "apps/v1", "StatefulSet", "spec.template.spec",
		func(s string) string {
			return strings.Replace(selected(s), `"spec":{`, `"spec":{"serviceName":"walk",`, 1)
		}),
	podSpecUpstreamCases("jobs.batch", "batch/v1", "Job", "spec.template.spec",
		func(s string) string { return `"spec":{` + template(jobSpec(s)) + `}` }),
	podSpecUpstreamCases("cronjobs.batch", "batch/v1", "CronJob", "spec.jobTemplate.spec.template.spec",
		func(s string) string {
			return `"spec":{"schedule":"* * * * *","jobTemplate":{"spec":{` + template(jobSpec(s)) + `}}}`
		}),
	map[string]upstreamCase{
		"statefulsets.apps spec.volumeClaimTemplates[].spec.storageClassName": {obj: nsObject("apps/v1", "StatefulSet",
			strings.Replace(selected(`{`+container+`}`), `"spec":{`, `"spec":{"serviceName":"walk","volumeClaimTemplates":[{"metadata":{"name":"d"},"spec":`+
				`{"accessModes":["ReadWriteOnce"],"storageClassName":"beta-fast","resources":{"requests":{"storage":"1Gi"}}}}],`, 1)), harmless: claimJudged},
		"statefulsets.apps spec.volumeClaimTemplates[].spec.volumeName": {obj: nsObject("apps/v1", "StatefulSet",
			strings.Replace(selected(`{`+container+`}`), `"spec":{`, `"spec":{"serviceName":"walk","volumeClaimTemplates":[{"metadata":{"name":"d"},"spec":`+
				`{"accessModes":["ReadWriteOnce"],"volumeName":"beta-pv","resources":{"requests":{"storage":"1Gi"}}}}],`, 1)), harmless: volumeJudged},
		"statefulsets.apps spec.volumeClaimTemplates[].spec.volumeAttributesClassName": {obj: nsObject("apps/v1", "StatefulSet",
			strings.Replace(selected(`{`+container+`}`), `"spec":{`, `"spec":{"serviceName":"walk","volumeClaimTemplates":[{"metadata":{"name":"d"},"spec":`+
				`{"accessModes":["ReadWriteOnce"],"volumeAttributesClassName":"beta-gold","resources":{"requests":{"storage":"1Gi"}}}}],`, 1)), harmless: attrsJudged},
		"resourceclaims.resource.k8s.io spec.devices.requests[].exactly.deviceClassName": {obj: nsObject("resource.k8s.io/v1", "ResourceClaim",
			`"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"beta-gpu"}}]}}`), denial: otherClass},
		"resourceclaims.resource.k8s.io spec.devices.requests[].firstAvailable[].deviceClassName": {obj: nsObject("resource.k8s.io/v1", "ResourceClaim",
			`"spec":{"devices":{"requests":[{"name":"r","firstAvailable":[{"name":"s","deviceClassName":"beta-gpu"}]}]}}`), denial: otherClass},
		"resourceclaimtemplates.resource.k8s.io spec.spec.devices.requests[].exactly.deviceClassName": {obj: nsObject("resource.k8s.io/v1", "ResourceClaimTemplate",
			`"spec":{"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"beta-gpu"}}]}}}`), denial: otherClass},
		"resourceclaimtemplates.resource.k8s.io spec.spec.devices.requests[].firstAvailable[].deviceClassName": {obj: nsObject("resource.k8s.io/v1", "ResourceClaimTemplate",
			`"spec":{"spec":{"devices":{"requests":[{"name":"r","firstAvailable":[{"name":"s","deviceClassName":"beta-gpu"}]}]}}}`), denial: otherClass},
		"services spec.externalIPs": {obj: nsObject("v1", "Service", `"spec":{"ports":[{"port":443}],"externalIPs":["203.0.113.10"]}`),
			denial: "may not set spec.externalIPs"},
		"services spec.loadBalancerIP": {obj: nsObject("v1", "Service", `"spec":{"type":"LoadBalancer","ports":[{"port":443}],"loadBalancerIP":"203.0.113.11"}`),
			denial: "may not set spec.loadBalancerIP"},
		"services spec.externalName": {obj: nsObject("v1", "Service", `"spec":{"type":"ExternalName","externalName":"web.beta-default.svc.cluster.local"}`),
			denial: "spec.externalName may only name a Service of the tenant"},
		"endpoints subsets[].addresses[].targetRef": {obj: nsObject("v1", "Endpoints",
			`"subsets":[{"addresses":[{"ip":"203.0.113.1","targetRef":`+betaTargetRef+`}],"ports":[{"port":80}]}]`), harmless: informational},
		"endpoints subsets[].notReadyAddresses[].targetRef": {obj: nsObject("v1", "Endpoints",
			`"subsets":[{"notReadyAddresses":[{"ip":"203.0.113.1","targetRef":`+betaTargetRef+`}],"ports":[{"port":80}]}]`), harmless: informational},
		"endpoints subsets[].addresses[].ip": {obj: nsObject("v1", "Endpoints",
			`"subsets":[{"addresses":[{"ip":"10.0.0.1"}],"ports":[{"port":80}]}]`), denial: "subsets[].addresses[].ip may only hold public unicast IP addresses"},
		"endpoints subsets[].notReadyAddresses[].ip": {obj: nsObject("v1", "Endpoints",
			`"subsets":[{"notReadyAddresses":[{"ip":"100.64.0.1"}],"ports":[{"port":80}]}]`), denial: "subsets[].notReadyAddresses[].ip may only hold public unicast IP addresses"},
		"persistentvolumeclaims spec.volumeName": {obj: nsObject("v1", "PersistentVolumeClaim",
			`"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"volumeName":"beta-pv"}`), denial: "may only name the tenant's own volumes"},
		"persistentvolumeclaims spec.storageClassName": {obj: nsObject("v1", "PersistentVolumeClaim",
			`"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"storageClassName":"beta-fast"}`), denial: byStorage},
		"persistentvolumeclaims spec.volumeAttributesClassName": {obj: nsObject("v1", "PersistentVolumeClaim",
			`"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}},"volumeAttributesClassName":"beta-gold"}`), denial: otherClass},
		"events involvedObject": {obj: nsObject("v1", "Event", `"involvedObject":`+betaTargetRef+`,"reason":"R","message":"m"`),
			denial: "does not match event.namespace"},
		"events related": {obj: nsObject("v1", "Event", `"involvedObject":{"kind":"Pod","namespace":"acme-default","name":"p"},"related":`+betaTargetRef+`,"reason":"R","message":"m"`),
			harmless: "an event is listed only in its own namespace; related only records a name"},
		"events.events.k8s.io regarding": {obj: nsObject("events.k8s.io/v1", "Event", `"eventTime":"2024-01-01T00:00:00.000000Z","reportingController":"x/y","reportingInstance":"i","action":"A","reason":"R","type":"Normal","regarding":`+betaTargetRef),
			harmless: "an event is listed only in its own namespace: beta's tools, which list events in beta's namespaces, never see it"},
		"events.events.k8s.io related": {obj: nsObject("events.k8s.io/v1", "Event", `"eventTime":"2024-01-01T00:00:00.000000Z","reportingController":"x/y","reportingInstance":"i","action":"A","reason":"R","type":"Normal","regarding":{"kind":"Pod","namespace":"acme-default","name":"p"},"related":`+betaTargetRef),
			harmless: "an event is listed only in its own namespace; related only records a name"},
		"networkpolicies.networking.k8s.io spec.ingress[].from[].namespaceSelector": {obj: nsObject("networking.k8s.io/v1", "NetworkPolicy",
			`"spec":{"podSelector":{},"ingress":[{"from":[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"beta-default"}}}]}]}`),
			harmless: "a NetworkPolicy governs only the pods of its own namespace: letting beta's traffic in opens acme's door, not beta's"},
		"networkpolicies.networking.k8s.io spec.egress[].to[].namespaceSelector": {obj: nsObject("networking.k8s.io/v1", "NetworkPolicy",
			`"spec":{"podSelector":{},"egress":[{"to":[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"beta-default"}}}]}]}`),
			harmless: "a NetworkPolicy governs only the pods of its own namespace: allowing traffic to beta does not open beta's door"},
		"ingresses.networking.k8s.io spec.ingressClassName": {obj: nsObject("networking.k8s.io/v1", "Ingress",
			`"spec":{"ingressClassName":"beta-nginx","rules":[`+ingressRule("web.acme.io")+`]}`), denial: otherClass},
		"endpointslices.discovery.k8s.io endpoints[].targetRef": {obj: nsObject("discovery.k8s.io/v1", "EndpointSlice",
			`"addressType":"IPv4","endpoints":[{"addresses":["203.0.113.1"],"targetRef":`+betaTargetRef+`}]`), harmless: informational},
		"endpointslices.discovery.k8s.io endpoints[].addresses[]": {obj: nsObject("discovery.k8s.io/v1", "EndpointSlice",
			`"addressType":"IPv4","endpoints":[{"addresses":["192.168.0.1"]}]`), denial: "endpoints[].addresses[] may only hold public unicast IP addresses"},
		"endpointslices.discovery.k8s.io addressType": {obj: nsObject("discovery.k8s.io/v1", "EndpointSlice",
			`"addressType":"FQDN","endpoints":[{"addresses":["web.beta-default.svc.cluster.local"]}]`), denial: "addressType must be IPv4 or IPv6"},
		"rolebindings.rbac.authorization.k8s.io subjects": {obj: nsObject("rbac.authorization.k8s.io/v1", "RoleBinding", viewRoleRef+`,`+betaSubjects),
			denial: byTenantPolicy},
		"rolebindings.rbac.authorization.k8s.io roleRef": {obj: nsObject("rbac.authorization.k8s.io/v1", "RoleBinding", betaRoleRef),
			denial: byTenantPolicy},
		"csistoragecapacities.storage.k8s.io storageClassName": {obj: nsObject("storage.k8s.io/v1", "CSIStorageCapacity", `"storageClassName":"standard","capacity":"1Ti"`),
			denial: "may only publish capacity for the tenant's storage classes"},
		"persistentvolumes spec.claimRef": {obj: pvObject(`"csi":{` + csi[:len(csi)-1] + `},"claimRef":{"namespace":"beta-default","name":"data"}`),
			denial: "only claims in its namespaces (acme-*) may bind it"},
		"persistentvolumes spec.storageClassName": {obj: strings.Replace(pvObject(`"csi":{`+csi[:len(csi)-1]+`}`), "acme-fast", "beta-fast", 1),
			denial: "its storage class must be one of the tenant"},
		"persistentvolumes spec.volumeAttributesClassName":                {obj: pvObject(`"csi":{` + csi[:len(csi)-1] + `},"volumeAttributesClassName":"beta-gold"`), denial: otherClass},
		"persistentvolumes spec.csi.controllerPublishSecretRef.namespace": pvSecret("csi", csi+`"controllerPublishSecretRef":{"name":"s","namespace":"beta-default"}`),
		"persistentvolumes spec.csi.nodeStageSecretRef.namespace":         pvSecret("csi", csi+`"nodeStageSecretRef":{"name":"s","namespace":"beta-default"}`),
		"persistentvolumes spec.csi.nodePublishSecretRef.namespace":       pvSecret("csi", csi+`"nodePublishSecretRef":{"name":"s","namespace":"beta-default"}`),
		"persistentvolumes spec.csi.controllerExpandSecretRef.namespace":  pvSecret("csi", csi+`"controllerExpandSecretRef":{"name":"s","namespace":"beta-default"}`),
		"persistentvolumes spec.csi.nodeExpandSecretRef.namespace":        pvSecret("csi", csi+`"nodeExpandSecretRef":{"name":"s","namespace":"beta-default"}`),
		"persistentvolumes spec.cephfs.secretRef.namespace":               pvSecret("cephfs", `"monitors":["m"],"secretRef":{"name":"s","namespace":"beta-default"}`),
		"persistentvolumes spec.cinder.secretRef.namespace":               pvSecret("cinder", `"volumeID":"v","secretRef":{"name":"s","namespace":"beta-default"}`),
		"persistentvolumes spec.flexVolume.secretRef.namespace":           pvSecret("flexVolume", `"driver":"d","secretRef":{"name":"s","namespace":"beta-default"}`),
		"persistentvolumes spec.iscsi.secretRef.namespace":                pvSecret("iscsi", `"targetPortal":"10.0.0.1:3260","iqn":"iqn.2001-04.com.example:s","lun":0,"secretRef":{"name":"s","namespace":"beta-default"}`),
		"persistentvolumes spec.rbd.secretRef.namespace":                  pvSecret("rbd", `"monitors":["m"],"image":"i","secretRef":{"name":"s","namespace":"beta-default"}`),
		"persistentvolumes spec.scaleIO.secretRef.namespace":              pvSecret("scaleIO", `"gateway":"g","system":"s","volumeName":"v","secretRef":{"name":"s","namespace":"beta-default"}`),
		"persistentvolumes spec.storageos.secretRef.namespace":            pvSecret("storageos", `"volumeName":"v","secretRef":{"name":"s","namespace":"beta-default"}`),
		"persistentvolumes spec.azureFile.secretNamespace": {obj: pvObject(`"azureFile":{"secretName":"s","shareName":"x","secretNamespace":"beta-default"}`),
			denial: "the namespaces tenant acme names must start with acme-"},
		"persistentvolumes spec.hostPath": {obj: pvObject(`"hostPath":{"path":"/"}`), denial: "may not be on a path of the machines"},
		"persistentvolumes spec.local":    {obj: pvObject(`"local":{"path":"/"},"nodeAffinity":{"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"k","operator":"Exists"}]}]}}`), denial: "may not be on a path of the machines"},
		"clusterroles.rbac.authorization.k8s.io aggregationRule.clusterRoleSelectors": {obj: clusterObject("rbac.authorization.k8s.io/v1", "ClusterRole",
			`"aggregationRule":{"clusterRoleSelectors":[{"matchLabels":{"zoo.kubectl-zoo.io/tenant":"beta"}}]}`), denial: byTenantPolicy},
		"clusterrolebindings.rbac.authorization.k8s.io subjects": {obj: clusterObject("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", viewRoleRef+`,`+betaSubjects),
			denial: byTenantPolicy},
		"clusterrolebindings.rbac.authorization.k8s.io roleRef": {obj: clusterObject("rbac.authorization.k8s.io/v1", "ClusterRoleBinding", betaRoleRef),
			denial: byTenantPolicy},
		"storageclasses.storage.k8s.io parameters.*-secret-namespace": {obj: clusterObject("storage.k8s.io/v1", "StorageClass",
			`"provisioner":"d.example.com","parameters":{"csi.storage.k8s.io/provisioner-secret-name":"s","csi.storage.k8s.io/provisioner-secret-namespace":"beta-default"}`),
			denial: "names must be in namespaces starting with acme-"},
		"ingressclasses.networking.k8s.io spec.parameters.apiGroup": {obj: clusterObject("networking.k8s.io/v1", "IngressClass",
			`"spec":{"controller":"example.com/c","parameters":{"apiGroup":"beta-x.io","kind":"Params","name":"p","scope":"Cluster"}}`),
			harmless: "the parameters are read by the controller named in the class with its own rights; a tenant's identity gains nothing of beta's by naming them"},
		"ingressclasses.networking.k8s.io spec.parameters.namespace": {obj: clusterObject("networking.k8s.io/v1", "IngressClass",
			`"spec":{"controller":"example.com/c","parameters":{"kind":"ConfigMap","name":"p","scope":"Namespace","namespace":"beta-default"}}`),
			denial: "the namespaces tenant acme names must start with acme-"},
		"priorityclasses.scheduling.k8s.io value":                   {obj: clusterObject("scheduling.k8s.io/v1", "PriorityClass", `"value":1000000`), denial: byPriority},
		"customresourcedefinitions.apiextensions.k8s.io spec.group": {obj: walkCRD("beta-x.io", ""), denial: byTenantPolicy},
		"customresourcedefinitions.apiextensions.k8s.io spec.conversion.webhook.clientConfig.service.namespace": {
			obj: walkCRD("acme-x.io", `{"service":{"name":"s","namespace":"beta-default"}}`), denial: "the namespaces tenant acme names must start with acme-"},
		"customresourcedefinitions.apiextensions.k8s.io spec.conversion.webhook.clientConfig.url": {
			obj: walkCRD("acme-x.io", `{"url":"https://203.0.113.11/convert"}`), denial: "may not name a conversion webhook URL"},
	},
)

// walkCRD is a CRD of group in upstream form, with a conversion webhook's
// clientConfig when given.
func walkCRD(group, clientConfig string) string {
	conversion := ""
	if clientConfig != "" {
		conversion = `,"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":` + clientConfig + `}}`
	}
	return `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"walks.` + group +
		`","labels":{"zoo.kubectl-zoo.io/tenant":"acme"}},"spec":{"group":"` + group + `","scope":"Namespaced","names":{"plural":"walks","kind":"Walk"},` +
		`"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]` + conversion + `}}`
}

func mergeUpstream(ms ...map[string]upstreamCase) map[string]upstreamCase {
	out := map[string]upstreamCase{}
	for _, m := range ms {
		for k, v := range m {
			if _, dup := out[k]; dup {
				panic("upstream case twice: " + k)
			}
			out[k] = v
		}
	}
	return out
}
