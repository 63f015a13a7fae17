package localproxy

import (
	"net/http"
	"strconv"
	"strings"

	"k8s.io/klog/v2"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// askedForProtobuf reports whether the translator let the upstream answer u
// in protobuf (translate.AcceptsProtobuf).
func askedForProtobuf(u *translate.UpstreamRequest) bool {
	return strings.HasPrefix(u.Header.Get("Accept"), translate.MediaProtobuf)
}

// forwardProtobuf answers with the translated protobuf answer in resp. A
// protobuf message carries its length before its content, so the translated
// message is held in a spill (memory, then an encrypted temporary file) and
// sent, with its exact Content-Length, once the upstream answer has been
// read and translated to its end.
func (p *Proxy) forwardProtobuf(w http.ResponseWriter, r *http.Request, resp *http.Response, u *translate.UpstreamRequest) {
	var msg spill
	defer msg.Close()
	answer, err := p.tr.TranslateProtobuf(u.Rule, resp.Body, &msg)
	if err != nil {
		writeStatus(w, translateStatus(err))
		return
	}
	if answer.JSON != nil { // a Status, in the tenant's terms
		w.Header().Set("Content-Type", translate.MediaJSON)
		w.Header().Set("Content-Length", strconv.Itoa(len(answer.JSON)))
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(answer.JSON)
		return
	}
	w.Header().Set("Content-Length", strconv.FormatInt(answer.Len(msg.Len()), 10))
	w.WriteHeader(resp.StatusCode)
	if _, err := w.Write(answer.Head(msg.Len())); err != nil {
		return
	}
	if _, err := msg.WriteTo(w); err != nil {
		if r.Context().Err() == nil {
			klog.ErrorS(err, "sending a protobuf answer failed midway", "tenant", p.tenant.Name(), "path", r.URL.Path)
		}
		return
	}
	_, _ = w.Write(answer.Tail())
}
