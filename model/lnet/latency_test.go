package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestStatsResetWraps: a stats reset while a PUT waits for its ACK zeroes msgs_alloc,
// msgs_max and rst_alloc as lnet_counters_reset's memset does; the PUT's and its ACK's
// messages and the tracker going afterwards take them below zero, shown as the kernel's u32
// (4294967295; msgs_max stays 0: the SEND's message is freed before the ACK's is taken, so
// msgs_alloc never rises above 0 again), while the tracker list's compaction still counts the live trackers (none).
// The next operation counts up from there; the reset also cleared the NI's and peer NI's
// message counts and latency.
func TestStatsResetWraps(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), DefaultNetTunables())
	p.put(t, 100)
	p.run(t, sim.Second)
	if l := p.a.NIs()[0].Latency(); l[LatencyPutAckRTT].Samples == 0 || l[LatencyPutEgress].Samples == 0 {
		t.Fatalf("no latency before the reset: %+v", l)
	}
	p.put(t, 100)
	if s := p.a.Stats(); s.MsgsAlloc != 1 || s.RstAlloc != 1 || p.a.rspLive != 1 {
		t.Fatalf("before the reset: msgs_alloc %d rst_alloc %d live %d, want 1 1 1", s.MsgsAlloc, s.RstAlloc, p.a.rspLive)
	}
	p.a.ResetStats()
	if s := p.a.Stats(); s != (Counters{}) {
		t.Fatalf("after the reset: %+v, want zeros", s)
	}
	ni := p.a.NIs()[0]
	if st, l := ni.Stats(), ni.Latency(); st != (NIStats{}) || l != (Latency{}) {
		t.Fatalf("NI after the reset: %+v %+v", st, l)
	}
	p.run(t, sim.Second)
	s := p.a.Stats()
	const wrapped = 1<<32 - 1
	if s.MsgsAlloc != wrapped || s.RstAlloc != wrapped || s.MsgsMax != 0 || p.a.rspLive != 0 {
		t.Fatalf("after the PUT ends: msgs_alloc %d msgs_max %d rst_alloc %d live %d, want %d 0 %d 0",
			s.MsgsAlloc, s.MsgsMax, s.RstAlloc, p.a.rspLive, uint64(wrapped), uint64(wrapped))
	}
	if s.SendCount != 1 || s.RecvCount != 1 {
		t.Fatalf("send_count %d recv_count %d, want 1 1", s.SendCount, s.RecvCount)
	}
	l := ni.Latency()
	want := Latency{LatencyPutEgress: {Samples: 1, MinNs: 1000, MaxNs: 1000, AvgNs: 1000},
		LatencyPutAckRTT: {Samples: 1, MinNs: 2000, MaxNs: 2000, AvgNs: 2000}}
	if l != want {
		t.Fatalf("NI latency after the reset and one PUT: %+v, want %+v", l, want)
	}
	p.put(t, 100)
	p.run(t, sim.Second)
	if s := p.a.Stats(); s.MsgsAlloc != wrapped || s.RstAlloc != wrapped || s.MsgsMax != 0 {
		t.Fatalf("after a third PUT: msgs_alloc %d msgs_max %d rst_alloc %d", s.MsgsAlloc, s.MsgsMax, s.RstAlloc)
	}
}

// TestLatencyAccumulator pins lnet_record_latency's rules: non-positive samples are
// dropped, the first seeds min and max, the average is the integer mean.
func TestLatencyAccumulator(t *testing.T) {
	var l *opLatency
	recordLatency(&l, LatencyGetRTT, 0)
	if l != nil {
		t.Fatal("a 0 ns sample allocated the accumulators")
	}
	for _, ns := range []sim.Time{700, -5, 300, 1000} {
		recordLatency(&l, LatencyGetRTT, ns)
	}
	got := latencyOf(l)
	want := Latency{LatencyGetRTT: {Samples: 3, MinNs: 300, MaxNs: 1000, AvgNs: 666}}
	if got != want {
		t.Fatalf("%+v, want %+v", got, want)
	}
}

// TestNoLatencyBeforeMaster: 2.17 records nothing and its reset leaves the NIs' counts.
func TestNoLatencyBeforeMaster(t *testing.T) {
	r, err := LookupRelease("2.17")
	if err != nil {
		t.Fatal(err)
	}
	p := newPair(t, 1, 1, r.Tunables(), DefaultNetTunables())
	p.put(t, 100)
	p.run(t, sim.Second)
	ni := p.a.NIs()[0]
	if l := ni.Latency(); l != (Latency{}) || ni.lat != nil {
		t.Fatalf("2.17 latency %+v", l)
	}
	sent := ni.Stats().SendCount
	p.a.ResetStats()
	if ni.Stats().SendCount != sent || sent == 0 || p.a.Stats().SendCount != 0 {
		t.Fatalf("2.17 reset: NI send_count %d (was %d), node %d", ni.Stats().SendCount, sent, p.a.Stats().SendCount)
	}
}
