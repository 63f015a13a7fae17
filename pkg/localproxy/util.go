package localproxy

import (
	"fmt"
	"io"
	"strings"
)

// errUpstream describes an upstream answer the proxy cannot read.
func errUpstream(code int, body []byte) error {
	if len(body) > 512 {
		body = body[:512]
	}
	return fmt.Errorf("unexpected answer %d: %s", code, strings.TrimSpace(string(body)))
}

// wantsTable reports whether an Accept header asks for server-side Tables.
func wantsTable(accept string) bool {
	return strings.Contains(accept, "as=Table")
}

// readLimited reads at most 64 KiB of an error body.
func readLimited(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, 64<<10))
}
