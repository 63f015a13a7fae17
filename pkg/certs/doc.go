// Package certs issues, records, lists, revokes and renews tenant users'
// client certificates (`kubectl zoo cert`). The private key is made in the
// caller's process and never leaves it; the certificate comes from the
// cluster's CSR API (signer kubernetes.io/kube-apiserver-client) or from the
// zoo CA that `kubectl zoo install --server` keeps in zoo-system. Every
// issued certificate is recorded (never its key) in its Tenant record's
// spec.certificates, which the server (pkg/zooserver) follows to refuse
// revoked ones.
package certs
