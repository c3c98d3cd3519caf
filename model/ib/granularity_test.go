package ib

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// gFlow is one flow of the granularity accuracy runs: count RDMA WRITEs of size bytes from
// host src to host dst, all posted at start, or one at a time (closed) each when the last
// completed.
type gFlow struct {
	src, dst    int
	size, count int
	start       sim.Time
	closed      bool
}

// gResult is what a run gives per flow: the completion time of its last WRITE and the
// completion time of every WRITE.
type gResult struct {
	done   []sim.Time
	wcs    [][]sim.Time
	events uint64
}

type gSink struct {
	k     *sim.Kernel
	onWC  func(wc WC)
	stamp func(wc WC, at sim.Time)
}

func (s *gSink) CompletionEvent(cq *CQ) {
	var buf [8]WC
	for {
		n := cq.Poll(buf[:])
		for _, wc := range buf[:n] {
			s.stamp(wc, s.k.Now())
			s.onWC(wc)
		}
		if n == 0 && !cq.ReqNotify() {
			return
		}
	}
}

// granRun runs flows over nsw EDR switches in a chain (50 ns links): host 0 .. hosts-2 on
// the first switch, host hosts-1 on the last.
func granRun(t testing.TB, cfg Config, nsw, hosts int, flows []gFlow) gResult {
	t.Helper()
	k := sim.New(1)
	f := New(k, cfg)
	spec := LinkSpec{Rate: EDR, Latency: 50 * sim.Nanosecond}
	var sws []*Switch
	for i := 0; i < nsw; i++ {
		sws = append(sws, f.AddSwitch(fmt.Sprint("s", i)))
		if i > 0 {
			f.Connect(sws[i-1], sws[i], spec)
		}
	}
	var hcas []*HCA
	for i := 0; i < hosts; i++ {
		h := f.AddNode(fmt.Sprint("h", i)).AddHCA("mlx5_0", 1)
		sw := sws[0]
		if i == hosts-1 {
			sw = sws[nsw-1]
		}
		f.Connect(h.Port(1), sw, spec)
		hcas = append(hcas, h)
	}
	res := gResult{done: make([]sim.Time, len(flows)), wcs: make([][]sim.Time, len(flows))}
	posted := make([]int, len(flows))
	qps := make([]*QP, len(flows))
	mrs := make([]*MR, hosts)
	for i, h := range hcas {
		mrs[i], _ = h.RegMR(1<<30, AccessRemoteWrite)
	}
	post := func(i int) {
		fl := flows[i]
		must(t, qps[i].PostSend(SendWR{ID: uint64(i)<<32 | uint64(posted[i]), Op: OpWrite, Len: fl.size, Signaled: true, RKey: mrs[fl.dst].RKey}))
		posted[i]++
	}
	sink := &gSink{k: k}
	sink.stamp = func(wc WC, at sim.Time) {
		if wc.Status != WCSuccess {
			t.Fatalf("flow %d: %v", wc.WRID>>32, wc.Status)
		}
		i := wc.WRID >> 32
		res.wcs[i] = append(res.wcs[i], at)
		res.done[i] = at
	}
	sink.onWC = func(wc WC) {
		if i := int(wc.WRID >> 32); flows[i].closed && posted[i] < flows[i].count {
			post(i)
		}
	}
	for i, fl := range flows {
		mk := func(h *HCA) *QP {
			cq, err := h.CreateCQ(1<<12, sink)
			must(t, err)
			cq.ReqNotify()
			qp, err := h.CreateQP(QPInitAttr{SendCQ: cq, RecvCQ: cq, MaxSendWR: 1024, MaxRecvWR: 16})
			must(t, err)
			return qp
		}
		a, b := mk(hcas[fl.src]), mk(hcas[fl.dst])
		for _, p := range [][2]*QP{{a, b}, {b, a}} {
			must(t, p[0].Modify(QPInit, QPAttr{Port: 1}))
			must(t, p[0].Modify(QPRTR, QPAttr{DestQPN: p[1].Num(), DestLID: p[1].HCA().Port(1).LID(), MinRNRTimer: 12}))
			must(t, p[0].Modify(QPRTS, defRTS))
		}
		qps[i] = a
		k.ScheduleFunc(fl.start, func() {
			for n := 0; n < fl.count && (n == 0 || !fl.closed); n++ {
				post(i)
			}
		})
	}
	run(t, k)
	for i, fl := range flows {
		if len(res.wcs[i]) != fl.count {
			t.Fatalf("flow %d: %d of %d WRITEs completed", i, len(res.wcs[i]), fl.count)
		}
	}
	res.events = k.Fired()
	return res
}

