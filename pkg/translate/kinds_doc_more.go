package translate

import (
	"fmt"
	"strings"
)

// The sections of docs/kinds.md beyond the kinds and their fields: what the
// table classifies besides fields (WriteKindsDoc).

// docSubresources lists every subresource the table classifies, with its
// class and reason; custom resources' follow.
func docSubresources(b *strings.Builder) {
	b.WriteString("\n## Subresources\n\nEvery subresource the pinned API server serves is classified by its row " +
		"(`TestDiscoveryIsClassified` reads the server's discovery): **allowed** as in any cluster, **translated** " +
		"(its body names its parent), **confined** (a rule the `zoo-tenant` policy holds on every path), **read-only** " +
		"(reads only) or **refused**. What is not classified is refused, by the proxy and by `zoo-tenant`; so are the " +
		"subresources of hidden and forbidden kinds.\n\n| subresource | class | why |\n|---|---|---|\n")
	for _, s := range Subresources() {
		fmt.Fprintf(b, "| `%s/%s` | %s | %s |\n", s.Resource.String(), s.Name, s.Class, docCell(s.Reason))
	}
	for _, s := range CustomResourceSubresources() {
		fmt.Fprintf(b, "| `<a tenant's custom resource>/%s` | %s | %s |\n", s.Name, s.Class, docCell(s.Reason))
	}
}

// docSelectors lists every label selector tenants write, who evaluates it
// and how far it reaches (SelectorTable).
func docSelectors(b *strings.Builder) {
	b.WriteString("\n## Label selectors\n\nEvery label selector a tenant writes, who evaluates it and how far it reaches " +
		"(`SelectorTable`; `TestSelectorTableCoversTheSchema` fails on one it does not classify). **confined** ones get " +
		"the requirement `" + TenantLabel + "=<tenant>`, which no other expression can undo.\n\n" +
		"| kind | fields | evaluated by | reach | upstream, or why it cannot reach another tenant |\n|---|---|---|---|---|\n")
	for _, s := range SelectorTable {
		fmt.Fprintf(b, "| `%s` | %s | %s | %s | %s |\n", s.Resource.String(), docCell("`"+strings.Join(s.Fields, "`, `")+"`"),
			docCell(s.Evaluator), s.Reach, docCell(s.Upstream))
	}
}

// docMetadata lists the platform's key domains and the keys in them that
// tenants may set (platform_domains.go).
func docMetadata(b *strings.Builder) {
	var kinds []string
	for _, gr := range PlatformDomainResources() {
		kinds = append(kinds, "`"+gr.String()+"`")
	}
	b.WriteString("\n## Platform-owned metadata keys\n\nOn " + strings.Join(kinds, ", ") + ", a label or annotation key whose " +
		"prefix is one of these domains or a subdomain of one is the platform's: tenants see it but may not add, change or " +
		"remove it (the proxy and `zoo-tenant-metadata`, from the same lists), but for the allow-list below.\n\n" +
		"| domain | owner | what a tenant could do with it |\n|---|---|---|\n")
	for _, d := range PlatformDomains() {
		domain := "`" + d.Domain + "`"
		for _, u := range d.Unprefixed {
			domain += ", `" + u + "`"
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", domain, d.Owner, docCell(d.Example))
	}
	b.WriteString("\nKeys in those domains that tenants may set:\n\n| key | why |\n|---|---|\n")
	for _, k := range TenantAllowedKeys() {
		key := "`" + k.Key + "`"
		if strings.HasSuffix(k.Key, "/") {
			key = "`" + k.Key + "*`"
		}
		fmt.Fprintf(b, "| %s | %s |\n", key, docCell(k.Reason))
	}
	docTemplates(b)
}

// docTemplates says how pod templates follow the pods' rules
// (platform_templates.go).
func docTemplates(b *strings.Builder) {
	var kinds []string
	for _, k := range Kinds() {
		for _, p := range k.PodTemplatePaths() {
			kinds = append(kinds, "`"+k.Resource.String()+"` `"+p+"`")
		}
	}
	b.WriteString("\nA controller copies a pod template's labels and annotations to every pod it makes, so the pod templates of " +
		strings.Join(kinds, ", ") + " follow the pods' rules: a tenant may not add a platform-owned key to a template nor change " +
		"one (a key the template has keeps its value; dropping it makes pods without it). The API server writes these labels " +
		"into templates itself, and tenants' writes may carry them:\n\n| kind | label | why |\n|---|---|---|\n")
	for _, k := range TemplateAPIServerKeys() {
		fmt.Fprintf(b, "| `%s` | `%s` | %s |\n", k.Resource.String(), k.Key, docCell(k.Reason))
	}
	b.WriteString("\nUpstream, `zoo-tenant-metadata` sees a pod after the platform's own mutating webhooks: the keys they add " +
		"(Istio's `sidecar.istio.io/status`) are named with `kubectl zoo install --webhook-keys`, and only on pods. The proxy " +
		"judges what a tenant sends, before any webhook, and refuses them still.\n")
}

// docVolumeSources is the classification of volume sources
// (volume_sources.go).
func docVolumeSources(b *strings.Builder) {
	b.WriteString("\n## Volume sources\n\nEvery source of a pod's volumes and of a PersistentVolume. An **external** one is refused " +
		"unless the tenant's policy lists it (`kubectl zoo policy set T --volume-sources`), by the proxy and upstream.\n\n" +
		"| source | in a pod | on a PersistentVolume | why |\n|---|---|---|---|\n")
	for _, s := range VolumeSources {
		fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", s.Name, s.Pod, s.Volume, docCell(s.Reason))
	}
}
