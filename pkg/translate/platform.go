package translate

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Pod Security: every namespace of a tenant carries the platform's Pod
// Security labels. The level is the tenant's (PodSecurityLevelAnnotation on
// its Tenant record, DefaultPodSecurityLevel without it); the labels are
// platform-owned metadata (platformTable), so a tenant can neither lower nor
// drop them.
const (
	PodSecurityPrefix  = "pod-security.kubernetes.io/"
	PodSecurityEnforce = PodSecurityPrefix + "enforce"
	PodSecurityWarn    = PodSecurityPrefix + "warn"
	PodSecurityAudit   = PodSecurityPrefix + "audit"
	// DefaultPodSecurityLevel is the level of a tenant whose record names
	// none.
	DefaultPodSecurityLevel = "baseline"
	// PodSecurityLevelAnnotation on a Tenant record names the Pod Security
	// level of the tenant's namespaces (privileged, baseline, restricted).
	// Only the platform writes Tenant records.
	PodSecurityLevelAnnotation = APIGroup + "/pod-security"
	// PriorityClassesAnnotation on a tenant namespace lists, comma-separated,
	// the cluster's PriorityClasses of positive value that pods in that
	// namespace may use. It is platform-owned metadata; without it no
	// positive class is allowed.
	PriorityClassesAnnotation = APIGroup + "/priority-classes"
)

// PodSecurityLevels are the valid Pod Security levels.
var PodSecurityLevels = []string{"privileged", "baseline", "restricted"}

// PodSecurityLabelKeys are the labels the platform sets on every tenant
// namespace, all to the tenant's level.
var PodSecurityLabelKeys = []string{PodSecurityEnforce, PodSecurityWarn, PodSecurityAudit}

// PodSecurityLabels returns the labels of a tenant namespace at level.
func PodSecurityLabels(level string) map[string]string {
	out := make(map[string]string, len(PodSecurityLabelKeys))
	for _, k := range PodSecurityLabelKeys {
		out[k] = level
	}
	return out
}

// PodSecurityRank orders the Pod Security levels from the loosest
// (privileged, 0) to the strictest (restricted, 2); it is -1 for anything
// else.
func PodSecurityRank(level string) int { return slices.Index(PodSecurityLevels, level) }

// PodSecurityAtLeast reports whether level is a valid Pod Security level at
// least as strict as floor. A tenant may label its namespaces with such a
// level: stricter than its own is never a way around it.
func PodSecurityAtLeast(level, floor string) bool {
	r := PodSecurityRank(level)
	return r >= 0 && r >= PodSecurityRank(floor)
}

// ValidatePodSecurityLevel checks a Pod Security level.
func ValidatePodSecurityLevel(level string) error {
	if !slices.Contains(PodSecurityLevels, level) {
		return fmt.Errorf("pod security level %q is not one of %s", level, strings.Join(PodSecurityLevels, ", "))
	}
	return nil
}

// PlatformKey is one row of the table of platform-owned metadata: labels or
// annotations that admission plugins, controllers or kubectl-zoo key on.
// Tenants see them but may not add, change or remove them, through the proxy
// (a 403 naming the key) nor directly upstream (the zoo-tenant-metadata
// admission policy, built from this table).
type PlatformKey struct {
	// Key is an exact key, or, ending in "/", every key with that prefix.
	Key string
	// Annotation says the key is an annotation, not a label.
	Annotation bool
	// Resource is the (upstream) resource whose objects carry it.
	Resource schema.GroupResource
	// Reader names who reads it (shown in the 403).
	Reader string
	// APIServer marks keys the API server itself keeps (it sets
	// kubernetes.io/metadata.name to the namespace's name on every write):
	// neither the proxy nor admission need to judge them.
	APIServer bool
	// Allowed is a value that is harmless, or "" for none: a tenant may
	// write the key with it, and may remove the key (a default-class
	// annotation "false" makes no class the default, and neither does its
	// absence).
	Allowed string
	// FoldCase makes the proxy match the key without regard to case, so
	// that its variants are refused too, as zoo-tenant-storage refuses them
	// upstream for every writer (zoo-tenant-metadata leaves the variants
	// to it and judges the exact key).
	FoldCase bool
}

