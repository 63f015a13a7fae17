package translate

import (
	"fmt"
	"io"
	"strings"
)

// TranslateResponse translates the body of an upstream answer to u (anything
// but a watch stream, see TranslateWatch) from in to out. Lists are streamed
// item by item. When the addressed object is not the tenant's, nothing is
// written and a 404 *Error is returned.
func (t *Translator) TranslateResponse(u *UpstreamRequest, in io.Reader, out io.Writer) error {
	switch u.Response {
	case ResponseRaw:
		_, err := io.Copy(out, in)
		if err != nil {
			return fmt.Errorf("copying response: %w", err)
		}
		return nil
	case ResponseDiscovery:
		return t.rewriteDocument(in, out, t.discoveryOut)
	case ResponseOpenAPIV2, ResponseOpenAPIV3:
		return t.rewriteDocument(in, out, t.openAPIOut)
	case ResponseOpenAPIV2Protobuf:
		return t.openAPIV2Protobuf(in, out) // openapi_v2.go
	}
	if u.Info.Verb == "watch" {
		return t.TranslateWatch(u.Rule, in, out)
	}
	return t.TranslateList(u.Rule, in, out)
}

// rewriteDocument reads a whole JSON document, rewrites it and writes it. A
// Status (a refusal, such as the 503 of a group whose CRD is being
// registered) is translated as a Status instead.
func (t *Translator) rewriteDocument(in io.Reader, out io.Writer, rewrite func(map[string]any) error) error {
	data, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("reading response: %w", err)
	}
	var doc map[string]any
	if err := decodeJSON(data, &doc); err != nil {
		return err
	}
	if isStatus(doc) { // the upstream refused: no document to rewrite
		t.statusOut(doc)
	} else if err := rewrite(doc); err != nil {
		return err
	}
	buf := getBuf()
	defer putBuf(buf)
	if err := encodeJSON(buf, doc); err != nil {
		return err
	}
	_, err = out.Write(buf.Bytes())
	return err
}

// TranslateDocument translates one decoded upstream document in place: an
// object, a list, a Table or a Status. A list drops what is not the tenant's;
// an object that is not the tenant's yields a 404 *Error.
func (t *Translator) TranslateDocument(rule *KindRule, doc map[string]any) error {
	switch kind := str(doc, "kind"); {
	case kind == "Status":
		t.statusOut(doc)
		return nil
	case kind == "Table" && strings.HasPrefix(str(doc, "apiVersion"), "meta.k8s.io/"):
		return t.tableOut(rule, doc)
	case strings.HasSuffix(kind, "List") && isList(doc):
		items, _ := doc["items"].([]any)
		kept := items[:0]
		for _, it := range items {
			obj, ok := it.(map[string]any)
			if !ok {
				continue
			}
			if err := t.objectOut(rule, obj); err != nil {
				if IsNotTenants(err) {
					continue
				}
				return err
			}
			kept = append(kept, obj)
		}
		doc["items"] = kept
		return t.listKindOut(doc)
	}
	return t.objectOut(rule, doc)
}

func isList(doc map[string]any) bool {
	_, ok := doc["items"].([]any)
	return ok || doc["items"] == nil
}

// listKindOut maps the apiVersion of a list (tenant CRD groups).
func (t *Translator) listKindOut(doc map[string]any) error {
	if av := str(doc, "apiVersion"); av != "" {
		if local, ok := t.tenant.TenantAPIVersion(av); ok {
			doc["apiVersion"] = local
		}
	}
	return nil
}

// isStatus reports whether doc is a meta/v1 Status.
func isStatus(doc map[string]any) bool {
	return str(doc, "kind") == "Status" && str(doc, "apiVersion") == "v1"
}
