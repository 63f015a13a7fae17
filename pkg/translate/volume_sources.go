package translate

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Volume sources: every source a pod's volume (core/v1 VolumeSource) or a
// PersistentVolume (PersistentVolumeSource) may have is classified here, and
// TestVolumeSourcesClassified fails on one of the pinned API that is not.
// A source that makes the machines mount storage outside the cluster at an
// address or by an identifier the tenant names (an NFS export, an iSCSI
// target, a cloud disk, a CSI driver's volume handle) would give the tenant
// another tenant's storage, or the platform's, with the machine's network
// and credentials: it is refused unless the tenant's policy lists it
// (`kubectl zoo policy set T --volume-sources nfs,...`), by the proxy and
// upstream (pkg/admissionrules/volumes.go).

// VolumeSourceClass says how a volume source is held.
type VolumeSourceClass int

// The classes of volume sources.
const (
	// VolumeSourceOwn sources hold the pod's own data or name objects of
	// its own namespace (a Secret, a claim): allowed.
	VolumeSourceOwn VolumeSourceClass = iota + 1
	// VolumeSourceMachine sources are paths of the shared machines: Pod
	// Security (baseline) refuses them in pods; refused on volumes
	// (PVHostSources).
	VolumeSourceMachine
	// VolumeSourceExternal sources name storage outside the cluster:
	// refused unless the tenant's policy lists them.
	VolumeSourceExternal
)

// String names the class ("-" where the field is not a source).
func (c VolumeSourceClass) String() string {
	switch c {
	case VolumeSourceOwn:
		return "own"
	case VolumeSourceMachine:
		return "machine"
	case VolumeSourceExternal:
		return "external"
	}
	return "-"
}

// VolumeSource classifies one source, by its field name, in a pod's volumes
// (Pod) and in a PersistentVolume's spec (Volume); 0 where it is not a
// source.
type VolumeSource struct {
	Name        string
	Pod, Volume VolumeSourceClass
	Reason      string
}

const (
	ownData     = "the pod's own data, or an object of its own namespace"
	outside     = "the machines mount storage outside the cluster that the tenant names, with their network and credentials"
	hostsDriver = "the machines run a driver binary of theirs with options the tenant writes"
)

// VolumeSources is the classification of every volume source.
var VolumeSources = []VolumeSource{
	{Name: "emptyDir", Pod: VolumeSourceOwn, Reason: ownData},
	{Name: "secret", Pod: VolumeSourceOwn, Reason: ownData},
	{Name: "configMap", Pod: VolumeSourceOwn, Reason: ownData},
	{Name: "downwardAPI", Pod: VolumeSourceOwn, Reason: ownData},
	{Name: "projected", Pod: VolumeSourceOwn, Reason: ownData},
	{Name: "persistentVolumeClaim", Pod: VolumeSourceOwn, Reason: "a claim of the pod's namespace, bound only to the tenant's volumes or provisioned ones"},
	{Name: "ephemeral", Pod: VolumeSourceOwn, Reason: "a claim made from the template in the pod's namespace (its class translated)"},
	{Name: "image", Pod: VolumeSourceOwn, Reason: "an image, pulled as a container's image is, with the pod's own pull secrets"},
	{Name: "hostPath", Pod: VolumeSourceMachine, Volume: VolumeSourceMachine, Reason: "a path of the shared machines: Pod Security baseline refuses it in pods; refused on volumes"},
	{Name: "local", Volume: VolumeSourceMachine, Reason: "a path of the shared machines: refused on volumes"},
	{Name: "csi", Pod: VolumeSourceOwn, Volume: VolumeSourceExternal,
		Reason: "in a pod, an ephemeral volume of a driver the platform registered for that mode, which judges its attributes; on a volume, the driver's volume handle names any volume of the backend"},
	{Name: "nfs", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "iscsi", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "fc", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "rbd", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "cephfs", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "glusterfs", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "quobyte", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "scaleIO", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "storageos", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "flocker", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "portworxVolume", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "gcePersistentDisk", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "awsElasticBlockStore", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "azureDisk", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "azureFile", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "cinder", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "vsphereVolume", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "photonPersistentDisk", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: outside},
	{Name: "flexVolume", Pod: VolumeSourceExternal, Volume: VolumeSourceExternal, Reason: hostsDriver},
	{Name: "gitRepo", Pod: VolumeSourceExternal, Reason: "the machines clone a repository at a URL the tenant names, from their network"},
}

// ExternalVolumeSources are the names of the sources a tenant's policy may
// allow (VolumeSourceExternal in a pod or on a volume), in table order.
func ExternalVolumeSources() []string {
	var out []string
	for _, s := range VolumeSources {
		if s.Pod == VolumeSourceExternal || s.Volume == VolumeSourceExternal {
			out = append(out, s.Name)
		}
	}
	return out
}

// ValidateVolumeSource reports why name may not be in a policy's list of
// volume sources: it must be an external source of VolumeSources.
func ValidateVolumeSource(name string) error {
	if !slices.Contains(ExternalVolumeSources(), name) {
		return fmt.Errorf("%q is not a volume source that names storage outside the cluster (one of %v)", name, ExternalVolumeSources())
	}
	return nil
}

// VolumeSourceLookup is an optional extension of PlatformLookup: the
// volume sources the tenant's policy allows. Without it, none is allowed.
type VolumeSourceLookup interface {
	AllowedVolumeSources() ([]string, error)
}

// podVolumeSourceRefs are the Refs of the external sources of the volumes
// of the pod spec at path.
func podVolumeSourceRefs(path string) []Ref {
	var out []Ref
	for _, s := range VolumeSources {
		if s.Pod == VolumeSourceExternal {
			out = append(out, volumeSourceRef(grPod, path+".volumes[]", s.Name))
		}
	}
	return out
}

// pvVolumeSourceRefs are the Refs of a PersistentVolume's external sources.
func pvVolumeSourceRefs() []Ref {
	var out []Ref
	for _, s := range VolumeSources {
		if s.Volume == VolumeSourceExternal {
			out = append(out, volumeSourceRef(grPV, "spec", s.Name))
		}
	}
	return out
}

// volumeSourceRef refuses, on the way in, the source key of the volumes at
// path unless the tenant's policy allows it.
func volumeSourceRef(gr schema.GroupResource, path, key string) Ref {
	field := path + "." + key
	return Ref{Field: field, Target: TargetStorage, apply: func(m *mapper, obj map[string]any) error {
		if !m.in {
			return nil
		}
		return walk(obj, path, func(vol map[string]any) error {
			if v, set := vol[key]; !set || v == nil {
				return nil
			}
			ok, err := m.allowedVolumeSource(key)
			if err != nil || ok {
				return err
			}
			return forbidden(gr, str(child(obj, "metadata"), "name"), fmt.Sprintf("%s: the volume source %s is not one the tenant's policy allows (%s): %s",
				field, key, "kubectl zoo policy set --volume-sources", outside))
		})
	}}
}

// allowedVolumeSource reports whether the tenant's policy allows the source.
func (m *mapper) allowedVolumeSource(name string) (bool, error) {
	l, ok := m.t.opts.Platform.(VolumeSourceLookup)
	if !ok {
		return false, nil
	}
	allowed, err := m.policyList("volumeSources", l.AllowedVolumeSources)
	if err != nil {
		return false, lookupError("read the volume sources the tenant's policy allows", err)
	}
	return slices.Contains(allowed, name), nil
}
