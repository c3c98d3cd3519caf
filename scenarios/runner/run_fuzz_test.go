package runner

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/sim"
)

// FuzzRun plays what the loader accepts: a scenario that validates must run without a panic
// and end in results or one of the bounded errors (the event limit, a feature the backend
// does not support). The catalogue seeds the corpus; runs are capped at 32 nodes and 100k
// events, on both backends.
func FuzzRun(f *testing.F) {
	for _, name := range scenarios.Catalogue() {
		_, data, _ := scenarios.Builtin(name)
		f.Add(data, false)
	}
	_, def, _ := scenarios.Builtin(scenarios.DefaultName)
	f.Add(def, true)
	f.Fuzz(func(t *testing.T, data []byte, ideal bool) {
		s, err := scenarios.Load("fuzz.yaml", data)
		if err != nil || len(s.Members) > 32 {
			return
		}
		opt := Options{MaxEvents: 100_000}
		if ideal {
			opt.Backend = "ideal"
		}
		res, err := Run(s, opt)
		switch {
		case errors.Is(err, sim.ErrEventLimit), errors.Is(err, ErrUnsupported):
		case err != nil:
			t.Fatalf("a valid scenario failed to run: %v", err)
		case len(res.Summary.Expectations) != len(s.Expect):
			t.Fatalf("%d expectation results for %d expectations", len(res.Summary.Expectations), len(s.Expect))
		}
	})
}

// fuzzKnobs are scenario fields FuzzRunKnobs sets (by --set path) on a built-in scenario, each
// with how a fuzzed integer becomes its value; fields a scenario lacks fail to load and are
// skipped.
var fuzzKnobs = []struct {
	path  string
	value func(v int64) string
}{
	{"lnet.retry_count", func(v int64) string { return fmt.Sprint(v % 8) }},
	{"lnet.transaction_timeout", func(v int64) string { return fmt.Sprint(v % 200) }},
	{"lnet.health_sensitivity", func(v int64) string { return fmt.Sprint(v % 1100) }},
	{"lnet.recovery_limit", func(v int64) string { return fmt.Sprint(v % 100) }},
	{"lnet.response_tracking", func(v int64) string { return fmt.Sprint(v % 4) }},
	{"lnet.drop_asym_route", func(v int64) string { return fmt.Sprint(v%2 == 0) }},
	{"lnet.cpts", func(v int64) string { return fmt.Sprint(v % 5) }},
	{"lnet.release", func(v int64) string { return []string{"2.12.0", "2.12", "2.15", "2.16", "2.17", "master"}[v%6] }},
	{"o2ib.o2ib0.peer_credits", func(v int64) string { return fmt.Sprint(v % 300) }},
	{"o2ib.o2ib0.concurrent_sends", func(v int64) string { return fmt.Sprint(v % 300) }},
	{"o2ib.o2ib0.timeout", func(v int64) string { return fmt.Sprint(v % 120) }},
	{"o2ib.o2ib0.keepalive", func(v int64) string { return fmt.Sprint(v % 120) }},
	{"o2ib.o2ib0.conns_per_peer", func(v int64) string { return fmt.Sprint(v % 20) }},
	{"o2ib.o2ib0.ntx", func(v int64) string { return fmt.Sprint(v % 1000) }},
	{"o2ib.o2ib0.bulk", func(v int64) string { return []string{"write", "read", "pull"}[v%3] }},
	{"o2ib.o2ib0.read_depth", func(v int64) string { return fmt.Sprint(v % 20) }},
	{"socklnd.tcp0.sock_timeout", func(v int64) string { return fmt.Sprint(v % 120) }},
	{"socklnd.tcp0.peer_credits", func(v int64) string { return fmt.Sprint(v % 300) }},
	{"socklnd.tcp0.typed_conns", func(v int64) string { return fmt.Sprint(v % 3) }},
	{"socklnd.tcp0.min_bulk", func(v int64) string { return fmt.Sprint(v % (1 << 21)) }},
	{"socklnd.tcp0.conns_per_peer", func(v int64) string { return fmt.Sprint(v % 300) }},
	{"socklnd.tcp0.keepalive", func(v int64) string { return fmt.Sprint(v % 120) }},
	{"socklnd.tcp0.zc_min_payload", func(v int64) string { return fmt.Sprint(v % (1 << 21)) }},
	{"socklnd.tcp0.min_reconnectms", func(v int64) string { return fmt.Sprint(v % 100000) }},
	{"ethernet.link_rate", func(v int64) string { return fmt.Sprintf("%dMbps", v%400000) }},
	{"ethernet.mtu", func(v int64) string { return fmt.Sprint(v % 10000) }},
	{"ethernet.port_buffer", func(v int64) string { return fmt.Sprint(v % (4 << 20)) }},
	{"workload[0].size", func(v int64) string { return fmt.Sprint(v % (1<<20 + 2)) }},
	{"workload[0].concurrency", func(v int64) string { return fmt.Sprint(v % 40) }},
	{"workload[0].interval", func(v int64) string { return fmt.Sprintf("%dus", v%100000) }},
	{"workload[0].start", func(v int64) string { return fmt.Sprintf("%dms", v%3000) }},
	{"faults[0].at", func(v int64) string { return fmt.Sprintf("%dms", v%3000) }},
	{"faults[0].for", func(v int64) string { return fmt.Sprintf("%dms", v%3000) }},
	{"faults[1].at", func(v int64) string { return fmt.Sprintf("%dms", v%3000) }},
	{"fabric.link_latency", func(v int64) string { return fmt.Sprintf("%dns", v%100000) }},
	{"fabric.mtu", func(v int64) string { return fmt.Sprint(256 << (v % 5)) }},
	{"fabric.topology", func(v int64) string { return []string{"single-switch", "fat-tree", "fat-tree-3"}[v%3] }},
	{"fabric.radix", func(v int64) string { return fmt.Sprint(4 + 2*(v%31)) }},
	{"fabric.oversubscription", func(v int64) string { return fmt.Sprintf("%d:%d", 1+v%4, 1+v/4%2) }},
	{"fabric.granularity", func(v int64) string { return []string{"fixed", "adaptive"}[v%2] }},
	{"ethernet.topology", func(v int64) string { return []string{"single-switch", "leaf-spine", "leaf-spine"}[v%3] }},
	{"ethernet.hosts_per_leaf", func(v int64) string { return fmt.Sprint(v % 6) }},
	{"ethernet.spines", func(v int64) string { return fmt.Sprint(v % 5) }},
	{"ethernet.uplink_rate", func(v int64) string { return fmt.Sprintf("%dMbps", v%400000) }},
	{"ethernet.uplink_latency", func(v int64) string { return fmt.Sprintf("%dns", v%100000) }},
	{"faults[0].switch_link", func(v int64) string { return fmt.Sprintf("leaf%d-spine%d", v%3, v/3%3) }},
	{"fabric.chunk_packets", func(v int64) string { return fmt.Sprint(1 + v%128) }},
	{"fabric.switch_buffer", func(v int64) string { return fmt.Sprint(v % (1 << 21)) }},
	{"fabric.switch_arbitration", func(v int64) string { return []string{"fifo", "round-robin"}[v%2] }},
}

