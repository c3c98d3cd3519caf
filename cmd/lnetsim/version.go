package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lnetsim/lnetsim/internal/version"
)

// buildVersion is what runs record and version prints (see package version).
func buildVersion() string { return version.Build() }

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the lnetsim version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), "lnetsim", buildVersion())
			return err
		},
	}
}
