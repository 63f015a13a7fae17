package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"charm.land/lipgloss/v2"
	sigsyaml "sigs.k8s.io/yaml"
)

// NameMappingList is the machine output (-o yaml|json) of `explain` for
// TYPE/NAME arguments.
type NameMappingList struct {
	// Direction is tenant-to-upstream or upstream-to-tenant.
	Direction string `json:"direction"`
	// Items has one mapping per argument, in order.
	Items []NameMapping `json:"items"`
}

// Styles of the human output. lipgloss always renders ANSI; Run writes through
// a colorprofile.Writer that downsamples or strips it for the output.
var (
	styleHeader  = lipgloss.NewStyle().Bold(true)
	styleLabel   = lipgloss.NewStyle().Faint(true)
	styleName    = lipgloss.NewStyle().Bold(true)
	styleComment = lipgloss.NewStyle().Faint(true)
	styleMark    = lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true)
	effectStyles = map[string]lipgloss.Style{
		EffectPrefixed:   lipgloss.NewStyle().Foreground(lipgloss.Color("2")).Bold(true),
		EffectUnchanged:  lipgloss.NewStyle().Foreground(lipgloss.Color("6")).Bold(true),
		EffectReadOnly:   lipgloss.NewStyle().Foreground(lipgloss.Color("6")).Bold(true),
		EffectVirtual:    lipgloss.NewStyle().Foreground(lipgloss.Color("6")).Bold(true),
		EffectHidden:     lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true),
		EffectForbidden:  lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true),
		EffectOtherOwner: lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true),
		EffectNoTenant:   lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true),
	}
)

// printMachine prints v as YAML or JSON.
func printMachine(w io.Writer, format string, v any) error {
	var data []byte
	var err error
	if format == "json" {
		data, err = json.MarshalIndent(v, "", "  ")
		data = append(data, '\n')
	} else {
		data, err = sigsyaml.Marshal(v)
	}
	if err != nil {
		return fmt.Errorf("encoding output: %w", err)
	}
	_, err = w.Write(data)
	return err
}

// viewString renders a view as "deployments.apps  acme-default/web".
func viewString(v *ObjectView) string {
	if v == nil {
		return "—"
	}
	res := v.Resource
	if v.Group != "" {
		res += "." + v.Group
	}
	name := v.Name
	if v.Namespace != "" {
		name = v.Namespace + "/" + name
	}
	return res + "  " + styleName.Render(name)
}

// printNames prints one block per mapping.
func printNames(w io.Writer, mappings []NameMapping, reverse bool) {
	for i, m := range mappings {
		if i > 0 {
			fmt.Fprintln(w)
		}
		title := m.Kind
		if title == "" {
			title = "custom resource"
		}
		fmt.Fprintln(w, styleHeader.Render(m.Argument)+"  "+styleLabel.Render("("+title+", "+m.Treatment+")"))
		tenantLabel := "tenant"
		if m.Tenant != "" && m.TenantView != nil {
			tenantLabel = "tenant " + m.Tenant
		}
		rows := [][2]string{{tenantLabel, viewString(m.TenantView)}, {"upstream", viewString(m.Upstream)}}
		if reverse {
			rows[0], rows[1] = rows[1], rows[0]
		}
		rows = append(rows, [2]string{"effect", effectStyles[m.Effect].Render(m.Effect) + ": " + m.Message})
		if len(m.References) > 0 && m.TenantView != nil && m.Upstream != nil {
			var mapped, refused, policy []string
			byPolicy := map[string]int{}
			for _, r := range m.References {
				switch {
				case r.Refused:
					refused = append(refused, r.Field)
				case r.ByPolicy:
					if byPolicy[r.Target] == 0 {
						policy = append(policy, r.Target)
					}
					byPolicy[r.Target]++
				default:
					mapped = append(mapped, r.Field+" ("+r.Target+")")
				}
			}
			if len(mapped) > 0 {
				rows = append(rows, [2]string{"also mapped", strings.Join(mapped, ", ")})
			}
			for i, target := range policy {
				policy[i] = fmt.Sprintf("%s (%d fields)", target, byPolicy[target])
			}
			if len(policy) > 0 {
				rows = append(rows, [2]string{"by policy", strings.Join(policy, ", ")})
			}
			if len(refused) > 0 {
				rows = append(rows, [2]string{"refused", strings.Join(refused, ", ")})
			}
		}
		width := 0
		for _, r := range rows {
			width = max(width, len(r[0]))
		}
		for _, r := range rows {
			fmt.Fprintf(w, "  %s%s  %s\n", styleLabel.Render(r[0]+":"), strings.Repeat(" ", width-len(r[0])), r[1])
		}
	}
}

// printManifestMachine prints the translated objects: YAML documents, or one
// JSON object (a v1 List for several).
func printManifestMachine(w io.Writer, format string, objs []manifestObject) error {
	if format == "json" {
		if len(objs) == 1 {
			return printMachine(w, format, objs[0].After)
		}
		items := make([]any, len(objs))
		for i, o := range objs {
			items[i] = o.After
		}
		return printMachine(w, format, map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	}
	for i, o := range objs {
		if i > 0 {
			fmt.Fprintln(w, "---")
		}
		if err := printMachine(w, format, o.After); err != nil {
			return err
		}
	}
	return nil
}

// printManifestHuman prints each translated object as YAML with a summary in
// comments above it and every changed line marked.
func printManifestHuman(w io.Writer, objs []manifestObject, reverse bool) error {
	for i, o := range objs {
		if i > 0 {
			fmt.Fprintln(w, "---")
		}
		dir := fmt.Sprintf("tenant %s → upstream", o.Tenant)
		if reverse {
			dir = fmt.Sprintf("upstream → tenant %s", o.Tenant)
		}
		fmt.Fprintln(w, styleComment.Render("# "+o.Where+": "+dir))
		switch len(o.Changes) {
		case 0:
			fmt.Fprintln(w, styleComment.Render("# unchanged"))
		case 1:
			fmt.Fprintln(w, styleComment.Render("# 1 field changed:"))
		default:
			fmt.Fprintln(w, styleComment.Render(fmt.Sprintf("# %d fields changed:", len(o.Changes))))
		}
		for _, c := range o.Changes {
			note := ""
			if o.DefaultedNamespace && fieldPath(c.Path) == "metadata.namespace" {
				note = " (not in the manifest: from -n)"
			}
			fmt.Fprintln(w, styleComment.Render("#   "+fieldPath(c.Path)+": "+c.describe()+note))
		}
		text, err := markedYAML(o.After, o.Changes)
		if err != nil {
			return err
		}
		for _, line := range strings.SplitAfter(strings.TrimSuffix(text, "\n"), "\n") {
			fmt.Fprint(w, styleMarkedLine(line))
		}
		fmt.Fprintln(w)
	}
	return nil
}

// styleMarkedLine styles the "# was: ..." mark of a changed line. A plain YAML
// scalar cannot contain " #", so the last one starts the comment; a line that
// is all comment is a removal noted at the document's head.
func styleMarkedLine(line string) string {
	body, nl := strings.CutSuffix(line, "\n")
	suffix := ""
	if nl {
		suffix = "\n"
	}
	if strings.HasPrefix(body, "# ") {
		return styleMark.Render(body) + suffix
	}
	i := strings.LastIndex(body, " # ")
	if i < 0 {
		return line
	}
	rest := body[i+3:]
	if !strings.HasPrefix(rest, markWas) && !strings.HasPrefix(rest, markAdded) && !strings.HasPrefix(rest, markRemoved) {
		return line
	}
	return body[:i] + " " + styleMark.Render("# "+rest) + suffix
}
