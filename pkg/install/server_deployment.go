package install

import (
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/kubectl-zoo/kubectl-zoo/pkg/certs"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/tenantapi"
	"github.com/kubectl-zoo/kubectl-zoo/pkg/translate"
)

// ServerCertDigestAnnotation on the server's pod template is the sha256 of
// the serving certificate: a new certificate rolls the pods.
const ServerCertDigestAnnotation = translate.APIGroup + "/serving-cert-sha256"

// serverZooCADir is where the zoo CA's certificate is mounted.
const serverZooCADir = "/etc/zoo/client-ca"

// serverUID is distroless's "nonroot" user and group (the image's USER).
const serverUID = 65532

// ServerArgs are the arguments of the server container (the image's
// entrypoint is the kubectl-zoo binary): serve every tenant on ServerPort
// with the certificate mounted from ServerTLSSecret, and give tenant pods
// the Service's DNS name and the CA that verifies it (the certificate
// holds DNS names only); accept client certificates of the zoo CA
// (certs.ZooCAConfigMap, mounted: the server never gets the CA's key).
func ServerArgs() []string {
	return []string{
		"serve",
		"--listen=:" + strconv.Itoa(tenantapi.ServerPort),
		"--tls-cert-file=" + serverTLSDir + "/" + corev1.TLSCertKey,
		"--tls-private-key-file=" + serverTLSDir + "/" + corev1.TLSPrivateKeyKey,
		"--advertise-address=" + tenantapi.ServerName + "." + tenantapi.ServerNamespace + ".svc:" + strconv.Itoa(tenantapi.ServerServicePort),
		"--advertise-ca-file=" + serverTLSDir + "/" + tenantapi.ServerCAKey,
		"--client-ca-file=" + serverZooCADir + "/" + tenantapi.ServerCAKey,
	}
}

// serverDeployment runs opts.Replicas servers, spread over nodes, each
// with the restricted Pod Security profile and a read-only root: the only
// writable place is an emptyDir at /tmp, where the server spills answers
// larger than 1 MiB (encrypted).
func serverDeployment(opts ServerOptions, tlsPair *ServerTLS) *appsv1.Deployment {
	sum := sha256.Sum256(tlsPair.CertPEM)
	podLabels := maps.Clone(serverLabels())
	maps.Copy(podLabels, serverSelector())
	probe := func(path string) *corev1.Probe {
		return &corev1.Probe{
			ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
				Path: path, Port: intstr.FromString("https"), Scheme: corev1.URISchemeHTTPS,
			}},
			PeriodSeconds: 10, TimeoutSeconds: 5, FailureThreshold: 3,
		}
	}
	return &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: appsv1.SchemeGroupVersion.String(), Kind: "Deployment"},
		ObjectMeta: serverMeta(tenantapi.ServerName),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(opts.Replicas),
			Selector: &metav1.LabelSelector{MatchLabels: serverSelector()},
			// Never below the wanted replicas during a rollout.
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{
				MaxUnavailable: ptr.To(intstr.FromInt32(0)), MaxSurge: ptr.To(intstr.FromInt32(1)),
			}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      podLabels,
					Annotations: map[string]string{ServerCertDigestAnnotation: hex.EncodeToString(sum[:])},
				},
				Spec: serverPodSpec(opts.Image, probe),
			},
		},
	}
}

func serverPodSpec(image string, probe func(path string) *corev1.Probe) corev1.PodSpec {
	return corev1.PodSpec{
		ServiceAccountName:           tenantapi.ServerName,
		AutomountServiceAccountToken: ptr.To(true), // the server's upstream credential
		Affinity: &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{
				Weight: 100,
				PodAffinityTerm: corev1.PodAffinityTerm{
					LabelSelector: &metav1.LabelSelector{MatchLabels: serverSelector()},
					TopologyKey:   corev1.LabelHostname,
				},
			}},
		}},
		SecurityContext: &corev1.PodSecurityContext{
			RunAsNonRoot:   ptr.To(true),
			RunAsUser:      ptr.To[int64](serverUID),
			RunAsGroup:     ptr.To[int64](serverUID),
			FSGroup:        ptr.To[int64](serverUID),
			SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Containers: []corev1.Container{{
			Name:           "server",
			Image:          image,
			Args:           ServerArgs(),
			Env:            []corev1.EnvVar{{Name: "TMPDIR", Value: serverTmpDir}},
			Ports:          []corev1.ContainerPort{{Name: "https", ContainerPort: tenantapi.ServerPort, Protocol: corev1.ProtocolTCP}},
			LivenessProbe:  probe("/livez"),
			ReadinessProbe: probe("/readyz"),
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("1Gi")},
			},
			SecurityContext: &corev1.SecurityContext{
				RunAsNonRoot:             ptr.To(true),
				ReadOnlyRootFilesystem:   ptr.To(true),
				AllowPrivilegeEscalation: ptr.To(false),
				Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
				SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			VolumeMounts: []corev1.VolumeMount{
				{Name: "tls", MountPath: serverTLSDir, ReadOnly: true},
				{Name: "zoo-ca", MountPath: serverZooCADir, ReadOnly: true},
				{Name: "tmp", MountPath: serverTmpDir},
			},
		}},
		Volumes: []corev1.Volume{
			{Name: "tls", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
				SecretName: tenantapi.ServerTLSSecret, DefaultMode: ptr.To[int32](0o440),
				Items: []corev1.KeyToPath{{Key: corev1.TLSCertKey, Path: corev1.TLSCertKey}, {Key: corev1.TLSPrivateKeyKey, Path: corev1.TLSPrivateKeyKey},
					{Key: tenantapi.ServerCAKey, Path: tenantapi.ServerCAKey}},
			}}},
			{Name: "zoo-ca", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: certs.ZooCAConfigMap}, DefaultMode: ptr.To[int32](0o444),
				Items: []corev1.KeyToPath{{Key: tenantapi.ServerCAKey, Path: tenantapi.ServerCAKey}},
			}}},
			{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("1Gi"))}}},
		},
	}
}