// Matches reports whether key falls under the row.
func (k *PlatformKey) Matches(key string) bool {
	if k.FoldCase {
		key = strings.ToLower(key)
	}
	if strings.HasSuffix(k.Key, "/") {
		return strings.HasPrefix(key, k.Key)
	}
	return key == k.Key
}

// Defaults that reach every tenant: a default StorageClass or IngressClass
// is used for every new claim or Ingress that names none, whoever made it.
// A tenant's class may never be the default (403 naming the annotation);
// "false" is harmless and allowed. A tenant PriorityClass is never the
// global default either (priorityClassConfinement sets globalDefault false).
const (
	DefaultStorageClassAnnotation     = "storageclass.kubernetes.io/is-default-class"
	BetaDefaultStorageClassAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
	DefaultIngressClassAnnotation     = "ingressclass.kubernetes.io/is-default-class"
)

// platformTable is THE table of platform-owned metadata. Keys are
// case-sensitive, as the API server and its plugins read them. Sources: the
// admission plugins of k8s.io/kubernetes v1.34 (plugin/pkg/admission:
// podnodeselector, podtolerationrestriction, storage/storageclass/setdefault,
// network/defaultingressclass) and Pod Security admission.
var platformTable = []PlatformKey{
	{Key: PodSecurityPrefix, Resource: grNamespace, Reader: "Pod Security admission"},
	{Key: "scheduler.alpha.kubernetes.io/", Annotation: true, Resource: grNamespace,
		Reader: "the PodNodeSelector and PodTolerationRestriction admission plugins"},
	{Key: APIGroup + "/", Resource: grNamespace, Reader: "kubectl-zoo"},
	{Key: APIGroup + "/", Annotation: true, Resource: grNamespace, Reader: "kubectl-zoo"},
	{Key: MetadataNameLabel, Resource: grNamespace, Reader: "namespace selectors", APIServer: true},
	{Key: DefaultStorageClassAnnotation, Annotation: true, Resource: grStorageClass, Allowed: "false", FoldCase: true,
		Reader: "the DefaultStorageClass admission plugin, for every tenant's claims"},
	{Key: BetaDefaultStorageClassAnnotation, Annotation: true, Resource: grStorageClass, Allowed: "false", FoldCase: true,
		Reader: "the DefaultStorageClass admission plugin, for every tenant's claims"},
	{Key: DefaultIngressClassAnnotation, Annotation: true, Resource: grIngressClass, Allowed: "false", FoldCase: true,
		Reader: "the DefaultIngressClass admission plugin, for every tenant's ingresses"},
}

// PlatformMetadata returns the table of platform-owned metadata, in order.
func PlatformMetadata() []PlatformKey { return slices.Clone(platformTable) }

// platformKey returns the row that makes key of an object of gr
// platform-owned and judged. TenantLabel has rules of its own (metadataIn,
// and the zoo-tenant policy), so it is never one.
func platformKey(gr schema.GroupResource, annotation bool, key string) (*PlatformKey, bool) {
	if !annotation && key == TenantLabel {
		return nil, false
	}
	for i := range platformTable {
		r := &platformTable[i]
		if r.Resource == gr && r.Annotation == annotation && !r.APIServer && r.Matches(key) {
			return r, true
		}
	}
	return nil, false
}

// hasPlatformMetadata reports whether objects of gr carry platform-owned
// metadata.
func hasPlatformMetadata(gr schema.GroupResource) bool {
	for i := range platformTable {
		if platformTable[i].Resource == gr && !platformTable[i].APIServer {
			return true
		}
	}
	return false
}

// Metadata is the labels and annotations of an upstream object.
type Metadata struct {
	Labels      map[string]string
	Annotations map[string]string
}

func (md *Metadata) field(annotation bool) map[string]string {
	if md == nil {
		return nil
	}
	if annotation {
		return md.Annotations
	}
	return md.Labels
}

