package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantprop"
)

// scaleServerUser is the upstream identity of the servers the scale
// workload starts: one of their own, bound to cluster-admin, rather than the
// cluster admin's certificate (group system:masters, which the API server's
// "exempt" FlowSchema takes before any other), so that FlowSchemas of their
// own tell their upstream requests from every other client's.
const scaleServerUser = "zoo-bench-server"

// serverVerbs are the verbs whose upstream requests the server's
// FlowSchemas count apart; serverOtherVerbs counts the rest.
var serverVerbs = []string{"get", "list", "watch", "create", "update", "patch", "delete"}

const serverOtherVerbs = "other"

// serverFlowSchema names the FlowSchema that counts the server's requests
// of verb.
func serverFlowSchema(verb string) string { return scaleServerUser + "-" + verb }

// serverUpstream gives e's cluster the server identity and its FlowSchemas
// and returns the kubeconfig of that identity. The FlowSchemas send the
// requests to the "exempt" priority level, as the admin's are: they are
// counted (apiserver_flowcontrol_dispatched_requests_total by flow_schema)
// and not queued. The server's own loop acting as the propagator
// (tenantprop.PropagatorUser, by impersonation) is counted too; requests it
// makes as a tenant identity are the tenants' and are not.
func serverUpstream(ctx context.Context, e *env) (string, error) {
	certPEM, keyPEM, err := e.cluster.SignClientCertificate(ctx, scaleServerUser)
	if err != nil {
		return "", err
	}
	crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: scaleServerUser},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: scaleServerUser}}}
	if _, err := e.admin.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return "", err
	}
	subjects := []flowcontrolv1.Subject{
		{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: scaleServerUser}},
		{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: tenantprop.PropagatorUser}},
	}
	for _, verb := range append(serverVerbs, serverOtherVerbs) {
		rule := flowcontrolv1.PolicyRulesWithSubjects{Subjects: subjects}
		precedence := int32(100)
		if verb == serverOtherVerbs { // after the others: what they leave
			precedence++
			rule.ResourceRules = []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{"*"}, APIGroups: []string{"*"}, Resources: []string{"*"},
				ClusterScope: true, Namespaces: []string{"*"}}}
			rule.NonResourceRules = []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"*"}, NonResourceURLs: []string{"*"}}}
		} else {
			rule.ResourceRules = []flowcontrolv1.ResourcePolicyRule{{Verbs: []string{verb}, APIGroups: []string{"*"}, Resources: []string{"*"},
				ClusterScope: true, Namespaces: []string{"*"}}}
		}
		fs := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: serverFlowSchema(verb)}, Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: flowcontrolv1.PriorityLevelConfigurationNameExempt},
			MatchingPrecedence:         precedence,
			Rules:                      []flowcontrolv1.PolicyRulesWithSubjects{rule},
		}}
		if _, err := e.admin.FlowcontrolV1().FlowSchemas().Create(ctx, fs, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
			return "", fmt.Errorf("FlowSchema %s: %w", fs.Name, err)
		}
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["upstream"] = &clientcmdapi.Cluster{Server: e.cluster.Config.Host, CertificateAuthorityData: e.cluster.CACertPEM()}
	cfg.AuthInfos[scaleServerUser] = &clientcmdapi.AuthInfo{ClientCertificateData: certPEM, ClientKeyData: keyPEM}
	cfg.Contexts["upstream"] = &clientcmdapi.Context{Cluster: "upstream", AuthInfo: scaleServerUser}
	cfg.CurrentContext = "upstream"
	path := filepath.Join(e.dir, scaleServerUser+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return "", err
	}
	own := &rest.Config{Host: e.cluster.Config.Host, TLSClientConfig: rest.TLSClientConfig{CAData: e.cluster.CACertPEM(), CertData: certPEM, KeyData: keyPEM}}
	return path, waitCounted(ctx, e, own)
}

// waitCounted waits until the API server classifies the server identity's
// requests with its FlowSchemas (its flow-control configuration follows the
// objects with an informer): a GET as that identity shows in the count.
func waitCounted(ctx context.Context, e *env, own *rest.Config) error {
	cs, err := kubernetes.NewForConfig(own)
	if err != nil {
		return err
	}
	return wait.PollUntilContextTimeout(ctx, 500*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		before, err := serverRequests(ctx, e)
		if err != nil {
			return false, err
		}
		if _, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
			return false, err
		}
		after, err := serverRequests(ctx, e)
		return err == nil && after["get"] > before["get"], err
	})
}

// serverRequests counts the upstream requests of the server identity so
// far, by verb (serverVerbs and serverOtherVerbs).
func serverRequests(ctx context.Context, e *env) (map[string]float64, error) {
	m, err := apiserverMetrics(ctx, e)
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, verb := range append(serverVerbs, serverOtherVerbs) {
		// Absent until the first request of the FlowSchema.
		out[verb], _ = metricSum(m, "apiserver_flowcontrol_dispatched_requests_total", map[string]string{"flow_schema": serverFlowSchema(verb)})
	}
	return out, nil
}

//END
