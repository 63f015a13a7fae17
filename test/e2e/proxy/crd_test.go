package proxy_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const crontabCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, shortNames: [ct]}
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - {name: Spec, type: string, jsonPath: .spec.cronSpec}
    - {name: Image, type: string, jsonPath: .spec.image}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            description: CronTabSpec is what a tenant asks of its crontab.
            properties:
              cronSpec: {type: string}
              image: {type: string}
`

const crontab = `apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: nightly, namespace: default}
spec: {cronSpec: "0 3 * * *", image: backup:1}
`

// TestCRDIsTheTenants: a tenant's CRD, its custom resources with their
// printer columns, discovery and OpenAPI; the other tenant sees none of it.
func TestCRDIsTheTenants(t *testing.T) {
	acme, beta := serve(t, "acme"), serve(t, "beta")
	acme.apply(t, crontabCRD)
	t.Cleanup(func() { acme.run(t, "", "delete", "crd", "crontabs.stable.example.com", "--wait=false") })
	acme.k(t, "wait", "crd/crontabs.stable.example.com", "--for=condition=Established", "--timeout=60s")
	assert.NotEmpty(t, admin(t, "get", "crd", "crontabs.acme-stable.example.com", "-o", "name"))

	require.Eventually(t, func() bool {
		return acme.run(t, crontab, "apply", "-f", "-").Err == nil
	}, 30*time.Second, 500*time.Millisecond, "the CR could not be created")
	out := acme.k(t, "get", "crontabs")
	assert.Regexp(t, `NAME\s+SPEC\s+IMAGE`, out)
	assert.Regexp(t, `nightly\s+0 3 \* \* \*\s+backup:1`, out)
	out = acme.k(t, "get", "ct", "-A")
	assert.Regexp(t, `default\s+nightly\s+0 3`, out)
	assert.Contains(t, acme.k(t, "api-resources", "--api-group=stable.example.com"), "crontabs")
	assert.Contains(t, acme.k(t, "api-versions"), "stable.example.com/v1")
	var explain string
	require.Eventually(t, func() bool {
		res := acme.run(t, "", "explain", "crontab.spec")
		explain = res.Stdout + res.Stderr
		return res.Err == nil && strings.Contains(res.Stdout, "CronTabSpec is what a tenant asks")
	}, 30*time.Second, time.Second, "explain crontab.spec: %s\nindex: %s", &explain, acme.run(t, "", "get", "--raw", "/openapi/v3").Stdout)

	assert.NotContains(t, beta.k(t, "get", "crd", "-o", "name"), "crontabs")
	assert.NotContains(t, beta.k(t, "api-resources"), "crontabs")
	assert.NotContains(t, beta.k(t, "api-versions"), "example.com")
	res := beta.run(t, "", "explain", "crontab")
	assert.Error(t, res.Err)
	res = beta.run(t, "", "get", "crontabs.stable.example.com", "-A")
	assert.Error(t, res.Err)
	res = beta.run(t, "", "get", "--raw", "/openapi/v3")
	require.NoError(t, res.Err)
	assert.NotContains(t, res.Stdout, "example.com")
	res = beta.run(t, "", "get", "--raw", "/openapi/v3/apis/acme-stable.example.com/v1")
	assert.Error(t, res.Err)
}
