package translate

import (
	"bytes"
	"strings"
)

// The API server records who set which field in metadata.managedFields
// (fieldsV1: "f:<field>" for a field, `k:{"name":"x"}` for a list entry by
// key). The injected API access shows there too, under whoever wrote the
// pod or template (the tenant's manager, or the ReplicaSet controller for
// the pods it makes), so apiAccessFieldsOut removes it, as metadataOut
// removes TenantLabel.

var (
	apiAccessVolumeKey = `k:{"name":"` + APIAccessName + `"}`
	apiAccessMountKey  = `k:{"mountPath":"` + ServiceAccountPath + `"}`
	apiAccessFieldsB   = [][]byte{[]byte(APIAccessName), []byte("KUBERNETES_SERVICE_")}
)

// apiAccessFieldsIn reports whether raw managedFields may record injected
// fields (so the fast path decodes them).
func apiAccessFieldsIn(raw []byte) bool {
	for _, b := range apiAccessFieldsB {
		if bytes.Contains(raw, b) {
			return true
		}
	}
	return false
}

// apiAccessFieldsOut removes the injected volume, mounts and variables from
// the field sets of obj's managedFields. Which mount or variable was
// injected is read off the object (already stripped by apiAccessOut): a
// container that still has one of its own keeps it. Without the pod spec
// (a Table row's metadata), a variable is taken as injected when it was set
// from a ConfigMap key, and the mount at ServiceAccountPath with it.
func apiAccessFieldsOut(rule *KindRule, obj map[string]any) {
	entries := list(child(obj, "metadata"), "managedFields")
	if len(entries) == 0 {
		return
	}
	for _, path := range podSpecPaths(rule) {
		var spec map[string]any
		_ = walk(obj, path, func(s map[string]any) error { spec = s; return nil })
		fieldPath := strings.Split(path, ".")
		for _, e := range entries {
			node := child(asMap(e), "fieldsV1")
			for _, f := range fieldPath {
				node = child(node, "f:"+f)
			}
			if node == nil {
				continue
			}
			removeField(node, "f:volumes", apiAccessVolumeKey)
			for _, key := range containerLists {
				for k, v := range child(node, "f:"+key) {
					if name, ok := strings.CutPrefix(k, `k:{"name":`); ok {
						containerFieldsOut(asMap(v), containerNamed(spec, key, strings.TrimSuffix(name, "}")), spec != nil)
					}
				}
			}
		}
	}
}

// containerFieldsOut removes the injected fields of one container's field
// set; ctr is the container in the object (nil if absent), known whether
// the object carried its pod spec.
func containerFieldsOut(fields, ctr map[string]any, known bool) {
	env := child(fields, "f:env")
	injected := false
	for _, v := range apiAccessEnv {
		key := `k:{"name":"` + v[0] + `"}`
		set := child(env, key)
		if set == nil {
			continue
		}
		if known && declares(ctr, v[0]) || !known && child(child(set, "f:valueFrom"), "f:configMapKeyRef") == nil {
			continue
		}
		injected = true
		removeField(fields, "f:env", key)
	}
	if known && !mountsServiceAccountPath(ctr) || !known && injected {
		removeField(fields, "f:volumeMounts", apiAccessMountKey)
	}
}

// removeField deletes key from the set fields[list], and the set when only
// its "." is left.
func removeField(fields map[string]any, list, key string) {
	set := child(fields, list)
	if _, ok := set[key]; !ok {
		return
	}
	delete(set, key)
	if _, dot := set["."]; len(set) == 0 || dot && len(set) == 1 {
		delete(fields, list)
	}
}

// containerNamed finds a container of a pod spec by its quoted JSON name.
func containerNamed(spec map[string]any, key, quoted string) map[string]any {
	for _, c := range list(spec, key) {
		ctr := asMap(c)
		if `"`+str(ctr, "name")+`"` == quoted {
			return ctr
		}
	}
	return nil
}
