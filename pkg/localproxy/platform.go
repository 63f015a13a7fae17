package localproxy

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/policy"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// platformTTL bounds how stale a cached PriorityClass value may be. The upstream's admission judges every write anyway; the
// proxy's answers only come first, with clearer messages.
const platformTTL = 30 * time.Second

// maxCachedClasses bounds the PriorityClass cache (a tenant can name any
// number of classes that do not exist).
const maxCachedClasses = 256

// platformLookup answers translate.PlatformLookup with upstream reads: the
// object a write changes as the tenant identity, the tenant's record as the
// tenant identity (it may get its own), PriorityClasses and namespaces with
// the caller's own identity, as the shared lookups do.
type platformLookup struct {
	p *Proxy

	mu        sync.Mutex
	classes   map[string]classValue
	lookupCtx func() (context.Context, context.CancelFunc)
}

type classValue struct {
	value int64
	found bool
	at    time.Time
}

func newPlatformLookup(p *Proxy) *platformLookup {
	return &platformLookup{p: p, classes: map[string]classValue{}, lookupCtx: func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(context.Background(), 5*time.Second)
	}}
}

type objectMeta struct {
	Metadata struct {
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
}

// CurrentMetadata implements translate.PlatformLookup.
func (l *platformLookup) CurrentMetadata(path string) (translate.Metadata, bool, error) {
	ctx, cancel := l.lookupCtx()
	defer cancel()
	var obj objectMeta
	err := l.p.tenantJSON(ctx, http.MethodGet, path, nil, nil, &obj)
	var se *statusError
	if errors.As(err, &se) && se.code == http.StatusNotFound {
		return translate.Metadata{}, false, nil
	}
	if err != nil {
		return translate.Metadata{}, false, err
	}
	return translate.Metadata{Labels: obj.Metadata.Labels, Annotations: obj.Metadata.Annotations}, true, nil
}

// CurrentObject implements translate.PlatformLookup.
func (l *platformLookup) CurrentObject(path string) (map[string]any, bool, error) {
	ctx, cancel := l.lookupCtx()
	defer cancel()
	var obj map[string]any
	err := l.p.tenantJSON(ctx, http.MethodGet, path, nil, nil, &obj)
	var se *statusError
	if errors.As(err, &se) && se.code == http.StatusNotFound {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return obj, true, nil
}

// PodSecurityLevel implements translate.PlatformLookup: the level of the
// tenant's policy (tenantapi.PodSecurityLevel). It is asked only when the
// tenant creates a namespace, so it is not cached: a `policy set
// --pod-security` holds for the next namespace at once.
func (l *platformLookup) PodSecurityLevel() (string, error) {
	if l.p.cfg.Direct {
		return directPodSecurityLevel, nil // the record is not the tenant's to read (direct.go)
	}
	ctx, cancel := l.lookupCtx()
	defer cancel()
	rec, err := l.p.tenantRecord(ctx)
	if err != nil {
		return "", err
	}
	return tenantapi.PodSecurityLevel(rec)
}

// PriorityClassValue implements translate.PlatformLookup, cached.
func (l *platformLookup) PriorityClassValue(name string) (int64, bool, error) {
	if l.p.cfg.Direct {
		return 0, false, nil // not the tenant's to read; the upstream judges (direct.go)
	}
	l.mu.Lock()
	if c, ok := l.classes[name]; ok && time.Since(c.at) < platformTTL {
		l.mu.Unlock()
		return c.value, c.found, nil
	}
	l.mu.Unlock()
	ctx, cancel := l.lookupCtx()
	defer cancel()
	var pc struct {
		Value int64 `json:"value"`
	}
	err := l.ownJSON(ctx, "/apis/scheduling.k8s.io/v1/priorityclasses/"+url.PathEscape(name), &pc)
	found := true
	var se *statusError
	if errors.As(err, &se) && se.code == http.StatusNotFound {
		found, err = false, nil
	}
	if err != nil {
		return 0, false, err
	}
	l.mu.Lock()
	if len(l.classes) >= maxCachedClasses {
		clear(l.classes)
	}
	l.classes[name] = classValue{value: pc.Value, found: found, at: time.Now()}
	l.mu.Unlock()
	return pc.Value, found, nil
}

// AllowedPriorityClasses implements translate.PlatformLookup: the classes
// of the tenant's policy and those of the namespace's platform annotation.
// It is asked only for a class of positive value, so it is not cached: a
// `policy set --priority-classes` holds at once.
func (l *platformLookup) AllowedPriorityClasses(ns string) ([]string, error) {
	ctx, cancel := l.lookupCtx()
	defer cancel()
	p, err := l.policy(ctx)
	if err != nil {
		return nil, err
	}
	var obj objectMeta
	if err := l.ownJSON(ctx, "/api/v1/namespaces/"+url.PathEscape(ns), &obj); err != nil {
		var se *statusError
		if errors.As(err, &se) && se.code == http.StatusNotFound {
			return p.PriorityClasses, nil
		}
		return nil, err
	}
	return append(slices.Clone(p.PriorityClasses), translate.ParsePriorityClasses(obj.Metadata.Annotations[translate.PriorityClassesAnnotation])...), nil
}

// ownJSON GETs path with the caller's own identity.
func (l *platformLookup) ownJSON(ctx context.Context, path string, out any) error {
	return l.p.ownJSON(ctx, path, out)
}

// AllowedExternalNames implements translate.ExternalNameLookup: the
// external names of the tenant's policy. It is asked only for an
// externalName that is not one of the tenant's Services, so it is not
// cached: a `policy set --external-names` holds at once. Serving with a
// user's own certificate (direct.go), the record is not the tenant's to
// read, so the proxy allows none and the upstream is not asked.
func (l *platformLookup) AllowedExternalNames() ([]string, error) {
	return l.policyList(func(p policy.Policy) []string { return p.ExternalNames })
}

// AllowedVolumeSources implements translate.VolumeSourceLookup: the
// volume sources of the tenant's policy, read as AllowedExternalNames
// reads its names (asked only for an object that names such a source).
func (l *platformLookup) AllowedVolumeSources() ([]string, error) {
	return l.policyList(func(p policy.Policy) []string { return p.VolumeSources })
}

// AllowedIngressHosts implements translate.IngressHostLookup: the host
// patterns of the tenant's policy, read as AllowedExternalNames reads its
// names.
func (l *platformLookup) AllowedIngressHosts() ([]string, error) {
	return l.policyList(func(p policy.Policy) []string { return p.IngressHosts })
}

// policyList is a list of the tenant's policy, read uncached; serving with
// a user's own certificate, none (AllowedExternalNames).
func (l *platformLookup) policyList(list func(policy.Policy) []string) ([]string, error) {
	if l.p.cfg.Direct {
		return nil, nil
	}
	ctx, cancel := l.lookupCtx()
	defer cancel()
	p, err := l.policy(ctx)
	if err != nil {
		return nil, err
	}
	return list(p), nil
}

// policy reads the tenant's effective policy from its record, uncached.
func (l *platformLookup) policy(ctx context.Context) (policy.Policy, error) {
	rec, err := l.p.tenantRecord(ctx)
	if err != nil {
		return policy.Policy{}, err
	}
	return tenantapi.EffectivePolicy(rec)
}
