package localproxy

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/lru"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// The ConfigMap translate.APIAccessName is kubectl-zoo's when it carries
// this label; the proxy replaces no ConfigMap of that name without it.
const (
	apiAccessManagedLabel = "app.kubernetes.io/managed-by"
	apiAccessManagedValue = "kubectl-zoo"
)

// apiAccessTTL is how long a namespace's ConfigMap, once checked, is
// believed unchanged. A tenant that changes or deletes its copy in the
// meantime only hurts its own pods; the next write after this repairs it.
const apiAccessTTL = 30 * time.Second

// maxAPIAccessNamespaces bounds the namespaces remembered as checked.
const maxAPIAccessNamespaces = 4096

// APIAccess is what the multi-tenant server gives tenant workloads: the
// address of the zoo server as they reach it (its Service) and the CA
// bundle that verifies it. With it, the translator injects into every pod
// and pod template written the in-cluster access of the tenant's view
// (translate.Options.APIAccess), and before each such write the proxy
// keeps the ConfigMap translate.APIAccessName of the object's namespace,
// which that access reads, up to date — with the server's own identity, in
// namespaces labeled as the writer's tenant only. One APIAccess serves
// every proxy of a server. Local `serve` has none.
type APIAccess struct {
	host, port string
	caBundle   func() []byte
	client     kubernetes.Interface

	mu      sync.Mutex
	checked *lru.Cache // upstream namespace → apiAccessCheck
}

type apiAccessCheck struct {
	sum [sha256.Size]byte
	at  time.Time
}

// NewAPIAccess returns the APIAccess of a server reached by workloads at
// address (HOST:PORT) and verified by the PEM bundle caBundle returns (read
// on every check, so a rotated CA reaches each namespace at its next
// write). client is the server's own upstream identity: it reads
// namespaces and reads and writes ConfigMaps of that one name.
func NewAPIAccess(client kubernetes.Interface, address string, caBundle func() []byte) (*APIAccess, error) {
	host, port, err := SplitAdvertiseAddress(address)
	if err != nil {
		return nil, err
	}
	return &APIAccess{host: host, port: port, caBundle: caBundle, client: client, checked: lru.New(maxAPIAccessNamespaces)}, nil
}

