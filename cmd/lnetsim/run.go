package main

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnetsim/lnetsim/internal/atomicfile"
	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/scenarios/runner"
	"github.com/lnetsim/lnetsim/trace/pcap"
)

// runFlags are the flags run and check share.
type runFlags struct {
	seed       uint64
	sets       []string
	out        string
	quiet      bool
	output     string
	backend    string
	pcap       string
	pcapLink   string
	trace      string
	counters   string
	figures    bool
	cpuProf    string
	memProf    string
	junit      string // check only
	maxEv      uint64
	maxInstant uint64
	maxMem     string
	maxWall    time.Duration
	stderr     io.Writer // where the progress line goes when it is a terminal
}

// checkOutputFiles refuses, before anything runs, an output flag naming something that is
// neither a new path nor a regular file (a FIFO, symbolic link, device or directory).
func checkOutputFiles(flags map[string]string) error {
	names := slices.Sorted(maps.Keys(flags))
	for _, flag := range names {
		if path := flags[flag]; path != "" {
			if err := atomicfile.CheckTarget(path); err != nil {
				return usageErr("%s: %v", flag, err)
			}
		}
	}
	return nil
}

func (f *runFlags) register(cmd *cobra.Command, defaultOut string) {
	cmd.Flags().Uint64Var(&f.seed, "seed", 0, "override the scenario's seed")
	cmd.Flags().StringArrayVar(&f.sets, "set", nil, "override a scenario field: --set lnet.retry_count=3 (repeatable)")
	cmd.Flags().StringVar(&f.out, "out", defaultOut, "parent directory of the run directories (one per scenario); empty: write none")
	cmd.Flags().BoolVarP(&f.quiet, "quiet", "q", false, "print only failures and errors")
	cmd.Flags().StringVar(&f.output, "output", "text", "summary format: text or json")
	cmd.Flags().StringVar(&f.backend, "backend", runner.BackendO2IB, "LND under LNet: o2ib (o2iblnd over the InfiniBand model) or ideal (LNet's ideal LND, faults approximated)")
	cmd.Flags().StringVar(&f.pcap, "pcap", "", "write the o2iblnd traffic to FILE as a capture Wireshark decodes (one scenario only)")
	cmd.Flags().StringVar(&f.pcapLink, "pcap-link", "roce", "capture encapsulation: roce (pcap, Ethernet/IPv4/UDP 4791) or ib (ERF InfiniBand records)")
	cmd.Flags().StringVar(&f.trace, "trace", "", "write a Chrome trace-event JSON timeline to FILE for Perfetto or chrome://tracing (one scenario only)")
	cmd.Flags().StringVar(&f.counters, "counters", runner.CountersAuto, fmt.Sprintf("counters.yaml detail: nodes (each node as lnetctl shows it), groups (one aggregate per node group: sums, states, health ranges) or auto (nodes up to %d nodes, groups above)", runner.CountersNodeLimit))
	cmd.Flags().StringVar(&f.cpuProf, "cpuprofile", "", "write a Go CPU profile of the simulator to FILE (go tool pprof FILE): where a large scenario spends its time")
	cmd.Flags().StringVar(&f.memProf, "memprofile", "", "write a Go heap profile to FILE at the end of the simulation, its cluster still live (go tool pprof -sample_index=inuse_space|alloc_space FILE)")
	cmd.Flags().Uint64Var(&f.maxEv, "max-events", runner.DefaultMaxEvents, "end a run after N events, writing its results so far marked incomplete (exit 4)")
	cmd.Flags().Uint64Var(&f.maxInstant, "max-events-per-instant", runner.DefaultMaxEventsPerInstant, "end a run after N events without virtual time moving (a loop of events at one instant), as --max-events")
	cmd.Flags().StringVar(&f.maxMem, "max-memory", "", "end a run when the process uses more than SIZE (e.g. 8GiB; 0: no cap; default 3/4 of the physical or cgroup memory), as --max-events")
	cmd.Flags().DurationVar(&f.maxWall, "max-wall", 0, "end a run after DURATION of wall-clock time (e.g. 10m; default no cap), as --max-events")
	cmd.Flags().BoolVar(&f.figures, "plots", false, "also render health.png and ni-traffic.png into each run directory (default on for the built-in default scenario)")
}

