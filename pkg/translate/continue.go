package translate

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
)

// continuePrefix marks a composite continue token of a list the proxy joins
// from several upstream lists.
const continuePrefix = "zoo1."

// ContinueToken is the position of a list the proxy joins from several
// upstream lists (legs): the leg the next page starts in, the upstream
// continue token within it ("" to start that leg from its beginning) and the
// resourceVersion of the first page, at which a leg started afresh is read
// (so that every page shows one snapshot).
type ContinueToken struct {
	// Namespace is the upstream namespace the next page of a fanned-out
	// list (PlanFanOut) starts in.
	Namespace string `json:"ns,omitempty"`
	// Part is the leg the next page of a list of a shared kind
	// (PlanSharedList) starts in: SharedPartPlatform or SharedPartOwn.
	Part string `json:"part,omitempty"`
	// Continue is the upstream continue token inside the leg.
	Continue string `json:"c,omitempty"`
	// ResourceVersion is the resourceVersion of the list's first page.
	ResourceVersion string `json:"rv,omitempty"`
}

// EncodeContinue renders a composite continue token for the tenant.
func EncodeContinue(tok ContinueToken) string {
	data, _ := json.Marshal(tok) // a struct of strings always marshals
	return continuePrefix + base64.RawURLEncoding.EncodeToString(data)
}

// DecodeContinue parses a composite continue token the tenant sent back to a
// list carried out with plan. The token can only name a leg of that plan: a
// namespace of the tenant's for PlanFanOut, one of the two parts for
// PlanSharedList. A forged token naming anything else (another tenant's
// namespace above all) is a 400 Bad Request. The upstream continue inside a
// leg is only a position: the leg's selectors are the translator's, whatever
// the token says.
func (t *Translator) DecodeContinue(s string, plan Plan) (ContinueToken, error) {
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
	switch plan {
	case PlanFanOut:
		ok = tok.Part == "" && t.tenant.Owns(tok.Namespace)
	case PlanSharedList:
		ok = tok.Namespace == "" && (tok.Part == SharedPartPlatform || tok.Part == SharedPartOwn)
	default:
		ok = false
	}
	if !ok {
		return ContinueToken{}, badRequest("invalid continue token: it does not belong to this list")
	}
	if tok.ResourceVersion != "" {
		if _, err := strconv.ParseUint(tok.ResourceVersion, 10, 64); err != nil {
			return ContinueToken{}, badRequest("invalid continue token: bad resourceVersion")
		}
	}
	return tok, nil
}