// shares returns each flow's fraction of the bytes all flows completed by the time the
// first flow finished (by whole WRITEs).
func shares(r gResult, flows []gFlow) []float64 {
	first := r.done[0]
	for _, d := range r.done {
		first = min(first, d)
	}
	total := 0.0
	got := make([]float64, len(flows))
	for i, fl := range flows {
		for _, at := range r.wcs[i] {
			if at <= first {
				got[i] += float64(fl.size)
			}
		}
		total += got[i]
	}
	for i := range got {
		got[i] /= total
	}
	return got
}

type granCase struct {
	name  string
	nsw   int
	hosts int
	flows []gFlow
}

var granUncontended = func() []granCase {
	var cs []granCase
	for _, nsw := range []int{1, 3} {
		for _, size := range []int{1 << 10, 64 << 10, 1 << 20, 4 << 20} {
			cs = append(cs, granCase{name: fmt.Sprintf("%dsw/%dKiB", nsw, size>>10), nsw: nsw, hosts: 2,
				flows: []gFlow{{src: 0, dst: 1, size: size, count: 1}}})
		}
	}
	return cs
}()

var granContended = []granCase{
	{name: "2-into-1", nsw: 1, hosts: 3, flows: []gFlow{{0, 2, 1 << 20, 8, 0, false}, {1, 2, 1 << 20, 8, 0, false}}},
	{name: "8-into-1", nsw: 1, hosts: 9, flows: func() []gFlow {
		var fl []gFlow
		for i := 0; i < 8; i++ {
			fl = append(fl, gFlow{i, 8, 1 << 20, 4, sim.Time(i) * 37, false})
		}
		return fl
	}()},
	{name: "small-vs-bulk", nsw: 1, hosts: 3, flows: []gFlow{{0, 2, 4 << 20, 4, 0, false}, {1, 2, 4 << 10, 200, 5 * sim.Microsecond, true}}},
	{name: "mid-transfer", nsw: 1, hosts: 3, flows: []gFlow{{0, 2, 4 << 20, 1, 0, false}, {1, 2, 1 << 20, 1, 100 * sim.Microsecond, false}}},
	{name: "mid-transfer-3sw", nsw: 3, hosts: 3, flows: []gFlow{{0, 2, 4 << 20, 1, 0, false}, {1, 2, 1 << 20, 1, 100 * sim.Microsecond, false}}},
	{name: "same-port", nsw: 1, hosts: 3, flows: []gFlow{{0, 2, 4 << 20, 1, 0, false}, {0, 1, 64 << 10, 20, 50 * sim.Microsecond, true}}},
}

// TestGranularityAccuracy compares fixed 16-packet chunks (the default), fixed 32-packet
// chunks and adaptive granularity against packet level (ChunkPackets 1), every run with the
// same switch buffer in bytes (Config.BufferBytes' default), on uncontended transfers (1 KiB to 4 MiB through 1 and 3
// switches: exact) and on contended ones (2 and 8 flows into one output, a closed loop of
// 4 KiB WRITEs against 4 MiB ones, a flow starting in the middle of another's transfer,
// and a closed loop of 64 KiB WRITEs from a second QP of a bulk flow's port): every flow's
// completion time and its share of the WRITEs completed when the first flow finished. The
// table of events and worst errors is pinned (granularityAccuracy).
func TestGranularityAccuracy(t *testing.T) {
	got := granularityReport(t)
	t.Log("\n" + got)
	if got != granularityAccuracy {
		t.Errorf("accuracy table changed; got:\n%s\nwant:\n%s", got, granularityAccuracy)
	}
}

