package ib

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestEventSavingEquivalence runs random traffic over random faults (link flaps, loss,
// corruption, extra delay, route sweeps, HCA failures, counter resets; on the incasts, MAD
// backlog samples) four times: with every hop's events (perHopEvents), with the
// event-saving paths limited to idle switch outputs (noQueueAhead, noAhead), with queueing
// on a busy output ahead of the arrival but no sending ahead (noAhead), and with all of them
// (cut-through across an idle switch output, switch outputs ending a transmission without an
// event, FIFO outputs sending ahead, ahead.go). It requires the same completions at the same
// times and the same port counters: the saved events change nothing but the event count.
// The incast topologies (many senders into one port, of mixed sizes) keep switch outputs
// busy, so chunks queue and go ahead there and faults fall on them; across them queueing
// ahead and sending ahead must each save events.
//
// Sending ahead schedules a chunk's far-port arrival when the chunk joins its output, not
// when the output frees, so among events of one nanosecond it can fire earlier. In the seeds
// of aheadTies that decides something: in incast/10 a sequence NAK reaches the sender at
// the very nanosecond its port ends a chunk, and goes first, so one chunk fewer of the
// rewound message is sent and later completions come one chunk time (163 ns) earlier. Either
// order is a valid run; for those seeds the same completions are required, at any time.
func TestEventSavingEquivalence(t *testing.T) {
	saved, savedAhead := map[string]uint64{}, map[string]uint64{}
	var undone [2]uint64
	for seed := uint64(1); seed <= 40; seed++ {
		for _, topo := range []string{"switch", "fat", "switch-skewed", "incast", "incast-fat"} {
			name := fmt.Sprint(topo, "/", seed)
			t.Run(name, func(t *testing.T) {
				defer func() { perHopEvents, noQueueAhead, noAhead = false, false, false }()
				perHopEvents = true
				ref, refEv, _ := equivRun(t, seed, topo, seed%3 != 0, GranularityFixed)
				perHopEvents, noQueueAhead, noAhead = false, true, true
				idle, idleEv, _ := equivRun(t, seed, topo, seed%3 != 0, GranularityFixed)
				noQueueAhead = false
				queued, queuedEv, _ := equivRun(t, seed, topo, seed%3 != 0, GranularityFixed)
				noAhead = false
				got, gotEv, _ := equivRun(t, seed, topo, seed%3 != 0, GranularityFixed)
				undone[0] += lastEquivFabric.aheadUndone[0]
				undone[1] += lastEquivFabric.aheadUndone[1]
				for _, recs := range [][]string{ref, idle, queued, got} {
					sortTies(recs)
				}
				runs := []struct {
					name string
					out  []string
				}{{"idle outputs only", idle}, {"queueing ahead", queued}, {"sending ahead", got}}
				if aheadTies[name] {
					runs = runs[:2]
					if a, b := untimed(ref), untimed(got); !slices.Equal(a, b) {
						t.Errorf("sending ahead: other completions than with every hop's events:\n%v\n%v", a, b)
					}
				}
				for _, run := range runs {
					if len(ref) != len(run.out) {
						t.Fatalf("%d records with every hop's events, %d with %s", len(ref), len(run.out), run.name)
					}
					for i := range ref {
						if ref[i] != run.out[i] {
							t.Fatalf("record %d differs:\n per hop: %s\n %s: %s", i, ref[i], run.name, run.out[i])
						}
					}
				}
				if gotEv > queuedEv || queuedEv > idleEv || idleEv > refEv {
					t.Errorf("%d events per hop, %d saving at idle outputs, %d queueing ahead, %d sending ahead", refEv, idleEv, queuedEv, gotEv)
				}
				saved[topo] += idleEv - queuedEv
				savedAhead[topo] += queuedEv - gotEv
				t.Logf("%d records, %d events per hop, %d saving at idle outputs, %d queueing ahead, %d sending ahead", len(ref), refEv, idleEv, queuedEv, gotEv)
			})
		}
	}
	for _, topo := range []string{"incast", "incast-fat"} {
		if saved[topo] == 0 || savedAhead[topo] == 0 {
			t.Errorf("%s: queueing ahead saved %d events, sending ahead %d", topo, saved[topo], savedAhead[topo])
		}
	}
	// Faults fell on chunks sent ahead that had not started, both those that had reached
	// their switch (back into the queue) and those still on their way (back to an arrival).
	if undone[0] == 0 || undone[1] == 0 {
		t.Errorf("takeBack undid %d chunks sent ahead into their queue and %d onto their way: both paths must be exercised", undone[0], undone[1])
	}
	t.Logf("events queueing ahead saved: %v; sending ahead: %v; sends ahead undone %v", saved, savedAhead, undone)
}

// lastEquivFabric is the fabric of equivRun's last run.
var lastEquivFabric *Fabric

// aheadTies are the seeds of TestEventSavingEquivalence in which sending ahead takes two
// events of one nanosecond in another order than every hop's events do, with an effect.
var aheadTies = map[string]bool{"incast/10": true}

// untimed returns equivRun's completion records without their times, sorted (counters and
// backlogs left out).
func untimed(recs []string) []string {
	var out []string
	for _, r := range recs {
		if i := strings.IndexByte(r, ' '); i >= 0 && r[:i] != "counters" && !strings.HasPrefix(r[i+1:], "backlog") && !strings.HasPrefix(r[i+1:], "counters") {
			out = append(out, r[i+1:])
		}
	}
	sort.Strings(out)
	return out
}

// equivArb is the switch arbitration equivRun's fabrics use.
var equivArb = ArbitrationFIFO

// TestEventSavingEquivalenceRoundRobin is TestEventSavingEquivalence under round-robin
// arbitration (which does without queueing ahead: an early place in the queue would not be
// the place the arrival takes): the idle-output cut-through and quiet arrivals give the same
// completions, counters and backlogs as every hop's events.
func TestEventSavingEquivalenceRoundRobin(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		for _, topo := range []string{"switch", "fat", "switch-skewed", "incast", "incast-fat"} {
			t.Run(fmt.Sprint(topo, "/", seed), func(t *testing.T) {
				defer func() { perHopEvents, equivArb = false, ArbitrationFIFO }()
				equivArb, perHopEvents = ArbitrationRoundRobin, true
				ref, refEv, _ := equivRun(t, seed, topo, seed%3 != 0, GranularityFixed)
				perHopEvents = false
				got, gotEv, _ := equivRun(t, seed, topo, seed%3 != 0, GranularityFixed)
				sortTies(ref)
				sortTies(got)
				if len(ref) != len(got) {
					t.Fatalf("%d records with every hop's events, %d saving", len(ref), len(got))
				}
				for i := range ref {
					if ref[i] != got[i] {
						t.Fatalf("record %d differs:\n per hop: %s\n saving:  %s", i, ref[i], got[i])
					}
				}
				if gotEv >= refEv {
					t.Errorf("%d events per hop, %d saving", refEv, gotEv)
				}
			})
		}
	}
}

