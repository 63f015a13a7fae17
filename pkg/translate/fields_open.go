package translate

// openFieldRules are reference-like fields that reach outside the tenant
// and that nothing holds yet: TestSchemaWalk prints them, docs/kinds.md
// lists them. Each says what a tenant can do with it; the work that closes
// one replaces it with a Ref or a rule of its class.
var openFieldRules = concatRules(
	fieldsOf("networking.k8s.io/Ingress", FieldOpen,
		"host names are one space for every tenant of the shared ingress controllers: a tenant's Ingress may claim another tenant's host, which the controller then merges or races",
		"spec.rules[].host", "spec.tls[].hosts"),
	defs(FieldOpen,
		"the machines mount the storage at an address or cloud disk the tenant names (Pod Security baseline allows it, restricted refuses inline sources): another tenant's export, target or disk, with the machine's network and credentials",
		"core.NFSVolumeSource.server", "core.ISCSIVolumeSource.targetPortal", "core.ISCSIVolumeSource.portals",
		"core.ISCSIPersistentVolumeSource.targetPortal", "core.ISCSIPersistentVolumeSource.portals",
		"core.AzureDiskVolumeSource.diskName", "core.AzureDiskVolumeSource.diskURI", "core.GCEPersistentDiskVolumeSource.pdName",
		"core.AWSElasticBlockStoreVolumeSource.volumeID", "core.CinderVolumeSource.volumeID", "core.CinderPersistentVolumeSource.volumeID",
		"core.PortworxVolumeSource.volumeID", "core.PhotonPersistentDiskVolumeSource.pdID"),
	defs(FieldOpen,
		"a tenant's static volume names the storage backend's volume by its handle, which the platform's CSI driver attaches and mounts with its own credentials: another tenant's provisioned volume",
		"core.CSIPersistentVolumeSource.volumeHandle"),
)
