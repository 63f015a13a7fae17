package translate

import ()

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
