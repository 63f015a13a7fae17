package translate

// deviceClassRefs are the DeviceClass names of the device requests of a
// ResourceClaim's spec at path ("spec", or "spec.spec" in a
// ResourceClaimTemplate): DeviceClasses are shared, so a request names the
// tenant's own class, else the cluster's, never another tenant's (its
// selectors and its drivers' configuration apply to the devices the tenant
// gets).
func deviceClassRefs(path string) []Ref {
	return []Ref{
		sharedNameRef(path+".devices.requests[].exactly", "deviceClassName", grDeviceClass),
		sharedNameRef(path+".devices.requests[].firstAvailable[]", "deviceClassName", grDeviceClass),
	}
}
