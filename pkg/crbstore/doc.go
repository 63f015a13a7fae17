// Package crbstore is the one home of tenant ClusterRoleBindings.
//
// A tenant ClusterRoleBinding must never grant upstream-wide. Upstream it is
// stored without subjects (admission refuses a tenant ClusterRoleBinding with
// subjects); its subjects live in SubjectsAnnotation, and in every namespace
// of the tenant a RoleBinding named MaterializedPrefix+<upstream name>
// (labeled MaterializedFromLabel) grants them the same ClusterRole there.
//
// The pure part (no network) builds and reads these objects:
//   - Store: the stored (subject-less) form of a binding to write;
//   - Materialize: the RoleBinding of a stored binding in one namespace;
//   - Restore / RestoreObject: the tenant's view of stored bindings in
//     upstream answers (objects, lists, Tables, watch events);
//   - Patch: a tenant's patch applied to its view of a stored binding;
//   - Reserved / HiddenSelector: the RoleBinding names and the selector that
//     keep materialized RoleBindings out of the tenant's view.
//
// Grants does the upstream writes, with client-go, impersonating the tenant
// identity (so RBAC's escalation checks and admission judge every
// RoleBinding): grant a binding in every namespace, grant every binding in a
// new namespace, revoke a deleted binding, prune after a deletecollection.
//
// The translating proxy (pkg/localproxy) calls it thinly: Store and
// Grants.Materialize on create/update/patch, Grants.MaterializeInto on
// namespace create, Restore on reads, Grants.Revoke / Grants.Prune on
// delete. See docs/security.md, "Tenant ClusterRoleBindings".
package crbstore