// granularityAccuracy is TestGranularityAccuracy's table: events of the run (and of the
// packet-level run), the worst completion time error over the flows in ns and in percent of
// the flow's packet-level duration, and the worst share error in percentage points.
const granularityAccuracy = `1sw/1KiB         fixed16  events    10 (packet    10) completion error       0 ns   0.00% share error  0.00
1sw/1KiB         fixed32  events    10 (packet    10) completion error       0 ns   0.00% share error  0.00
1sw/1KiB         adaptive events    10 (packet    10) completion error       0 ns   0.00% share error  0.00
1sw/64KiB        fixed16  events    10 (packet    26) completion error       0 ns   0.00% share error  0.00
1sw/64KiB        fixed32  events    10 (packet    26) completion error       0 ns   0.00% share error  0.00
1sw/64KiB        adaptive events    10 (packet    26) completion error       0 ns   0.00% share error  0.00
1sw/1024KiB      fixed16  events    26 (packet   266) completion error       0 ns   0.00% share error  0.00
1sw/1024KiB      fixed32  events    18 (packet   266) completion error       0 ns   0.00% share error  0.00
1sw/1024KiB      adaptive events    16 (packet   266) completion error       0 ns   0.00% share error  0.00
1sw/4096KiB      fixed16  events    74 (packet  1034) completion error       0 ns   0.00% share error  0.00
1sw/4096KiB      fixed32  events    42 (packet  1034) completion error       0 ns   0.00% share error  0.00
1sw/4096KiB      adaptive events    40 (packet  1034) completion error       0 ns   0.00% share error  0.00
3sw/1KiB         fixed16  events    20 (packet    20) completion error       0 ns   0.00% share error  0.00
3sw/1KiB         fixed32  events    20 (packet    20) completion error       0 ns   0.00% share error  0.00
3sw/1KiB         adaptive events    20 (packet    20) completion error       0 ns   0.00% share error  0.00
3sw/64KiB        fixed16  events    20 (packet   111) completion error       0 ns   0.00% share error  0.00
3sw/64KiB        fixed32  events    20 (packet   111) completion error       0 ns   0.00% share error  0.00
3sw/64KiB        adaptive events    20 (packet   111) completion error       0 ns   0.00% share error  0.00
3sw/1024KiB      fixed16  events   111 (packet  1551) completion error       0 ns   0.00% share error  0.00
3sw/1024KiB      fixed32  events    63 (packet  1551) completion error       0 ns   0.00% share error  0.00
3sw/1024KiB      adaptive events    41 (packet  1551) completion error       0 ns   0.00% share error  0.00
3sw/4096KiB      fixed16  events   399 (packet  6159) completion error       0 ns   0.00% share error  0.00
3sw/4096KiB      fixed32  events   207 (packet  6159) completion error       0 ns   0.00% share error  0.00
3sw/4096KiB      adaptive events   125 (packet  6159) completion error       0 ns   0.00% share error  0.00
2-into-1         fixed16  events   589 (packet  8029) completion error    4946 ns   0.37% share error  0.00
2-into-1         fixed32  events   341 (packet  8029) completion error   10222 ns   0.76% share error  0.00
2-into-1         adaptive events   991 (packet  8029) completion error   10552 ns   0.78% share error  6.67
8-into-1         fixed16  events  1189 (packet 16000) completion error   34625 ns   1.28% share error  0.00
8-into-1         fixed32  events   695 (packet 16000) completion error   71558 ns   2.65% share error  0.00
8-into-1         adaptive events  2221 (packet 16000) completion error   34954 ns   1.29% share error  4.00
small-vs-bulk    fixed16  events  1536 (packet  5372) completion error    2820 ns   0.19% share error  0.16
small-vs-bulk    fixed32  events  1418 (packet  5372) completion error    6042 ns   0.42% share error  0.35
small-vs-bulk    adaptive events  2218 (packet  5372) completion error    2820 ns   0.19% share error  0.16
mid-transfer     fixed16  events   124 (packet  1624) completion error    4946 ns   2.92% share error  0.00
mid-transfer     fixed32  events    74 (packet  1624) completion error    4946 ns   2.92% share error  0.00
mid-transfer     adaptive events   234 (packet  1624) completion error    4946 ns   2.92% share error  0.00
mid-transfer-3sw fixed16  events   534 (packet  8034) completion error    4946 ns   2.91% share error  0.00
mid-transfer-3sw fixed32  events   284 (packet  8034) completion error    4946 ns   2.91% share error  0.00
mid-transfer-3sw adaptive events   448 (packet  8034) completion error    4946 ns   2.91% share error  0.00
same-port        fixed16  events   198 (packet  1478) completion error    8574 ns   3.94% share error  0.00
same-port        fixed32  events   166 (packet  1478) completion error   91673 ns  42.14% share error  0.00
same-port        adaptive events   192 (packet  1478) completion error    1979 ns   0.91% share error  0.00
worst fixed16  completion error   34625 ns   3.94% share error  0.16
worst fixed32  completion error   91673 ns  42.14% share error  0.35
worst adaptive completion error   34954 ns   2.92% share error  6.67
`