// PlatformLookup answers what the pure core cannot know about platform-owned
// metadata and priorities. The proxy implements it with (cached) upstream
// reads.
type PlatformLookup interface {
	// CurrentMetadata returns the labels and annotations of the upstream
	// object at path (no subresource); found is false when it does not exist.
	CurrentMetadata(path string) (md Metadata, found bool, err error)
	// PodSecurityLevel returns the Pod Security level of the tenant.
	PodSecurityLevel() (string, error)
	// PriorityClassValue returns the value of the upstream PriorityClass
	// name; found is false when it does not exist.
	PriorityClassValue(name string) (value int64, found bool, err error)
	// AllowedPriorityClasses returns the cluster PriorityClasses of positive
	// value that pods in the upstream namespace ns may use
	// (PriorityClassesAnnotation).
	AllowedPriorityClasses(ns string) ([]string, error)
}

// ParsePriorityClasses splits the value of PriorityClassesAnnotation: class
// names separated by commas, without spaces (the upstream's admission policy
// reads it the same way).
func ParsePriorityClasses(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func platformKeyError(gr schema.GroupResource, name string, row *PlatformKey, key, what string) error {
	kind := "label"
	if row.Annotation {
		kind = "annotation"
	}
	but := ""
	if key != row.Key && !strings.HasSuffix(row.Key, "/") {
		key += " (" + row.Key + ")"
	}
	if row.Allowed != "" {
		but = fmt.Sprintf(" (other than to %q, or remove it)", row.Allowed)
	}
	return forbidden(gr, name, fmt.Sprintf("the %s %s belongs to the platform (%s reads it): a tenant may not %s it%s", kind, key, row.Reader, what, but))
}

func lookupError(what string, err error) error {
	return &Error{Code: 503, Reason: "ServiceUnavailable", Message: fmt.Sprintf("kubectl-zoo cannot %s: %v", what, err)}
}

// platformJudge judges the platform-owned metadata of one write of an
// object of rule (upstream form), against the current object.
type platformJudge struct {
	t    *Translator
	rule *KindRule
	name string // tenant name of the object, for messages
	path string // upstream path of the object
	cur  *Metadata
	// found is false when the object does not exist (a create).
	found  bool
	looked bool
	// level is the tenant's Pod Security level, read once when a namespace
	// write sets a Pod Security label.
	level string
}

func (t *Translator) newPlatformJudge(rule *KindRule, u *UpstreamRequest) *platformJudge {
	return &platformJudge{t: t, rule: rule, name: u.Info.Name, path: u.objectPath}
}

// current reads the current object once.
func (j *platformJudge) current() error {
	if j.looked {
		return nil
	}
	j.looked = true
	if j.t.opts.Platform == nil {
		j.cur, j.found = &Metadata{}, true
		return nil
	}
	md, found, err := j.t.opts.Platform.CurrentMetadata(j.path)
	if err != nil {
		return lookupError("read the object to keep its platform-owned metadata", err)
	}
	j.cur, j.found = &md, found
	return nil
}

// createBody judges a tenant's new object (tenant form, before objectIn):
// it may carry no platform-owned key, except, on a namespace, the Pod
// Security labels at the tenant's level or a stricter one.
func (j *platformJudge) createBody(obj map[string]any) error {
	meta := child(obj, "metadata")
	for _, annotation := range []bool{false, true} {
		for key, v := range fieldMap(meta, annotation) {
			row, ok := platformKey(j.rule.Resource, annotation, key)
			if !ok {
				continue
			}
			if ok, err := j.podSecurityValue(annotation, key, v); err != nil || ok {
				if err != nil {
					return err
				}
				continue
			}
			if s, _ := v.(string); row.Allowed == "" || s != row.Allowed {
				return platformKeyError(j.rule.Resource, str(meta, "name"), row, key, "set")
			}
		}
	}
	return nil
}

// podSecurityValue reports whether v, written to the label key of a
// namespace, is a Pod Security level the tenant may set: its own or a
// stricter one (PodSecurityAtLeast). The platform's level is a floor, never
// a ceiling; the zoo-tenant-metadata admission policy agrees.
func (j *platformJudge) podSecurityValue(annotation bool, key string, v any) (bool, error) {
	s, isString := v.(string)
	if j.rule.Resource != grNamespace || annotation || !isString || !slices.Contains(PodSecurityLabelKeys, key) {
		return false, nil
	}
	if j.level == "" {
		level, err := j.t.podSecurityLevel()
		if err != nil {
			return false, err
		}
		j.level = level
	}
	return PodSecurityAtLeast(s, j.level), nil
}

func fieldMap(meta map[string]any, annotation bool) map[string]any {
	if annotation {
		return child(meta, "annotations")
	}
	return child(meta, "labels")
}

// setPodSecurity gives a new namespace (upstream form) the platform's Pod
// Security labels, keeping those the tenant set stricter (createBody has
// judged them).
func setPodSecurity(obj map[string]any, level string) {
	labels := ensureChild(ensureChild(obj, "metadata"), "labels")
	for k, v := range PodSecurityLabels(level) {
		if cur, ok := labels[k].(string); !ok || !PodSecurityAtLeast(cur, level) {
			labels[k] = v
		}
	}
}

// judgeKey judges what one write does to a platform-owned key: had/old is
// its current value, present/val what the write leaves. The row's Allowed
// value may always be written, and such a key always removed; any other
// key must keep its current value (or stay absent).
func (j *platformJudge) judgeKey(row *PlatformKey, key string, had bool, old string, present bool, val string) error {
	switch {
	case row.Allowed != "" && (!present || val == row.Allowed):
		return nil
	case present && !had:
		return platformKeyError(j.rule.Resource, j.name, row, key, "add")
	case !present && had:
		return platformKeyError(j.rule.Resource, j.name, row, key, "remove")
	case present && val != old:
		return platformKeyError(j.rule.Resource, j.name, row, key, "change")
	}
	return nil
}

// judgeMap judges the platform-owned keys that m, labels (annotations) of a
// write, sets. In a merge patch (nullRemoves) a null value removes the key;
// in a whole object the API server reads null as "".
func (j *platformJudge) judgeMap(m map[string]any, annotation, nullRemoves bool) error {
	cur := j.cur.field(annotation)
	for key, v := range m {
		row, ok := platformKey(j.rule.Resource, annotation, key)
		if !ok {
			continue
		}
		old, had := cur[key]
		val, isString := v.(string)
		present := isString || !nullRemoves
		if present && !(had && val == old) {
			ok, err := j.podSecurityValue(annotation, key, v)
			if err != nil {
				return err
			}
			if ok {
				continue
			}
		}
		if err := j.judgeKey(row, key, had, old, present, val); err != nil {
			return err
		}
	}
	return nil
}

// whole judges a map that will be the whole labels (annotations) of the
// object: every platform-owned key must keep its current value, and one it
// omits is kept (copied from the current object) unless the tenant may
// remove it. m may be nil (absent); the map to write back is returned.
func (j *platformJudge) whole(m map[string]any, annotation bool) (map[string]any, error) {
	if err := j.judgeMap(m, annotation, false); err != nil {
		return nil, err
	}
	for key, v := range j.cur.field(annotation) {
		if row, ok := platformKey(j.rule.Resource, annotation, key); !ok || row.Allowed != "" {
			continue
		}
		if _, present := m[key]; !present {
			if m == nil {
				m = map[string]any{}
			}
			m[key] = v
		}
	}
	return m, nil
}

// unseen refuses a JSON-patch move or copy (or a value-less add) onto the
// whole labels (annotations), metadata or object, when the kind has
// platform-owned keys there: the value it would write is not known here.
func (j *platformJudge) unseen(annotation bool) error {
	for i := range platformTable {
		r := &platformTable[i]
		if r.Resource == j.rule.Resource && r.Annotation == annotation && !r.APIServer {
			kind := "labels"
			if annotation {
				kind = "annotations"
			}
			return forbidden(j.rule.Resource, j.name, fmt.Sprintf(
				"a json-patch move or copy onto the whole %s could set platform-owned keys such as %s, whose value kubectl-zoo cannot see: patch single keys",
				kind, r.Key))
		}
	}
	return nil
}

// removeAll judges the removal of every label (annotation) of the object.
func (j *platformJudge) removeAll(annotation bool) error {
	for key, old := range j.cur.field(annotation) {
		if row, ok := platformKey(j.rule.Resource, annotation, key); ok {
			if err := j.judgeKey(row, key, true, old, false, ""); err != nil {
				return err
			}
		}
	}
	return nil
}

// wholeObject judges an object (upstream form) that replaces the current
// one: its labels and annotations are whole maps.
func (j *platformJudge) wholeObject(obj map[string]any) error {
	return j.wholeMeta(ensureChild(obj, "metadata"))
}

func (j *platformJudge) wholeMeta(meta map[string]any) error {
	for _, annotation := range []bool{false, true} {
		field := "labels"
		if annotation {
			field = "annotations"
		}
		m, err := j.whole(child(meta, field), annotation)
		if err != nil {
			return err
		}
		if m != nil {
			meta[field] = m
		}
	}
	return nil
}

// mergeMeta judges the metadata of a merge or strategic merge patch: a key
// set must keep its current value, a key set to null is a removal, and
// `labels: null` removes them all. The strategic directive `$patch: replace`
// makes the map whole (omitted platform keys are kept), `$patch: delete`
// removes it.
func (j *platformJudge) mergeMeta(obj map[string]any) error {
	v, present := obj["metadata"]
	if !present {
		return nil
	}
	if err := j.current(); err != nil {
		return err
	}
	// An object that does not exist is judged as one without metadata (the
	// upstream answers 404, but the proxy refuses a platform key first).
	meta, ok := v.(map[string]any)
	if !ok { // metadata: null
		if err := j.removeAll(false); err != nil {
			return err
		}
		return j.removeAll(true)
	}
	switch meta["$patch"] {
	case "replace":
		return j.wholeMeta(meta)
	case "delete":
		if err := j.removeAll(false); err != nil {
			return err
		}
		return j.removeAll(true)
	}
	if _, retain := meta["$retainKeys"]; retain {
		return forbidden(j.rule.Resource, j.name, "a $retainKeys directive in metadata could drop platform-owned labels or annotations")
	}
	for _, annotation := range []bool{false, true} {
		field := "labels"
		if annotation {
			field = "annotations"
		}
		v, present := meta[field]
		if !present {
			continue
		}
		m, ok := v.(map[string]any)
		if !ok {
			if err := j.removeAll(annotation); err != nil {
				return err
			}
			continue
		}
		switch m["$patch"] {
		case "replace":
			delete(m, "$patch")
			whole, err := j.whole(m, annotation)
			if err != nil {
				return err
			}
			whole["$patch"] = "replace"
			meta[field] = whole
			continue
		case "delete":
			if err := j.removeAll(annotation); err != nil {
				return err
			}
			continue
		}
		if err := j.judgeMap(m, annotation, true); err != nil {
			return err
		}
	}
	return nil
}

// jsonPatch judges RFC 6902 operations (values in upstream form): an
// operation on a platform-owned key may only write its current value; one
// that writes a whole labels or annotations map, the whole metadata or the
// whole object is judged as whole (omitted platform keys are kept); removing
// or moving what holds platform-owned keys is refused.
func (j *platformJudge) jsonPatch(ops []any) error {
	for _, op := range ops {
		o, ok := op.(map[string]any)
		if !ok {
			continue
		}
		kind := str(o, "op")
		if kind == "test" {
			continue
		}
		if kind == "move" {
			if err := j.jsonPatchTarget(str(o, "from"), "remove", nil, false); err != nil {
				return err
			}
		}
		value, hasValue := o["value"]
		var err error
		switch kind {
		case "add", "replace":
			err = j.jsonPatchTarget(str(o, "path"), kind, &value, hasValue)
			if err == nil && hasValue {
				o["value"] = value
			}
		case "remove":
			err = j.jsonPatchTarget(str(o, "path"), kind, nil, false)
		case "move", "copy":
			err = j.jsonPatchTarget(str(o, "path"), kind, nil, false)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// jsonPatchTarget judges one operation at path. kind is add/replace (value
// given), remove, or move/copy (value unknown).
func (j *platformJudge) jsonPatchTarget(path, kind string, value *any, hasValue bool) error {
	tk := pointerTokens(path)
	if len(tk) > 3 || (len(tk) >= 1 && tk[0] != "metadata") || (len(tk) >= 2 && tk[1] != "labels" && tk[1] != "annotations") {
		return nil
	}
	annotation := len(tk) >= 2 && tk[1] == "annotations"
	if len(tk) == 3 {
		if _, ok := platformKey(j.rule.Resource, annotation, tk[2]); !ok {
			return nil
		}
	}
	if err := j.current(); err != nil {
		return err
	}
	both := func(f func(bool) error) error {
		if len(tk) >= 2 {
			return f(annotation)
		}
		if err := f(false); err != nil {
			return err
		}
		return f(true)
	}
	if kind != "add" && kind != "replace" || !hasValue {
		if len(tk) == 3 {
			row, _ := platformKey(j.rule.Resource, annotation, tk[2])
			old, had := j.cur.field(annotation)[tk[2]]
			if kind == "remove" {
				return j.judgeKey(row, tk[2], had, old, false, "")
			}
			// A move or copy: its value is not known here.
			return platformKeyError(j.rule.Resource, j.name, row, tk[2], "change")
		}
		if kind == "remove" {
			return both(j.removeAll)
		}
		return both(j.unseen)
	}
	switch len(tk) {
	case 3:
		row, _ := platformKey(j.rule.Resource, annotation, tk[2])
		old, had := j.cur.field(annotation)[tk[2]]
		if ok, err := j.podSecurityValue(annotation, tk[2], *value); err != nil || ok {
			return err
		}
		val, _ := (*value).(string) // the API server reads a non-string as ""
		return j.judgeKey(row, tk[2], had, old, true, val)
	case 2:
		m, _ := (*value).(map[string]any)
		whole, err := j.whole(m, annotation)
		if err != nil {
			return err
		}
		if whole != nil {
			*value = whole
		}
		return nil
	case 1:
		meta, ok := (*value).(map[string]any)
		if !ok {
			return both(j.removeAll)
		}
		return j.wholeMeta(meta)
	default:
		obj, ok := (*value).(map[string]any)
		if !ok {
			return both(j.removeAll)
		}
		return j.wholeObject(obj)
	}
}

// podSpecs calls fn with every pod spec of an object (or partial object) of
// rule.
func podSpecs(rule *KindRule, obj map[string]any, fn func(spec map[string]any) error) error {
	for _, path := range podSpecPaths(rule) {
		if err := walk(obj, path, fn); err != nil {
			return err
		}
	}
	return nil
}

// podSpecPaths are the paths of the pod specs of rule's objects ("spec",
// "spec.template.spec", ...), from its priorityClassName references.
func podSpecPaths(rule *KindRule) []string {
	var out []string
	for _, ref := range rule.Refs {
		if ref.podSpec {
			out = append(out, strings.TrimSuffix(ref.Field, ".priorityClassName"))
		}
	}
	return out
}

// checkPriority refuses a pod or pod template (upstream form) whose
// priorityClassName names a cluster PriorityClass of positive value that
// the namespace (upstream) does not allow: such a pod would outrank, and
// could preempt, every other tenant's pods. A tenant's own classes are
// capped at MaxTenantPriority.
func (t *Translator) checkPriority(rule *KindRule, ns string, obj map[string]any) error {
	if t.opts.Platform == nil {
		return nil
	}
	return podSpecs(rule, obj, func(spec map[string]any) error {
		name := str(spec, "priorityClassName")
		if name == "" {
			return nil
		}
		if local, ok := t.tenant.TenantClusterName(name); ok && t.opts.Shared != nil && t.opts.Shared.TenantOwns(grPriorityClass, local) {
			return nil
		}
		value, found, err := t.opts.Platform.PriorityClassValue(name)
		if err != nil {
			return lookupError("read PriorityClass "+name, err)
		}
		if !found || value <= MaxTenantPriority {
			return nil
		}
		allowed, err := t.opts.Platform.AllowedPriorityClasses(ns)
		if err != nil {
			return lookupError("read the PriorityClasses the namespace allows", err)
		}
		if slices.Contains(allowed, name) {
			return nil
		}
		return forbidden(grPriorityClass, name, fmt.Sprintf(
			"the cluster's PriorityClass %s has value %d: a tenant's pods may only use classes of value %d or less (their own, or the cluster's), unless the platform allows the class in the namespace (annotation %s)",
			name, value, MaxTenantPriority, PriorityClassesAnnotation))
	})
}
