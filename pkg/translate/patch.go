package translate

import (
	"fmt"
	"strconv"
	"strings"
)

// translatePatch translates a patch body: json-patch operations one by one,
// merge and strategic-merge patches and server-side apply configurations as
// (partial) objects. A patch that touches TenantLabel is refused.
func (t *Translator) translatePatch(rule *KindRule, sub, contentType string, body []byte) ([]byte, error) {
	rule = bodyRule(rule, sub)
	switch mt := mediaType(contentType); mt {
	case MediaJSONPatch:
		var ops []any
		if err := decodeJSON(body, &ops); err != nil {
			return nil, err
		}
		for i, op := range ops {
			o, ok := op.(map[string]any)
			if !ok {
				return nil, badRequest("json-patch operation %d is not an object", i)
			}
			if err := t.jsonPatchOp(rule, o); err != nil {
				return nil, err
			}
		}
		return marshalJSON(ops)
	case MediaMergePatch, MediaStrategic, MediaApplyPatch, MediaYAML:
		obj, err := DecodeBody(contentType, body)
		if err != nil {
			return nil, err
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
		if (mt == MediaApplyPatch || mt == MediaYAML) && sub == "" {
			// An apply configuration is the whole of what its manager wants:
			// what it leaves out, it does not want set.
			if err := t.completeIn(rule, obj); err != nil {
				return nil, err
			}
		}
		if err := t.objectIn(rule, obj); err != nil {
			return nil, err
		}
		return marshalJSON(obj)
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
func (t *Translator) jsonPatchOp(rule *KindRule, op map[string]any) error {
	path := str(op, "path")
	tokens := pointerTokens(path)
	for _, p := range []string{path, str(op, "from")} {
		tk := pointerTokens(p)
		if len(tk) >= 3 && tk[0] == "metadata" && tk[1] == "labels" && tk[2] == TenantLabel {
			return t.labelPatchError(rule)
		}
	}
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
	op["value"] = readSkeleton(obj, tokens)
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
