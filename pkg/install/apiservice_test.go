package install

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/upstream"
)

func TestKubernetesServiceObjects(t *testing.T) {
	for _, tc := range []struct {
		name          string
		ep            APIEndpoint
		wantAddresses []string
	}{
		{"one address", APIEndpoint{AddressType: discoveryv1.AddressTypeIPv4, Addresses: []string{"10.0.0.1"}, Port: 6443}, []string{"10.0.0.1"}},
		{"sorted, no duplicates", APIEndpoint{AddressType: discoveryv1.AddressTypeIPv4, Addresses: []string{"10.0.0.2", "10.0.0.1", "10.0.0.2"}, Port: 443},
			[]string{"10.0.0.1", "10.0.0.2"}},
		{"IPv6", APIEndpoint{AddressType: discoveryv1.AddressTypeIPv6, Addresses: []string{"fd00::1"}, Port: 6443}, []string{"fd00::1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs := KubernetesServiceObjects(translate.MustTenant("acme"), tc.ep)
			require.Len(t, objs, 3)
			svc, eps, slice := objs[0].(*corev1.Service), objs[1].(*corev1.Endpoints), objs[2].(*discoveryv1.EndpointSlice)
			for _, m := range []metav1.Object{svc, eps, slice} {
				assert.Equal(t, "acme-default", m.GetNamespace(), "only ever in the tenant's own default namespace")
				assert.Equal(t, KubernetesService, m.GetName())
				assert.Equal(t, tenantapi.ManagedByValue, m.GetLabels()[tenantapi.ManagedByLabel])
			}
			assert.Nil(t, svc.Spec.Selector, "selectorless: nothing selects the tenant's pods")
			assert.Equal(t, corev1.ServiceTypeClusterIP, svc.Spec.Type)
			require.Len(t, svc.Spec.Ports, 1)
			assert.Equal(t, int32(443), svc.Spec.Ports[0].Port)
			assert.Equal(t, "https", svc.Spec.Ports[0].Name)
			assert.Equal(t, tc.ep.Port, svc.Spec.Ports[0].TargetPort.IntVal)

			require.Len(t, eps.Subsets, 1)
			var got []string
			for _, a := range eps.Subsets[0].Addresses {
				got = append(got, a.IP)
			}
			assert.Equal(t, tc.wantAddresses, got)
			assert.Equal(t, tc.ep.Port, eps.Subsets[0].Ports[0].Port)
			assert.Equal(t, "true", eps.Labels[discoveryv1.LabelSkipMirror])

			assert.Equal(t, tc.ep.AddressType, slice.AddressType)
			assert.Equal(t, KubernetesService, slice.Labels[discoveryv1.LabelServiceName])
			assert.Empty(t, slice.Labels[discoveryv1.LabelManagedBy], "no controller may take the slice over")
			got = nil
			for _, e := range slice.Endpoints {
				got = append(got, e.Addresses...)
			}
			assert.Equal(t, tc.wantAddresses, got)
		})
	}
}

func TestUpstreamAPIEndpoint(t *testing.T) {
	ptr := func(s string) *string { return &s }
	port, ready, notReady := int32(6443), true, false
	slice := func(name string, typ discoveryv1.AddressType, eps ...discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{
			ObjectMeta:  metav1.ObjectMeta{Name: name, Namespace: "default", Labels: map[string]string{discoveryv1.LabelServiceName: "kubernetes"}},
			AddressType: typ, Endpoints: eps,
			Ports: []discoveryv1.EndpointPort{{Name: ptr("https"), Port: &port}},
		}
	}
	for _, tc := range []struct {
		name    string
		slices  []*discoveryv1.EndpointSlice
		want    []string
		wantErr bool
	}{
		{"ready addresses", []*discoveryv1.EndpointSlice{slice("kubernetes", discoveryv1.AddressTypeIPv4,
			discoveryv1.Endpoint{Addresses: []string{"10.0.0.1"}, Conditions: discoveryv1.EndpointConditions{Ready: &ready}},
			discoveryv1.Endpoint{Addresses: []string{"10.0.0.9"}, Conditions: discoveryv1.EndpointConditions{Ready: &notReady}})},
			[]string{"10.0.0.1"}, false},
		{"no slice", nil, nil, true},
		{"nothing ready", []*discoveryv1.EndpointSlice{slice("kubernetes", discoveryv1.AddressTypeIPv4,
			discoveryv1.Endpoint{Addresses: []string{"10.0.0.9"}, Conditions: discoveryv1.EndpointConditions{Ready: &notReady}})}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			kube := fake.NewClientset()
			for _, s := range tc.slices {
				_, err := kube.DiscoveryV1().EndpointSlices("default").Create(t.Context(), s, metav1.CreateOptions{})
				require.NoError(t, err)
			}
			ep, err := (&Client{Client: &upstream.Client{Kube: kube}}).upstreamAPIEndpoint(t.Context())
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, ep.Addresses)
			assert.Equal(t, port, ep.Port)
		})
	}
}
