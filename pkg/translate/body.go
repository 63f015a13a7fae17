package translate

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "sigs.k8s.io/json"
)

// translateBody translates the body of a create, update, patch or delete.
func (t *Translator) translateBody(r Request, u *UpstreamRequest) error {
	if err := checkBodyHeaders(r.Header); err != nil {
		return err
	}
	ct := r.Header.Get("Content-Type")
	if u.Info.Verb == "patch" {
		body, err := t.translatePatch(u, ct, r.Body, r.Query.Get("fieldValidation"))
		if err != nil {
			return err
		}
		u.Body = body
		u.Header.Set("Content-Type", mediaType(ct))
		if mt := mediaType(ct); mt == MediaYAML || mt == "" {
			u.Header.Set("Content-Type", MediaApplyPatch)
		}
		return nil
	}
	if (u.Info.Verb == "create" || u.Info.Verb == "update") && u.Info.Subresource == "" && mediaType(ct) == MediaProtobuf {
		body, ok, err := t.protobufBodyIn(u.Rule, u.Info, r.Body)
		if err != nil {
			return err
		}
		if ok { // upstream in protobuf, as the client sent it
			u.Body = body
			u.Header.Set("Content-Type", MediaProtobuf)
			return nil
		}
	}
	decoded, err := decodeBody(ct, r.Body)
	if err != nil {
		return err
	}
	obj := decoded.obj
	create := u.Info.Verb == "create" && u.Info.Subresource == ""
	if create {
		u.Created.Tenant = createdName(obj)
	}
	if u.Info.Verb == "delete" || u.Info.Verb == "deletecollection" {
		// The API server reads DeleteOptions leniently (the last of a
		// repeated key, no fieldValidation): so does deleteOptionsBody.
		return deleteOptionsBody(obj, u)
	}
	if decoded.yamlRepeated != nil {
		if err := yamlRepeated(u, r.Query.Get("fieldValidation"), false, obj, decoded.yamlRepeated); err != nil {
			return err
		}
	}
	if u.Info.Verb == "create" || u.Info.Verb == "update" {
		rule := bodyRule(u.Rule, u.Info.Subresource)
		if create {
			if err := t.checkShadow(rule, str(child(obj, "metadata"), "name")); err != nil {
				return err
			}
		}
		if u.Info.Subresource == "" {
			if err := t.completeIn(rule, obj); err != nil {
				return err
			}
		}
		if err := t.platformWrite(u, rule, obj, create); err != nil {
			return err
		}
	}
	body, err := marshalRepeating(obj, decoded.reps)
	if err != nil {
		return err
	}
	u.Body = body
	u.Header.Set("Content-Type", MediaJSON)
	if create {
		u.Created.Upstream, u.Created.Read = createdName(obj), true
	}
	return nil
}

// createdName is metadata.name of an object, or its generateName.
func createdName(obj map[string]any) string {
	meta := child(obj, "metadata")
	if name := str(meta, "name"); name != "" {
		return name
	}
	return str(meta, "generateName")
}

// deleteOptionsBody sets u.Body to the DeleteOptions of a delete's body as
// the API server reads them (case-sensitive, unknown fields dropped), so
// that nothing else the tenant put in the body reaches the upstream.
func deleteOptionsBody(obj map[string]any, u *UpstreamRequest) error {
	data, err := marshalJSON(obj)
	if err != nil {
		return err
	}
	var opts metav1.DeleteOptions
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, &opts); err != nil {
		return badRequest("the body of a delete is not DeleteOptions: %w", err)
	}
	if opts.Kind != "" && opts.Kind != "DeleteOptions" {
		return badRequest("the body of a delete must be DeleteOptions, not %s", opts.Kind)
	}
	if u.Body, err = marshalJSON(&opts); err != nil {
		return err
	}
	u.Header.Set("Content-Type", MediaJSON)
	return nil
}

