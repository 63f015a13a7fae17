// Package nsobjects is the one reconciler core for "objects in every
// namespace of a tenant": what the platform keeps, per tenant, in each of
// the tenant's namespaces (the copies of the objects a tenant marks for
// propagation, pkg/tenantprop; the objects a tenant's policy implies).
//
// A reconcile is five steps, of which only the first and the last talk to
// the upstream:
//
//  1. the tenant's namespaces (TenantNamespaces: from a
//     tenantapi.NamespaceSource when one answers, else a LIST by label),
//     and the objects that exist in them (PerNamespace: listed, read or
//     taken from a cache, a bounded number of namespaces at once);
//  2. the desired objects, from a pure builder of the caller's: a list of
//     Want, each an object for one namespace, or an origin refused (why
//     it gets none);
//  3. Diff, pure: the Plan (create, update with preconditions, delete,
//     skip with a reason) from the wants and what exists, with the
//     caller's Rules for what the two really differ in (how "the same" is
//     judged: content or a hash annotation; when an existing object may
//     not be taken over);
//  4. Apply: the plan carried out by the caller's Writer (the identity
//     that writes, and how: create/update with UID and resourceVersion
//     preconditions, or server-side apply), a bounded number at once,
//     phase by phase;
//  5. what is the caller's alone around it: events on skips, a Lease, a
//     quota split across namespaces.
package nsobjects
