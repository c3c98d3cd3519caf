package main

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnetsim/lnetsim/plots"
	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/scenarios/runner"
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
	cmd.AddCommand(newSweepPlanCmd(), newSweepRunCmd(), newSweepMergeCmd(), newSweepPlotCmd(), newSweepEmitCmd())
	return cmd
}

func loadSweep(path string) (*sweep.Spec, error) {
	s, err := sweep.Load(path)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return s, nil
}

// loadCheckedSweep loads a sweep file and checks every point of its plan against the base
// scenario (sweep.Spec.Check): what plan, run and emit do before anything runs.
func loadCheckedSweep(path string) (*sweep.Spec, error) {
	s, err := loadSweep(path)
	if err != nil {
		return nil, err
	}
	if err := s.Check(); err != nil {
		return nil, usageErr("%v", err)
	}
	return s, nil
}

func newSweepPlanCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "plan SWEEP_FILE",
		Short: "Check a sweep, expand it into its runs and write plan.jsonl",
		Long: `Plan checks the sweep before anything runs: the base scenario file loads, every axis
path and value passes the scenario loader's checks (applied as --set would; errors are
located in the sweep file), and every point's combination of values loads. A sweep plans at
most ` + fmt.Sprint(sweep.MaxRuns) + ` runs (points x seeds); a larger grid is refused at once.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := loadCheckedSweep(args[0])
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

// sweepRunner runs one planned run: the base scenario with the run's overrides and seed.
func sweepRunner(spec *sweep.Spec) sweep.Runner {
	return func(_ context.Context, r sweep.Run, dir string) error {
		ovs, err := r.Overrides()
		if err != nil {
			return err
		}
		s, err := scenarios.LoadFile(spec.Scenario, ovs...)
		if err != nil {
			return err
		}
		_, err = runner.Run(s, runner.Options{Seed: r.Seed, Out: dir, Version: buildVersion(), Params: r.ParamMap()})
		return err
	}
}

func newSweepRunCmd() *cobra.Command {
	var (
		out     string
		shard   string
		shards  int
		workers int
		every   time.Duration
	)
	cmd := &cobra.Command{
		Use:   "run SWEEP_FILE",
		Short: "Run a sweep (or one shard of it) on a pool of workers; resumes where it stopped",
		Long: `Run executes the runs of the plan that are not complete yet under --out, each into
OUT/runs/<run id>/ written atomically, on --workers parallel workers (each run is
single-threaded). Interrupting it (Ctrl-C) loses no finished run; running it again resumes:
it removes the temporary directories killed runs of its shard left (runs/.<id>.tmp-*), skips
the runs whose files all read back whole and runs the others, saying why. Every point is
checked against the base scenario first, as sweep plan does.

Sharding: --shard i/n takes every n-th run starting at i. Without --shard the shard comes from
a Slurm job array (SLURM_ARRAY_TASK_ID with SLURM_ARRAY_TASK_COUNT or --shards) or a Kubernetes
Indexed Job (JOB_COMPLETION_INDEX with --shards); the source used is printed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErr("--out is required")
			}
			spec, err := loadCheckedSweep(args[0])
			if err != nil {
				return err
			}
			plan := spec.Plan()
			if workers < 1 {
				return usageErr("--workers %d: at least 1 parallel run is needed", workers)
			}
			sh := sweep.All
			switch {
			case shard != "":
				if sh, err = sweep.ParseShard(shard); err != nil {
					return usageErr("%v", err)
				}
			default:
				var ok bool
				s, ok, err := sweep.ShardFromEnv(os.Getenv, shards)
				if err != nil {
					return usageErr("%v", err)
				}
				if ok {
					sh = s
				} else if shards > 1 {
					return usageErr("--shards %d given but no shard index: use --shard i/n, or run inside a Slurm array or an Indexed Job", shards)
				}
			}
			runs := sh.Select(plan)
			setGCPercent() // workers share one heap: every collection slows all of them
			w := cmd.ErrOrStderr()
			fmt.Fprintf(w, "sweep %s: %d runs planned, shard %s (%s): %d runs, %d workers\n", args[0], len(plan), sh, sh.Source, len(runs), workers)
			if err := sweep.WritePlan(out, plan); err != nil {
				return &exitError{code: exitRuntime, err: err}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			st, err := sweep.Execute(ctx, runs, sweepRunner(spec), sweep.Options{
				Out: out, Workers: workers, Progress: w, Terminal: isTerminal(w), Every: every})
			fmt.Fprintf(w, "sweep: %d ran, %d already complete, %d failed\n", st.Ran, st.Skipped, st.Failed)
			if err != nil {
				return &exitError{code: exitRuntime, err: err}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "sweep output directory (required)")
	cmd.Flags().StringVar(&shard, "shard", "", "run only shard i/n of the plan")
	cmd.Flags().IntVar(&shards, "shards", 0, "number of shards when the index comes from the environment")
	// GOMAXPROCS rather than NumCPU: it honours a container's CPU limit (cgroup quota), so a
	// pod limited to 2 CPUs on a 64-core node runs 2 workers, not 64.
	cmd.Flags().IntVar(&workers, "workers", runtime.GOMAXPROCS(0), "parallel runs (default: the CPUs this process may use)")
	cmd.Flags().DurationVar(&every, "progress-every", 10*time.Second, "progress line period when not on a terminal")
	return cmd
}

