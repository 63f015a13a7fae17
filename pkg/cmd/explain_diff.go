package cmd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// fieldChange is one field that translation changed, added or removed.
type fieldChange struct {
	// Path is the field: map keys, and list indices as "[i]".
	Path []string
	// Old and New are the values; HasOld/HasNew are false for an added or
	// removed field.
	Old, New       any
	HasOld, HasNew bool
}

// diffValues appends to out the leaf differences between before and after.
func diffValues(path []string, before, after any, out *[]fieldChange) {
	bm, bok := before.(map[string]any)
	am, aok := after.(map[string]any)
	if bok && aok {
		keys := make([]string, 0, len(bm)+len(am))
		for k := range bm {
			keys = append(keys, k)
		}
		for k := range am {
			if _, seen := bm[k]; !seen {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			b, hasB := bm[k]
			a, hasA := am[k]
			p := append(slices.Clone(path), k)
			if hasB && hasA {
				diffValues(p, b, a, out)
			} else {
				*out = append(*out, fieldChange{Path: p, Old: b, New: a, HasOld: hasB, HasNew: hasA})
			}
		}
		return
	}
	bl, bok := before.([]any)
	al, aok := after.([]any)
	if bok && aok && len(bl) == len(al) {
		for i := range bl {
			diffValues(append(slices.Clone(path), "["+strconv.Itoa(i)+"]"), bl[i], al[i], out)
		}
		return
	}
	if !reflect.DeepEqual(before, after) {
		*out = append(*out, fieldChange{Path: path, Old: before, New: after, HasOld: true, HasNew: true})
	}
}

var plainKeyRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// fieldPath renders a path as kubectl's JSONPath-like field names:
// metadata.labels["zoo.kubectl-zoo.io/tenant"], subjects[0].namespace.
func fieldPath(path []string) string {
	var b strings.Builder
	for i, p := range path {
		switch {
		case strings.HasPrefix(p, "["):
			b.WriteString(p)
		case plainKeyRE.MatchString(p):
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(p)
		default:
			b.WriteString("[" + strconv.Quote(p) + "]")
		}
	}
	return b.String()
}

// shortValue renders a value for a comment: scalars as they are, the rest as
// compact JSON, cut at 60 characters.
func shortValue(v any) string {
	var s string
	switch v := v.(type) {
	case string:
		s = v
		if s == "" {
			s = `""`
		}
	case json.Number:
		s = v.String()
	default:
		b, _ := json.Marshal(v)
		s = string(b)
	}
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// describe renders a change for the summary: "default → acme-default".
func (c fieldChange) describe() string {
	switch {
	case !c.HasOld:
		return "added: " + shortValue(c.New)
	case !c.HasNew:
		return "removed (was " + shortValue(c.Old) + ")"
	}
	return shortValue(c.Old) + " → " + shortValue(c.New)
}

// Comment prefixes that mark changed lines of a translated manifest.
const (
	markWas     = "was: "
	markAdded   = "added"
	markRemoved = "removed: "
)

// markedYAML renders obj as YAML with a trailing comment on every line that
// translation changed: "# was: <old>", "# added" or "# removed: <field>".
func markedYAML(obj map[string]any, changes []fieldChange) (string, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return "", fmt.Errorf("encoding object: %w", err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return "", fmt.Errorf("encoding object: %w", err)
	}
	plainStyle(&doc)
	for _, c := range changes {
		markChange(&doc, c)
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	enc.CompactSeqIndent()
	if err := enc.Encode(&doc); err != nil {
		return "", fmt.Errorf("encoding object: %w", err)
	}
	return buf.String(), enc.Close()
}

// plainStyle drops the JSON (flow, quoted) style the nodes were parsed with.
func plainStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		plainStyle(c)
	}
}

// markChange comments the line of a change: the value line of a changed or
// added field, or for a removed field the line of its nearest remaining
// parent (the document's head for top-level fields).
func markChange(doc *yaml.Node, c fieldChange) {
	key, value := lookupNode(doc.Content[0], c.Path)
	switch {
	case c.HasNew && value != nil && value.Kind == yaml.ScalarNode:
		comment := markAdded
		if c.HasOld {
			comment = markWas + shortValue(c.Old)
		}
		addComment(value, comment)
	case c.HasNew && key != nil:
		comment := markAdded
		if c.HasOld {
			comment = markWas + shortValue(c.Old)
		}
		addComment(key, comment)
	case !c.HasNew:
		for i := len(c.Path) - 1; i >= 0; i-- {
			k, v := lookupNode(doc.Content[0], c.Path[:i])
			if v == nil {
				continue
			}
			rel := fieldPath(c.Path[i:])
			if len(c.Path[i:]) == 1 {
				rel = c.Path[i]
			}
			comment := markRemoved + rel + " (was " + shortValue(c.Old) + ")"
			if k == nil {
				doc.HeadComment = strings.TrimSpace(doc.HeadComment + "\n" + comment)
			} else {
				addComment(k, comment)
			}
			return
		}
	}
}

func addComment(n *yaml.Node, comment string) {
	if n.LineComment == "" {
		n.LineComment = "# " + comment
		return
	}
	n.LineComment += "; " + comment
}

// lookupNode finds the key node and value node of path below n; key is nil
// for list items and for the root.
func lookupNode(n *yaml.Node, path []string) (key, value *yaml.Node) {
	value = n
	for _, p := range path {
		if value == nil {
			return nil, nil
		}
		next, nextKey := (*yaml.Node)(nil), (*yaml.Node)(nil)
		switch value.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(value.Content); i += 2 {
				if value.Content[i].Value == p {
					nextKey, next = value.Content[i], value.Content[i+1]
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(strings.Trim(p, "[]")); err == nil && i < len(value.Content) {
				next = value.Content[i]
			}
		}
		key, value = nextKey, next
	}
	return key, value
}
