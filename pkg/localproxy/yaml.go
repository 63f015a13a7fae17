package localproxy

import (
	"bytes"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// MediaYAML answers go out as, like the API server's.
const mediaYAML = "application/yaml"

// preferYAML reports whether the media type the API server would pick for
// accept is YAML: of the types it serves (JSON, YAML, protobuf and the
// wildcards that mean JSON), the one with the highest quality, the earliest
// on a tie. Parameters such as as=Table do not change the type.
func preferYAML(accept string) bool {
	type choice struct {
		mt string
		q  float64
	}
	var choices []choice
	for _, part := range strings.Split(accept, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case translate.MediaJSON, mediaYAML, translate.MediaProtobuf, "*/*", "application/*":
		default:
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		if q > 0 {
			choices = append(choices, choice{mt, q})
		}
	}
	sort.SliceStable(choices, func(i, j int) bool { return choices[i].q > choices[j].q })
	return len(choices) > 0 && choices[0].mt == mediaYAML
}

// yamlWriter holds an answer and sends it as YAML when it is JSON, as the API
// server does for a client that prefers YAML: objects, lists, Tables and
// Status errors alike. The proxy's translation speaks JSON; converting its
// result keeps every path (forwarded, fanned out, refused locally) the same.
// Streams (watches, logs) and OpenAPI documents are passed through: pass is
// set before anything is written for them.
type yamlWriter struct {
	http.ResponseWriter
	pass bool
	code int
	buf  bytes.Buffer
}

// WriteHeader records the code until finish.
func (y *yamlWriter) WriteHeader(code int) {
	if y.pass {
		y.ResponseWriter.WriteHeader(code)
		return
	}
	if y.code == 0 {
		y.code = code
	}
}

// Write holds the answer until finish.
func (y *yamlWriter) Write(b []byte) (int, error) {
	if y.pass {
		return y.ResponseWriter.Write(b)
	}
	if y.code == 0 {
		y.code = http.StatusOK
	}
	return y.buf.Write(b)
}

// Flush flushes only what is passed through; a held answer goes out whole.
func (y *yamlWriter) Flush() {
	if f, ok := y.ResponseWriter.(http.Flusher); ok && y.pass {
		f.Flush()
	}
}

// Unwrap returns the wrapped writer (http.ResponseController).
func (y *yamlWriter) Unwrap() http.ResponseWriter { return y.ResponseWriter }

// finish sends the held answer, as YAML when it is JSON.
func (y *yamlWriter) finish() {
	if y.pass || y.code == 0 {
		return
	}
	h := y.Header()
	body := y.buf.Bytes()
	if mt, _, err := mime.ParseMediaType(h.Get("Content-Type")); err == nil && mt == translate.MediaJSON && len(body) > 0 {
		if out, err := yaml.JSONToYAML(body); err == nil {
			h.Set("Content-Type", mediaYAML)
			body = out
		}
	}
	h.Del("Content-Length")
	y.ResponseWriter.WriteHeader(y.code)
	_, _ = y.ResponseWriter.Write(body)
}

// streamed reports whether the answer to u is a stream or a document the
// proxy passes on as the upstream wrote it, never converted to YAML.
func streamed(u *translate.UpstreamRequest) bool {
	switch u.Response {
	case translate.ResponseObjects, translate.ResponseDiscovery:
		return u.Info.Verb == "watch"
	}
	return true
}