// isTerminal reports whether w is a terminal (a progress bar is redrawn there).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
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

func newSweepPlotCmd() *cobra.Command {
	var (
		out     string
		x       string
		metrics []string
		format  string
	)
	cmd := &cobra.Command{
		Use:   "plot SWEEP_FILE",
		Short: "Draw metric-vs-parameter curves with 95% CI error bars from a merged sweep",
		Long: `Plot reads OUT/aggregate.csv (written by sweep merge) and draws, for each --metric, the
mean over seeds against the swept parameter --x, one line per combination of the other axes,
with 95% confidence intervals as error bars: the timeout/resend curves. Figures go to
OUT/plots/<metric>.<format>. --x may be left out when the sweep has one axis; without
--metric the error lists the metrics aggregate.csv holds.`,
		Example: `  lnetsim sweep plot flap.yaml --out out/flap --x lnet.transaction_timeout \
      --metric writes.latency_p99_us --metric resend_count --metric messages_failed`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := loadSweep(args[0])
			if err != nil {
				return err
			}
			if out == "" {
				return usageErr("--out DIR is required: the sweep's output directory, holding aggregate.csv")
			}
			var axes []string
			for _, a := range spec.Axes {
				axes = append(axes, a.Path)
			}
			switch {
			case x == "" && len(axes) == 1:
				x = axes[0]
			case x == "":
				return usageErr("--x is required: which axis goes on the x axis (%s)", strings.Join(axes, ", "))
			case !slices.Contains(axes, x):
				return usageErr("--x %s is not an axis of %s (%s)", x, args[0], strings.Join(axes, ", "))
			}
			agg := filepath.Join(out, sweep.AggregateFile)
			have, err := aggregateMetrics(agg)
			if err != nil {
				return &exitError{code: exitRuntime, err: err}
			}
			if len(metrics) == 0 {
				return usageErr("--metric is required (repeatable); %s has: %s", agg, strings.Join(have, ", "))
			}
			for _, m := range metrics {
				if !slices.Contains(have, m) {
					return usageErr("--metric %s: not in %s, which has: %s", m, agg, strings.Join(have, ", "))
				}
			}
			dir := filepath.Join(out, "plots")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return &exitError{code: exitRuntime, err: err}
			}
			for _, m := range metrics {
				file := filepath.Join(dir, strings.ReplaceAll(m, "/", "_")+"."+format)
				title := fmt.Sprintf("%s vs %s (%s, %d seeds per point)", m, x, filepath.Base(spec.Scenario), spec.Seeds)
				if err := plots.SweepCurve(agg, x, scenarios.PathUnit(x), m, title, file); err != nil {
					return &exitError{code: exitRuntime, err: err}
				}
				fmt.Fprintln(cmd.OutOrStdout(), "wrote", file)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "sweep output directory holding aggregate.csv (required)")
	cmd.Flags().StringVar(&x, "x", "", "the swept parameter on the x axis (required)")
	cmd.Flags().StringArrayVar(&metrics, "metric", nil, "metric to draw (repeatable)")
	cmd.Flags().StringVar(&format, "format", "png", "png, svg or pdf")
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
			if _, err := loadCheckedSweep(args[1]); err != nil {
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

// aggregateMetrics lists the metrics of a merged sweep's aggregate.csv in first-seen order.
func aggregateMetrics(path string) ([]string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist: run lnetsim sweep merge first", path)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	col := slices.Index(head, "metric")
	if col < 0 {
		return nil, fmt.Errorf("%s: no metric column: not a sweep aggregate", path)
	}
	var out []string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if col < len(rec) && !slices.Contains(out, rec[col]) {
			out = append(out, rec[col])
		}
	}
}