// scenarioRun is one scenario's outcome for printing.
type scenarioRun struct {
	File     string          `json:"file"`
	Dir      string          `json:"dir,omitempty"`
	Summary  *record.Summary `json:"summary,omitempty"`
	Failed   int             `json:"failed_expectations"`
	Error    string          `json:"error,omitempty"`
	Capped   bool            `json:"-"` // Error is a cap that ended the run; Summary holds what it did
	Figures  []string        `json:"figures,omitempty"`
	NotDrawn []string        `json:"not_drawn,omitempty"` // --plots: each figure not drawn and why
	WallSecs float64         `json:"wall_seconds"`
	Ignored  []string        `json:"ignored_lnetctl_keys,omitempty"` // per lnetctl section: keys with no use in the model
	desc     string
	health   []record.HealthChange
}

// runScenarios loads and runs each argument (a file, "-", or builtin:NAME) and reports.
func runScenarios(cmd *cobra.Command, args []string, f *runFlags) ([]*scenarioRun, error) {
	if f.output != "text" && f.output != "json" {
		return nil, usageErr("--output must be text or json, got %q", f.output)
	}
	if f.backend != runner.BackendO2IB && f.backend != runner.BackendIdeal {
		return nil, usageErr("--backend must be o2ib or ideal, got %q", f.backend)
	}
	if err := runner.CheckCountersMode(f.counters); err != nil {
		return nil, usageErr("--counters: %v", err)
	}
	link, err := pcap.ParseLink(f.pcapLink)
	if err != nil {
		return nil, usageErr("--pcap-link: %v", err)
	}
	if (f.pcap != "" || f.trace != "") && len(args) != 1 {
		return nil, usageErr("--pcap and --trace take one scenario at a time")
	}
	if err := checkOutputFiles(map[string]string{"--pcap": f.pcap, "--trace": f.trace,
		"--cpuprofile": f.cpuProf, "--memprofile": f.memProf, "--junit": f.junit}); err != nil {
		return nil, err
	}
	maxMem, err := parseMaxMemory(f.maxMem)
	if err != nil {
		return nil, err
	}
	setGCMemoryLimit(maxMem)
	setGCPercent()
	if f.maxEv == 0 {
		return nil, usageErr("--max-events must be at least 1")
	}
	if f.maxInstant == 0 {
		return nil, usageErr("--max-events-per-instant must be at least 1")
	}
	ovs, err := parseSets(f.sets)
	if err != nil {
		return nil, err
	}
	// Load everything first: a typo in the third file should not cost two runs.
	pages := newHeapPages(maxMem) // before loading: a large scenario's set-up is heap too
	var loaded []*scenarios.Scenario
	var loadErrs []string
	for _, a := range args {
		s, err := loadScenario(cmd, a, ovs)
		if err != nil {
			loadErrs = append(loadErrs, err.Error())
			continue
		}
		loaded = append(loaded, s)
	}
	if len(loadErrs) > 0 {
		return nil, usageErr("%s", strings.Join(loadErrs, "\n"))
	}
	prof, err := startProfiles(f.cpuProf, f.memProf)
	if err != nil {
		return nil, &exitError{code: exitRuntime, err: err}
	}
	var profErr error
	atEnd := func() {
		if err := prof.atEnd(); err != nil && profErr == nil {
			profErr = err
		}
	}
	var runs []*scenarioRun
	dirs := runDirs{out: f.out}
	for i, s := range loaded {
		r := &scenarioRun{File: args[i], desc: strings.TrimSpace(s.Description), Ignored: s.Ignored}
		if s.Name == "" {
			s.Name = defaultName(args[i])
		}
		if cmd.Flags().Changed("seed") {
			s.Seed = f.seed // so that --seed 0 means seed 0 (Options.Seed 0 means "the file's")
		}
		if f.out != "" {
			r.Dir = dirs.dir(s, cmd.Flags().Changed("seed"), f.sets)
		}
		start := time.Now()
		mon := &monitor{maxMem: maxMem, maxWall: f.maxWall, memory: processMemory, name: s.Name, duration: s.Duration, start: start,
			grow: pages.grow}
		if isTerminal(f.stderr) {
			mon.progress = f.stderr
		}
		res, err := runner.Run(s, runner.Options{Out: r.Dir, Version: buildVersion(), Backend: f.backend,
			Pcap: f.pcap, PcapLink: link, Trace: f.trace, AtEnd: atEnd, Counters: f.counters,
			MaxEvents: f.maxEv, MaxEventsPerInstant: f.maxInstant, Monitor: mon.check, WriteIncomplete: true})
		mon.done()
		r.WallSecs = time.Since(start).Seconds()
		var capErr *runner.CapError
		switch {
		case errors.As(err, &capErr):
			r.Error, r.Capped, r.Summary = err.Error(), true, &res.Summary
		case err != nil:
			r.Error = err.Error()
			r.Dir = ""
		default:
			r.Summary, r.Failed, r.health = &res.Summary, res.Failed, res.Health
			if f.figures && r.Dir != "" {
				r.Figures, r.NotDrawn = drawRunFigures(r.Dir, fmt.Sprintf("%s (seed %d)", s.Name, res.Summary.Seed))
			}
		}
		runs = append(runs, r)
	}
	if err := prof.stop(); err != nil && profErr == nil {
		profErr = err
	}
	if profErr != nil {
		return nil, &exitError{code: exitRuntime, err: profErr}
	}
	return runs, nil
}

