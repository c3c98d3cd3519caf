package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/lnetsim/lnetsim/sweep"
)

func newSweepCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Parameter sweeps: plan, run (sharded), merge, emit cluster jobs",
		Long: `A sweep file names a base scenario, axes of values for scenario fields (the paths
--set takes) and a number of seeds per point:

  scenario: ../scenarios/catalogue/rail-failure.yaml
  seed: 1
  seeds: 5
  axes:
    lnet.transaction_timeout: [10, 50, 150]
    lnet.retry_count: [0, 1, 2, 3]

Run ids and seeds derive from the parameters, so growing an axis never changes existing runs.`,
	}
	cmd.AddCommand(newSweepPlanCmd(), newSweepMergeCmd(), newSweepEmitCmd())
	return cmd
}

func loadSweep(path string) (*sweep.Spec, error) {
	s, err := sweep.Load(path)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return s, nil
}

func newSweepPlanCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "plan SWEEP_FILE",
		Short: "Expand a sweep into its runs and write plan.jsonl",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := loadSweep(args[0])
			if err != nil {
				return err
			}
			plan := s.Plan()
			if out != "" {
				if err := sweep.WritePlan(out, plan); err != nil {
					return &exitError{code: exitRuntime, err: err}
				}
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "%d runs: %d points x %d seeds over %s\n", len(plan), len(plan)/s.Seeds, s.Seeds, s.Scenario)
			for _, r := range plan {
				fmt.Fprintf(w, "%4d %s seed=%d", r.Index, r.ID, r.Seed)
				for _, p := range r.Params {
					fmt.Fprintf(w, " %s=%s", p.Path, p.Value)
				}
				fmt.Fprintf(w, " rep=%d\n", r.Replicate)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "also write the plan to DIR/plan.jsonl")
	return cmd
}

func newSweepMergeCmd() *cobra.Command {
	var out string
	var dirs []string
	cmd := &cobra.Command{
		Use:   "merge SWEEP_FILE",
		Short: "Check that every planned run is present once and aggregate the metrics",
		Long: `Merge looks for every run of the plan under --from directories (shard outputs; default
--out), requires each exactly once, from one lnetsim version and scenario, and writes
OUT/aggregate.csv: per point and metric, n, mean, standard deviation and 95% CI.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := loadSweep(args[0])
			if err != nil {
				return err
			}
			if out == "" {
				return usageErr("--out is required")
			}
			if len(dirs) == 0 {
				dirs = []string{out}
			}
			if err := sweep.Merge(s.Plan(), dirs, out); err != nil {
				return &exitError{code: exitRuntime, err: err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s/%s\n", out, sweep.AggregateFile)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "sweep output directory (required)")
	cmd.Flags().StringSliceVar(&dirs, "from", nil, "shard output directories to merge (default: --out)")
	return cmd
}

func newSweepEmitCmd() *cobra.Command {
	var (
		out         string
		shards      int
		parallelism int
	)
	cmd := &cobra.Command{
		Use:       "emit slurm|k8s SWEEP_FILE",
		Short:     "Print a Slurm job-array script or a Kubernetes Indexed Job for a sweep",
		Args:      cobra.ExactArgs(2),
		ValidArgs: []string{"slurm", "k8s"},
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := loadSweep(args[1]); err != nil {
				return err
			}
			if out == "" {
				return usageErr("--out is required: the shared directory every shard writes to")
			}
			w := cmd.OutOrStdout()
			var err error
			switch args[0] {
			case "slurm":
				err = sweep.EmitSlurm(w, args[1], out, shards)
			case "k8s":
				err = sweep.EmitK8s(w, args[1], out, shards, parallelism)
			default:
				return usageErr("emit %q: use slurm or k8s", args[0])
			}
			if err != nil {
				return usageErr("%v", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "shared sweep output directory (required)")
	cmd.Flags().IntVar(&shards, "shards", 1, "number of shards (array tasks / completions)")
	cmd.Flags().IntVar(&parallelism, "parallelism", 0, "k8s: pods at once (default: all)")
	return cmd
}