// fuzzKnobChunk is the index of fabric.chunk_packets in fuzzKnobs (fabric.switch_buffer next).
const fuzzKnobChunk = 46

// FuzzRunKnobs plays built-in scenarios with up to three fields changed to fuzzed values
// (credits, timeouts, sizes, fault times...): what loads must run without a panic, as
// FuzzRun. Raw YAML mutations rarely stay valid; this explores valid scenarios.
func FuzzRunKnobs(f *testing.F) {
	f.Add(uint8(0), uint8(0), int64(0), uint8(1), int64(3), uint8(7), int64(8), false)
	f.Add(uint8(3), uint8(17), int64(1), uint8(13), int64(4096), uint8(14), int64(7), false)
	f.Add(uint8(5), uint8(10), int64(2), uint8(16), int64(500), uint8(11), int64(2), true)
	f.Add(uint8(64), uint8(15), int64(3), uint8(19), int64(500), uint8(25), int64(9000), false)                                   // socklnd and ethernet knobs
	f.Add(uint8(0), uint8(fuzzKnobChunk), int64(0), uint8(fuzzKnobChunk+1), int64(200000), uint8(fuzzKnobChunk), int64(3), false) // packet level with a shallow buffer
	f.Add(uint8(84), uint8(42), int64(3), uint8(43), int64(25000), uint8(45), int64(4), false)                                    // 3 spines, 25G uplinks, leaf1-spine1 down on tcp-leaf-spine-uplink (index 84 when added)
	f.Fuzz(func(t *testing.T, scen, k1 uint8, v1 int64, k2 uint8, v2 int64, k3 uint8, v3 int64, ideal bool) {
		names := append([]string{scenarios.DefaultName}, scenarios.Catalogue()...)
		var ovs []scenarios.Override
		var sets []string
		for _, kv := range []struct {
			k uint8
			v int64
		}{{k1, v1}, {k2, v2}, {k3, v3}} {
			knob := fuzzKnobs[int(kv.k)%len(fuzzKnobs)]
			v := kv.v
			if v < 0 {
				v = -(v + 1)
			}
			set := knob.path + "=" + knob.value(v)
			o, err := scenarios.ParseSet(set)
			if err != nil {
				t.Fatalf("knob %s: %v", knob.path, err)
			}
			ovs, sets = append(ovs, o), append(sets, set)
		}
		s, err := scenarios.LoadBuiltin(names[int(scen)%len(names)], ovs...)
		if err != nil || len(s.Members) > 32 {
			return
		}
		opt := Options{MaxEvents: 100_000}
		if ideal {
			opt.Backend = "ideal"
		}
		if _, err := Run(s, opt); err != nil && !errors.Is(err, sim.ErrEventLimit) && !errors.Is(err, ErrUnsupported) {
			t.Fatalf("%s with --set %v (ideal backend %v): %v", s.Name, sets, ideal, err)
		}
	})
}

func TestFuzzKnobChunkIndex(t *testing.T) {
	if fuzzKnobs[fuzzKnobChunk].path != "fabric.chunk_packets" || fuzzKnobs[fuzzKnobChunk+1].path != "fabric.switch_buffer" {
		t.Fatalf("fuzzKnobChunk %d names %s", fuzzKnobChunk, fuzzKnobs[fuzzKnobChunk].path)
	}
}