// sortTies sorts each run of records of the same virtual time: completions of the same
// nanosecond may be reported in either order when the saving paths schedule an event at
// another moment than the per-hop path (cutThrough's arrival at the far port), as two
// events of the same time fire in the order they were scheduled.
func sortTies(recs []string) {
	at := func(r string) string { return r[:strings.IndexByte(r, ' ')+1] }
	for i := 0; i < len(recs); {
		j := i + 1
		for j < len(recs) && at(recs[j]) == at(recs[i]) && at(recs[i]) != "counters " {
			j++
		}
		sort.Strings(recs[i:j])
		i = j
	}
}

// perHopBacklog is backlog of lane li as the per-hop path has it. backlog counts the
// transmission of a chunk cutThrough sent on through an idle output from when it was sent,
// before its head reaches the switch; the per-hop path from when its head arrives. This puts
// the output's free time back to what it was before such chunks (the chunks cutThrough
// queued or sent ahead of their arrival backlog leaves out itself): the free time backlog
// used is the lane's, or that before its first chunk sent ahead that has not started.
func perHopBacklog(f *Fabric, li int32) sim.Time {
	ln := &f.lanes[li]
	b := f.backlog(ln)
	now := f.k.Now()
	used, first := ln.freeAt, uint64(1<<64-1)
	if live := f.aheadLive(li); len(live) > 0 {
		used, first = live[0].freeBefore, live[0].seq
	}
	free := used
	for i := len(f.fast) - 1; i >= 0; i-- {
		if r := &f.fast[i]; r.at >= now && !r.queued && r.out == li && r.seq < first {
			free = r.freeBefore
		}
	}
	var busy sim.Time
	if ln.busy && ln.busyTo > now {
		busy = ln.busyTo - now
	}
	return b - max(busy, used-now) + max(busy, free-now)
}

