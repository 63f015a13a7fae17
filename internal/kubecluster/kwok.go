package kubecluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// LogLines are the lines every container's log holds (kwok serves them from a
// file in CRI log format).
var LogLines = []string{"kwok container started", "hello from kubectl-zoo"}

// kwokConfigTemplate makes kwok serve, for every pod on its nodes:
//   - logs and attach: the CRI-format log file (followed);
//   - port-forward: every port echoes what it receives (cat), so tests can
//     prove that data flows both ways.
//
// It configures no exec (ClusterExec): hack/kwok's front serves every exec
// from its sandbox, and kwok without one refuses an exec that reached it.
const kwokConfigTemplate = `apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokConfiguration
options:
  enableCRDs: []
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: zoo-logs
spec:
  logs:
  - logsFile: %[1]q
    follow: true
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterAttach
metadata:
  name: zoo-attach
spec:
  attaches:
  - logsFile: %[1]q
---
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterPortForward
metadata:
  name: zoo-port-forward
spec:
  forwards:
  - command: ["cat"]
`

func (c *Cluster) writeKwokConfig() (string, error) {
	dir := filepath.Join(c.Dir, "kwok")
	c.ExecSandbox = filepath.Join(dir, "sandbox")
	if err := os.MkdirAll(c.ExecSandbox, 0o700); err != nil {
		return "", err
	}
	c.LogFile = filepath.Join(dir, "container.log")
	var log strings.Builder
	stamp := time.Now().UTC()
	for i, line := range LogLines {
		fmt.Fprintf(&log, "%s stdout F %s\n", stamp.Add(time.Duration(i)*time.Millisecond).Format(time.RFC3339Nano), line)
	}
	if err := os.WriteFile(c.LogFile, []byte(log.String()), 0o644); err != nil {
		return "", err
	}
	config := filepath.Join(dir, "kwok.yaml")
	return config, os.WriteFile(config, fmt.Appendf(nil, kwokConfigTemplate, c.LogFile), 0o644)
}

// registerNode creates the fake node kwok manages.
func (c *Cluster) registerNode(ctx context.Context, client kubernetes.Interface) error {
	capacity := corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("32"),
		corev1.ResourceMemory: resource.MustParse("256Gi"),
		corev1.ResourcePods:   resource.MustParse("1000"),
	}
	node := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{
			Name:        c.NodeName,
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"},
			Labels: map[string]string{
				"type":                   "kwok",
				"kubernetes.io/hostname": c.NodeName,
				"kubernetes.io/os":       "linux",
				"kubernetes.io/arch":     "amd64",
			},
		},
		Status: corev1.NodeStatus{Capacity: capacity, Allocatable: capacity},
	}
	_, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("register kwok node: %w", err)
	}
	return nil
}

func nodeReady(ctx context.Context, client kubernetes.Interface, name string) error {
	node, err := client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	for _, cond := range node.Status.Conditions {
		if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
			return nil
		}
	}
	return fmt.Errorf("node %s is not Ready yet", name)
}

// AppendLog appends line to the log every container shows, as a running
// container would write it: `kubectl logs -f` and `kubectl attach` see it.
func (c *Cluster) AppendLog(line string) error {
	f, err := os.OpenFile(c.LogFile, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(f, "%s stdout F %s\n", time.Now().UTC().Format(time.RFC3339Nano), line)
	return errors.Join(err, f.Close())
}
