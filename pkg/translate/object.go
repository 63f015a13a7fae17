package translate

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ObjectToUpstream translates, in place, a tenant object of the tenant
// resource gr (decoded JSON) into the object the upstream stores.
func (t *Translator) ObjectToUpstream(gr schema.GroupResource, obj map[string]any) error {
	return t.objectIn(t.Rule(gr, hasNamespace(obj)), obj)
}

// ObjectToTenant translates, in place, an upstream object of the tenant
// resource gr into what the tenant sees. An object that is not the tenant's
// yields a 404 *Error that wraps ErrNotTenants: lists and watches drop it.
func (t *Translator) ObjectToTenant(gr schema.GroupResource, obj map[string]any) error {
	return t.objectOut(t.Rule(gr, hasNamespace(obj)), obj)
}

func hasNamespace(obj map[string]any) bool {
	return str(child(obj, "metadata"), "namespace") != ""
}

func (t *Translator) objectIn(rule *KindRule, obj map[string]any) error {
	m := t.toUp
	if t.opts.Shared != nil || t.opts.Platform != nil {
		// Each object gets its own budget of lookups (refs_budget.go) and
		// reads each list of the tenant's policy once.
		m = &mapper{t: t, in: true, lookups: &lookupBudget{}, lists: map[string][]string{}}
	}
	meta := child(obj, "metadata")
	name := str(meta, "name")
	switch rule.Treatment {
	case Hidden:
		return notFound(rule.Resource, name)
	case Forbidden, ReadOnly:
		return forbidden(rule.Resource, name, rule.Reason)
	}
	if err := m.mapString(obj, "apiVersion", m.apiVersion); err != nil {
		return err
	}
	if err := checkAnnotations(rule, meta); err != nil {
		return err
	}
	if meta != nil {
		if err := t.metadataIn(rule, meta); err != nil {
			return err
		}
	}
	if rule.Check != nil {
		if err := rule.Check(m, obj); err != nil {
			return err
		}
	}
	if err := applyRefs(m, rule, obj); err != nil {
		return err
	}
	return t.apiAccessIn(rule, obj)
}

func (t *Translator) metadataIn(rule *KindRule, meta map[string]any) error {
	m := t.toUp
	labels := child(meta, "labels")
	if _, set := labels[TenantLabel]; set {
		return forbidden(rule.Resource, str(meta, "name"), fmt.Sprintf("the label %s is managed by kubectl-zoo and may not be set", TenantLabel))
	}
	if err := m.mapLabelKeys(rule, str(meta, "name"), labels); err != nil {
		return err
	}
	if rule.Treatment != Namespaced {
		// The API server clears the namespace of a cluster-scoped object;
		// the proxy does not forward it untranslated either.
		delete(meta, "namespace")
	}
	switch rule.Treatment {
	case Namespaced:
		if err := m.mapString(meta, "namespace", m.namespace); err != nil {
			return err
		}
	case TenantOwned, Shared:
		if err := m.mapString(meta, "name", func(s string) (string, error) { return t.ownName(rule, s) }); err != nil {
			return err
		}
		if g := str(meta, "generateName"); g != "" {
			meta["generateName"] = t.tenant.UpstreamGenerateName(g)
		}
		ensureChild(meta, "labels")[TenantLabel] = t.tenant.Name()
	}
	if rule.NameIsNamespace {
		if err := m.mapString(child(meta, "labels"), MetadataNameLabel, m.namespace); err != nil {
			return err
		}
	}
	if err := m.ownerReferences(meta); err != nil {
		return err
	}
	return m.managedFields(rule, meta)
}

// checkAnnotations refuses the annotations the kind's row does not allow.
func checkAnnotations(rule *KindRule, meta map[string]any) error {
	for k := range child(meta, "annotations") {
		if ar, ok := refusedAnnotation(rule, k); ok {
			return annotationError(rule, str(meta, "name"), ar)
		}
	}
	return nil
}

// refusedAnnotation returns the rule of key on the kind, if any.
func refusedAnnotation(rule *KindRule, key string) (AnnotationRule, bool) {
	for _, ar := range rule.Annotations {
		if strings.EqualFold(ar.Key, key) {
			return ar, true
		}
	}
	return AnnotationRule{}, false
}

func annotationError(rule *KindRule, name string, ar AnnotationRule) error {
	return forbidden(rule.Resource, name, fmt.Sprintf("tenants may not set the annotation %s: %s", ar.Key, ar.Reason))
}

// completeIn runs the kind's Complete on a whole object on its way in.
func (t *Translator) completeIn(rule *KindRule, obj map[string]any) error {
	if rule.Complete == nil {
		return nil
	}
	return rule.Complete(t.toUp, obj)
}

