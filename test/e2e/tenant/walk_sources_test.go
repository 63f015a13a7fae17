package tenant_test

import (
	"slices"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// Volume sources and ingress hosts: refused upstream unless acme's policy
// allows them (translate/volume_sources.go, refs_ingress.go).

// walkVolumeSources are the sources acme's policy allows in the walk: those
// of the PersistentVolume cases of other references (their secrets'
// namespaces), so that each is refused for that reference alone.
var walkVolumeSources = []string{"csi", "cephfs", "cinder", "flexVolume", "iscsi", "rbd", "scaleIO", "storageos", "azureFile"}

// validSources are a valid value of each external source, naming storage of
// tenant beta's (an export, a target, a disk, a handle).
var validSources = map[string]string{
	"nfs":                  `{"server":"10.0.0.5","path":"/exports/beta"}`,
	"iscsi":                `{"targetPortal":"10.0.0.6:3260","iqn":"iqn.2001-04.com.beta:disk","lun":0}`,
	"fc":                   `{"targetWWNs":["500a0982991b8dc5"],"lun":0}`,
	"rbd":                  `{"monitors":["10.0.0.7:6789"],"image":"beta"}`,
	"cephfs":               `{"monitors":["10.0.0.7:6789"]}`,
	"glusterfs":            `{"endpoints":"beta","path":"beta"}`,
	"quobyte":              `{"registry":"10.0.0.8:7861","volume":"beta"}`,
	"scaleIO":              `{"gateway":"https://10.0.0.9","system":"beta","volumeName":"beta","secretRef":{"name":"s"}}`,
	"storageos":            `{"volumeName":"beta"}`,
	"flocker":              `{"datasetName":"beta"}`,
	"portworxVolume":       `{"volumeID":"beta"}`,
	"gcePersistentDisk":    `{"pdName":"beta"}`,
	"awsElasticBlockStore": `{"volumeID":"vol-0beta"}`,
	"azureDisk":            `{"diskName":"beta","diskURI":"https://beta.blob.core.windows.net/vhds/beta.vhd"}`,
	"azureFile":            `{"secretName":"s","shareName":"beta"}`,
	"cinder":               `{"volumeID":"beta"}`,
	"vsphereVolume":        `{"volumePath":"[ds] beta.vmdk"}`,
	"photonPersistentDisk": `{"pdID":"beta"}`,
	"flexVolume":           `{"driver":"example.com/beta"}`,
	"gitRepo":              `{"repository":"http://169.254.169.254/latest/"}`,
	"csi":                  `{"driver":"ebs.csi.aws.com","volumeHandle":"vol-0beta"}`,
}

// sourceCase is the case of the external source name: refused unless the
// walk's policy allows it.
func sourceCase(obj, name string) upstreamCase {
	if slices.Contains(walkVolumeSources, name) {
		return upstreamCase{obj: obj, harmless: "the walk's policy of acme allows the source " + name +
			" (--volume-sources): the platform lets acme mount that kind of storage; TestVolumeSourcesOfThePolicy refuses it without"}
	}
	return upstreamCase{obj: obj, denial: "the volume source " + name + " is not one the policy of tenant acme allows"}
}

// podSourceCases are the external sources of the pod spec at field of a
// kind (podSpecUpstreamCases' obj builds its object from pod spec fields).
func podSourceCases(key, field string, obj func(extra string) string) map[string]upstreamCase {
	out := map[string]upstreamCase{}
	for _, s := range translate.VolumeSources {
		if s.Pod == translate.VolumeSourceExternal {
			out[key+" "+field+".volumes[]."+s.Name] = sourceCase(obj(`"volumes":[{"name":"v","`+s.Name+`":`+validSources[s.Name]+`}]`), s.Name)
		}
	}
	return out
}

// pvSourceUpstreamCases are the external sources of a PersistentVolume.
func pvSourceUpstreamCases() map[string]upstreamCase {
	out := map[string]upstreamCase{}
	for _, s := range translate.VolumeSources {
		if s.Volume == translate.VolumeSourceExternal {
			v := validSources[s.Name]
			if s.Name == "azureFile" { // a volume's names the namespace of its secret
				v = `{"secretName":"s","shareName":"beta","secretNamespace":"acme-default"}`
			}
			out["persistentvolumes spec."+s.Name] = sourceCase(pvObject(`"`+s.Name+`":`+v), s.Name)
		}
	}
	return out
}

// byIngressHosts is zoo-tenant-ingress-hosts.
const byIngressHosts = "ValidatingAdmissionPolicy 'zoo-tenant-ingress-hosts'"

// walkIngressHosts are the hosts acme's policy allows in the walk.
const walkIngressHosts = "*.acme.io"

// ingressRule is an Ingress rule for host.
func ingressRule(host string) string {
	return `{"host":"` + host + `","http":{"paths":[{"path":"/","pathType":"Prefix","backend":{"service":{"name":"web","port":{"number":80}}}}]}}`
}

// ingressHostUpstreamCases claim beta's host, and every host.
func ingressHostUpstreamCases() map[string]upstreamCase {
	ingress := func(spec string) string { return nsObject("networking.k8s.io/v1", "Ingress", `"spec":{`+spec+`}`) }
	return map[string]upstreamCase{
		"ingresses.networking.k8s.io spec.rules[].host": {obj: ingress(`"rules":[` + ingressRule("web.acme.io") + `,` + ingressRule("shop.beta.io") + `]`),
			denial: byIngressHosts},
		"ingresses.networking.k8s.io spec.tls[].hosts": {obj: ingress(`"rules":[` + ingressRule("web.acme.io") + `],"tls":[{"hosts":["shop.beta.io"],"secretName":"t"}]`),
			denial: byIngressHosts},
		"ingresses.networking.k8s.io spec.defaultBackend": {obj: ingress(`"defaultBackend":{"service":{"name":"web","port":{"number":80}}}`), denial: byIngressHosts},
	}
}
