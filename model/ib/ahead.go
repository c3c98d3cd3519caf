package ib

import (
	"slices"
	"sort"

	"github.com/lnetsim/lnetsim/sim"
)

// Sending ahead at a FIFO switch output.
//
// A switch output towards an HCA port serves its queue first in, first out, and nothing
// downstream can hold it up (no credits): once a chunk has joined the queue, the time it
// will start is already known, the end of the transmission before it. Only a change to the
// fabric (a fault, a route sweep, a counter reset: everything that settles) can alter that.
// So instead of queueing the chunk and waking the output with an evLaneFree when the chunk
// ahead of it ends, the chunk is sent at once for that later start (sendAhead): its
// serialisation, its far-port arrival (an event or a quiet arrival), its counters and the
// credit return to its input buffer are all as the evLaneFree would have made them. What
// observes the output in the meantime sees what the queue would have shown: Link.Counters
// leaves a chunk out until it starts, backlog counts it as queued (aheadBacklog), and
// takeBack (settle, ResetCounters, a route sweep) puts every chunk that has not started
// back into the queue, or back on its way to the switch if its head has not reached it, in
// its original order, with the output's wake-up at the end of the transmission before it.
//
// The difference from queueing is the order of events of the same nanosecond: a chunk's
// far-port arrival is scheduled when it joins, not when the output frees, so it can fire
// before an event scheduled in between for the same nanosecond. Either order is a valid
// run of the model (ARCHITECTURE.md, "Granularity").
//
// A chunk goes ahead only when the output is in this mode (up, without loss or corruption,
// nothing queued, no evLaneFree or evTxDone pending, fixed granularity, FIFO arbitration)
// and the chunk's input-buffer credit goes back over a link with a delay (the freeAt path
// of send). cutThrough sends a chunk ahead before its head reaches the switch when no chunk
// can reach the output before it (the conditions of queueing ahead).

// aheadRec is a chunk sent ahead on a switch output, with what takeBack needs to undo it.
type aheadRec struct {
	sentRec
	viaCut bool     // sent by cutThrough before its head reached the switch (its input counted it then)
	start  sim.Time // when the output starts sending it
}

// aheadList is a switch output's chunks sent ahead, in sending order (so in order of
// start); those that have started are forgotten when the list is full.
type aheadList struct {
	recs []aheadRec
}

// aheadOn reports whether the fabric sends ahead at all: FIFO outputs and fixed
// granularity, and not turned off for a test.
func (f *Fabric) aheadOn() bool {
	return !perHopEvents && !noAhead && f.cfg.Arbitration == ArbitrationFIFO && f.cfg.Granularity == GranularityFixed
}

// noAhead turns sending ahead off: tests compare runs with and without it.
var noAhead bool

// canSendAhead reports whether chunk ch, reaching switch output ol at time at from input
// lane il, can be sent ahead: ol would queue it (it is busy past at) and is in the mode
// above.
func (f *Fabric) canSendAhead(ol, il *lane, ch *chunk, at sim.Time) bool {
	return ol.freeAt > at && ol.to.kind == epPort && ol.up && !ol.busy && !ol.freeing && ol.q.head < 0 && !ol.lossy &&
		ch.span <= 1 && il.delay > 0 && il.epoch == ch.inEpoch && f.aheadOn()
}

// sendAhead sends chunk c, whose head reaches switch output li at time at from input lane
// in, when the output frees, and records it (see the top of this file). The caller has set
// the chunk's input lane.
func (f *Fabric) sendAhead(li, c int32, at sim.Time, viaCut bool) {
	ol := &f.lanes[li]
	f.sendSeq++
	r := aheadRec{sentRec: sentRec{c: c, seq: f.sendSeq, at: at, tailIn: f.chunks[c].tail, freeBefore: ol.freeAt, remBefore: ol.rem}, viaCut: viaCut}
	r.start = max(at, ol.freeAt)
	f.send(li, c, r.start)
	r.given, r.ev = ol.freeAt, f.arriveEv
	if int(li) >= len(f.ahead) {
		f.ahead = append(f.ahead, make([]aheadList, len(f.lanes)-len(f.ahead))...)
	}
	al := &f.ahead[li]
	if n := len(al.recs); n == cap(al.recs) && n > 0 {
		// Full: forget the records of chunks that have started (starts increase along the
		// list) before growing it, rather than reading old records at every send.
		now := f.k.Now()
		i := sort.Search(n, func(i int) bool { return al.recs[i].start >= now })
		al.recs = al.recs[:copy(al.recs, al.recs[i:])]
	}
	if !ol.aheadListed {
		ol.aheadListed = true
		f.aheadLanes = append(f.aheadLanes, li)
	}
	al.recs = append(al.recs, r)
}

// aheadLive returns lane li's chunks sent ahead that have not started by now (start at or
// after now), oldest first.
func (f *Fabric) aheadLive(li int32) []aheadRec {
	if int(li) >= len(f.ahead) {
		return nil
	}
	al := &f.ahead[li]
	now := f.k.Now()
	i := len(al.recs)
	for i > 0 && al.recs[i-1].start >= now {
		i--
	}
	return al.recs[i:]
}

