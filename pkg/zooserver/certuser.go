package zooserver

import (
	"crypto/x509"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// A certificate of the cluster's signer names a user of its own
// (platformobj.CertUserPrefix + "<tenant>:<id>"), in no group: upstream it
// may only impersonate the identity it stands for, by a grant revocation
// deletes (pkg/certs, grant.go). The server takes that identity from the
// tenant's record instead, by the certificate's serial.

// certUsersField is where the transform keeps a record's certificates of
// the cluster's signer that are not revoked, as serial: {user, groups}
// (JSON values, so that the object stays deep-copyable), in the informer's
// copy only.
const certUsersField = "zooCertUsers"

// keepCertUsers stores the unrevoked certificates of the cluster's signer
// of c in u (transformTenant).
func keepCertUsers(u *unstructured.Unstructured, c certs.Certificates) {
	set := map[string]any{}
	for _, r := range c.Issued {
		if r.Signer != certs.SignerKubernetes || r.Revoked != nil {
			continue
		}
		groups := make([]any, len(r.Groups))
		for i, g := range r.Groups {
			groups[i] = g
		}
		set[r.Serial] = map[string]any{"user": r.User, "groups": groups}
	}
	if len(set) > 0 {
		u.Object[certUsersField] = set
	}
}

// certIdentity is the tenant identity the certificate leaf of tenant's
// cluster signer stands for, by its record; why says why there is none (a
// revoked certificate, one the record does not know).
func (t *tenantIndex) certIdentity(tenant string, leaf *x509.Certificate) (u user.Info, why string) {
	serial := certs.SerialString(leaf.SerialNumber)
	obj, ok, err := t.informer.GetStore().GetByKey(tenant)
	if err != nil || !ok {
		return nil, "tenant " + tenant + " does not exist"
	}
	if why := t.refusesCertificate(tenant, leaf); why != "" { // revoked, or of an earlier record
		return nil, why
	}
	rec, _ := obj.(*unstructured.Unstructured)
	var entry map[string]any
	if rec != nil {
		set, _ := rec.Object[certUsersField].(map[string]any)
		entry, _ = set[serial].(map[string]any)
	}
	name, _ := entry["user"].(string)
	if name == "" {
		return nil, "certificate " + serial + " is not recorded in tenant " + tenant
	}
	var groups []string
	list, _ := entry["groups"].([]any)
	for _, g := range list {
		if s, ok := g.(string); ok {
			groups = append(groups, s)
		}
	}
	tn, err := translate.NewTenant(tenant)
	if err != nil {
		return nil, err.Error()
	}
	return &user.DefaultInfo{Name: tn.UpstreamUser(name), Groups: tn.UpstreamGroups(groups, false)}, ""
}
