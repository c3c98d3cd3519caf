package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func newRunCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run [FILE...]",
		Short: "Run scenarios (with no file: the built-in default)",
		Long: `Run replays scenario files deterministically and writes their results.

Scenario files are not implemented yet (see the issue queue); with no argument, run executes
the built-in PHOLD benchmark on the event kernel as a smoke test and says so.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr("scenario files are not supported yet; run with no argument for the built-in PHOLD smoke test")
			}
			fmt.Fprintln(cmd.OutOrStdout(), "lnetsim: no scenario support yet; running the built-in PHOLD benchmark on the event kernel instead.")
			bench := newBenchPholdCmd()
			bench.SetOut(cmd.OutOrStdout())
			bench.SetArgs([]string{"--lps", "1000", "--pop", "1000", "--end", "10s"})
			return bench.Execute()
		},
	}
	return cmd
}