// tally counts the failed expectations, the runs that ended in an error and those a cap
// ended (errored counts them too).
func tally(runs []*scenarioRun) (failed, errored, capped int) {
	for _, r := range runs {
		failed += r.Failed
		if r.Error != "" {
			errored++
		}
		if r.Capped {
			capped++
		}
	}
	return failed, errored, capped
}

// runsExit is run's and check's outcome: exit 1 when a scenario could not run, else 4 when
// a cap ended a run (the cap's one-line message when it is the only one), else 3 when an
// expectation failed, else 0.
func runsExit(runs []*scenarioRun) error {
	failed, errored, capped := tally(runs)
	switch {
	case errored > capped:
		return &exitError{code: exitRuntime, err: fmt.Errorf("%d scenario(s) could not run (see above)", errored-capped)}
	case capped == 1:
		for _, r := range runs {
			if r.Capped {
				return &exitError{code: exitCap, err: errors.New(r.Error)}
			}
		}
	case capped > 1:
		return &exitError{code: exitCap, err: fmt.Errorf("%d runs ended at a cap, their results marked incomplete (see above)", capped)}
	case failed > 0:
		return &exitError{code: exitExpectFail, err: fmt.Errorf("%d expectation(s) failed", failed)}
	}
	return nil
}

// printRuns prints the runs as text stories or JSON.
func printRuns(w io.Writer, runs []*scenarioRun, f *runFlags) error {
	if f.output == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(runs)
	}
	for _, r := range runs {
		printStory(w, r, f.quiet)
	}
	return nil
}

