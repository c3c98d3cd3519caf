package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/sim"
)

// smallCluster is the size the tests and BenchmarkCluster run: 100 clients, 4 routers, 10
// servers, 10 ms.
var smallCluster = clusterSpec{Clients: 100, Routers: 4, Servers: 10, Duration: 10 * sim.Millisecond}

// benchSmallJSON runs `lnetsim bench cluster --json` at the small size (100 clients, 4
// routers, 10 servers, 10 ms) with the extra flags and returns its result.
func benchSmallJSON(t *testing.T, extra ...string) clusterResult {
	t.Helper()
	args := append([]string{"bench", "cluster", "--clients", "100", "--routers", "4", "--servers", "10", "--duration", "10ms", "--json"}, extra...)
	code, out, errOut := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res clusterResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	return res
}

func TestBenchCluster(t *testing.T) {
	res := benchSmallJSON(t)
	// Every hop of the writes and reads through the routers is counted, discovery's pings,
	// pushes and their responses too; the figures are those of the deterministic run.
	if res.Messages != 6729 || res.Events != 114231 || res.Checksum != "c5e60878b220c74d" {
		t.Fatalf("messages %d events %d checksum %s; want 6729 114231 c5e60878b220c74d", res.Messages, res.Events, res.Checksum)
	}
	if res.EventsPerMessage != float64(114231)/6729 || res.SetupSeconds <= 0 || res.LoopSeconds <= 0 || res.PeakHeapMiB <= 0 {
		t.Fatalf("result %+v", res)
	}
}

// TestBenchClusterRoundRobin: --arbitration round-robin runs the cluster with round-robin
// switch outputs (fabric.switch_arbitration), which changes what is simulated.
func TestBenchClusterRoundRobin(t *testing.T) {
	res := benchSmallJSON(t, "--arbitration", "round-robin")
	if res.Arbitration != "round-robin" || res.Messages != 6754 || res.Events != 170536 || res.Checksum != "ed6112a3c206375d" {
		t.Fatalf("arbitration %s messages %d events %d checksum %s; want round-robin 6754 170536 ed6112a3c206375d", res.Arbitration, res.Messages, res.Events, res.Checksum)
	}
}

// TestBenchClusterScenario: --print-scenario prints a scenario that loads as it is, with one
// route per router each way.
func TestBenchClusterScenario(t *testing.T) {
	code, out, errOut := runCLI(t, "bench", "cluster", "--clients", "3", "--routers", "2", "--servers", "1", "--print-scenario")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	s, err := scenarios.Load("printed.yaml", []byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Members) != 6 || len(s.LNet.Routes) != 4 || len(s.Workload) != 2 || s.Duration != 100*sim.Millisecond {
		t.Fatalf("members %d routes %d workloads %d duration %s", len(s.Members), len(s.LNet.Routes), len(s.Workload), s.Duration)
	}
}

func TestBenchClusterUsage(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "cluster", "--clients", "0"},
		{"bench", "cluster", "--duration", "0s"},
		{"bench", "cluster", "--backend", "tcp"},
		{"bench", "cluster", "--arbitration", "rr"},
		{"bench", "cluster", "--arbitration", "round-robin", "--granularity", "adaptive"},
	} {
		if code, _, errOut := runCLI(t, args...); code != exitUsage {
			t.Errorf("%v: exit %d, stderr %q; want exit 2", args, code, errOut)
		}
	}
}

// BenchmarkCluster is `lnetsim bench cluster` at the small size: it reports LNet messages per
// wall-second of the event loop, events per message and ns per event.
//
//	go test -run '^$' -bench Cluster -benchtime 3x ./cmd/lnetsim/
func BenchmarkCluster(b *testing.B) {
	var msgs, events uint64
	var loop float64
	for b.Loop() {
		r, err := benchCluster(smallCluster, "o2ib")
		if err != nil {
			b.Fatal(err)
		}
		msgs, events, loop = msgs+r.Messages, events+r.Events, loop+r.LoopSeconds
	}
	b.ReportMetric(float64(msgs)/loop, "msgs/s")
	b.ReportMetric(float64(events)/float64(msgs), "events/msg")
	b.ReportMetric(loop*1e9/float64(events), "ns/event")
}

// TestBenchClusterBeyondAutoNIDs: with more clients and routers on o2ib0 than a net numbers
// automatically (65534), the clients get explicit NIDs from 10.16.0.1 and the scenario loads.
func TestBenchClusterBeyondAutoNIDs(t *testing.T) {
	for _, tc := range []struct {
		clients int
		last    string // the last client's NID
	}{
		{65519, "10.16.255.239@o2ib"}, // 65535 with the routers: 10.16.0.1 + 65518
	} {
		spec := clusterSpec{Clients: tc.clients, Routers: 16, Servers: 1, Duration: sim.Millisecond}
		s, err := scenarios.Load("big.yaml", []byte(clusterScenario(spec)))
		if err != nil {
			t.Fatalf("%d clients: %v", tc.clients, err)
		}
		last := s.Members[tc.clients-1]
		if got := last.NIs[0].NID.String(); last.Name != fmt.Sprintf("client%d", tc.clients-1) || got != tc.last {
			t.Fatalf("%d clients: %s has %s, want %s", tc.clients, last.Name, got, tc.last)
		}
	}
}