type equivSink struct {
	k   *sim.Kernel
	out *[]string
	wcs *[]twc
}

func (s *equivSink) CompletionEvent(cq *CQ) {
	var buf [8]WC
	for {
		n := cq.Poll(buf[:])
		for _, wc := range buf[:n] {
			*s.out = append(*s.out, fmt.Sprintf("%d %+v", s.k.Now(), wc))
			*s.wcs = append(*s.wcs, twc{s.k.Now(), wc})
		}
		if n == 0 && !cq.ReqNotify() {
			return
		}
	}
}

func equivRun(t *testing.T, seed uint64, topo string, faults bool, gran Granularity) ([]string, uint64, []twc) {
	k := sim.New(seed)
	f := New(k, Config{ChunkPackets: 1 + int(seed%5)*4, BufferChunks: 1 + int(seed%3), Granularity: gran, CoarsePackets: 16 << (seed % 3), Arbitration: equivArb})
	// Links of distinct odd rates (and, in the skewed star, lengths), so that two
	// modelled steps rarely fall on the same nanosecond: the saving paths schedule fewer
	// events, so simultaneous events may be taken in another (equally valid) order.
	nl := 0
	spec := func(lat sim.Time) LinkSpec {
		nl++
		return LinkSpec{Rate: RateGbps(97.3 + 3.1*float64(nl) + float64(seed)/7), Latency: lat, MTU: 2048}
	}
	var nodes []*Node
	switch topo {
	case "fat": // two leaves, two spines
		var leaves []*Switch
		for i := 0; i < 2; i++ {
			leaves = append(leaves, f.AddSwitch(fmt.Sprint("leaf", i)))
		}
		for i := 0; i < 2; i++ {
			sp := f.AddSwitch(fmt.Sprint("spine", i))
			for _, l := range leaves {
				f.Connect(l, sp, spec(301))
			}
		}
		for i := 0; i < 6; i++ {
			n := f.AddNode(fmt.Sprint("n", i))
			f.Connect(n.AddHCA("mlx5_0", 1).Port(1), leaves[i%2], spec(101))
			nodes = append(nodes, n)
		}
	case "switch":
		sw := f.AddSwitch("sw")
		for i := 0; i < 4; i++ {
			n := f.AddNode(fmt.Sprint("n", i))
			f.Connect(n.AddHCA("mlx5_0", 1).Port(1), sw, spec(101))
			nodes = append(nodes, n)
		}
	case "incast", "incast-fat": // five senders into one port (see the QPs below)
		var sws []*Switch
		for i := 0; i < 2; i++ {
			sws = append(sws, f.AddSwitch(fmt.Sprint("sw", i)))
		}
		if topo == "incast-fat" {
			f.Connect(sws[0], sws[1], spec(301))
		}
		for i := 0; i < 6; i++ {
			n := f.AddNode(fmt.Sprint("n", i))
			sw := sws[0]
			if topo == "incast-fat" && i >= 4 {
				sw = sws[1]
			}
			f.Connect(n.AddHCA("mlx5_0", 1).Port(1), sw, spec(101))
			nodes = append(nodes, n)
		}
	default: // links of different lengths into one switch
		sw := f.AddSwitch("sw")
		for i := 0; i < 4; i++ {
			n := f.AddNode(fmt.Sprint("n", i))
			f.Connect(n.AddHCA("mlx5_0", 1).Port(1), sw, spec(sim.Time(101+i%2*40)))
			nodes = append(nodes, n)
		}
	}
	var out []string
	var wcs []twc
	sink := &equivSink{k: k, out: &out, wcs: &wcs}
	cqs := map[*Node]*CQ{}
	mrs := map[*Node]*MR{}
	for _, n := range nodes {
		cq, _ := n.HCAs()[0].CreateCQ(1<<16, sink)
		cq.ReqNotify()
		cqs[n] = cq
		mrs[n], _ = n.HCAs()[0].RegMR(1<<24, AccessRemoteRead|AccessRemoteWrite)
	}
	rnd := k.Rand("test.equiv")
	type pair struct{ a, b *QP }
	var qps []pair
	for i := 0; i < 8; i++ {
		a := nodes[0] // one sender, so no two senders start at the same nanosecond
		b := nodes[1+rnd.IntN(len(nodes)-1)]
		if strings.HasPrefix(topo, "incast") { // many senders, one receiver
			a, b = b, a
		}
		mk := func(n *Node) *QP {
			qp, err := n.HCAs()[0].CreateQP(QPInitAttr{SendCQ: cqs[n], RecvCQ: cqs[n], MaxSendWR: 4096, MaxRecvWR: 4096})
			must(t, err)
			return qp
		}
		x, y := mk(a), mk(b)
		for _, p := range [][2]*QP{{x, y}, {y, x}} {
			must(t, p[0].Modify(QPInit, QPAttr{Port: 1}))
			must(t, p[0].Modify(QPRTR, QPAttr{DestQPN: p[1].Num(), DestLID: p[1].HCA().Port(1).LID(), MinRNRTimer: 1}))
			must(t, p[0].Modify(QPRTS, QPAttr{Timeout: 8, RetryCnt: uint8(rnd.IntN(8)), RNRRetry: 6}))
		}
		qps = append(qps, pair{x, y})
	}
	var id uint64
	for i := 0; i < 600; i++ {
		at := sim.Time(rnd.Int64N(int64(10 * sim.Millisecond)))
		q := qps[rnd.IntN(len(qps))]
		op := Opcode(rnd.IntN(2))
		n := rnd.IntN(200000)
		if rnd.IntN(2) == 0 {
			n = rnd.IntN(300)
		}
		k.ScheduleFunc(at, func() {
			id++
			if op == OpSend || rnd.IntN(4) == 0 {
				q.b.PostRecv(RecvWR{ID: id, Len: 1 << 20})
			}
			q.a.PostSend(SendWR{ID: id, Op: op, Len: n, Signaled: true, RKey: mrs[q.b.HCA().Node()].RKey})
		})
	}
	for i := 0; faults && i < 10; i++ {
		l := f.Links()[rnd.IntN(len(f.Links()))]
		at := sim.Time(rnd.Int64N(int64(10 * sim.Millisecond)))
		d := sim.Time(rnd.Int64N(int64(2 * sim.Millisecond)))
		switch rnd.IntN(6) {
		case 0:
			k.ScheduleFunc(at, l.LinkDown)
			k.ScheduleFunc(at+d, l.LinkUp)
		case 1:
			k.ScheduleFunc(at, func() { l.SetLoss(0.01); l.SetCorruption(0.005) })
			k.ScheduleFunc(at+d, func() { l.SetLoss(0); l.SetCorruption(0) })
		case 2:
			x := sim.Time(rnd.Int64N(int64(20 * sim.Microsecond)))
			k.ScheduleFunc(at, func() { l.SetExtraDelay(x) })
			k.ScheduleFunc(at+d, func() { l.SetExtraDelay(0) })
		case 3:
			h := nodes[rnd.IntN(len(nodes))].HCAs()[0]
			k.ScheduleFunc(at, h.HCAFatal)
			k.ScheduleFunc(at+d, h.Recover)
		case 4:
			k.ScheduleFunc(at, l.LinkDown)
			k.ScheduleFunc(at+d/10, f.Resweep)
			k.ScheduleFunc(at+d, l.LinkUp)
			k.ScheduleFunc(at+d+d/10, f.Resweep)
		case 5:
			k.ScheduleFunc(at, func() {
				for _, l := range f.Links() {
					out = append(out, fmt.Sprintf("%d counters %+v %+v", k.Now(), l.Counters(0), l.Counters(1)))
				}
				f.ResetCounters()
			})
		}
	}
	brnd := k.Rand("test.equiv.backlog")
	for i := 0; strings.HasPrefix(topo, "incast") && i < 1000; i++ { // what a MAD joining each lane would wait for
		k.ScheduleFunc(sim.Time(brnd.Int64N(int64(10*sim.Millisecond))), func() {
			for li := range f.lanes {
				if b := perHopBacklog(f, int32(li)); b > 0 {
					out = append(out, fmt.Sprintf("%d backlog %d %d", k.Now(), li, b))
				}
			}
		})
	}
	lastEquivFabric = f
	k.SetLimits(sim.Limits{MaxEvents: 20_000_000})
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	for _, l := range f.Links() {
		out = append(out, fmt.Sprintf("counters %+v %+v", l.Counters(0), l.Counters(1)))
	}
	if len(f.freeChunks) != len(f.chunks) {
		t.Fatalf("%d of %d chunks leaked", len(f.chunks)-len(f.freeChunks), len(f.chunks))
	}
	return out, k.Fired(), wcs
}