func printStory(w io.Writer, r *scenarioRun, quiet bool) {
	if r.Capped {
		fmt.Fprintf(w, "%s: INCOMPLETE: %s\n", r.File, r.Error)
		if r.Dir != "" {
			fmt.Fprintf(w, "Results so far: %s (summary.json: \"incomplete\": %q)\n", r.Dir, r.Summary.Incomplete)
		}
		return
	}
	if r.Error != "" {
		fmt.Fprintf(w, "%s: ERROR: %s\n", r.File, r.Error)
		return
	}
	s := r.Summary
	if quiet {
		for _, e := range s.Expectations {
			if !e.Passed {
				fmt.Fprintf(w, "%s: FAIL %s: %s\n", r.File, e.Name, e.Detail)
			}
		}
		return
	}
	fmt.Fprintf(w, "== %s (seed %d, %s of virtual time, %d events, %.2fs wall)\n", s.Scenario, s.Seed, s.Duration, s.Events, r.WallSecs)
	if r.desc != "" {
		fmt.Fprintf(w, "%s\n", wrap(r.desc, 90))
	}
	if len(r.Ignored) > 0 {
		fmt.Fprintln(w, "\nlnetctl keys accepted but not modelled (ignored):")
		for _, l := range r.Ignored {
			fmt.Fprintf(w, "  %s\n", wrap(l, 88))
		}
	}
	if len(r.health) > 0 {
		fmt.Fprintln(w, "\nHealth and NI status changes:")
		const show = 12
		for i, h := range r.health {
			if i == show {
				fmt.Fprintf(w, "  ... %d more in health.csv\n", len(r.health)-show)
				break
			}
			if h.Kind == "ni_status" {
				fmt.Fprintf(w, "  %14s  %-8s %-10s %-18s %s\n", h.Time, h.Node, "NI status", h.NID, h.Cause)
				continue
			}
			fmt.Fprintf(w, "  %14s  %-8s %-10s %-18s %4d -> %4d  (%s)\n", h.Time, h.Node, strings.ReplaceAll(h.Kind, "_", " ")+" health", h.NID, h.Old, h.New, h.Cause)
		}
	}
	fmt.Fprintln(w, "\nMetrics:")
	keys := make([]string, 0, len(s.Metrics))
	for k := range s.Metrics {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "  %-32s %s\n", k, record.FormatFloat(s.Metrics[k]))
	}
	if len(s.Expectations) > 0 {
		fmt.Fprintln(w, "\nExpectations:")
		for _, e := range s.Expectations {
			mark := "PASS"
			if !e.Passed {
				mark = "FAIL"
			}
			fmt.Fprintf(w, "  %s  %s: %s\n", mark, e.Name, e.Detail)
		}
	}
	if r.Dir != "" {
		fmt.Fprintf(w, "\nResults: %s (plot them with: lnetsim plot %s)\n", r.Dir, r.Dir)
	}
	for _, fig := range r.Figures {
		fmt.Fprintf(w, "Figure:  %s\n", fig)
	}
	for _, why := range r.NotDrawn {
		fmt.Fprintf(w, "Not drawn: %s\n", why)
	}
	fmt.Fprintln(w)
}