// SplitAdvertiseAddress splits HOST:PORT as a pod's KUBERNETES_SERVICE_HOST
// and KUBERNETES_SERVICE_PORT.
func SplitAdvertiseAddress(address string) (host, port string, err error) {
	host, port, err = net.SplitHostPort(address)
	if err != nil {
		return "", "", fmt.Errorf("the advertised address %q is not HOST:PORT: %w", address, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 || host == "" {
		return "", "", fmt.Errorf("the advertised address %q is not HOST:PORT with a port from 1 to 65535", address)
	}
	return host, port, nil
}

// data is the ConfigMap's content for the tenant namespace local.
func (a *APIAccess) data(local string) (map[string]string, error) {
	ca := a.caBundle()
	if len(ca) == 0 {
		return nil, fmt.Errorf("no CA bundle for workloads is loaded")
	}
	return map[string]string{
		translate.APIAccessCAKey:        string(ca),
		translate.APIAccessNamespaceKey: local,
		translate.APIAccessHostKey:      a.host,
		translate.APIAccessPortKey:      a.port,
	}, nil
}

// ensure makes the ConfigMap of the upstream namespace ns of tenant hold
// data. It writes only in a namespace labeled as the tenant's (it does
// nothing elsewhere, nor where the namespace is missing: the tenant's own
// write is refused there anyway), and refuses to replace a ConfigMap of
// that name that kubectl-zoo did not make (409: the tenant's own data).
func (a *APIAccess) ensure(ctx context.Context, tenant translate.Tenant, ns string) error {
	local, ok := tenant.TenantNamespace(ns)
	if !ok {
		return fmt.Errorf("namespace %s is not tenant %s's", ns, tenant)
	}
	data, err := a.data(local)
	if err != nil {
		return err
	}
	sum := dataSum(data)
	a.mu.Lock()
	v, ok := a.checked.Get(ns)
	a.mu.Unlock()
	if c, fresh := v.(apiAccessCheck); ok && fresh && c.sum == sum && time.Since(c.at) < apiAccessTTL {
		return nil
	}
	namespace, err := a.client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading namespace %s: %w", local, err)
	}
	if namespace.Labels[translate.TenantLabel] != tenant.Name() || namespace.DeletionTimestamp != nil {
		return nil
	}
	if err := a.write(ctx, ns, local, data); err != nil {
		return err
	}
	a.mu.Lock()
	a.checked.Add(ns, apiAccessCheck{sum: sum, at: time.Now()})
	a.mu.Unlock()
	return nil
}

// write creates or updates the ConfigMap, retrying once on a race.
func (a *APIAccess) write(ctx context.Context, ns, local string, data map[string]string) error {
	cms := a.client.CoreV1().ConfigMaps(ns)
	var err error
	for range 3 {
		var cm *corev1.ConfigMap
		cm, err = cms.Get(ctx, translate.APIAccessName, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			_, err = cms.Create(ctx, &corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{Name: translate.APIAccessName, Labels: map[string]string{apiAccessManagedLabel: apiAccessManagedValue}},
				Data:       data,
			}, metav1.CreateOptions{FieldManager: apiAccessManagedValue})
		case err != nil:
		case cm.Labels[apiAccessManagedLabel] != apiAccessManagedValue:
			return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusConflict,
				Reason: metav1.StatusReasonConflict, Details: &metav1.StatusDetails{Name: translate.APIAccessName, Kind: configMapsResource.Resource},
				Message: fmt.Sprintf("the ConfigMap %s/%s, which kubectl-zoo fills with the API access of the namespace's pods, exists and is not kubectl-zoo's "+
					"(no label %s=%s): rename or delete it", local, translate.APIAccessName, apiAccessManagedLabel, apiAccessManagedValue)}}
		case maps.Equal(cm.Data, data) && len(cm.BinaryData) == 0:
			return nil
		default:
			cm.Data, cm.BinaryData = data, nil
			_, err = cms.Update(ctx, cm, metav1.UpdateOptions{FieldManager: apiAccessManagedValue})
		}
		if !apierrors.IsAlreadyExists(err) && !apierrors.IsConflict(err) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("publishing the API access of namespace %s: %w", local, err)
	}
	return nil
}

func dataSum(data map[string]string) [sha256.Size]byte {
	h := sha256.New()
	for _, k := range []string{translate.APIAccessCAKey, translate.APIAccessNamespaceKey, translate.APIAccessHostKey, translate.APIAccessPortKey} {
		fmt.Fprintf(h, "%d:%s%d:%s", len(k), k, len(data[k]), data[k])
	}
	var s [sha256.Size]byte
	copy(s[:], h.Sum(nil))
	return s
}

// ensureAPIAccess keeps the ConfigMap of the namespace a pod or pod
// template is written into (not its subresources); it answers the request
// with a Status and returns false when it could not.
func (p *Proxy) ensureAPIAccess(w http.ResponseWriter, r *http.Request, u *translate.UpstreamRequest) bool {
	a := p.cfg.APIAccess
	switch {
	case a == nil, u.Rule == nil, !u.Rule.HasPodSpecs(), u.Info.Subresource != "", u.Info.Namespace == "":
		return true
	}
	switch u.Info.Verb {
	case "create", "update", "patch":
	default:
		return true
	}
	ns, err := p.tenant.UpstreamNamespace(u.Info.Namespace)
	if err == nil {
		err = a.ensure(r.Context(), p.tenant, ns)
	}
	if err == nil {
		return true
	}
	writeStatus(w, apiAccessFailure(err))
	return false
}

// apiAccessFailure is the Status of a request whose API access could not
// be kept. An upstream refusal (a 4xx: the tenant's ConfigMap of that name,
// its full ResourceQuota) keeps its code and reason, so the tenant sees
// what to fix; anything else is the server's internal error.
func apiAccessFailure(err error) *metav1.Status {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		if s := st.Status(); s.Code == http.StatusConflict {
			return &s
		} else if s.Code >= 400 && s.Code < 500 {
			s.Message = err.Error()
			return &s
		}
	}
	return &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
		Reason: metav1.StatusReasonInternalError, Message: err.Error()}
}
