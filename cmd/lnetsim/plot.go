package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/lnetsim/lnetsim/plots"
	"github.com/lnetsim/lnetsim/record"
)

func newPlotCmd() *cobra.Command {
	var (
		out    string
		format string
		bins   int
	)
	cmd := &cobra.Command{
		Use:   "plot RUN_DIR",
		Short: "Render a run's figures from its result files",
		Long: `Plot reads a run directory written by lnetsim run (health.csv, messages.csv, faults.csv)
and renders, next to them or into --out:

  health.<fmt>      health value of every NI and peer NI over virtual time, faults marked
  throughput.<fmt>  delivered PUT/GET payload per time bin, faults marked
  ni-traffic.<fmt>  bytes sent per second by every NI, faults marked
  latency.<fmt>     completion latency CDF per message type

The figures are drawn from the files only, so they can always be redrawn with other tools.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if _, err := os.Stat(filepath.Join(dir, record.MessagesFile)); err != nil {
				return usageErr("%s is not an lnetsim run directory (no %s)", dir, record.MessagesFile)
			}
			switch format {
			case "png", "svg", "pdf":
			default:
				return usageErr("--format %q: use png, svg or pdf", format)
			}
			if out == "" {
				out = dir
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return &exitError{code: exitRuntime, err: err}
			}
			title := filepath.Base(filepath.Clean(dir))
			if s, err := record.ReadSummary(dir); err == nil && s.Scenario != "" {
				title = fmt.Sprintf("%s (seed %d)", s.Scenario, s.Seed)
			}
			figures := []struct {
				name string
				draw func(string) error
			}{
				{"health", func(p string) error { return plots.Health(dir, "Health values: "+title, p) }},
				{"throughput", func(p string) error { return plots.Throughput(dir, "Throughput: "+title, p, bins) }},
				{"ni-traffic", func(p string) error { return plots.NIThroughput(dir, "Traffic per NI: "+title, p) }},
				{"latency", func(p string) error { return plots.LatencyCDF(dir, "Completion latency: "+title, p) }},
			}
			w := cmd.OutOrStdout()
			for _, f := range figures {
				path := filepath.Join(out, f.name+"."+format)
				if err := f.draw(path); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "lnetsim plot: %s skipped: %v\n", f.name, err)
					continue
				}
				fmt.Fprintln(w, "wrote", path)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory for the figures (default: the run directory)")
	cmd.Flags().StringVar(&format, "format", "png", "figure format: png, svg or pdf")
	cmd.Flags().IntVar(&bins, "bins", 100, "time bins of the throughput figure")
	return cmd
}
