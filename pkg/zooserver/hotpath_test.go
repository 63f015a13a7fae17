package zooserver

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestIdentityKeyIsTheFormattedOne: key builds the string the
// fmt.Sprintf it replaced made, so that no two identities share a proxy
// that did not before.
func TestIdentityKeyIsTheFormattedOne(t *testing.T) {
	for _, groups := range [][]string{nil, {}, {"devs"}, {"devs", "ops"}, {"", "a\x00b"}, {"system:serviceaccounts"}} {
		for _, user := range []string{"alice", "", "system:serviceaccount:default:builder", "a\x00b"} {
			for _, admin := range []bool{false, true} {
				id := identity("acme", user)
				id.Groups = groups
				want := fmt.Sprintf("%s\x00%s\x00%t\x00%s", id.Tenant.Name(), id.User, admin, strings.Join(id.Groups, "\x00"))
				assert.Equal(t, want, id.key(admin), "%q %q %v", user, groups, admin)
			}
		}
	}
}

// TestLookupReadsTheRecordAsBefore: lookup's reading of deletion and
// spec.admins without copies answers what GetDeletionTimestamp and
// NestedStringSlice answered, for records of every shape.
func TestLookupReadsTheRecordAsBefore(t *testing.T) {
	records := map[string]*unstructured.Unstructured{
		"admins":              tenantRecord("acme", "admin", "alice"),
		"no admins":           tenantRecord("acme"),
		"an admin not string": tenantRecord("acme", "alice", int64(5)),
		"admins not a list":   {Object: map[string]any{"spec": map[string]any{"admins": "alice"}}},
		"no spec":             {Object: map[string]any{}},
		"spec not an object":  {Object: map[string]any{"spec": "x"}},
	}
	for _, ts := range []any{nil, "", "2026-01-01T00:00:00Z", "not a time", int64(5)} {
		r := tenantRecord("acme", "alice")
		if ts != nil {
			_ = unstructured.SetNestedField(r.Object, ts, "metadata", "deletionTimestamp")
		}
		records[fmt.Sprintf("deletionTimestamp %v", ts)] = r
	}
	for name, u := range records {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, u.GetDeletionTimestamp() != nil, beingDeleted(u))
			for _, user := range []string{"alice", "admin", "bob", ""} {
				admins, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "admins")
				assert.Equal(t, slices.Contains(admins, user), isAdmin(u, user), user)
			}
		})
	}
}

// TestCodeLabelIsTheFormattedOne: the table of code labels answers what
// formatting each code answered.
func TestCodeLabelIsTheFormattedOne(t *testing.T) {
	for code := -1; code <= 1000; code++ {
		want := "other"
		switch code {
		case 200, 201, 202, 204, 206, 304, 400, 401, 403, 404, 405, 406, 409, 410, 413, 415, 422, 429, 500, 502, 503, 504:
			want = strconv.Itoa(code)
		}
		assert.Equal(t, want, codeLabel(code), code)
	}
}
