package runner

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/sim"
	"github.com/lnetsim/lnetsim/trace/chrome"
	"github.com/lnetsim/lnetsim/trace/pcap"
)

// Options control one run.
type Options struct {
	// Seed overrides the scenario's seed when non-zero.
	Seed uint64
	// Out is the run directory to write (record layout); empty writes nothing.
	Out string
	// Version is recorded in summary.json.
	Version string
	// Params are recorded in summary.json (sweep parameters).
	Params map[string]string
	// SampleEvery is the period of timeseries.csv samples (default 1s).
	SampleEvery sim.Time
	// MaxEvents bounds the run (default DefaultMaxEvents): reaching it ends the run with a
	// *CapError that wraps sim.ErrEventLimit.
	MaxEvents uint64
	// MaxEventsPerInstant ends the run with a *CapError once that many events have fired
	// without virtual time moving (default DefaultMaxEventsPerInstant).
	MaxEventsPerInstant uint64
	// Monitor, if set, is called every MonitorEvery events with the virtual time and the
	// events fired; a *CapError it returns ends the run there. It may read the wall clock and
	// the process's memory (lnetsim's --max-wall, --max-memory, progress line): that never
	// changes what a run that completes writes.
	Monitor func(now sim.Time, events uint64) error
	// WriteIncomplete keeps a run that a cap ended: its results so far are written (Out,
	// Pcap, Trace) and returned with the *CapError, summary.json's incomplete naming the cap
	// and no expectation evaluated. Without it such a run writes nothing.
	WriteIncomplete bool
	// Backend is the LND the nodes run: "o2ib" (default: o2iblnd over the InfiniBand
	// model) or "ideal" (LNet's ideal LND, faults approximated; see the package doc).
	Backend string
	// Pcap, if set, is a capture file of the o2iblnd traffic (o2ib backend), written in the
	// PcapLink container (pcap RoCEv2 by default, or ERF InfiniBand).
	Pcap     string
	PcapLink pcap.Link
	// Trace, if set, is a Chrome trace-event JSON file of the run (Perfetto, chrome://tracing).
	Trace string
	// Counters is counters.yaml's detail: CountersAuto (default: per node up to
	// CountersNodeLimit nodes, per node group above), CountersNodes or CountersGroups.
	Counters string
	// AtStart, if set, is called once the cluster is built and the workloads are posted, just
	// before the first event fires: lnetsim bench cluster times the set-up there.
	AtStart func()
	// AtEnd, if set, is called when the simulation has reached its end, while the whole
	// simulated cluster is still live: lnetsim --memprofile snapshots the heap there.
	AtEnd func()
}

// Result is the outcome of one run.
type Result struct {
	Summary record.Summary
	// Failed counts the expectations that did not hold.
	Failed int
	// Health lists every health value and NI status change, in time order.
	Health []record.HealthChange
}

// ErrUnsupported marks a scenario that asks for something the run cannot do (yet): it comes
// only from explicit capability checks (an action the chosen backend lacks, --pcap on the
// ideal backend); any other failure to build a run is an error of its own.
var ErrUnsupported = errors.New("not supported yet")

// Run plays scenario s and returns its summary; with opt.Out it also writes the run directory
// atomically. The same scenario and seed always give byte-identical files.
func Run(s *scenarios.Scenario, opt Options) (*Result, error) {
	seed := s.Seed
	if opt.Seed != 0 {
		seed = opt.Seed
	}
	if opt.SampleEvery <= 0 {
		opt.SampleEvery = sim.Second
	}
	if opt.MaxEvents == 0 {
		opt.MaxEvents = DefaultMaxEvents
	}
	if opt.MaxEventsPerInstant == 0 {
		opt.MaxEventsPerInstant = DefaultMaxEventsPerInstant
	}
	p, err := prepare(s, seed, opt.Backend)
	if err != nil {
		return nil, err
	}
	col, ts, c, ws, faults, ch := p.col, p.ts, p.c, p.ws, p.faults, p.ch
	var out *record.Run
	if opt.Out != "" {
		if out, err = record.Create(opt.Out, s.Name); err != nil {
			return nil, err
		}
		col.setOut(out)
	}
	smp := newSampler(c, ws, out, opt.SampleEvery)
	var capt *capture
	var tl *timeline
	finishSide := func(ok bool) error {
		var first error
		if capt != nil {
			first = capt.close(ok)
		}
		if tl != nil {
			if err := tl.close(ok, chrome.Args{"scenario": s.Name, "seed": seed}); first == nil {
				first = err
			}
		}
		return first
	}
	if opt.Pcap != "" {
		if c.fab == nil {
			return nil, fmt.Errorf("%w: --pcap needs the o2ib backend", ErrUnsupported)
		}
		if capt, err = newCapture(opt.Pcap, opt.PcapLink); err != nil {
			return nil, err
		}
		c.fab.lnd.SetObserver(capt)
		if c.eth != nil {
			c.eth.lnd.SetWireObserver(capt.sockRecord)
		}
	}
	if opt.Trace != "" {
		if tl, err = newTimeline(opt.Trace, c); err != nil {
			_ = finishSide(false)
			return nil, err
		}
		ts.list = append(ts.list, tl)
		faults.timeline = tl
	}

	sum := sim.NewChecksum()
	c.k.SetChecksum(sum)
	ws.start()
	faults.schedule()
	ch.schedule()
	smp.start()
	if opt.AtStart != nil {
		opt.AtStart()
	}
	runErr := runCapped(c.k, s.Duration, opt.MaxEvents, opt.MaxEventsPerInstant, opt.Monitor)
	var capErr *CapError
	if runErr != nil && (!errors.As(runErr, &capErr) || !opt.WriteIncomplete) {
		if out != nil {
			out.Abort()
		}
		_ = finishSide(false)
		return nil, fmt.Errorf("run of %s stopped: %w", s.Name, runErr)
	}
	if opt.AtEnd != nil {
		opt.AtEnd()
	}
	if err := finishSide(true); err != nil {
		if out != nil {
			out.Abort()
		}
		return nil, err
	}
	res := &Result{Summary: record.Summary{
		Scenario: s.Name, ScenarioHash: s.Hash, Seed: seed, Version: opt.Version, Params: opt.Params,
		Duration: s.Duration.String(), Events: sum.Events(), Checksum: fmt.Sprintf("%016x", sum.Sum()),
		Metrics: metrics(c, col, ws, reached(c, capErr)),
	}}
	var results []record.Expectation
	if capErr != nil {
		res.Summary.Incomplete, res.Summary.Duration = capErr.Cap, c.k.Now().String()
	} else {
		results = ch.finish()
		res.Summary.Expectations = results
	}
	res.Health = col.health
	for _, r := range results {
		if !r.Passed {
			res.Failed++
		}
	}
	if out != nil {
		finishRun(out, res, c, faults, opt.Counters)
		if err := out.Commit(); err != nil {
			return nil, err
		}
	}
	if capErr != nil {
		return res, fmt.Errorf("run of %s stopped: %w", s.Name, capErr)
	}
	return res, nil
}