// ownName maps the name of a tenant's own cluster-scoped object.
func (t *Translator) ownName(rule *KindRule, name string) (string, error) {
	switch {
	case rule.NameIsNamespace:
		return t.tenant.UpstreamNamespace(name)
	case rule.Resource == grCRD:
		return t.tenant.UpstreamCRDName(name)
	}
	return t.tenant.UpstreamClusterName(rule.Kind, rule.Resource.Group, name)
}

func (t *Translator) objectOut(rule *KindRule, obj map[string]any) error {
	m := t.toTen
	meta := child(obj, "metadata")
	name := str(meta, "name")
	if rule.Treatment == Hidden {
		return notFound(rule.Resource, name)
	}
	if av := str(obj, "apiVersion"); av != "" {
		local, ok := t.tenant.TenantAPIVersion(av)
		if !ok {
			return notFound(rule.Resource, name)
		}
		obj["apiVersion"] = local
	}
	if meta != nil {
		if err := t.metadataOut(rule, meta); err != nil {
			return err
		}
	}
	apiAccessOut(rule, obj)
	apiAccessFieldsOut(rule, obj)
	return applyRefs(m, rule, obj)
}

func (t *Translator) metadataOut(rule *KindRule, meta map[string]any) error {
	m := t.toTen
	name := str(meta, "name")
	labels := child(meta, "labels")
	owner, labelled := labels[TenantLabel].(string)
	switch rule.Treatment {
	case Namespaced:
		if ns := str(meta, "namespace"); ns != "" {
			local, ok := t.tenant.TenantNamespace(ns)
			if !ok {
				return notFound(rule.Resource, name)
			}
			meta["namespace"] = local
		}
	case TenantOwned, Shared:
		if labelled && owner != t.tenant.Name() {
			return notFound(rule.Resource, name)
		}
		if !labelled && rule.Access == AccessProxy {
			// The proxy serves these with its own identity: an object
			// without the tenant's label is not the tenant's, even when
			// its name has the prefix (the platform may have made it).
			return notFound(rule.Resource, name)
		}
		if rule.Treatment == TenantOwned || labelled {
			local, err := m.objectNameOwned(rule, name)
			if err != nil {
				return notFound(rule.Resource, name)
			}
			if name != "" {
				meta["name"] = local
			}
			if g, ok := t.tenant.TenantClusterName(str(meta, "generateName")); ok {
				meta["generateName"] = g
			}
		}
	}
	if labelled {
		delete(labels, TenantLabel)
		if len(labels) == 0 {
			delete(meta, "labels")
		}
	}
	if err := m.mapLabelKeys(rule, name, labels); err != nil {
		return err
	}
	if rule.NameIsNamespace {
		if err := m.mapString(child(meta, "labels"), MetadataNameLabel, m.namespace); err != nil {
			return err
		}
	}
	if err := m.ownerReferences(meta); err != nil {
		return err
	}
	return m.managedFields(rule, meta)
}

// objectNameOwned maps an outbound name of the tenant's own object.
func (m *mapper) objectNameOwned(rule *KindRule, name string) (string, error) {
	if name == "" {
		return "", nil
	}
	if rule.Treatment == Shared {
		if local, ok := m.tenant().TenantClusterName(name); ok {
			return local, nil
		}
		return "", foreign(rule.Resource.String(), name)
	}
	return m.objectName(rule, name)
}

func applyRefs(m *mapper, rule *KindRule, obj map[string]any) error {
	for _, ref := range rule.Refs {
		if err := ref.apply(m, obj); err != nil {
			// A refusal names the field it is about.
			var e *Error
			if m.in && errors.As(err, &e) && !strings.Contains(e.Message, ref.Field) {
				named := *e
				named.Message = ref.Field + ": " + e.Message
				return &named
			}
			return fmt.Errorf("%s: %w", ref.Field, err)
		}
	}
	return nil
}

// managedFields maps managedFields[].apiVersion and the kind's mapped label
// keys (KindRule.LabelKeys), and hides TenantLabel from the recorded field
// sets.
func (m *mapper) managedFields(rule *KindRule, meta map[string]any) error {
	entries, ok := meta["managedFields"].([]any)
	if !ok {
		return nil
	}
	for _, e := range entries {
		entry, ok := e.(map[string]any)
		if !ok {
			continue
		}
		if err := m.mapString(entry, "apiVersion", m.apiVersion); err != nil {
			return err
		}
		labels := child(child(child(entry, "fieldsV1"), "f:metadata"), "f:labels")
		if labels != nil && !m.in {
			delete(labels, "f:"+TenantLabel)
		}
		if err := m.mapManagedLabelKeys(rule, labels); err != nil {
			return err
		}
	}
	return nil
}

// IsNotTenants reports whether err says that an object is not the tenant's.
func IsNotTenants(err error) bool { return errors.Is(err, ErrNotTenants) }