func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for _, word := range strings.Fields(s) {
		if n > 0 && n+1+len(word) > width {
			b.WriteByte('\n')
			n = 0
		} else if n > 0 {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += len(word)
	}
	return b.String()
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [FILE...]",
		Short: "Run scenarios (with no file: the built-in default scenario)",
		Long: `Run replays scenario files deterministically: the same file and seed always give
byte-identical results. Each run writes OUT/<scenario name>/ (summary.json, messages.csv,
health.csv, timeseries.csv, faults.csv, counters.yaml) atomically, and prints its story:
health changes, metrics and expectations. The directory name is the scenario's name with
anything but letters, digits, '.', '_' and '-' made '_' (a scenario without a name takes its
file's), plus -seedN with --seed and -set<hash> with --set, so such runs keep their own
directories. An existing directory is replaced only if it holds a run of the same scenario.

--max-events, --max-events-per-instant, --max-memory and --max-wall end a run early (exit
status 4): its results so far are written, marked "incomplete" in summary.json.
--max-events-per-instant catches a model caught in a loop of events that never lets virtual
time advance (far more events at one instant than any scenario fires). On a terminal the run shows its progress.
The Go collector is asked to keep the process under 90% of --max-memory (a soft limit, as
GOMEMLIMIT sets; an explicit GOMEMLIMIT wins), so a large run trades collection time for
memory before it meets the cap; below it the heap may grow to five times its live data
before a collection (GOGC=400; an explicit GOGC wins).

With no file it runs the built-in default scenario: a multi-rail client and server, one rail's
port fails mid-run and comes back. A built-in scenario is named builtin:NAME (see lnetsim
scenarios list); "-" reads standard input.`,
		Example: `  lnetsim run
  lnetsim run scenarios/catalogue/credits-starvation.yaml --set lnet.retry_count=0
  lnetsim run --seed 7 --out /tmp/runs builtin:default`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"builtin:" + scenarios.DefaultName}
				if !cmd.Flags().Changed("plots") {
					f.figures = true // the default scenario's story comes with its key figure
				}
			}
			f.stderr = cmd.ErrOrStderr()
			runs, err := runScenarios(cmd, args, &f)
			if err != nil {
				return err
			}
			if err := printRuns(cmd.OutOrStdout(), runs, &f); err != nil {
				return err
			}
			return runsExit(runs)
		},
	}
	f.register(cmd, "runs")
	return cmd
}

func newCheckCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "check FILE...",
		Short: "Run scenarios and gate on their expectations (CI)",
		Long: `Check runs each scenario and evaluates its expect section, like run, and ends with a
count of failed expectations and errors. --junit writes a JUnit XML report for CI systems.
Exit status as for every command (lnetsim --help): 0 every expectation holds, 3 one failed.`,
		Example: `  lnetsim check scenarios/catalogue/*.yaml
  lnetsim check --junit report.xml --out "" scenarios/catalogue/*.yaml`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f.stderr = cmd.ErrOrStderr()
			runs, err := runScenarios(cmd, args, &f)
			if err != nil {
				return err
			}
			if err := printRuns(cmd.OutOrStdout(), runs, &f); err != nil {
				return err
			}
			if f.junit != "" {
				if err := writeJUnit(f.junit, runs); err != nil {
					return &exitError{code: exitRuntime, err: err}
				}
			}
			if !f.quiet && f.output == "text" {
				failed, errored, _ := tally(runs)
				fmt.Fprintf(cmd.OutOrStdout(), "%d scenarios, %d failed expectations, %d errors\n", len(runs), failed, errored)
			}
			return runsExit(runs)
		},
	}
	f.register(cmd, "runs")
	cmd.Flags().StringVar(&f.junit, "junit", "", "write a JUnit XML report to FILE")
	return cmd
}

// JUnit XML, the subset CI systems read.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name    string        `xml:"name,attr"`
	Class   string        `xml:"classname,attr"`
	Failure *junitFailure `xml:"failure,omitempty"`
	Error   *junitFailure `xml:"error,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func writeJUnit(path string, runs []*scenarioRun) error {
	var doc junitSuites
	for _, r := range runs {
		s := junitSuite{Name: r.File, Time: fmt.Sprintf("%.3f", r.WallSecs)}
		if r.Error != "" {
			s.Errors = 1
			s.Tests = 1
			s.Cases = append(s.Cases, junitCase{Name: "run", Class: r.File, Error: &junitFailure{Message: r.Error}})
		} else {
			for _, e := range r.Summary.Expectations {
				c := junitCase{Name: e.Name, Class: r.Summary.Scenario}
				if !e.Passed {
					c.Failure = &junitFailure{Message: e.Detail}
					s.Failures++
				}
				s.Tests++
				s.Cases = append(s.Cases, c)
			}
		}
		doc.Suites = append(doc.Suites, s)
	}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append([]byte(xml.Header), append(b, '\n')...))
}
