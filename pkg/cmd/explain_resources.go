package cmd

import (
	"fmt"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// resourceAliases maps every name kubectl accepts for a built-in resource
// without its group (short name, plural, singular, kind; lower case) to the
// kinds-table row; the short names are the rows' (ShortNames, as discovery
// serves them). Where two groups share a name (events, ev), the first row
// of the table wins, as the core group does in kubectl.
var resourceAliases = buildResourceAliases()

func buildResourceAliases() map[string]*translate.KindRule {
	aliases := map[string]*translate.KindRule{}
	for _, rule := range translate.Kinds() {
		for _, short := range rule.ShortNames {
			if _, taken := aliases[short]; !taken {
				aliases[short] = rule
			}
		}
	}
	for _, rule := range translate.Kinds() {
		for _, name := range ruleNames(rule) {
			if _, taken := aliases[name]; !taken {
				aliases[name] = rule
			}
		}
	}
	return aliases
}

// ruleNames are the plural, singular and kind of a row, in lower case.
func ruleNames(rule *translate.KindRule) []string {
	return []string{rule.Resource.Resource, strings.ToLower(rule.Kind)}
}

// versionRE matches an API version inside TYPE.VERSION.GROUP.
var versionRE = regexp.MustCompile(`^v[0-9]+((alpha|beta)[0-9]+)?$`)

// resolvedType is a TYPE argument resolved without a cluster.
type resolvedType struct {
	// Rule is the kinds-table row; nil for a custom resource.
	Rule *translate.KindRule
	// Resource is the resource as written for a custom resource (plural and
	// group), or the row's resource.
	Resource schema.GroupResource
	// Namespaced is the resource's scope.
	Namespaced bool
	// Assumed is set when the scope of a custom resource was assumed.
	Assumed bool
}

// resolveType resolves a kubectl TYPE (ns, deploy, Deployment, deployments.apps,
// crontabs.stable.example.com, ...). Resources of other groups than the
// built-in ones are custom resources; they are namespaced unless
// clusterScoped is set.
func resolveType(typ string, clusterScoped bool) (resolvedType, error) {
	lower := strings.ToLower(typ)
	if rule, ok := resourceAliases[lower]; ok {
		return fromRule(rule), nil
	}
	name, group, found := strings.Cut(lower, ".")
	if !found || name == "" || group == "" {
		return resolvedType{}, fmt.Errorf("unknown resource type %q: use a kubectl name such as ns, deploy, cm or crd, or TYPE.GROUP for a custom resource", typ)
	}
	if v, rest, ok := strings.Cut(group, "."); ok && versionRE.MatchString(v) {
		group = rest
	}
	for _, rule := range translate.Kinds() {
		if rule.Resource.Group != group {
			continue
		}
		for _, n := range ruleNames(rule) {
			if n == name {
				return fromRule(rule), nil
			}
		}
	}
	if translate.IsSharedGroup(group) {
		return resolvedType{}, fmt.Errorf("unknown resource type %q: %q is a built-in API group and kubectl-zoo does not know this resource in it", typ, group)
	}
	return resolvedType{
		Resource:   schema.GroupResource{Group: group, Resource: name},
		Namespaced: !clusterScoped,
		Assumed:    true,
	}, nil
}

func fromRule(rule *translate.KindRule) resolvedType {
	return resolvedType{Rule: rule, Resource: rule.Resource, Namespaced: rule.Treatment == translate.Namespaced}
}

// resourceArg is one TYPE/NAME argument.
type resourceArg struct {
	Arg  string
	Type resolvedType
	Name string
}

// parseResourceArg parses TYPE/NAME.
func parseResourceArg(arg string, clusterScoped bool) (resourceArg, error) {
	typ, name, found := strings.Cut(arg, "/")
	if !found || typ == "" || name == "" {
		return resourceArg{}, fmt.Errorf("argument %q must be TYPE/NAME, for example ns/default, deploy/web or crontabs.stable.example.com/x", arg)
	}
	if strings.Contains(name, "/") {
		return resourceArg{}, fmt.Errorf("argument %q must be TYPE/NAME: the name may not contain \"/\"", arg)
	}
	rt, err := resolveType(typ, clusterScoped)
	if err != nil {
		return resourceArg{}, err
	}
	return resourceArg{Arg: arg, Type: rt, Name: name}, nil
}
