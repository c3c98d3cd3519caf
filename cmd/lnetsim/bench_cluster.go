package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/scenarios/runner"
	"github.com/lnetsim/lnetsim/sim"
)

// clusterSpec sizes the routed cluster of `lnetsim bench cluster`.
type clusterSpec struct {
	Clients, Routers, Servers int
	Duration                  sim.Time
	Granularity               string // fabric.granularity: fixed or adaptive
	ChunkPackets              int    // fabric.chunk_packets (0: the default)
	Arbitration               string // fabric.switch_arbitration: fifo or round-robin
}

// clusterScenario is the YAML of the routed benchmark cluster: clients on o2ib0, routers
// with one HCA per net, servers on o2ib1, a route through every router each way, and
// closed-loop 1 MiB writes and reads (one of each in flight per client, client i to server
// i mod servers) over one EDR switch.
func clusterScenario(c clusterSpec) string {
	var b strings.Builder
	fmt.Fprintf(&b, `name: bench-cluster
description: %d clients on o2ib0, %d routers, %d servers on o2ib1, closed-loop 1MiB writes and reads.
seed: 1
duration: %s
fabric:
  topology: single-switch
  link_rate: EDR
%snodes:
  client:
    count: %d
    nis: [%s]
  rtr:
    count: %d
    routing: true
    nis:
      - {net: o2ib0, hca: 0}
      - {net: o2ib1, hca: 1}
  oss:
    count: %d
    nis: [o2ib1]
lnet:
  routes:
`, c.Clients, c.Routers, c.Servers, c.Duration, granularityLine(c)+chunkLine(c)+arbitrationLine(c), c.Clients, clientNI(c), c.Routers, c.Servers)
	for _, dir := range [][2]string{{"o2ib1", "client"}, {"o2ib0", "oss"}} {
		for i := range c.Routers {
			fmt.Fprintf(&b, "    - {net: %s, gateway: rtr%d, nodes: %s}\n", dir[0], i, dir[1])
		}
	}
	b.WriteString("workload:\n")
	for _, op := range []string{"write", "read"} {
		fmt.Fprintf(&b, "  - {name: %ss, type: brw, op: %s, from: client, to: oss, size: 1MiB, concurrency: 1}\n", op, op)
	}
	return b.String()
}

// granularityLine is the fabric's granularity key, or nothing for the default (fixed).
func granularityLine(c clusterSpec) string {
	if c.Granularity == "" || c.Granularity == "fixed" {
		return ""
	}
	return "  granularity: " + c.Granularity + "\n"
}

// chunkLine is the fabric's chunk_packets key, or nothing for the default.
func chunkLine(c clusterSpec) string {
	if c.ChunkPackets == 0 {
		return ""
	}
	return fmt.Sprintf("  chunk_packets: %d\n", c.ChunkPackets)
}

// arbitrationLine is the fabric's switch_arbitration key, or nothing for the default (fifo).
func arbitrationLine(c clusterSpec) string {
	if c.Arbitration == "" || c.Arbitration == ib.ArbitrationFIFO.String() {
		return ""
	}
	return "  switch_arbitration: " + c.Arbitration + "\n"
}

// arbitrationName is the arbitration a run of c uses (fifo when unset).
func arbitrationName(c clusterSpec) string {
	if c.Arbitration == "" {
		return ib.ArbitrationFIFO.String()
	}
	return c.Arbitration
}

// autoNIDs is how many NIs of one net a scenario numbers automatically (10.<net>.x.y).
const autoNIDs = 65534

// clientNI is the clients' NI: o2ib0 numbered automatically, or, when the clients and
// routers are more than autoNIDs on o2ib0, explicit NIDs from 10.16.0.1 on (a group's NID
// counts up per member), clear of the routers' automatic 10.0.x.y.
func clientNI(c clusterSpec) string {
	if c.Clients+c.Routers <= autoNIDs {
		return "o2ib0"
	}
	return "{net: o2ib0, nid: 10.16.0.1@o2ib}"
}

