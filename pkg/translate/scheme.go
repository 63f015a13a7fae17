package translate

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// bodyScheme knows every type a client-go clientset of a built-in API group
// may send as a protobuf request body: client-go's own scheme (every group
// of k8s.io/api) and apiextensions.k8s.io, whose clientset lives in its own
// module and creates CustomResourceDefinitions in protobuf. APIServices
// (apiregistration.k8s.io) are refused before their body is read, so their
// types are not needed here.
var bodyScheme = newBodyScheme()

func newBodyScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(apiextensionsv1.AddToScheme(s))
	utilruntime.Must(apiextensionsv1beta1.AddToScheme(s))
	return s
}

// protobufCodecs decodes protobuf request bodies (protobufToJSON).
var protobufCodecs = serializer.NewCodecFactory(bodyScheme)
