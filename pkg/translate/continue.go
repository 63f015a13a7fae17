package translate

import (
	"encoding/base64"
	"encoding/json"
	"strings"
)

// continuePrefix marks a composite continue token of a fanned-out list.
const continuePrefix = "zoo1."

// ContinueToken is the position of a list fanned out over the tenant's
// namespaces: the upstream namespace being listed and the upstream continue
// token within it ("" to start that namespace from its beginning).
type ContinueToken struct {
	// Namespace is the upstream namespace the next page starts in.
	Namespace string `json:"ns"`
	// Continue is the upstream continue token inside Namespace.
	Continue string `json:"c,omitempty"`
}

// EncodeContinue renders a composite continue token for the tenant.
func EncodeContinue(tok ContinueToken) string {
	data, _ := json.Marshal(tok) // a struct of strings always marshals
	return continuePrefix + base64.RawURLEncoding.EncodeToString(data)
}

// DecodeContinue parses a composite continue token the tenant sent back. The
// namespace must be one of the tenant's: a forged token naming another
// tenant's namespace is a 400 Bad Request.
func (t *Translator) DecodeContinue(s string) (ContinueToken, error) {
	raw, ok := strings.CutPrefix(s, continuePrefix)
	if !ok {
		return ContinueToken{}, badRequest("invalid continue token")
	}
	data, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return ContinueToken{}, badRequest("invalid continue token: %w", err)
	}
	var tok ContinueToken
	if err := json.Unmarshal(data, &tok); err != nil {
		return ContinueToken{}, badRequest("invalid continue token: %w", err)
	}
	if !t.tenant.Owns(tok.Namespace) {
		return ContinueToken{}, badRequest("invalid continue token: it does not belong to this cluster")
	}
	return tok, nil
}
