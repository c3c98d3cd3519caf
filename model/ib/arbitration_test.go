package ib

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// Round-robin arbitration orders a switch output's queue as packet-by-packet round robin
// between its inputs would finish the chunks: a bulk input's four 16-packet chunks, then a
// one-packet chunk from a second input (served first), a 16-packet chunk from a third
// (after the bulk input's first: equal rounds keep arrival order); after two chunks are
// taken, another one-packet chunk from the second input goes behind the round in service.
// FIFO keeps arrival order.
func TestQueueAtOutputRoundRobin(t *testing.T) {
	for _, tc := range []struct {
		arb  Arbitration
		want string
	}{
		{ArbitrationRoundRobin, "B1 A1 C1 B2 A2 A3 A4"},
		{ArbitrationFIFO, "A1 A2 A3 A4 B1 C1 B2"},
	} {
		f := &Fabric{k: sim.New(1), cfg: Config{Arbitration: tc.arb}, lanes: make([]lane, 1), rrLast: map[uint64]int32{}}
		f.lanes[0].q = emptyQueue
		name := map[int32]string{}
		add := func(n string, in int32, npkt uint16) {
			c := f.newChunk()
			f.chunks[c].inLane, f.chunks[c].npkt = in, npkt
			name[c] = n
			f.queueAtOutput(0, c)
		}
		var order []string
		take := func() {
			c := f.pop(&f.lanes[0].q)
			if tc.arb == ArbitrationRoundRobin { // as tryStart takes a chunk
				f.rrLeave(0, f.chunks[c].inLane, c, false)
				f.lanes[0].rr.take(f.chunks[c].tag, f.k.Now())
			}
			order = append(order, name[c])
		}
		k := f.k
		k.ScheduleFunc(1, func() {
			for i := 1; i <= 4; i++ {
				add(fmt.Sprint("A", i), 1, 16)
			}
			add("B1", 2, 1)
			add("C1", 3, 16)
		})
		k.ScheduleFunc(2, take)
		k.ScheduleFunc(3, take)
		k.ScheduleFunc(4, func() { add("B2", 2, 1) })
		k.ScheduleFunc(5, func() {
			for f.lanes[0].q.head >= 0 {
				take()
			}
		})
		if err := k.Run(); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(order, " "); got != tc.want {
			t.Errorf("%v: served %s, want %s", tc.arb, got, tc.want)
		}
	}
}

// TestArbitrationAccuracy measures TestGranularityAccuracy's contended cases against packet
// level under round-robin arbitration (a switch's per-packet arbitration between its
// inputs, the closest the model comes to hardware): packet level with FIFO outputs,
// 16-packet chunks with FIFO outputs (the default) and with round robin. Worst completion
// error over the flows, in ns and in percent of the flow's reference duration; pinned.
func TestArbitrationAccuracy(t *testing.T) {
	rr := ArbitrationRoundRobin
	var got strings.Builder
	for _, c := range granContended {
		ref := granRun(t, Config{ChunkPackets: 1, Arbitration: rr}, c.nsw, c.hosts, c.flows)
		for _, v := range []struct {
			name string
			cfg  Config
		}{{"pkt-fifo", Config{ChunkPackets: 1}}, {"fixed16", Config{}}, {"fixed16rr", Config{Arbitration: rr}}} {
			run := granRun(t, v.cfg, c.nsw, c.hosts, c.flows)
			var ns sim.Time
			var pct float64
			for i := range c.flows {
				d := run.done[i] - ref.done[i]
				if d < 0 {
					d = -d
				}
				ns = max(ns, d)
				pct = max(pct, 100*float64(d)/float64(ref.done[i]-c.flows[i].start))
			}
			fmt.Fprintf(&got, "%-16s %-9s events %5d (reference %5d) completion error %7d ns %7.2f%%\n", c.name, v.name, run.events, ref.events, ns, pct)
		}
	}
	if got.String() != arbitrationAccuracy {
		t.Errorf("accuracy table changed; got:\n%s\nwant:\n%s", got.String(), arbitrationAccuracy)
	}
}

const arbitrationAccuracy = `2-into-1         pkt-fifo  events  8029 (reference 16218) completion error       0 ns    0.00%
2-into-1         fixed16   events   589 (reference 16218) completion error    4946 ns    0.37%
2-into-1         fixed16rr events  1099 (reference 16218) completion error    4946 ns    0.37%
8-into-1         pkt-fifo  events 16000 (reference 32399) completion error       0 ns    0.00%
8-into-1         fixed16   events  1189 (reference 32399) completion error   34625 ns    1.28%
8-into-1         fixed16rr events  2235 (reference 32399) completion error   34625 ns    1.28%
small-vs-bulk    pkt-fifo  events  5372 (reference 14059) completion error 1190857 ns  451.50%
small-vs-bulk    fixed16   events  1536 (reference 14059) completion error 1193677 ns  452.57%
small-vs-bulk    fixed16rr events  2216 (reference 14059) completion error   65645 ns   24.89%
mid-transfer     pkt-fifo  events  1624 (reference  3575) completion error       0 ns    0.00%
mid-transfer     fixed16   events   124 (reference  3575) completion error    4946 ns    2.92%
mid-transfer     fixed16rr events   246 (reference  3575) completion error    4946 ns    2.92%
mid-transfer-3sw pkt-fifo  events  8034 (reference  8034) completion error       0 ns    0.00%
mid-transfer-3sw fixed16   events   534 (reference  8034) completion error    4946 ns    2.91%
mid-transfer-3sw fixed16rr events   534 (reference  8034) completion error    4946 ns    2.91%
same-port        pkt-fifo  events  1478 (reference  1696) completion error       0 ns    0.00%
same-port        fixed16   events   198 (reference  1696) completion error    8574 ns    3.94%
same-port        fixed16rr events   212 (reference  1696) completion error    8574 ns    3.94%
`