// reached is the virtual time the run's metrics cover: the end of every workload's span when
// the run completed, the time a cap stopped it otherwise (sim.MaxTime: no clamp).
func reached(c *cluster, capErr *CapError) sim.Time {
	if capErr == nil {
		return sim.MaxTime
	}
	return c.k.Now()
}

// metrics are the run's scalar results (summary.json; aggregated by sweeps). A workload's
// throughput is its bytes over its span, cut at until (a capped run's reached time) so an
// incomplete run does not spread what it moved over time it never simulated.
func metrics(c *cluster, col *collector, ws *workloads, until sim.Time) map[string]float64 {
	m := map[string]float64{}
	var st lnet.Counters
	for _, n := range c.nodes {
		s := n.ln.Stats()
		st.SendCount += s.SendCount
		st.ResendCount += s.ResendCount
		st.FailedResends += s.FailedResends
		st.SuccessfulResends += s.SuccessfulResends
		st.ResponseTimeoutCount += s.ResponseTimeoutCount
		st.DropCount += s.DropCount
	}
	m["send_count"] = float64(st.SendCount)
	m["resend_count"] = float64(st.ResendCount)
	m["failed_resends"] = float64(st.FailedResends)
	m["successful_resends"] = float64(st.SuccessfulResends)
	m["response_timeout_count"] = float64(st.ResponseTimeoutCount)
	m["drop_count"] = float64(st.DropCount)
	m["messages"] = float64(col.msgs)
	m["messages_failed"] = float64(col.failed)
	for _, w := range ws.list {
		p := w.spec.Name + "."
		m[p+"ops_completed"] = float64(w.completed)
		if w.spec.Type == "rpc" {
			m[p+"rpc_resends"] = float64(w.rpcResends)
		}
		m[p+"ops_failed"] = float64(w.failed)
		if span := (min(w.end, until) - w.spec.Start).Seconds(); span > 0 {
			m[p+"throughput_gbps"] = float64(w.bytes) * 8 / span / 1e9
		}
		if w.latency.n > 0 {
			for _, q := range []float64{50, 99, 99.9} {
				m[p+"latency_p"+strconv.FormatFloat(q, 'g', -1, 64)+"_us"] = float64(w.latency.quantile(q)) / 1e3
			}
			m[p+"latency_max_us"] = float64(w.latency.max) / 1e3
		}
	}
	return m
}

// finishRun writes what is known only at the end: fault records with rule hits, counters
// and the summary.
func finishRun(run *record.Run, res *Result, c *cluster, f *faultState, counters string) {
	for _, r := range f.records {
		run.Fault(r)
	}
	for i := range c.scenario.Faults {
		if ft := &c.scenario.Faults[i]; ft.Rule != nil {
			run.Fault(record.Fault{Time: c.scenario.Duration, Kind: ft.Action + "_hits", Target: ft.Name, Detail: "messages dropped or delayed by the rule", Hits: int(f.ruleHits(i))})
		}
	}
	if hasCommands(c.scenario) {
		run.WriteCommands(f.cmds)
	}
	run.WriteYAML(record.CountersFile, countersFor(c, counters))
	run.WriteJSON(record.SummaryFile, res.Summary)
}
