package translate

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
)

// ListPage is one upstream list (or Table) page translated for a list the
// proxy joins from several (an all-namespaces list, one page per
// namespace): its items kept as translated bytes, not decoded, as
// TranslateList streams a list of one namespace.
type ListPage struct {
	// Head holds the page's top-level fields but its items (rows) and
	// metadata, translated.
	Head map[string]any
	// Key is where the items are: "items", or "rows" for a Table.
	Key string
	// Items holds the translated items (rows), each one JSON value,
	// separated by commas, without brackets; what is not the tenant's is
	// left out.
	Items []byte
	// Kept is how many items Items holds, Read how many the upstream
	// answered.
	Kept, Read int64
	// ResourceVersion and Continue are the page's metadata.
	ResourceVersion, Continue string
}

// TranslateListPage translates an upstream list (or Table) answer read
// whole, as TranslateDocument would translate it decoded, but item by
// item: only the fields translation touches are decoded (objectOutRaw),
// and the items stay bytes. An answer that is no list is translated whole
// into Head.
func (t *Translator) TranslateListPage(rule *KindRule, body []byte) (*ListPage, error) {
	s := newJSONStream(bytes.NewReader(body))
	defer s.release()
	if err := s.expect('{'); err != nil {
		return nil, malformed(err)
	}
	page := &ListPage{Key: "items"}
	var fields []rawField
	kind, seen := "", false
	more, err := s.first('}')
	for err == nil && more {
		var key string
		if key, err = s.key(); err != nil {
			break
		}
		if key == "items" || (key == "rows" && kind == "Table") {
			seen = true // a second array is the one kept, as when decoded
			if err := t.pageItems(rule, s, page, key, fields, len(body)); err != nil {
				return nil, err
			}
		} else {
			var raw []byte
			if raw, err = s.value(); err != nil {
				break
			}
			if key == "kind" {
				if v, decErr := decodeAny(raw); decErr == nil {
					kind, _ = v.(string)
				}
			}
			fields = append(fields, rawField{key: key, raw: bytes.Clone(raw)})
		}
		more, err = s.next('}')
	}
	if err != nil {
		return nil, malformed(err)
	}
	if !seen && kind == "Table" {
		page.Key = "rows"
	}
	// Not a list (the Status of a deletecollection that deleted nothing):
	// translated whole, as TranslateDocument translates it.
	whole := !seen && kind != "Table" && !strings.HasSuffix(kind, "List")
	return page, t.pageHead(rule, page, fields, whole)
}

// pageItems streams the page's items (rows) under key; fields are the
// top-level fields read before them (a Table's columns among them).
func (t *Translator) pageItems(rule *KindRule, s *jsonStream, page *ListPage, key string, fields []rawField, size int) error {
	table := key == "rows"
	cols := noColumns
	if table {
		head, _, err := decodeHead(fields)
		if err != nil {
			return err
		}
		cols = tableColumns(rule, head)
	}
	buf := bytes.NewBuffer(make([]byte, 0, size)) // the items are most of the answer
	kept, read, err := t.streamElements(rule, s, nil, buf, key, table, cols)
	if err != nil {
		return err
	}
	page.Key, page.Items, page.Kept, page.Read = key, buf.Bytes(), kept, read
	return nil
}

// pageHead decodes and translates the page's other top-level fields and
// takes its metadata out of them; whole: they are a document of their own,
// not a list's head.
func (t *Translator) pageHead(rule *KindRule, page *ListPage, fields []rawField, whole bool) error {
	head, _, err := decodeHead(fields)
	if err != nil {
		return err
	}
	switch {
	case whole:
		err = t.TranslateDocument(rule, head)
	case page.Key == "items":
		err = t.listKindOut(head)
	}
	if err != nil {
		return err
	}
	meta, _ := head["metadata"].(map[string]any)
	page.ResourceVersion, _ = meta["resourceVersion"].(string)
	page.Continue, _ = meta["continue"].(string)
	delete(head, "metadata")
	page.Head = head
	return nil
}

// WriteJoinedList writes the list joined from pages: head's fields, the
// pages' items (rows) under key, in order, and metadata holding rv and, if
// any, cont; as EncodeDocument writes a document (keys sorted, a newline
// at the end). The items are written as they are, without a copy.
func WriteJoinedList(w io.Writer, head map[string]any, key string, items [][]byte, rv, cont string) error {
	keys := make([]string, 0, len(head)+2)
	for k := range head {
		if k != key && k != "metadata" {
			keys = append(keys, k)
		}
	}
	keys = append(keys, key, "metadata")
	slices.Sort(keys)
	meta := map[string]any{"resourceVersion": rv}
	if cont != "" {
		meta["continue"] = cont
	}
	buf := getBuf()
	defer putBuf(buf)
	buf.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			buf.WriteByte(',')
		}
		writeKey(buf, k)
		var err error
		switch k {
		case key:
			err = writeItems(w, buf, items)
		case "metadata":
			err = encodeAny(buf, meta)
		default:
			err = encodeAny(buf, head[k])
		}
		if err != nil {
			return err
		}
	}
	buf.WriteString("}\n")
	_, err := w.Write(buf.Bytes())
	return err
}

// writeItems writes the items as one JSON array: small ones through buf,
// large ones straight to w once buf is flushed.
func writeItems(w io.Writer, buf *bytes.Buffer, items [][]byte) error {
	buf.WriteByte('[')
	first := true
	for _, it := range items {
		if len(it) == 0 {
			continue
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		if buf.Len()+len(it) <= 32<<10 {
			buf.Write(it)
			continue
		}
		if _, err := w.Write(buf.Bytes()); err != nil {
			return fmt.Errorf("writing the joined list: %w", err)
		}
		buf.Reset()
		if _, err := w.Write(it); err != nil {
			return fmt.Errorf("writing the joined list: %w", err)
		}
	}
	buf.WriteByte(']')
	return nil
}
