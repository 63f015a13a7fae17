package transfer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// WriteManifests writes objs as format "yaml" (documents separated by
// "---") or "json" (one v1 List): what `kubectl apply -f` reads.
func WriteManifests(w io.Writer, objs []*unstructured.Unstructured, format string) error {
	switch format {
	case "json":
		items := make([]map[string]any, len(objs))
		for i, o := range objs {
			items[i] = o.Object
		}
		data, err := json.MarshalIndent(map[string]any{"apiVersion": "v1", "kind": "List", "items": items}, "", "    ")
		if err != nil {
			return fmt.Errorf("encode JSON: %w", err)
		}
		_, err = fmt.Fprintf(w, "%s\n", data)
		return err
	case "yaml":
		for _, o := range objs {
			data, err := yaml.Marshal(o.Object)
			if err != nil {
				return fmt.Errorf("encode %s %s: %w", o.GetKind(), o.GetName(), err)
			}
			if _, err := fmt.Fprintf(w, "---\n%s", data); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown output format %q: use yaml or json", format)
}

// ReadManifests reads the objects of YAML documents or JSON objects (as
// WriteManifests writes, or any file `kubectl apply -f` takes), expanding
// Lists. Each object must name its apiVersion, kind and name.
func ReadManifests(r io.Reader) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(r, 4096)
	var out []*unstructured.Unstructured
	for doc := 1; ; doc++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
			continue // an empty document
		}
		var m map[string]any // numbers as int64 where they are integers, as the API machinery reads them
		if err := utiljson.Unmarshal(raw, &m); err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		if len(m) == 0 {
			continue
		}
		objs, err := objectsOf(&unstructured.Unstructured{Object: m})
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", doc, err)
		}
		out = append(out, objs...)
	}
}

// objectsOf returns u, or the items of a List, each checked.
func objectsOf(u *unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	if u.IsList() {
		list, err := u.ToList()
		if err != nil {
			return nil, err
		}
		out := make([]*unstructured.Unstructured, 0, len(list.Items))
		for i := range list.Items {
			objs, err := objectsOf(&list.Items[i])
			if err != nil {
				return nil, err
			}
			out = append(out, objs...)
		}
		return out, nil
	}
	if u.GetAPIVersion() == "" || u.GetKind() == "" || u.GetName() == "" {
		return nil, fmt.Errorf("an object without apiVersion, kind or metadata.name (apiVersion %q, kind %q, name %q)",
			u.GetAPIVersion(), u.GetKind(), u.GetName())
	}
	return []*unstructured.Unstructured{u}, nil
}