func granularityReport(t *testing.T) string {
	pkt := Config{ChunkPackets: 1}
	var report strings.Builder
	type worst struct {
		ns       sim.Time
		pct, shr float64
	}
	all := map[string]*worst{"fixed16": {}, "fixed32": {}, "adaptive": {}}
	for _, c := range append(append([]granCase{}, granUncontended...), granContended...) {
		ref := granRun(t, pkt, c.nsw, c.hosts, c.flows)
		for _, v := range []struct {
			name string
			cfg  Config
		}{{"fixed16", Config{}}, {"fixed32", Config{ChunkPackets: 32}}, {"adaptive", Config{Granularity: GranularityAdaptive}}} {
			got := granRun(t, v.cfg, c.nsw, c.hosts, c.flows)
			var w worst
			rs, gs := shares(ref, c.flows), shares(got, c.flows)
			for i := range c.flows {
				d := got.done[i] - ref.done[i]
				if d < 0 {
					d = -d
				}
				w.ns = max(w.ns, d)
				w.pct = max(w.pct, 100*float64(d)/float64(ref.done[i]-c.flows[i].start))
				ds := 100 * (gs[i] - rs[i])
				if ds < 0 {
					ds = -ds
				}
				w.shr = max(w.shr, ds)
			}
			fmt.Fprintf(&report, "%-16s %-8s events %5d (packet %5d) completion error %7d ns %6.2f%% share error %5.2f\n",
				c.name, v.name, got.events, ref.events, w.ns, w.pct, w.shr)
			a := all[v.name]
			a.ns, a.pct, a.shr = max(a.ns, w.ns), max(a.pct, w.pct), max(a.shr, w.shr)
		}
	}
	for _, n := range []string{"fixed16", "fixed32", "adaptive"} {
		a := all[n]
		fmt.Fprintf(&report, "worst %-8s completion error %7d ns %6.2f%% share error %5.2f\n", n, a.ns, a.pct, a.shr)
	}
	return report.String()
}

// TestGranularityFaults runs TestEventSavingEquivalence's random traffic over random faults
// (link flaps, loss, corruption, extra delay, route sweeps, HCA failures, counter resets)
// with fixed and with adaptive granularity. Adaptive runs with and without the
// event-saving paths agree exactly; against fixed, every posted send completes exactly
// once in both (none lost, none duplicated), and the completions that differ in status
// and the largest time shift of the others are pinned.
func TestGranularityFaults(t *testing.T) {
	type key struct {
		id uint64
		op WCOpcode
	}
	var differ, same, fewer int
	var shift sim.Time
	for seed := uint64(1); seed <= 40; seed++ {
		for _, topo := range []string{"switch", "fat", "switch-skewed"} {
			faults := seed%3 != 0
			fixed, _, fw := equivRun(t, seed, topo, faults, GranularityFixed)
			perHopEvents = true
			ref, refEv, _ := equivRun(t, seed, topo, faults, GranularityAdaptive)
			perHopEvents = false
			got, gotEv, aw := equivRun(t, seed, topo, faults, GranularityAdaptive)
			if len(ref) != len(got) || gotEv > refEv {
				t.Fatalf("%s/%d adaptive: %d records (%d events) per hop, %d (%d) saving", topo, seed, len(ref), refEv, len(got), gotEv)
			}
			for i := range ref {
				if ref[i] != got[i] {
					t.Fatalf("%s/%d adaptive record %d differs:\n per hop: %s\n saving:  %s", topo, seed, i, ref[i], got[i])
				}
			}
			index := func(w []twc) map[key]twc {
				m := map[key]twc{}
				for _, c := range w {
					k := key{c.WRID, c.Opcode}
					if c.Opcode == WCRecv && c.Status != WCSuccess {
						k.op = 255 // flushed receives: reported apart from received ones
					}
					if _, dup := m[k]; dup && k.op != 255 {
						t.Fatalf("%s/%d: %v of WR %d completed twice", topo, seed, c.Opcode, c.WRID)
					}
					m[k] = c
				}
				return m
			}
			fm, am := index(fw), index(aw)
			sends := func(m map[key]twc) int {
				n := 0
				for k := range m {
					if k.op != WCRecv && k.op != 255 {
						n++
					}
				}
				return n
			}
			if sends(fm) != sends(am) {
				t.Fatalf("%s/%d: %d sends completed with fixed granularity, %d adaptive", topo, seed, sends(fm), sends(am))
			}
			if len(fixed) != len(got) {
				fewer++
			}
			keys := make([]key, 0, len(fm))
			for k := range fm {
				keys = append(keys, k)
			}
			sort.Slice(keys, func(i, j int) bool {
				return keys[i].id < keys[j].id || keys[i].id == keys[j].id && keys[i].op < keys[j].op
			})
			for _, k := range keys {
				a, ok := am[k]
				f := fm[k]
				if !ok || a.Status != f.Status {
					differ++
					continue
				}
				same++
				d := a.at - f.at
				if d < 0 {
					d = -d
				}
				shift = max(shift, d)
			}
		}
	}
	t.Logf("completions: %d alike, %d differ in status or presence; largest time shift of the alike %d ns; %d runs with another record count", same, differ, shift, fewer)
	if same != 104660 || differ != 0 || shift != 1079506 || fewer != 0 {
		t.Errorf("want 104660 alike, 0 differing, a largest shift of 1079506 ns (one ACK timeout, 1.049 ms, and a retry), 0 runs with another record count")
	}
}
