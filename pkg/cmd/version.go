package cmd

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"sigs.k8s.io/yaml"
)

// These are stamped at build time with -ldflags "-X ...". See the Makefile and
// .goreleaser.yaml.
var (
	version = "v0.0.0-dev"
	commit  = "unknown"
	date    = "unknown"
)

// VersionInfo is what `kubectl zoo version` reports.
type VersionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	BuildDate string `json:"buildDate"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

// VersionOptions holds the flags of `kubectl zoo version`.
type VersionOptions struct {
	Output string

	genericiooptions.IOStreams
}

// NewVersionOptions returns VersionOptions writing to streams.
func NewVersionOptions(streams genericiooptions.IOStreams) *VersionOptions {
	return &VersionOptions{IOStreams: streams}
}

// NewCmdVersion returns the `kubectl zoo version` command.
func NewCmdVersion(streams genericiooptions.IOStreams) *cobra.Command {
	o := NewVersionOptions(streams)
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the kubectl-zoo version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
	}
	cmd.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: one of json|yaml")
	return cmd
}

// Validate checks the output format.
func (o *VersionOptions) Validate() error {
	switch o.Output {
	case "", "json", "yaml":
		return nil
	}
	return fmt.Errorf("--output must be one of json|yaml, not %q", o.Output)
}

// Run prints the version.
func (o *VersionOptions) Run() error {
	info := CurrentVersion()
	switch o.Output {
	case "json":
		b, err := json.MarshalIndent(info, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(o.Out, string(b))
		return err
	case "yaml":
		b, err := yaml.Marshal(info)
		if err != nil {
			return err
		}
		_, err = o.Out.Write(b)
		return err
	}
	_, err := fmt.Fprintf(o.Out, "kubectl-zoo %s (commit %s, built %s, %s, %s)\n",
		info.Version, info.Commit, info.BuildDate, info.GoVersion, info.Platform)
	return err
}

// CurrentVersion returns the version stamped into this binary.
func CurrentVersion() VersionInfo {
	return VersionInfo{
		Version:   version,
		Commit:    commit,
		BuildDate: date,
		GoVersion: runtime.Version(),
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
	}
}
