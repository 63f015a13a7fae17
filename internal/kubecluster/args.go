package kubecluster

import (
	"path/filepath"
	"strconv"
)

// ServiceClusterIPRange is the Service CIDR of the cluster. Nothing routes to
// it; it only has to be valid.
const ServiceClusterIPRange = "10.96.0.0/16"

func etcdArgs(dir string, port, peerPort int) []string {
	client := "http://127.0.0.1:" + strconv.Itoa(port)
	peer := "http://127.0.0.1:" + strconv.Itoa(peerPort)
	return []string{
		"--name=zoo",
		"--data-dir=" + filepath.Join(dir, "etcd"),
		"--listen-client-urls=" + client,
		"--advertise-client-urls=" + client,
		"--listen-peer-urls=" + peer,
		"--initial-advertise-peer-urls=" + peer,
		"--initial-cluster=zoo=" + peer,
		"--listen-metrics-urls=",
		// Test data is thrown away with the cluster: skip fsync, which is
		// what makes etcd slow on shared disks.
		"--unsafe-no-fsync=true",
		"--log-level=warn",
	}
}

func apiserverArgs(p *pki, etcdPort, port int) []string {
	return []string{
		"--etcd-servers=http://127.0.0.1:" + strconv.Itoa(etcdPort),
		"--bind-address=127.0.0.1",
		"--advertise-address=" + advertiseAddress(),
		"--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file=" + p.path("apiserver.crt"),
		"--tls-private-key-file=" + p.path("apiserver.key"),
		"--client-ca-file=" + p.path("ca.crt"),
		"--service-account-key-file=" + p.path("sa.pub"),
		"--service-account-signing-key-file=" + p.path("sa.key"),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-cluster-ip-range=" + ServiceClusterIPRange,
		"--authorization-mode=Node,RBAC",
		"--kubelet-client-certificate=" + p.path("apiserver-kubelet-client.crt"),
		"--kubelet-client-key=" + p.path("apiserver-kubelet-client.key"),
		"--kubelet-preferred-address-types=InternalIP",
		"--allow-privileged=true",
		"--profiling=false",
		"--v=1",
	}
}

func controllerManagerArgs(p *pki, dir string) []string {
	kubeconfig := filepath.Join(dir, "kube-controller-manager.kubeconfig")
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--service-account-private-key-file=" + p.path("sa.key"),
		"--root-ca-file=" + p.path("ca.crt"),
		"--cluster-signing-cert-file=" + p.path("ca.crt"),
		"--cluster-signing-key-file=" + p.path("ca.key"),
		"--use-service-account-credentials=true",
		// kwok heartbeats its node every 20 to 45 s (its default node
		// stage), which on a loaded machine lands past the default grace
		// of 50 s: the node lifecycle controller then marked the node
		// NotReady about once a minute, and with it every pod's Ready
		// condition False, which kwok never sets back — deployments never
		// became available. The fake node never really goes away.
		"--node-monitor-grace-period=10m",
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=0",
		"--v=1",
	}
}

func schedulerArgs(dir string) []string {
	kubeconfig := filepath.Join(dir, "kube-scheduler.kubeconfig")
	return []string{
		"--kubeconfig=" + kubeconfig,
		"--authentication-kubeconfig=" + kubeconfig,
		"--authorization-kubeconfig=" + kubeconfig,
		"--leader-elect=false",
		"--bind-address=127.0.0.1",
		"--secure-port=0",
		"--v=1",
	}
}

// kwokArgs are the flags of hack/kwok: its front's, which serves the node's
// kubelet port on port with exec from the sandbox, then kwok's own.
func kwokArgs(p *pki, dir, config, sandbox string, port int) []string {
	return []string{
		"--listen=127.0.0.1:" + strconv.Itoa(port),
		"--tls-cert-file=" + p.path("kwok.crt"),
		"--tls-private-key-file=" + p.path("kwok.key"),
		"--sandbox-dir=" + sandbox,
		"--",
		"--kubeconfig=" + filepath.Join(dir, "kwok.kubeconfig"),
		"--config=" + config,
		"--manage-all-nodes=true",
		"--node-ip=127.0.0.1",
		"--node-port=" + strconv.Itoa(port),
		"--v=INFO",
	}
}