// clusterResult is what `lnetsim bench cluster` reports. The rates are over the event loop
// (set-up excluded); set-up is the wall time from loading the scenario to the first event.
// The CPU times (user and system, every thread: the garbage collector's too) are steadier
// than wall times on a loaded machine.
type clusterResult struct {
	Clients          int     `json:"clients"`
	Routers          int     `json:"routers"`
	Servers          int     `json:"servers"`
	Duration         string  `json:"duration"`
	Backend          string  `json:"backend"`
	Granularity      string  `json:"granularity"`
	Arbitration      string  `json:"arbitration"`
	Events           uint64  `json:"events"`
	Messages         uint64  `json:"messages"`
	Checksum         string  `json:"checksum"`
	SetupSeconds     float64 `json:"setup_seconds"`
	LoopSeconds      float64 `json:"loop_seconds"`
	SetupCPUSeconds  float64 `json:"setup_cpu_seconds"`
	LoopCPUSeconds   float64 `json:"loop_cpu_seconds"`
	MessagesPerSec   float64 `json:"messages_per_second"`
	EventsPerMessage float64 `json:"events_per_message"`
	NsPerEvent       float64 `json:"ns_per_event"`
	PeakHeapMiB      float64 `json:"peak_heap_mib"`
	MaxRSSMiB        float64 `json:"max_rss_mib"`
}

// benchCluster builds and runs the cluster of spec on backend, timing the set-up and the
// event loop. The heap figure is the Go runtime's memory from the system at the end of the
// simulation (runtime.MemStats.Sys less HeapReleased), the RSS figure getrusage's maxrss.
func benchCluster(spec clusterSpec, backend string) (*clusterResult, error) {
	start, cpu0 := time.Now(), cpuSeconds()
	maxMem := uint64(float64(availableMemory()) * memoryFraction) // as lnetsim run's default
	setGCMemoryLimit(maxMem)
	setGCPercent()
	pages := newHeapPages(maxMem)
	s, err := scenarios.Load("bench-cluster.yaml", []byte(clusterScenario(spec)))
	if err != nil {
		return nil, err
	}
	var loopStart time.Time
	var cpuStart float64
	var heap uint64
	atEnd := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = ms.Sys - ms.HeapReleased
	}
	res, err := runner.Run(s, runner.Options{Version: "bench", Backend: backend,
		AtStart: func() { loopStart, cpuStart = time.Now(), cpuSeconds() }, AtEnd: atEnd,
		Monitor: func(sim.Time, uint64) error { pages.grow(); return nil }})
	if err != nil {
		return nil, err
	}
	loop, loopCPU := time.Since(loopStart).Seconds(), cpuSeconds()-cpuStart
	msgs := uint64(res.Summary.Metrics["messages"])
	ev := res.Summary.Events
	return &clusterResult{Clients: spec.Clients, Routers: spec.Routers, Servers: spec.Servers,
		Duration: spec.Duration.String(), Backend: backend, Granularity: spec.Granularity, Arbitration: arbitrationName(spec), Events: ev, Messages: msgs,
		Checksum: res.Summary.Checksum, SetupSeconds: loopStart.Sub(start).Seconds(), LoopSeconds: loop,
		SetupCPUSeconds: cpuStart - cpu0, LoopCPUSeconds: loopCPU,
		MessagesPerSec: float64(msgs) / loop, EventsPerMessage: float64(ev) / float64(max(msgs, 1)),
		NsPerEvent: loop * 1e9 / float64(max(ev, 1)), PeakHeapMiB: float64(heap) / (1 << 20),
		MaxRSSMiB: float64(maxRSS()) / (1 << 20)}, nil
}

// print writes r as one line, or as indented JSON.
func (r *clusterResult) print(out io.Writer, asJSON bool) error {
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	_, err := fmt.Fprintf(out, "cluster clients=%d routers=%d servers=%d duration=%s backend=%s granularity=%s arbitration=%s: messages=%d events=%d "+
		"setup=%.3fs (cpu %.3fs) loop=%.3fs (cpu %.3fs) messages/s=%.0f events/message=%.1f ns/event=%.0f heap=%.0fMiB maxrss=%.0fMiB checksum=%s\n",
		r.Clients, r.Routers, r.Servers, r.Duration, r.Backend, r.Granularity, r.Arbitration, r.Messages, r.Events, r.SetupSeconds, r.SetupCPUSeconds, r.LoopSeconds,
		r.LoopCPUSeconds, r.MessagesPerSec, r.EventsPerMessage, r.NsPerEvent, r.PeakHeapMiB, r.MaxRSSMiB, r.Checksum)
	return err
}