// checkBodyHeaders refuses a body the translator could read differently
// from what its headers say: an encoded body (Content-Encoding; the
// translator reads bytes as they are) and several Content-Types.
func checkBodyHeaders(h http.Header) error {
	for _, ce := range h.Values("Content-Encoding") {
		if ce != "" && !strings.EqualFold(strings.TrimSpace(ce), "identity") {
			return &Error{Code: http.StatusUnsupportedMediaType, Reason: metav1.StatusReasonUnsupportedMediaType,
				Message: fmt.Sprintf("request bodies with Content-Encoding %q cannot be translated; send them unencoded", ce)}
		}
	}
	if len(h.Values("Content-Type")) > 1 {
		return badRequest("the request has %d Content-Type headers", len(h.Values("Content-Type")))
	}
	return nil
}

// platformWrite translates the object of a create or update (objectIn) and
// judges its platform-owned metadata: a create may set none (a namespace
// gets the Pod Security labels of the tenant's level, or keeps stricter ones
// it names), an update keeps every platform-owned key at its current value,
// restoring those it omits, but may make a Pod Security label stricter.
// Pods and pod templates may not name a cluster PriorityClass of positive
// value (checkPriority).
func (t *Translator) platformWrite(u *UpstreamRequest, rule *KindRule, obj map[string]any, create bool) error {
	level := ""
	if create && hasPlatformMetadata(rule.Resource) {
		if rule.Resource == grNamespace {
			var err error
			if level, err = t.podSecurityLevel(); err != nil {
				return err
			}
		}
		j := t.newPlatformJudge(rule, u)
		j.level = level
		if err := j.createBody(obj); err != nil {
			return err
		}
	}
	if rule == u.Rule && u.Info.Subresource == "" && len(rule.PodTemplatePaths()) > 0 {
		if err := t.newPlatformJudge(rule, u).templates(obj, create); err != nil {
			return err
		}
	}
	if err := t.objectIn(rule, obj); err != nil {
		return err
	}
	switch {
	case create && rule.Resource == grNamespace:
		setPodSecurity(obj, level)
	case !create && rule == u.Rule && hasPlatformMetadata(rule.Resource) && u.objectPath != "":
		j := t.newPlatformJudge(rule, u)
		if err := j.current(); err != nil {
			return err
		}
		if j.found {
			if err := j.wholeObject(obj); err != nil {
				return err
			}
		}
	}
	if create || rule.Resource != grPod {
		return t.checkPriority(rule, t.upstreamNamespaceOf(u), obj)
	}
	return nil
}

// podSecurityLevel is the tenant's Pod Security level.
func (t *Translator) podSecurityLevel() (string, error) {
	if t.opts.Platform == nil {
		return DefaultPodSecurityLevel, nil
	}
	level, err := t.opts.Platform.PodSecurityLevel()
	if err != nil {
		return "", lookupError("read the tenant's Pod Security level", err)
	}
	return level, nil
}

// upstreamNamespaceOf is the upstream namespace a request writes in.
func (t *Translator) upstreamNamespaceOf(u *UpstreamRequest) string {
	ns, _ := t.tenant.UpstreamNamespace(u.Info.Namespace)
	return ns
}

// UpstreamAccept rewrites a tenant's Accept header for the upstream when
// AcceptsProtobuf does not allow protobuf: the general path reads JSON, so
// every alternative becomes its JSON form with its parameters (as=Table,
// as=PartialObjectMetadataList, as=APIGroupDiscoveryList, ...) kept: YAML and
// wildcards, and protobuf or CBOR asking for a conversion (as=), which the
// upstream would otherwise answer with the plain object instead of the
// Table the client asked for. Plain protobuf and CBOR are dropped. client-go
// accepts a JSON answer to a protobuf request.
func UpstreamAccept(accept string) string {
	if accept == "" {
		return MediaJSON
	}
	var keep []string
	for _, part := range strings.Split(accept, ",") {
		part = strings.TrimSpace(part)
		mt, params, err := ParseMediaType(part)
		if err != nil {
			continue
		}
		switch mt {
		case MediaJSON, "application/json-seq", "*/*", "application/*", MediaYAML:
		case MediaProtobuf, "application/cbor":
			if params["as"] == "" {
				continue
			}
		default:
			continue
		}
		if mt != MediaJSON {
			_, rest, _ := strings.Cut(part, ";")
			part = MediaJSON
			if rest != "" {
				part += ";" + rest
			}
		}
		if !slices.Contains(keep, part) {
			keep = append(keep, part)
		}
	}
	if len(keep) == 0 {
		return MediaJSON
	}
	return strings.Join(keep, ", ")
}
