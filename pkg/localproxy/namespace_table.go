package localproxy

import (
	"encoding/json"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// indexAnswer is the shape a namespace list from the index takes: the
// first of the client's choices (as the translator passed them upstream)
// that the index can write.
type indexAnswer struct {
	// table is the Table's meta.k8s.io version ("" for a NamespaceList).
	table string
	// includeObject is what each Table row carries: "Metadata" (the
	// default), "Object" or "None".
	includeObject string
}

// indexAnswerFormat picks the answer to accept (the upstream Accept header)
// and includeObject (never None upstream: translate maps it to Metadata);
// ok is false for a shape only the upstream writes
// (PartialObjectMetadataList, YAML, ...).
func indexAnswerFormat(accept, includeObject string) (indexAnswer, bool) {
	if includeObject == "" {
		includeObject = string(metav1.IncludeMetadata)
	}
	switch metav1.IncludeObjectPolicy(includeObject) {
	case metav1.IncludeMetadata, metav1.IncludeObject:
	default:
		return indexAnswer{}, false
	}
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := translate.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if mt != translate.MediaJSON && mt != "*/*" && mt != "application/*" {
			return indexAnswer{}, false
		}
		switch {
		case len(params) == 0:
			return indexAnswer{}, true
		case params["as"] == "Table" && params["g"] == metav1.GroupName && (params["v"] == "v1" || params["v"] == "v1beta1") && len(params) == 3:
			return indexAnswer{table: params["v"], includeObject: includeObject}, true
		}
		return indexAnswer{}, false
	}
	return indexAnswer{}, false
}

// encode writes nss at resourceVersion rv in the answer's shape.
func (a indexAnswer) encode(nss []*corev1.Namespace, rv string) ([]byte, error) {
	if a.table == "" {
		return namespaceListJSON(nss, rv)
	}
	return namespaceTable(nss, rv, a.table, metav1.IncludeObjectPolicy(a.includeObject))
}

// namespaceTable is the Table of namespaces the API server prints (its
// printer's columns: Name, Status, Age) in meta.k8s.io/<version>, each row
// carrying what includeObject asks for.
func namespaceTable(nss []*corev1.Namespace, rv, version string, includeObject metav1.IncludeObjectPolicy) ([]byte, error) {
	meta := metav1.ObjectMeta{}.SwaggerDoc()
	table := metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: metav1.GroupName + "/" + version},
		ListMeta: metav1.ListMeta{ResourceVersion: rv},
		ColumnDefinitions: []metav1.TableColumnDefinition{
			{Name: "Name", Type: "string", Format: "name", Description: meta["name"]},
			{Name: "Status", Type: "string", Description: "The status of the namespace"},
			{Name: "Age", Type: "string", Description: meta["creationTimestamp"]},
		},
		Rows: make([]metav1.TableRow, 0, len(nss)),
	}
	for _, ns := range nss {
		row := metav1.TableRow{Cells: []any{ns.Name, string(ns.Status.Phase), age(ns.CreationTimestamp)}}
		var obj any
		switch includeObject {
		case metav1.IncludeMetadata:
			m := &metav1.PartialObjectMetadata{ObjectMeta: ns.ObjectMeta}
			m.Kind, m.APIVersion = "PartialObjectMetadata", metav1.GroupName+"/"+version
			obj = m
		case metav1.IncludeObject:
			o := *ns
			o.Kind, o.APIVersion = "Namespace", "v1"
			obj = &o
		}
		if obj != nil {
			raw, err := json.Marshal(obj)
			if err != nil {
				return nil, err
			}
			row.Object = runtime.RawExtension{Raw: raw}
		}
		table.Rows = append(table.Rows, row)
	}
	return json.Marshal(&table)
}

// age is the printers' age of a creation timestamp.
func age(ts metav1.Time) string {
	if ts.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(time.Since(ts.Time))
}
