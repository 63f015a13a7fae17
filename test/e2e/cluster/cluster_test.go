// Package cluster_test proves the local upstream is a real, working cluster:
// the pinned kubectl, pods Running on the kwok node, and the streaming
// subresources through the apiserver.
package cluster_test

import (
	"testing"

	"github.com/kubectl-zoo/kubectl-zoo/test/e2e/framework"
)

func TestMain(m *testing.M) { framework.Main(m) }
