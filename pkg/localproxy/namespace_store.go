package localproxy

import (
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// namespaceStore is the NamespaceIndex as the reflector's store. The
// reflector calls it from its one goroutine, in the order of the watch, and
// reports every event's and bookmark's resourceVersion
// (cache.ResourceVersionUpdater) after applying it, so the index's version
// never runs ahead of what it holds.
type namespaceStore NamespaceIndex

var (
	_ cache.ReflectorStore         = (*namespaceStore)(nil)
	_ cache.ResourceVersionUpdater = (*namespaceStore)(nil)
)

// Add implements cache.ReflectorStore.
func (s *namespaceStore) Add(obj any) error { return s.put(obj) }

// Update implements cache.ReflectorStore.
func (s *namespaceStore) Update(obj any) error { return s.put(obj) }

// Delete implements cache.ReflectorStore.
func (s *namespaceStore) Delete(obj any) error {
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return fmt.Errorf("namespace index: unexpected %T", obj)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.removeLocked(ns.Name)
	return nil
}

// Replace implements cache.ReflectorStore: a fresh list.
func (s *namespaceStore) Replace(list []any, resourceVersion string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.byTenant)
	clear(s.tenantOf)
	for _, obj := range list {
		if ns, ok := obj.(*corev1.Namespace); ok {
			s.putLocked(ns)
		}
	}
	s.synced = true
	s.setVersionLocked(resourceVersion)
	return nil
}

// Resync implements cache.ReflectorStore; there is nothing to resync.
func (s *namespaceStore) Resync() error { return nil }

// UpdateResourceVersion implements cache.ResourceVersionUpdater.
func (s *namespaceStore) UpdateResourceVersion(resourceVersion string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.setVersionLocked(resourceVersion)
}

func (s *namespaceStore) put(obj any) error {
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return fmt.Errorf("namespace index: unexpected %T", obj)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.putLocked(ns)
	return nil
}

func (s *namespaceStore) putLocked(ns *corev1.Namespace) {
	s.removeLocked(ns.Name)
	t := tenantLabel(ns)
	if t == "" {
		return
	}
	m := s.byTenant[t]
	if m == nil {
		m = map[string]*corev1.Namespace{}
		s.byTenant[t] = m
	}
	m[ns.Name] = ns
	s.tenantOf[ns.Name] = t
}

func (s *namespaceStore) removeLocked(name string) {
	t, ok := s.tenantOf[name]
	if !ok {
		return
	}
	delete(s.byTenant[t], name)
	if len(s.byTenant[t]) == 0 {
		delete(s.byTenant, t)
	}
	delete(s.tenantOf, name)
}

// setVersionLocked moves the index's resourceVersion and wakes the waiters.
func (s *namespaceStore) setVersionLocked(resourceVersion string) {
	if v, err := strconv.ParseUint(resourceVersion, 10, 64); err == nil {
		s.rv, s.rvText = v, resourceVersion
		for tenant, w := range s.written { // notes the watch has passed
			if w <= v {
				delete(s.written, tenant)
			}
		}
	}
	close(s.changed)
	s.changed = make(chan struct{})
}
