package tenantapi

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// maxLocalNameLength bounds a tenant-local user or group name that
// kubectl-zoo writes into a credential or a grant.
const maxLocalNameLength = 64

// localNameRE is what such a name may be: letters, digits and . _ @ -,
// starting and ending with a letter or digit (an e-mail address fits). No
// ':' — it separates the parts of identities.
var localNameRE = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._@-]*[A-Za-z0-9])?$`)

// ValidateLocalName checks a tenant-local name of kind ("user", "group")
// given with flag (for the message when it is empty).
func ValidateLocalName(flag, kind, name string) error {
	switch {
	case name == "":
		return fmt.Errorf("%s must not be empty", flag)
	case len(name) > maxLocalNameLength:
		return fmt.Errorf("%s %q is longer than %d characters", kind, name, maxLocalNameLength)
	case !localNameRE.MatchString(name):
		return fmt.Errorf("%s %q may contain only letters, digits and . _ @ -, and must start and end with a letter or digit", kind, name)
	}
	return nil
}

// ValidateLocalUser checks a tenant-local user name (given with flag) for a
// credential or a grant: no system: name, no upstream form (zoo:...), and
// ValidateLocalName.
func ValidateLocalUser(flag, user string) error {
	switch {
	case strings.HasPrefix(user, "system:"):
		return fmt.Errorf("user %q is refused: system: names belong to the cluster", user)
	case strings.HasPrefix(user, translate.IdentityPrefix):
		return fmt.Errorf("user %q is refused: give the tenant-local name (alice), not the upstream one", user)
	}
	return ValidateLocalName(flag, "user", user)
}
