package translate

import (
	"strings"
)

// translateBody translates the body of a create, update, patch or delete.
func (t *Translator) translateBody(r Request, u *UpstreamRequest) error {
	ct := r.Header.Get("Content-Type")
	if u.Info.Verb == "patch" {
		body, err := t.translatePatch(u, ct, r.Body)
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
	obj, err := DecodeBody(ct, r.Body)
	if err != nil {
		return err
	}
	if u.Info.Verb == "create" || u.Info.Verb == "update" {
		rule := bodyRule(u.Rule, u.Info.Subresource)
		create := u.Info.Verb == "create" && u.Info.Subresource == ""
		if create {
			if err := t.checkShadow(rule, str(child(obj, "metadata"), "name")); err != nil {
				return err
			}
		}
		if err := t.platformWrite(u, rule, obj, create); err != nil {
			return err
		}
	}
	body, err := marshalJSON(obj)
	if err != nil {
		return err
	}
	u.Body = body
	u.Header.Set("Content-Type", MediaJSON)
	return nil
}

// platformWrite translates the object of a create or update (objectIn) and
// judges its platform-owned metadata: a create may set none (a namespace
// gets the Pod Security labels of the tenant's level), an update keeps
// every platform-owned key at its current value, restoring those it omits.
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
		if err := t.newPlatformJudge(rule, u).createBody(obj, level); err != nil {
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
// protobuf and CBOR are dropped while JSON alternatives (with their as=Table
// / as=APIGroupDiscoveryList parameters) are kept. client-go accepts a JSON
// answer to a protobuf request.
func UpstreamAccept(accept string) string {
	if accept == "" {
		return MediaJSON
	}
	var keep []string
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case MediaJSON, "application/json-seq", "*/*", "application/*", MediaYAML:
			if mt != MediaJSON {
				part = strings.Replace(part, mt, MediaJSON, 1)
			}
			keep = append(keep, strings.TrimSpace(part))
		}
	}
	if len(keep) == 0 {
		return MediaJSON
	}
	return strings.Join(keep, ", ")
}