func newBenchClusterCmd() *cobra.Command {
	var (
		spec          clusterSpec
		duration      string
		backend       string
		asJSON, print bool
	)
	cmd := &cobra.Command{
		Use:   "cluster",
		Short: "Run a routed Lustre-like cluster and report the simulator's speed and memory",
		Long: `Builds a routed cluster (clients on o2ib0, routers with one HCA per net, servers on
o2ib1, a route through every router each way, closed-loop 1 MiB writes and reads, EDR, one
switch), runs it without a results directory and prints the LNet messages per wall-second of
the event loop (each hop counted, as summary.json's messages), events per message, ns per
event, the set-up time (loading to the first event) and the peak memory (Go runtime memory at
the end of the simulation, and the process's maximum RSS). --print-scenario prints the
scenario instead of running it (lnetsim run takes it as is).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			d, err := sim.ParseTime(duration)
			if err != nil || d <= 0 {
				return usageErr("--duration %q: want a positive duration such as 100ms", duration)
			}
			spec.Duration = d
			if spec.Clients < 1 || spec.Routers < 1 || spec.Servers < 1 {
				return usageErr("--clients, --routers and --servers must each be at least 1")
			}
			if spec.Granularity != "fixed" && spec.Granularity != "adaptive" {
				return usageErr("--granularity must be fixed or adaptive, got %q", spec.Granularity)
			}
			if _, err := ib.ParseArbitration(spec.Arbitration); err != nil {
				return usageErr("--arbitration must be fifo or round-robin, got %q", spec.Arbitration)
			}
			if spec.Arbitration == ib.ArbitrationRoundRobin.String() && spec.Granularity != "fixed" {
				return usageErr("--arbitration round-robin needs --granularity fixed")
			}
			if spec.ChunkPackets < 0 || spec.ChunkPackets > ib.MaxChunkPackets {
				return usageErr("--chunk-packets must be 1 to %d (0: the default, %d), got %d", ib.MaxChunkPackets, ib.DefaultChunkPackets, spec.ChunkPackets)
			}
			if backend != runner.BackendO2IB && backend != runner.BackendIdeal {
				return usageErr("--backend must be o2ib or ideal, got %q", backend)
			}
			if print {
				_, err := io.WriteString(cmd.OutOrStdout(), clusterScenario(spec))
				return err
			}
			r, err := benchCluster(spec, backend)
			if err != nil {
				return &exitError{code: exitRuntime, err: err}
			}
			return r.print(cmd.OutOrStdout(), asJSON)
		},
	}
	cmd.Flags().IntVar(&spec.Clients, "clients", 1000, "clients on o2ib0")
	cmd.Flags().IntVar(&spec.Routers, "routers", 16, "routers between o2ib0 and o2ib1")
	cmd.Flags().IntVar(&spec.Servers, "servers", 100, "servers on o2ib1")
	cmd.Flags().StringVar(&duration, "duration", "100ms", "virtual time of the run")
	cmd.Flags().StringVar(&spec.Granularity, "granularity", "fixed", "the IB model's chunk sizing: fixed or adaptive (fabric.granularity)")
	cmd.Flags().IntVar(&spec.ChunkPackets, "chunk-packets", 0, "MTU packets the IB model moves as one unit (fabric.chunk_packets; 0: the default)")
	cmd.Flags().StringVar(&spec.Arbitration, "arbitration", ib.ArbitrationFIFO.String(), "how a switch output chooses among its inputs: fifo or round-robin (fabric.switch_arbitration)")
	cmd.Flags().StringVar(&backend, "backend", runner.BackendO2IB, "o2ib or ideal")
	cmd.Flags().BoolVar(&print, "print-scenario", false, "print the scenario and exit")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
