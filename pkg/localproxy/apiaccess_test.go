package localproxy

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// TestAPIAccessFailureKeepsTheUpstreamCode: when the ConfigMap cannot be
// written for a reason of the tenant's own making (its ResourceQuota is
// full), the pod write is refused with the upstream's code and reason
// (403), not an internal error of the server.
func TestAPIAccessFailureKeepsTheUpstreamCode(t *testing.T) {
	client := fake.NewClientset(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "acme-default",
		Labels: map[string]string{translate.TenantLabel: "acme"}}})
	client.PrependReactor("create", "configmaps", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "configmaps"}, translate.APIAccessName,
			&quotaError{})
	})
	a, err := NewAPIAccess(client, "zoo-server.zoo-system.svc:443", func() []byte { return []byte("ca") })
	require.NoError(t, err)
	err = a.ensure(context.Background(), translate.MustTenant("acme"), "acme-default")
	require.Error(t, err)
	st := apiAccessFailure(err)
	assert.Equal(t, int32(http.StatusForbidden), st.Code)
	assert.Equal(t, metav1.StatusReasonForbidden, st.Reason)
	assert.Contains(t, st.Message, "exceeded quota")
	assert.Contains(t, st.Message, "publishing the API access of namespace default")

	st = apiAccessFailure(context.DeadlineExceeded)
	assert.Equal(t, int32(http.StatusInternalServerError), st.Code)
}

type quotaError struct{}

func (quotaError) Error() string {
	return "exceeded quota: cms, requested: configmaps=1, used: configmaps=1, limited: configmaps=1"
}
