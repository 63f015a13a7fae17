package cmd

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/client-go/rest"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/zooserver"
)

func TestServeAsTenantIdentity(t *testing.T) {
	acme, err := translate.NewTenant("acme")
	require.NoError(t, err)
	id := zooserver.Identity{Tenant: acme, User: "alice", Groups: []string{"dev", "qa"}}
	for _, tc := range []struct {
		name string
		o    ServeOptions
		want string // "" when served
	}{
		{"no flags", ServeOptions{User: translate.DefaultAdminUser}, ""},
		{"agreeing flags", ServeOptions{Tenant: "acme", User: "alice", userSet: true, Groups: []string{"qa"}}, ""},
		{"another tenant", ServeOptions{Tenant: "beta"}, `--tenant beta contradicts your credential: your credential is user "alice" of tenant acme`},
		{"another user", ServeOptions{User: "admin", userSet: true}, "--user admin contradicts your credential"},
		{"a group it is not in", ServeOptions{Groups: []string{"ops"}}, "--group ops contradicts your credential: your credential is user \"alice\" of tenant acme in groups [dev, qa]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.o
			err := o.serveAs(id)
			if tc.want != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want)
				assert.False(t, o.direct)
				return
			}
			require.NoError(t, err)
			assert.True(t, o.direct)
			assert.Equal(t, "acme", o.Tenant)
			assert.Equal(t, "alice", o.User)
			assert.Equal(t, []string{"dev", "qa"}, o.Groups)
		})
	}
}

// fakeWhoAmI is an upstream that says the credential is user in groups
// (SelfSubjectReview; 404 when user is empty, as before Kubernetes 1.28)
// and answers whether it may impersonate with allowed.
func fakeWhoAmI(t *testing.T, user string, groups []string, allowed bool) *rest.Config {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/apis/authentication.k8s.io/v1/selfsubjectreviews" && user != "":
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(authenticationv1.SelfSubjectReview{Status: authenticationv1.SelfSubjectReviewStatus{
				UserInfo: authenticationv1.UserInfo{Username: user, Groups: groups}}})
		case r.URL.Path == "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews":
			w.WriteHeader(http.StatusCreated)
			_ = json.NewEncoder(w).Encode(authorizationv1.SelfSubjectAccessReview{Status: authorizationv1.SubjectAccessReviewStatus{Allowed: allowed}})
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404}`))
		}
	}))
	t.Cleanup(ts.Close)
	return &rest.Config{Host: ts.URL}
}

func TestServeIdentify(t *testing.T) {
	for _, tc := range []struct {
		name    string
		user    string
		groups  []string
		allowed bool
		tenant  string
		want    string // "" when served
		direct  bool
	}{
		{"a tenant user's own certificate", "zoo:acme:alice", []string{"zoo:tenant:acme", "zoo:acme:dev", "system:authenticated"}, false, "", "", true},
		{"a zoo user outside its tenant group", "zoo:acme:alice", []string{"system:authenticated"}, true, "acme", "no usable tenant identity", false},
		{"a zoo user in zoo:admins", "zoo:acme:alice", []string{"zoo:tenant:acme", "zoo:admins"}, true, "acme", "no usable tenant identity", false},
		{"an impersonator", "kubernetes-admin", []string{"system:masters"}, true, "acme", "", false},
		{"an impersonator without --tenant", "kubernetes-admin", []string{"system:masters"}, true, "", "--tenant is required", false},
		{"neither", "carol", nil, false, "acme", `your credential (user "carol") is no tenant identity and may not impersonate zoo:acme:admin`, false},
		{"no SelfSubjectReview", "", nil, true, "acme", "", false},
		{"no SelfSubjectReview nor --tenant", "", nil, true, "", "no SelfSubjectReview", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := &ServeOptions{Tenant: tc.tenant, User: translate.DefaultAdminUser, upstream: fakeWhoAmI(t, tc.user, tc.groups, tc.allowed)}
			err := o.identify(t.Context())
			if tc.want != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.want)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.direct, o.direct)
			assert.Equal(t, "acme", o.Tenant)
		})
	}
}
