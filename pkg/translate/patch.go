package translate

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// translatePatch translates a patch body: json-patch operations one by one,
// merge and strategic-merge patches and server-side apply configurations as
// (partial) objects. A patch that touches TenantLabel is refused. Keys the
// body repeats are kept (repeats.go), reported per fieldValidation for YAML.
func (t *Translator) translatePatch(u *UpstreamRequest, contentType string, body []byte, fieldValidation string) ([]byte, error) {
	rule := bodyRule(u.Rule, u.Info.Subresource)
	platform := rule == u.Rule && hasPlatformMetadata(rule.Resource) && u.objectPath != ""
	ns := t.upstreamNamespaceOf(u)
	switch mt := mediaType(contentType); mt {
	case MediaJSONPatch:
		v, reps, err := decodeRepeats(body)
		if err != nil {
			return nil, badRequest("malformed JSON body: %w", errors.Unwrap(err))
		}
		ops, ok := v.([]any)
		if !ok {
			return nil, badRequest("a json-patch is an array of operations")
		}
		for i, op := range ops {
			o, ok := op.(map[string]any)
			if !ok {
				return nil, badRequest("json-patch operation %d is not an object", i)
			}
			if err := t.jsonPatchOp(rule, ns, o); err != nil {
				return nil, err
			}
		}
		if platform {
			if err := t.newPlatformJudge(rule, u).jsonPatch(ops); err != nil {
				return nil, err
			}
		}
		return marshalRepeating(ops, reps)
	case MediaMergePatch, MediaStrategic, MediaApplyPatch, MediaYAML:
		decoded, err := decodeBody(contentType, body)
		if err != nil {
			return nil, err
		}
		obj := decoded.obj
		if decoded.yamlRepeated != nil {
			if err := yamlRepeated(u, fieldValidation, true, obj, decoded.yamlRepeated); err != nil {
				return nil, err
			}
		}
		if meta := child(obj, "metadata"); meta != nil && (rule.Treatment == TenantOwned || rule.Treatment == Shared) {
			if v, present := meta["labels"]; present && v == nil {
				return nil, t.labelPatchError(rule)
			}
			if labels := child(meta, "labels"); labels != nil {
				if _, present := labels[TenantLabel]; present {
					return nil, t.labelPatchError(rule)
				}
			}
		}
		if mt == MediaApplyPatch || mt == MediaYAML {
			if err := completeApplyRefs(rule, obj); err != nil {
				return nil, err
			}
		}
		if (mt == MediaApplyPatch || mt == MediaYAML) && u.Info.Subresource == "" {
			// An apply configuration is the whole of what its manager wants:
			// what it leaves out, it does not want set.
			if err := t.completeIn(rule, obj); err != nil {
				return nil, err
			}
			// Its templates' keys are set as written (a key it leaves out
			// stays another manager's); merge, strategic and json patches
			// are judged on their result (PatchInView).
			if rule == u.Rule && u.objectPath != "" {
				if err := t.newPlatformJudge(rule, u).templates(obj, false); err != nil {
					return nil, err
				}
			}
		}
		if err := t.objectIn(rule, obj); err != nil {
			return nil, err
		}
		if platform {
			if err := t.platformPatch(u, rule, mt, obj); err != nil {
				return nil, err
			}
		}
		if rule.Resource != grPod {
			if err := t.checkPriority(rule, ns, obj); err != nil {
				return nil, err
			}
		}
		return marshalRepeating(obj, decoded.reps)
	default:
		return nil, unsupportedMedia(contentType)
	}
}

func (t *Translator) labelPatchError(rule *KindRule) error {
	return forbidden(rule.Resource, "", fmt.Sprintf("the label %s is managed by kubectl-zoo and may not be changed", TenantLabel))
}

// jsonPatchOp translates one RFC 6902 operation in place: its value is
// translated as the field it lands in, by placing it in an otherwise empty
// object and running the object translation over that.
func (t *Translator) jsonPatchOp(rule *KindRule, ns string, op map[string]any) error {
	path := str(op, "path")
	tokens := pointerTokens(path)
	for _, p := range []string{path, str(op, "from")} {
		tk := pointerTokens(p)
		if len(tk) >= 3 && tk[0] == "metadata" && tk[1] == "labels" && tk[2] == TenantLabel {
			return t.labelPatchError(rule)
		}
	}
	// The value is translated at the tenant's path, then read back from,
	// and sent to, the upstream path.
	for _, field := range []string{"path", "from"} {
		if err := t.patchLabelKey(rule, op, field); err != nil {
			return err
		}
	}
	upTokens := pointerTokens(str(op, "path"))
	owned := rule.Treatment == TenantOwned || rule.Treatment == Shared
	if str(op, "op") == "remove" && owned && (path == "/metadata" || path == "/metadata/labels") {
		return t.labelPatchError(rule)
	}
	value, ok := op["value"]
	if !ok {
		if o := str(op, "op"); o == "move" || o == "copy" {
			return t.checkAnnotationTarget(rule, tokens)
		}
		return nil
	}
	skeleton := buildSkeleton(tokens, value)
	obj, isObj := skeleton.(map[string]any)
	if !isObj {
		return nil
	}
	if err := t.objectIn(rule, obj); err != nil {
		return err
	}
	if rule.Resource != grPod {
		if err := t.checkPriority(rule, ns, obj); err != nil {
			return err
		}
	}
	op["value"] = readSkeleton(obj, upTokens)
	return nil
}

