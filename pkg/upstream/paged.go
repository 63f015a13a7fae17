package upstream

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/pager"
)

// DefaultChunkSize is how many objects one upstream list request asks for
// (ListTenants, a tenant's users, an export), as `kubectl get --chunk-size`.
const DefaultChunkSize int64 = 500

// ListPaged lists with client-go's pager, chunkSize objects a request (0:
// one request), calls each for every item in order and returns the
// resourceVersion of the list.
func ListPaged(ctx context.Context, chunkSize int64, opts metav1.ListOptions, page pager.ListPageFunc, each func(runtime.Object) error) (string, error) {
	p := pager.New(page)
	p.PageSize = chunkSize
	obj, _, err := p.List(ctx, opts)
	if err != nil {
		return "", err
	}
	if err := meta.EachListItem(obj, each); err != nil {
		return "", err
	}
	acc, err := meta.ListAccessor(obj)
	if err != nil {
		return "", err
	}
	return acc.GetResourceVersion(), nil
}
