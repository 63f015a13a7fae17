package translate

import (
	"fmt"
	"slices"
)

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
	// obj is the current object, read once when a pod template of an
	// update carries a platform-owned key (templates).
	obj       map[string]any
	objLooked bool
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
	example, ok := platformExample(j.rule.Resource, annotation)
	if !ok {
		return nil
	}
	kind := "labels"
	if annotation {
		kind = "annotations"
	}
	return forbidden(j.rule.Resource, j.name, fmt.Sprintf(
		"a json-patch move or copy onto the whole %s could set platform-owned keys such as %s, whose value kubectl-zoo cannot see: patch single keys",
		kind, example))
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