// laneIndex returns ln's index in f.lanes: a link's two lanes sit at 2*link and 2*link+1.
func (f *Fabric) laneIndex(ln *lane) int32 {
	li := 2 * ln.link
	if &f.lanes[li] != ln {
		li++
	}
	return li
}

// aheadBacklogOf is aheadBacklog for lane ln.
func (f *Fabric) aheadBacklogOf(ln *lane) (free sim.Time, bytes int64, ok bool) {
	if !ln.aheadListed {
		return 0, 0, false
	}
	return f.aheadBacklog(f.laneIndex(ln))
}

// aheadBacklog returns, for switch output li, the end of the transmission on the
// wire now and the wire bytes queued behind it that have reached the switch, as the queue
// would show them, if chunks were sent ahead on it; ok is false when none is waiting.
func (f *Fabric) aheadBacklog(li int32) (free sim.Time, bytes int64, ok bool) {
	live := f.aheadLive(li)
	if len(live) == 0 {
		return 0, 0, false
	}
	now := f.k.Now()
	for i := range live {
		if live[i].at < now {
			bytes += int64(f.chunks[live[i].c].wire)
		}
	}
	return live[0].freeBefore, bytes, true
}

// aheadCounters takes out of counters c of link end li what chunks sent ahead have counted
// before they count: an output's transmission before it starts, and a switch input's
// reception of a chunk cutThrough sent ahead before its head arrives.
func (f *Fabric) aheadCounters(li int32, c *PortCounters) {
	now := f.k.Now()
	for _, ol := range f.aheadLanes {
		for _, r := range f.aheadLive(ol) {
			ch := &f.chunks[r.c]
			if ol == li {
				c.PortXmitData -= uint64(ch.wire) / 4
				c.PortXmitPkts -= uint64(ch.npkt)
			}
			if r.viaCut && r.at >= now && ch.inLane^1 == li {
				c.PortRcvData -= uint64(ch.wire) / 4
				c.PortRcvPkts -= uint64(ch.npkt)
			}
		}
	}
}

// aheadConverted records that quietConvert scheduled event ev for chunk c, listed quiet on
// lane ln: taking c back must cancel it.
func (f *Fabric) aheadConverted(ln *lane, c int32, ev sim.EventID) {
	if !ln.aheadListed {
		return
	}
	al := &f.ahead[f.laneIndex(ln)]
	for i := range al.recs {
		if r := &al.recs[i]; r.c == c && r.ev == (sim.EventID{}) {
			r.ev = ev
		}
	}
}

// undoItem is one send takeBack undoes: a cutThrough record (fast) or a chunk sent ahead on
// lane li (ahead).
type undoItem struct {
	seq  uint64
	fast int // index in the taken-back fast records, or -1
	li   int32
	rec  aheadRec
}

// aheadTakeBack collects every chunk sent ahead that has not started by now, forgetting
// the rest: takeBack undoes them with its cutThrough records, newest first.
func (f *Fabric) aheadTakeBack(items []undoItem) []undoItem {
	n := 0
	for _, li := range f.aheadLanes {
		for _, r := range f.aheadLive(li) {
			items = append(items, undoItem{seq: r.seq, fast: -1, li: li, rec: r})
		}
		f.ahead[li] = aheadList{recs: f.ahead[li].recs[:0]}
		f.lanes[li].aheadListed = false
		n++
	}
	f.aheadLanes = f.aheadLanes[:0]
	return items
}

// unsendAhead undoes the transmission of chunk sent ahead r on switch output li (newest
// first; unsend), and the reception its input counted early if cutThrough sent it before
// its head reached the switch. The chunk is left as it was on its input lane.
func (f *Fabric) unsendAhead(li int32, r *aheadRec) {
	ch := &f.chunks[r.c]
	f.unsend(li, ch.inLane, &r.sentRec, r.start)
	if r.viaCut && r.at >= f.k.Now() { // not at the switch yet: its input has not counted it
		rcv := &f.lanes[ch.inLane].rx
		rcv.data -= uint64(ch.wire) / 4
		rcv.pkts -= uint64(ch.npkt)
	}
}

// requeueAhead puts the chunks of items (undone sends ahead whose head had reached the
// switch, in sending order) back at the front of their outputs' queues, and wakes each
// output when the transmission before them ends.
func (f *Fabric) requeueAhead(items []undoItem) {
	slices.SortStableFunc(items, func(a, b undoItem) int {
		if a.li != b.li {
			return int(a.li - b.li)
		}
		return 0
	})
	for i := 0; i < len(items); {
		li := items[i].li
		ol := &f.lanes[li]
		prev := int32(-1)
		for ; i < len(items) && items[i].li == li; i++ {
			f.insertAfter(&ol.q, prev, items[i].rec.c)
			prev = items[i].rec.c
		}
		if ol.freeing {
			f.k.Cancel(ol.freeEv)
		}
		ol.freeing = true
		ol.freeEv = f.k.Schedule(max(ol.freeAt, f.k.Now()), f.hid, evLaneFree, uint64(li))
	}
}
