package admissionrules

import (
	admissionv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// serverLabelValidations keep ServerAggregateLabel, which grants rights to
// the server's ServiceAccount (the aggregated ServerClusterRole collects the
// rules of every ClusterRole that carries it), confined to what
// CRDServerClusterRole needs:
//   - only a ClusterRole may carry it;
//   - a ClusterRole that carries it names only the tenant's own API groups
//     ("<t>-...": the group of a tenant's CRD, where every object is the
//     tenant's), in every rule, with no non-resource URLs, and has no
//     aggregationRule (the aggregation controller, which admission does not
//     judge, would fill its rules from other roles);
//   - no aggregationRule of the tenant selects the label (it would copy the
//     server's rights, impersonation included, into a role of the tenant).
//
// An existing ClusterRole of another tenant or of the platform cannot get
// the label: TenantPolicy lets a tenant change only cluster-scoped objects
// labeled as its own.
func serverLabelValidations(forbidden *metav1.StatusReason) []admissionv1.Validation {
	const clusterRole = `variables.isRBAC && request.resource.resource == '$RESOURCE(rbac.authorization.k8s.io/ClusterRole)' && object != null`
	return []admissionv1.Validation{{
		Expression: cel(`!('$SERVERLABEL' in variables.labels) || (variables.isRBAC && request.resource.resource == '$RESOURCE(rbac.authorization.k8s.io/ClusterRole)')`),
		Message:    cel("the label $SERVERLABEL grants rights to kubectl-zoo's server and belongs on ClusterRoles only"),
		Reason:     forbidden,
	}, {
		Expression: cel(`!(` + clusterRole + `) || !('$SERVERLABEL' in variables.labels) ||
  (!has(object.aggregationRule) && (!has(object.rules) || object.rules.all(r,
    (!has(r.nonResourceURLs) || size(r.nonResourceURLs) == 0) && has(r.apiGroups) && size(r.apiGroups) > 0 &&
    r.apiGroups.all(g, g.startsWith(variables.prefix) && size(g) > size(variables.prefix)))))`),
		MessageExpression: cel(`'a ClusterRole labeled $SERVERLABEL grants kubectl-zoo\'s server its rules: tenant ' + variables.tenant +
  ' may only name its own API groups (' + variables.prefix + '*) in them, no non-resource URLs, and no aggregationRule'`),
		Reason: forbidden,
	}, {
		Expression: cel(`!(` + clusterRole + `) || !has(object.aggregationRule) || !has(object.aggregationRule.clusterRoleSelectors) ||
  object.aggregationRule.clusterRoleSelectors.all(s, (!has(s.matchLabels) || !('$SERVERLABEL' in s.matchLabels)) &&
    (!has(s.matchExpressions) || s.matchExpressions.all(e, e.key != '$SERVERLABEL')))`),
		MessageExpression: cel(`'ClusterRoles of tenant ' + variables.tenant + ' may not aggregate the roles labeled $SERVERLABEL: they hold kubectl-zoo\'s server\'s rights'`),
		Reason:            forbidden,
	}}
}