// TestUnlink removes chunks from the head, middle and tail of a queue (settle takes chunks
// queued ahead of their arrival out of a switch output's queue wherever they are), and
// puts them back with insertAfter.
func TestUnlink(t *testing.T) {
	f := New(sim.New(1), Config{})
	var q chunkQueue = emptyQueue
	var cs []int32
	for i := 0; i < 5; i++ {
		c := f.newChunk()
		f.push(&q, c)
		cs = append(cs, c)
	}
	list := func() []int32 {
		var l []int32
		for c := q.head; c >= 0; c = f.chunks[c].next {
			l = append(l, c)
		}
		return l
	}
	for _, c := range []int32{cs[0], cs[2], cs[4]} {
		f.unlink(&q, c)
	}
	if got := list(); fmt.Sprint(got) != fmt.Sprint([]int32{cs[1], cs[3]}) || q.tail != cs[3] {
		t.Fatalf("queue %v tail %d after unlinking head, middle and tail of %v", got, q.tail, cs)
	}
	f.unlink(&q, cs[1])
	f.unlink(&q, cs[3])
	if q != emptyQueue {
		t.Fatalf("queue %+v after unlinking everything", q)
	}
	// insertAfter puts chunks back at the head of an empty queue, at the tail and between.
	f.insertAfter(&q, -1, cs[2])
	f.insertAfter(&q, cs[2], cs[4])
	f.insertAfter(&q, -1, cs[0])
	f.insertAfter(&q, cs[2], cs[3])
	if got := list(); fmt.Sprint(got) != fmt.Sprint([]int32{cs[0], cs[2], cs[3], cs[4]}) || q.tail != cs[4] {
		t.Fatalf("queue %v tail %d after inserting", got, q.tail)
	}
}
