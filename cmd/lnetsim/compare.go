package main

import (
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/plots"
	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/scenarios/runner"
)

// compareFlags are compare-releases' flags.
type compareFlags struct {
	releases string
	seed     uint64
	sets     []string
	out      string
	backend  string
	all      bool
	figures  bool
}

// releaseRun is one release's run of the compared scenario.
type releaseRun struct {
	release string
	dir     string
	metrics map[string]float64
	figures []string // --plots: the figures drawn, and why any was not
}

func newCompareReleasesCmd() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:   "compare-releases SCENARIO",
		Short: "Run one scenario once per Lustre release and print the metrics that differ",
		Long: `compare-releases runs SCENARIO once per release of --releases, with the same seed, setting
lnet.release (nodes whose group names its own release keep it), each into its own run
directory OUT/<scenario name>-release-<release>/, and prints side by side the metrics that
differ between the releases: the run's metrics (resends, failures, latency per workload,
...), the number of health changes, the lowest health any NI or peer NI reached, when health
last changed, and the expectations passed. --plots draws each release's health over time
(health.png) and traffic per NI (ni-traffic.png) into its run directory, and
OUT/<scenario name>-releases-health.png: each release's most hit health series on one figure.`,
		Example: `  lnetsim compare-releases scenarios/catalogue/single-rail-resend.yaml --releases 2.12,2.15,master
  lnetsim compare-releases builtin:default --releases 2.12,2.15,2.16,2.17 --all`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			runs, err := compareReleases(cmd, args[0], &f)
			if err != nil {
				return err
			}
			return printComparison(cmd.OutOrStdout(), runs, f.all)
		},
	}
	cmd.Flags().StringVar(&f.releases, "releases", "2.12,2.15,master", "comma-separated releases to compare (known: "+strings.Join(lnet.KnownReleases(), ", ")+")")
	cmd.Flags().Uint64Var(&f.seed, "seed", 0, "override the scenario's seed (the same for every release)")
	cmd.Flags().StringArrayVar(&f.sets, "set", nil, "override a scenario field for every release: --set lnet.retry_count=3 (repeatable)")
	cmd.Flags().StringVar(&f.out, "out", "runs", "parent directory of the run directories; empty: write none")
	cmd.Flags().StringVar(&f.backend, "backend", runner.BackendO2IB, "LND under LNet: o2ib or ideal")
	cmd.Flags().BoolVar(&f.all, "all", false, "print every metric, also those equal in all releases")
	cmd.Flags().BoolVar(&f.figures, "plots", false, "also draw health.png and ni-traffic.png into each release's run directory (health over time per release)")
	return cmd
}

// parseReleases splits the --releases list, refusing an unknown or repeated release.
func parseReleases(list string) ([]string, error) {
	var out []string
	for _, r := range strings.Split(list, ",") {
		r = strings.TrimSpace(r)
		if _, err := lnet.LookupRelease(r); err != nil {
			return nil, usageErr("--releases: %v", err)
		}
		if slices.Contains(out, r) {
			return nil, usageErr("--releases: %s is given twice", r)
		}
		out = append(out, r)
	}
	if len(out) < 2 {
		return nil, usageErr("--releases needs at least two releases, got %q", list)
	}
	return out, nil
}

// compareReleases loads the scenario once per release (all loads first: a scenario error
// costs no run) and runs each.
func compareReleases(cmd *cobra.Command, arg string, f *compareFlags) ([]releaseRun, error) {
	rels, err := parseReleases(f.releases)
	if err != nil {
		return nil, err
	}
	if f.backend != runner.BackendO2IB && f.backend != runner.BackendIdeal {
		return nil, usageErr("--backend must be o2ib or ideal, got %q", f.backend)
	}
	ovs, err := parseSets(f.sets)
	if err != nil {
		return nil, err
	}
	loaded := make([]*scenarios.Scenario, len(rels))
	for i, rel := range rels {
		o, err := scenarios.ParseSet("lnet.release=" + rel)
		if err != nil {
			return nil, usageErr("%v", err)
		}
		if loaded[i], err = loadScenario(cmd, arg, append(slices.Clone(ovs), o)); err != nil {
			return nil, usageErr("%v", err)
		}
	}
	runs := make([]releaseRun, len(rels))
	for i, s := range loaded {
		if runs[i], err = runRelease(cmd, arg, rels[i], s, f); err != nil {
			return nil, &exitError{code: exitRuntime, err: err}
		}
	}
	if f.figures && f.out != "" {
		runs[0].figures = append(runs[0].figures, releasesFigure(runs, loaded[0].Name, f.out))
	}
	return runs, nil
}

