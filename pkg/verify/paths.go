package verify

import (
	"context"
	"errors"
	"fmt"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ScratchObject is the name of the objects verify makes in the scratch
// tenants' namespaces: the attacker's Service and ServiceAccount, the
// victim's ConfigMap.
const ScratchObject = "zoo-verify"

// tokenSeconds is the lifetime of the ServiceAccount token verify asks for.
const tokenSeconds = 600

// newTarget is a Target of the clients of cfg on path.
func newTarget(path Path, cfg *rest.Config, timeout time.Duration) (*Target, error) {
	cfg = rest.CopyConfig(cfg)
	cfg.Timeout, cfg.WarningHandler = timeout, rest.NoWarnings{}
	// The attempts are sequential, each bounded by timeout: client-go's
	// default of 5 requests a second would make the catalog's hundreds of
	// attempts wait on the client, not on the cluster.
	cfg.QPS, cfg.Burst = 100, 200
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s client: %w", path, err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s client: %w", path, err)
	}
	return &Target{Path: path, Kube: kube, Dynamic: dyn, Service: ScratchObject, VictimConfigMap: ScratchObject}, nil
}

// identityConfig is upstream impersonating admin, an admin of tenant t.
func identityConfig(upstream *rest.Config, t translate.Tenant, admin string) *rest.Config {
	cfg := rest.CopyConfig(upstream)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: t.UpstreamUser(admin), Groups: t.UpstreamGroups(nil, true)}
	return cfg
}

// setUpObjects makes, as the platform admin, the attacker's Service, Role
// and claim (of no class: it stays pending) and the victim's ConfigMap that the checks aim at, in the namespaces ns and
// victimNS (upstream names).
func setUpObjects(ctx context.Context, admin kubernetes.Interface, ns, victimNS string) error {
	_, err := admin.CoreV1().Services(ns).Create(ctx, probeService(ScratchObject, nil), metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create the attacker's Service: %w", err)
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: ScratchObject},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{translate.ResourceOf("", "ConfigMap")}, Verbs: []string{"get"}}}}
	if _, err := admin.RbacV1().Roles(ns).Create(ctx, role, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create the attacker's Role: %w", err)
	}
	claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: ScratchObject},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}, StorageClassName: ptr.To(""),
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	if _, err := admin.CoreV1().PersistentVolumeClaims(ns).Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create the attacker's claim: %w", err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ScratchObject}, Data: map[string]string{"secret": "the victim's"}}
	if _, err := admin.CoreV1().ConfigMaps(victimNS).Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create the victim's ConfigMap: %w", err)
	}
	return nil
}

// serviceAccountConfig makes, as the platform admin, a ServiceAccount in the
// tenant namespace ns bound to zoo-tenant-admin there (every right a
// tenant's pod can be given in its namespace), and returns a config with its
// token, once that token may write in ns.
func serviceAccountConfig(ctx context.Context, admin kubernetes.Interface, upstream *rest.Config, ns string, timeout time.Duration) (*rest.Config, error) {
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: ScratchObject}}
	if _, err := admin.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("create the ServiceAccount: %w", err)
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: ScratchObject},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: ScratchObject, Namespace: ns}},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: tenantapi.TenantAdminClusterRole}}
	if _, err := admin.RbacV1().RoleBindings(ns).Create(ctx, rb, metav1.CreateOptions{}); err != nil {
		return nil, fmt.Errorf("bind the ServiceAccount: %w", err)
	}
	tok, err := admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, ScratchObject, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](tokenSeconds)}}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("request the ServiceAccount's token: %w", err)
	}
	cfg := rest.AnonymousClientConfig(upstream)
	cfg.BearerToken, cfg.Timeout = tok.Status.Token, timeout
	bot, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	var last error
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		_, last = bot.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: ScratchObject}}, dryRun)
		return last == nil, nil
	})
	if err != nil {
		return nil, fmt.Errorf("the ServiceAccount's rights are not in force (%v): %w", last, err)
	}
	return cfg, nil
}

// firstNode is the name of a node of the cluster, "" if it has none.
func firstNode(ctx context.Context, admin kubernetes.Interface) (string, error) {
	nodes, err := admin.CoreV1().Nodes().List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return "", fmt.Errorf("list nodes: %w", err)
	}
	if len(nodes.Items) == 0 {
		return "", nil
	}
	return nodes.Items[0].Name, nil
}

// setUpVictimClasses makes, as the platform admin, a class of the victim's
// of each kind a pod spec or a claim names (ScratchObject, in its prefix and
// labeled for it): the objects the attempts at shared references name.
func setUpVictimClasses(ctx context.Context, admin kubernetes.Interface, victim translate.Tenant) error {
	meta := metav1.ObjectMeta{Name: victim.Prefix() + ScratchObject, Labels: tenantapi.OwnerLabels(victim)}
	var errs []error
	_, err := admin.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: meta, Value: 0,
		PreemptionPolicy: ptr.To(corev1.PreemptNever)}, metav1.CreateOptions{})
	errs = append(errs, err)
	_, err = admin.NodeV1().RuntimeClasses().Create(ctx, &nodev1.RuntimeClass{ObjectMeta: meta, Handler: "runc"}, metav1.CreateOptions{})
	errs = append(errs, err)
	_, err = admin.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{ObjectMeta: meta, Provisioner: "zoo-verify.example.com/none"}, metav1.CreateOptions{})
	errs = append(errs, err)
	_, err = admin.StorageV1().VolumeAttributesClasses().Create(ctx, &storagev1.VolumeAttributesClass{ObjectMeta: meta, DriverName: "zoo-verify.example.com",
		Parameters: map[string]string{"tier": "zooverify"}}, metav1.CreateOptions{})
	errs = append(errs, err)
	_, err = admin.ResourceV1().DeviceClasses().Create(ctx, &resourcev1.DeviceClass{ObjectMeta: meta}, metav1.CreateOptions{})
	errs = append(errs, err)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("create the victim's classes: %w", err)
	}
	return nil
}
