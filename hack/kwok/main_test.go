package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseArgs: the front's flags come before `--`, kwok's after, and the
// front needs all of its own.
func TestParseArgs(t *testing.T) {
	full := []string{"--listen=127.0.0.1:1", "--tls-cert-file=c", "--tls-private-key-file=k", "--sandbox-dir=d"}
	for _, tc := range []struct {
		name     string
		args     []string
		kwokArgs []string
		err      string
	}{
		{"both", append(full, "--", "--config=x", "--v=INFO"), []string{"--config=x", "--v=INFO"}, ""},
		{"no kwok flags", append(full, "--"), []string{}, ""},
		{"no separator", full, nil, "usage: kwok FRONT-FLAGS -- KWOK-FLAGS"},
		{"a missing flag", []string{"--listen=a", "--tls-cert-file=c", "--tls-private-key-file=k", "--"}, nil, "--sandbox-dir is required"},
		{"a kwok flag before --", append([]string{"--config=x"}, append(full, "--")...), nil, "flag provided but not defined: -config"},
		{"an argument before --", append(full, "extra", "--"), nil, `unexpected arguments before --: ["extra"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, kwokArgs, err := parseArgs(tc.args)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, frontFlags{listen: "127.0.0.1:1", certFile: "c", keyFile: "k", sandboxDir: "d"}, f)
			assert.Equal(t, tc.kwokArgs, kwokArgs)
		})
	}
}
