package main

import (
	"errors"
	"fmt"
	"io/fs"
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

The figures are drawn from the files only, so they can always be redrawn with other tools.
A figure whose data the run does not have (no health change, no completed message) is not
drawn and the reason printed. Exit status 1 when a figure cannot be written (a read-only
--out) or an input file read, 2 when the files hold values a figure cannot be drawn from;
every other figure is still drawn.`,
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
			if bins < 1 || bins > plots.MaxBins {
				return usageErr("--bins %d: the throughput figure needs from 1 to %d time bins", bins, plots.MaxBins)
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
			code, failed := exitOK, 0
			for _, f := range figures {
				path := filepath.Join(out, f.name+"."+format)
				err := f.draw(path)
				switch {
				case err == nil:
					fmt.Fprintln(cmd.OutOrStdout(), "wrote", path)
				case errors.Is(err, plots.ErrNothingToPlot):
					fmt.Fprintf(cmd.ErrOrStderr(), "lnetsim plot: %s not drawn: %v\n", f.name, err)
				default:
					fmt.Fprintf(cmd.ErrOrStderr(), "lnetsim plot: %s failed: %v\n", f.name, err)
					failed++
					code = max(code, figureExit(err))
				}
			}
			if failed > 0 {
				return &exitError{code: code, err: fmt.Errorf("%d of %d figures failed (see above)", failed, len(figures))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory for the figures (default: the run directory)")
	cmd.Flags().StringVar(&format, "format", "png", "figure format: png, svg or pdf")
	cmd.Flags().IntVar(&bins, "bins", 100, "time bins of the throughput figure (1 to 1000000)")
	return cmd
}

// figureExit is the exit status for a figure that failed: 1 when a file could not be written
// or read (a read-only --out, a full disk, an unreadable input), 2 when the run directory's
// files hold values the figure cannot be drawn from.
func figureExit(err error) int {
	var pe *fs.PathError
	if errors.Is(err, plots.ErrWrite) || errors.As(err, &pe) {
		return exitRuntime
	}
	return exitUsage
}

// drawRunFigures draws the figures `run --plots` adds to a run directory (health.png,
// ni-traffic.png) and returns the paths written and, for each figure not drawn, its name
// and why (no health change, no NI traffic, or an error).
func drawRunFigures(dir, title string) (written, notDrawn []string) {
	for _, f := range []struct {
		name string
		draw func(dir, title, out string) error
		kind string
	}{
		{"health.png", plots.Health, "Health values: "},
		{"ni-traffic.png", plots.NIThroughput, "Traffic per NI: "},
	} {
		path := filepath.Join(dir, f.name)
		if err := f.draw(dir, f.kind+title, path); err != nil {
			notDrawn = append(notDrawn, f.name+": "+err.Error())
			continue
		}
		written = append(written, path)
	}
	return written, notDrawn
}
