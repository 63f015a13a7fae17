package openapisnap

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// Fetch takes the snapshot of a running API server: every resource of the
// groups builtin accepts, from discovery, and the reference-like fields of
// their kinds (subresources' kinds included), from each group-version's
// OpenAPI v3 document.
func Fetch(ctx context.Context, cfg *rest.Config, builtin func(group string) bool) (*Snapshot, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	info, err := dc.ServerVersion()
	if err != nil {
		return nil, fmt.Errorf("server version: %w", err)
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	s := &Snapshot{Version: info.GitVersion}
	fields := map[string]*Field{}
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return nil, fmt.Errorf("discovery group version %q: %w", list.GroupVersion, err)
		}
		if !builtin(gv.Group) {
			continue
		}
		doc, err := fetchDoc(ctx, dc.RESTClient(), gv)
		if err != nil {
			return nil, err
		}
		walked := map[schema.GroupVersionKind]bool{}
		for _, r := range list.APIResources {
			kgv := gv
			if r.Group != "" || r.Version != "" {
				kgv = schema.GroupVersion{Group: r.Group, Version: r.Version}
			}
			gvk := kgv.WithKind(r.Kind)
			s.Resources = append(s.Resources, Resource{GroupVersion: gv.String(), Name: r.Name, Kind: KindOf(gvk.Group, gvk.Kind), Namespaced: r.Namespaced})
			if walked[gvk] {
				continue
			}
			walked[gvk] = true
			if err := walkInto(fields, doc, gvk); err != nil && !(errors.Is(err, errNoSchema) && strings.Contains(r.Name, "/")) {
				return nil, err
			}
		}
	}
	for _, f := range fields {
		s.Fields = append(s.Fields, *f)
	}
	s.Sort()
	return s, nil
}

// errNoSchema is a kind without a definition in the OpenAPI document: the
// options of connect subresources (pods/exec, nodes/proxy), which carry no
// body; they are listed as resources and have no fields.
var errNoSchema = errors.New("no schema in its group-version's OpenAPI document")

// walkInto adds the fields of one kind's version to fields, merging the
// versions of fields that every version declares alike.
func walkInto(fields map[string]*Field, doc Doc, gvk schema.GroupVersionKind) error {
	def, ok := doc.KindSchema(gvk.Group, gvk.Version, gvk.Kind)
	if !ok {
		return fmt.Errorf("%s: %w", gvk, errNoSchema)
	}
	found, err := doc.WalkKind(KindOf(gvk.Group, gvk.Kind), def, gvk.Version)
	if err != nil {
		return err
	}
	for _, f := range found {
		key := strings.Join([]string{f.Kind, f.Path, f.Def, f.Type, f.Format}, " ")
		if have, ok := fields[key]; ok {
			if !slices.Contains(have.Versions, gvk.Version) {
				have.Versions = append(have.Versions, gvk.Version)
			}
			continue
		}
		f := f
		fields[key] = &f
	}
	return nil
}

// fetchDoc reads the OpenAPI v3 document of one group-version.
func fetchDoc(ctx context.Context, c rest.Interface, gv schema.GroupVersion) (Doc, error) {
	path := "/openapi/v3/apis/" + gv.String()
	if gv.Group == "" {
		path = "/openapi/v3/api/" + gv.Version
	}
	raw, err := c.Get().AbsPath(path).SetHeader("Accept", "application/json").Do(ctx).Raw()
	if err != nil {
		return nil, fmt.Errorf("openapi %s: %w", path, err)
	}
	var doc Doc
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("openapi %s: %w", path, err)
	}
	return doc, nil
}
