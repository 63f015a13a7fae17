package translate

// claimSpecRefs are the references of a claim's spec at path: a
// PersistentVolumeClaim's ("spec"), and the claim templates that the
// StatefulSet and ephemeral-volume controllers make claims from. A
// template's claim is made by a controller, not by the tenant, so its
// references are translated in the template as in a claim: the volume it
// pre-binds is the tenant's own (zoo-tenant-storage holds the claim the
// controller makes upstream), its classes the tenant's or the cluster's.
func claimSpecRefs(path string) []Ref {
	return []Ref{
		clusterNameRef(path, "volumeName", grPV),
		claimClassRef(path),
		sharedNameRef(path, "volumeAttributesClassName", grVolumeAttrClass),
	}
}
