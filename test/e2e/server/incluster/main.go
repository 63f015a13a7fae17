// Command incluster is a tenant's workload, as the server's e2e test runs
// it with exactly the environment and the files the kubelet gives the
// tenant's pod: it builds its client with client-go's rest.InClusterConfig,
// reads its namespace from the ServiceAccount's namespace file, asks who it
// is, lists the ConfigMaps of that namespace and watches them until the
// one named in its first argument appears, and prints what it saw as JSON.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// namespaceFile is where in-cluster clients read their namespace (client-go's
// clientcmd in-cluster loader reads the same file).
const namespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// Seen is what the program prints.
type Seen struct {
	Host       string   `json:"host"`
	Namespace  string   `json:"namespace"`
	User       string   `json:"user"`
	ConfigMaps []string `json:"configMaps"`
	Watched    string   `json:"watched"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "incluster:", err)
		os.Exit(1)
	}
}

func run() error {
	if len(os.Args) != 2 {
		return fmt.Errorf("usage: incluster CONFIGMAP-TO-WATCH-FOR")
	}
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return fmt.Errorf("in-cluster config: %w", err)
	}
	ns, err := os.ReadFile(namespaceFile)
	if err != nil {
		return err
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	seen := Seen{Host: cfg.Host, Namespace: strings.TrimSpace(string(ns))}
	review, err := client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("who am I: %w", err)
	}
	seen.User = review.Status.UserInfo.Username
	list, err := client.CoreV1().ConfigMaps(seen.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return fmt.Errorf("listing ConfigMaps: %w", err)
	}
	for _, cm := range list.Items {
		seen.ConfigMaps = append(seen.ConfigMaps, cm.Namespace+"/"+cm.Name)
	}
	w, err := client.CoreV1().ConfigMaps(seen.Namespace).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		return fmt.Errorf("watching ConfigMaps: %w", err)
	}
	defer w.Stop()
	fmt.Fprintln(os.Stderr, "watching") // the test creates the ConfigMap now
	for ev := range w.ResultChan() {
		if cm, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type == watch.Added && cm.Name == os.Args[1] {
			seen.Watched = cm.Namespace + "/" + cm.Name
			break
		}
	}
	if seen.Watched == "" {
		return fmt.Errorf("the watch ended without %s", os.Args[1])
	}
	return json.NewEncoder(os.Stdout).Encode(seen)
}