// patchLabelKey maps the label key a json-patch pointer (op[field]) names,
// /metadata/labels/<key>, by the kind's LabelKeys.
func (t *Translator) patchLabelKey(rule *KindRule, op map[string]any, field string) error {
	tk := pointerTokens(str(op, field))
	if len(rule.LabelKeys) == 0 || len(tk) < 3 || tk[0] != "metadata" || tk[1] != "labels" {
		return nil
	}
	key, err := rule.labelKeyIn("", tk[2])
	if err != nil || key == tk[2] {
		return err
	}
	tk[2] = key
	for i, s := range tk {
		tk[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
	}
	op[field] = "/" + strings.Join(tk, "/")
	return nil
}

// platformPatch judges the platform-owned metadata of a merge, strategic
// merge or apply patch (upstream form). An apply patch is the whole intent
// of its field manager: platform-owned keys it omits are added at their
// current value (so the manager never drops them), and one that creates the
// object is judged as a create.
func (t *Translator) platformPatch(u *UpstreamRequest, rule *KindRule, mt string, obj map[string]any) error {
	j := t.newPlatformJudge(rule, u)
	if mt != MediaApplyPatch && mt != MediaYAML {
		return j.mergeMeta(obj)
	}
	if err := j.current(); err != nil {
		return err
	}
	if j.found {
		return j.wholeObject(obj)
	}
	level := ""
	if rule.Resource == grNamespace {
		var err error
		if level, err = t.podSecurityLevel(); err != nil {
			return err
		}
	}
	j.level = level
	if err := j.createBody(obj); err != nil {
		return err
	}
	if rule.Resource == grNamespace {
		setPodSecurity(obj, level)
	}
	return nil
}

// checkAnnotationTarget refuses a move or copy (whose value the proxy does
// not see) onto an annotation the kind does not allow, or onto a whole
// metadata or annotations map that could carry one.
func (t *Translator) checkAnnotationTarget(rule *KindRule, tokens []string) error {
	if len(rule.Annotations) == 0 || len(tokens) == 0 || tokens[0] != "metadata" {
		return nil
	}
	if len(tokens) == 1 || (len(tokens) == 2 && tokens[1] == "annotations") {
		return annotationError(rule, "", rule.Annotations[0])
	}
	if tokens[1] == "annotations" {
		if ar, ok := refusedAnnotation(rule, tokens[2]); ok {
			return annotationError(rule, "", ar)
		}
	}
	return nil
}

// pointerTokens splits a JSON pointer into unescaped tokens.
func pointerTokens(p string) []string {
	if p == "" || p == "/" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return parts
}

// buildSkeleton returns a document holding value at tokens. List indexes
// become one-element lists.
func buildSkeleton(tokens []string, value any) any {
	if len(tokens) == 0 {
		return value
	}
	inner := buildSkeleton(tokens[1:], value)
	if isIndex(tokens[0]) {
		return []any{inner}
	}
	return map[string]any{tokens[0]: inner}
}

// readSkeleton reads the value at tokens back from a skeleton.
func readSkeleton(doc any, tokens []string) any {
	for _, tok := range tokens {
		switch d := doc.(type) {
		case map[string]any:
			doc = d[tok]
		case []any:
			if len(d) == 0 {
				return nil
			}
			doc = d[0]
		}
	}
	return doc
}

func isIndex(tok string) bool {
	_, err := strconv.Atoi(tok)
	return err == nil || tok == "-"
}

// contextRefs are the object references whose name is translated by the
// kind and apiVersion next to it: metadata.ownerReferences and the
// references of events.
var contextRefs = []string{"metadata.ownerReferences[]", "involvedObject", "regarding", "related"}

// completeApplyRefs refuses an apply configuration that names an object
// reference without its apiVersion and kind. Server-side apply merges such
// an entry into the stored one (ownerReferences by uid), which would
// supply the kind the translator did not see, leaving the name
// untranslated.
func completeApplyRefs(rule *KindRule, obj map[string]any) error {
	for _, path := range contextRefs {
		err := walk(obj, path, func(ref map[string]any) error {
			if _, named := ref["name"]; named && (str(ref, "kind") == "" || str(ref, "apiVersion") == "") {
				return forbidden(rule.Resource, "", fmt.Sprintf("%s: an apply configuration must give the apiVersion and kind of "+
					"every reference it names, so that kubectl-zoo can translate the name", strings.TrimSuffix(path, "[]")))
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}
