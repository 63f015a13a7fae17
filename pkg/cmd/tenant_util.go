package cmd

import (
	"fmt"

	"github.com/spf13/cobra"
)

func sprintfLine(format string, args ...any) string { return fmt.Sprintf(format, args...) + "\n" }

// exactlyOneName is a cobra.PositionalArgs for commands that take one NAME.
func exactlyOneName(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return fmt.Errorf("%s takes exactly one %s NAME, got %d arguments", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}
