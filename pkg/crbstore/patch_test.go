package crbstore

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestPatch: a patch applies to the tenant's view of a stored binding, and
// whatever it does to the subjects annotation, the stored form carries the
// subjects of the result (Store overwrites the annotation).
func TestPatch(t *testing.T) {
	acme := translate.MustTenant("acme")
	tr := translate.New(acme, translate.Options{})
	stored, err := json.Marshal(storedCRB(t, "acme-readers", "acme-reader", "7", "zoo:acme:dev"))
	require.NoError(t, err)
	forged := `[{\"kind\":\"Group\",\"apiGroup\":\"rbac.authorization.k8s.io\",\"name\":\"system:masters\"}]`
	for _, tc := range []struct {
		name, ct, patch string
		want            []string // upstream subject names after Store
		code            int32
	}{
		{"json", translate.MediaJSONPatch, `[{"op":"replace","path":"/subjects/0/name","value":"ops"}]`, []string{"zoo:acme:ops"}, 0},
		{"merge", translate.MediaMergePatch, `{"subjects":[{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"a"},{"kind":"User","apiGroup":"rbac.authorization.k8s.io","name":"b"}]}`,
			[]string{"zoo:acme:a", "zoo:acme:b"}, 0},
		{"strategic yaml", translate.MediaStrategic, "metadata:\n  labels:\n    team: blue\n", []string{"zoo:acme:dev"}, 0},
		{"forged annotation by merge", translate.MediaMergePatch, `{"metadata":{"annotations":{"zoo.kubectl-zoo.io/subjects":"` + forged + `"}}}`,
			[]string{"zoo:acme:dev"}, 0},
		{"forged annotation by json patch", translate.MediaJSONPatch,
			`[{"op":"add","path":"/metadata/annotations","value":{"zoo.kubectl-zoo.io/subjects":"` + forged + `"}},{"op":"remove","path":"/subjects"}]`, []string{}, 0},
		{"server-side apply", translate.MediaApplyPatch, "metadata: {}", nil, http.StatusUnsupportedMediaType},
		{"does not apply", translate.MediaJSONPatch, `[{"op":"remove","path":"/nope/0"}]`, nil, http.StatusUnprocessableEntity},
		{"foreign subject", translate.MediaMergePatch, `{"subjects":[{"kind":"Group","apiGroup":"rbac.authorization.k8s.io","name":"system:masters"}]}`, nil, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crb, rv, err := Patch(tr, stored, tc.ct, []byte(tc.patch))
			if tc.code != 0 {
				require.Error(t, err)
				assert.Equal(t, tc.code, translate.ToStatus(err).Code, err.Error())
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "7", rv)
			assert.Equal(t, "acme-readers", crb.Name)
			out, err := Store(acme, crb)
			require.NoError(t, err)
			assert.Empty(t, out.Subjects)
			subjects, err := Subjects(out)
			require.NoError(t, err)
			names := []string{}
			for _, s := range subjects {
				names = append(names, s.Name)
			}
			assert.Equal(t, tc.want, names)
		})
	}
}