// releasesFigure draws OUT/<name>-releases-health.png, the most hit health series of each
// release on one figure, and returns its path (or why it was not drawn).
func releasesFigure(runs []releaseRun, name, out string) string {
	dirs, labels := make([]string, len(runs)), make([]string, len(runs))
	for i, r := range runs {
		dirs[i], labels[i] = r.dir, r.release
	}
	path := filepath.Join(out, safeDirName(name+"-releases-health")+".png")
	if err := plots.HealthPerRun(dirs, labels, "Health values per release: "+name, path); err != nil {
		return path + ": " + err.Error()
	}
	return path
}

// runRelease runs s (loaded with lnet.release = rel) and gathers its comparison metrics.
func runRelease(cmd *cobra.Command, arg, rel string, s *scenarios.Scenario, f *compareFlags) (releaseRun, error) {
	if s.Name == "" {
		s.Name = defaultName(arg)
	}
	if cmd.Flags().Changed("seed") {
		s.Seed = f.seed
	}
	r := releaseRun{release: rel}
	if f.out != "" {
		r.dir = filepath.Join(f.out, safeDirName(s.Name+"-release-"+rel))
	}
	res, err := runner.Run(s, runner.Options{Out: r.dir, Version: buildVersion(), Backend: f.backend})
	if err != nil {
		return r, fmt.Errorf("release %s: %w", rel, err)
	}
	r.metrics = maps.Clone(res.Summary.Metrics)
	if r.metrics == nil {
		r.metrics = map[string]float64{}
	}
	addHealthMetrics(r.metrics, res.Health)
	passed := 0
	for _, e := range res.Summary.Expectations {
		if e.Passed {
			passed++
		}
	}
	r.metrics["expectations_passed"] = float64(passed)
	if f.figures && r.dir != "" {
		written, notDrawn := drawRunFigures(r.dir, fmt.Sprintf("%s, release %s (seed %d)", s.Name, rel, res.Summary.Seed))
		r.figures = append(written, notDrawn...)
	}
	return r, nil
}

// addHealthMetrics adds health_changes, health_min (the lowest health any NI or peer NI
// reached; 1000 when none changed) and health_last_change_s.
func addHealthMetrics(m map[string]float64, hc []record.HealthChange) {
	low, last := lnet.MaxHealth, 0.0
	for _, c := range hc {
		low = min(low, c.New)
		last = c.Time.Seconds()
	}
	m["health_changes"] = float64(len(hc))
	m["health_min"] = float64(low)
	m["health_last_change_s"] = last
}

// printComparison prints one row per metric (only those that differ unless all), one
// column per release, then the run directories.
func printComparison(w io.Writer, runs []releaseRun, all bool) error {
	keys := map[string]bool{}
	for _, r := range runs {
		for k := range r.metrics {
			keys[k] = true
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "metric\t")
	for _, r := range runs {
		fmt.Fprintf(tw, "%s\t", r.release)
	}
	fmt.Fprintln(tw)
	same := 0
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if !all && allEqual(runs, k) {
			same++
			continue
		}
		fmt.Fprintf(tw, "%s\t", k)
		for _, r := range runs {
			fmt.Fprintf(tw, "%s\t", metricCell(r.metrics, k))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if same > 0 {
		fmt.Fprintf(w, "(%d metrics equal in every release not shown; --all shows them)\n", same)
	}
	for _, r := range runs {
		if r.dir != "" {
			fmt.Fprintf(w, "%s: %s\n", r.release, r.dir)
		}
		for _, fig := range r.figures {
			fmt.Fprintf(w, "  %s\n", fig)
		}
	}
	return nil
}

// allEqual reports whether metric k has the same value (or is absent) in every run.
func allEqual(runs []releaseRun, k string) bool {
	for _, r := range runs[1:] {
		if metricCell(r.metrics, k) != metricCell(runs[0].metrics, k) {
			return false
		}
	}
	return true
}

// metricCell formats metric k of m, "-" when absent.
func metricCell(m map[string]float64, k string) string {
	v, ok := m[k]
	if !ok {
		return "-"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
