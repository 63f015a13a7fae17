package proxy_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEventMessagesThroughProxy (issue 16): the scheduler's event for a pod
// of acme's names the pod in acme's names (default/<pod>), in core/v1
// message and events.k8s.io/v1 note, in kubectl's table and describe; upstream it
// names acme-default/<pod>.
func TestEventMessagesThroughProxy(t *testing.T) {
	acme := serve(t, "acme")
	acme.apply(t, "apiVersion: v1\nkind: Pod\nmetadata: {name: evented, namespace: default}\nspec:\n  containers: [{name: c, image: busybox}]\n")
	defer acme.run(t, "", "delete", "pod", "evented", "-n", "default", "--wait=false")

	sel := "--field-selector=reason=Scheduled,involvedObject.name=evented"
	var msg string
	require.Eventually(t, func() bool {
		msg = acme.k(t, "get", "events", "-n", "default", sel, "-o", "jsonpath={.items[*].message}")
		return msg != ""
	}, 60*time.Second, time.Second, "the pod is scheduled")
	assert.Contains(t, msg, "Successfully assigned default/evented to ")
	assert.NotContains(t, msg, "acme-")
	assert.Contains(t, admin(t, "get", "events", "-n", "acme-default", sel, "-o", "jsonpath={.items[*].message}"),
		"Successfully assigned acme-default/evented to ", "upstream the message names the upstream namespace")

	note := acme.k(t, "get", "events.events.k8s.io", "-n", "default", "--field-selector=reason=Scheduled,regarding.name=evented", "-o", "jsonpath={.items[*].note}")
	assert.Contains(t, note, "Successfully assigned default/evented to ")
	// The MESSAGE column of kubectl's table, and kubectl describe.
	assert.Contains(t, acme.k(t, "get", "events", "-n", "default", sel), "Successfully assigned default/evented to ")
	describe := acme.k(t, "describe", "pod", "evented", "-n", "default")
	assert.Contains(t, describe, "Successfully assigned default/evented to ")
	assert.NotContains(t, describe, "acme-default")
}
