package ib

import (
	"fmt"

	"github.com/lnetsim/lnetsim/sim"
)

// Arbitration is how a switch output chooses the next chunk among those queued for it
// (Config.Arbitration).
type Arbitration uint8

// Arbitrations.
const (
	// ArbitrationFIFO serves a switch output's queue in arrival order; each input can have
	// at most its buffer's worth queued, so outputs are byte-fair between busy inputs, but a
	// lone small message waits behind everything the other inputs have queued.
	ArbitrationFIFO Arbitration = iota
	// ArbitrationRoundRobin serves the inputs of a switch output in turn, packet by packet
	// (see queueAtOutput), as a switch's output port arbitrates among its input ports: a small
	// message from an input waits for the chunk on the wire and about one packet per other
	// busy input, not for their buffers.
	ArbitrationRoundRobin
)

var arbitrationNames = [...]string{"fifo", "round-robin"}

// String returns the name the scenario schema uses.
func (a Arbitration) String() string {
	if int(a) < len(arbitrationNames) {
		return arbitrationNames[a]
	}
	return fmt.Sprintf("arbitration(%d)", uint8(a))
}

// ParseArbitration reads "fifo" or "round-robin".
func ParseArbitration(s string) (Arbitration, error) {
	for i, n := range arbitrationNames {
		if s == n {
			return Arbitration(i), nil
		}
	}
	return 0, fmt.Errorf("unknown switch arbitration %q (want fifo or round-robin)", s)
}

// rrState is what a switch output keeps for round-robin arbitration: the tag of the chunk
// it last took, when it took it, and the tag before that (what chunks joining at that same
// nanosecond are tagged from, whether they are handled before or after the choice).
type rrState struct {
	vt, vtBefore uint32
	at           sim.Time
	// The chunk on the wire of a last-hop output (see interleave): its input lane, when its
	// transmission started, one full packet's time, and the end of the last packet
	// interleaved into it.
	curIn       int32
	start, pkt  sim.Time
	interleaved sim.Time
	joinedAt    sim.Time // when a chunk last joined the queue
	_           [8]byte  // to a multiple of 64 bytes (TestLaneLayout)
}

// take records that the output took a chunk tagged tag at now.
func (r *rrState) take(tag uint32, now sim.Time) {
	if r.at != now {
		r.vtBefore, r.at = r.vt, now
	}
	r.vt = tag
}

// base is the tag a chunk joining now is tagged from.
func (r *rrState) base(now sim.Time) uint32 {
	if r.at == now {
		return r.vtBefore
	}
	return r.vt
}

// queueAtOutput queues chunk c, which arrived from input lane ch.inLane, on switch output li.
// Under ArbitrationRoundRobin the queue is kept in the order packet-by-packet round robin
// between the inputs would finish the chunks (self-clocked fair queueing in packets): a
// chunk's tag is its input's last queued tag, or the tag of the chunk the output last took
// if later, plus its packets, and it is queued behind every chunk with a tag no later than
// its own. An input's chunks keep their order; a one-packet chunk from an idle input goes
// ahead of every queued chunk of more than one packet. Chunk granularity remains: chunks
// are served whole, and only a one-packet chunk on a last hop goes into the chunk on the
// wire (interleave).
func (f *Fabric) queueAtOutput(li, c int32) {
	ln := &f.lanes[li]
	if f.cfg.Arbitration != ArbitrationRoundRobin {
		f.push(&ln.q, c)
		return
	}
	ch := &f.chunks[c]
	now := f.k.Now()
	ch.joined = f.rrJoins.join(now)
	ln.rr.joinedAt = now
	base := ln.rr.base(now)
	// The queue is in tag order and an input's chunks in it in their own order, so its last
	// queued chunk (rrLast) has its latest tag, and c goes after it.
	key := rrKey(li, ch.inLane)
	prev := int32(-1)
	if last, ok := f.rrLast[key]; ok {
		if prev = last; int32(f.chunks[last].tag-base) > 0 {
			base = f.chunks[last].tag
		}
	}
	ch.tag = base + uint32(ch.npkt)
	x := ln.q.head
	if prev >= 0 {
		x = f.chunks[prev].next
	}
	for ; x >= 0 && int32(f.chunks[x].tag-ch.tag) <= 0; x = f.chunks[x].next {
		prev = x
	}
	f.insertAfter(&ln.q, prev, c)
	f.rrLast[key] = c
}

// rrKey names the pair (switch output out, input lane in) in Fabric.rrLast.
func rrKey(out, in int32) uint64 { return uint64(uint32(out))<<32 | uint64(uint32(in)) }

// rrLeave keeps Fabric.rrLast right as chunk c, from input lane in, leaves switch output
// out's queue under round robin. The output takes an input's chunks in their queue order,
// so when it takes the input's last queued chunk none is left; interleaveJoined, which
// takes out a chunk that joined just now, passes rescan to find the input's chunk before it.
func (f *Fabric) rrLeave(out, in, c int32, rescan bool) {
	key := rrKey(out, in)
	if last, ok := f.rrLast[key]; !ok || last != c {
		return
	}
	delete(f.rrLast, key)
	if !rescan {
		return
	}
	for x := f.lanes[out].q.head; x >= 0; x = f.chunks[x].next {
		if x != c && f.chunks[x].inLane == in {
			f.rrLast[key] = x
		}
	}
}

// nextAtOutput is the chunk switch output ln sends next: the head of its queue, except that
// under round robin a chunk that joined the queue at this very nanosecond waits for the
// next choice while an older one is queued, and among chunks that all joined now the first
// to join goes: the choice then does not depend on whether the arrivals or the end of the
// previous transmission are handled first (with fewer events, the two are scheduled in
// another order; an output that is free when a chunk arrives sends it at once).
func (f *Fabric) nextAtOutput(ln *lane) int32 {
	c := ln.q.head
	if f.cfg.Arbitration != ArbitrationRoundRobin || c < 0 {
		return c
	}
	j := &f.rrJoins
	first := c
	for x := c; x >= 0; x = f.chunks[x].next {
		xc := &f.chunks[x]
		if !j.now(xc.joined, f.k.Now()) {
			return x
		}
		if int32(xc.joined-f.chunks[first].joined) < 0 {
			first = x
		}
	}
	return first
}

// interleave sends one-packet chunk c, which just arrived for last-hop switch output li,
// between two packets of the chunk on the wire when packet-by-packet round robin would send
// it next (it would head the queue, and comes from another input than the chunk on the
// wire): from the end of the packet being sent (or of the packet interleaved before it),
// for its serialisation, while the lane's next transmission moves back by as much. The
// chunk on the wire keeps its timing (its tail arrives up to that serialisation early: the
// bound of this approximation), so nothing already scheduled moves. It reports whether it
// sent c; only under round-robin arbitration, on a lossless lane whose input links have a
// delay (the credit return is recorded as the switch-output path records it).
func (f *Fabric) interleave(li, c int32) bool {
	ln := &f.lanes[li]
	ch := &f.chunks[c]
	if f.cfg.Arbitration != ArbitrationRoundRobin || ch.npkt != 1 || ln.to.kind != epPort || ln.lossy || !ln.up {
		return false
	}
	now := f.k.Now()
	end := ln.freeAt
	if ln.busy && ln.busyTo > end {
		end = ln.busyTo
	}
	r := &ln.rr
	if end <= now || r.start > now || r.curIn == ch.inLane || r.pkt <= 0 {
		return false
	}
	in := ch.inLane
	if in < 0 || f.lanes[in].epoch != ch.inEpoch || f.lanes[in].delay <= 0 {
		return false
	}
	tag := r.base(now) + 1
	if h := ln.q.head; h >= 0 && int32(f.chunks[h].tag-tag) <= 0 {
		return false // another chunk goes first (the head has the earliest tag)
	}
	if _, ok := f.rrLast[rrKey(li, in)]; ok {
		return false // its input has chunks queued
	}
	b := r.start + (now-r.start+r.pkt-1)/r.pkt*r.pkt // the end of the packet on the wire
	b = max(b, r.interleaved)
	fin := max(b+ln.ser(ch.wire), ch.tail)
	r.interleaved = fin
	r.take(tag, now)
	ln.freeAt = end + (fin - b)
	if ln.freeing {
		f.k.Cancel(ln.freeEv)
		ln.freeEv = f.k.Schedule(ln.freeAt, f.hid, evLaneFree, uint64(li))
	}
	ln.tx.data += uint64(ch.wire) / 4
	ln.tx.pkts += uint64(ch.npkt)
	ch.lane, ch.epoch = li, ln.epoch
	il := &f.lanes[in]
	f.addRet(in, creditRet{fin + il.delay, fin, int64(ch.wire)})
	ch.tail = fin + ln.delay
	f.k.Schedule(ch.tail, f.hid, evArrive, uint64(c))
	return true
}

// interleaveJoined interleaves, into the chunk output li has just started, the one-packet
// chunks that joined its queue at this nanosecond, as interleave would have had they
// arrived just after the choice (which of the two is handled first must not matter).
func (f *Fabric) interleaveJoined(li int32) {
	ln := &f.lanes[li]
	now := f.k.Now()
	if ln.rr.joinedAt != now {
		return // no chunk joined the queue at this nanosecond
	}
	cand := f.rrJoins.scratch[:0]
	for x := ln.q.head; x >= 0; x = f.chunks[x].next {
		if xc := &f.chunks[x]; xc.npkt == 1 && f.rrJoins.now(xc.joined, now) {
			cand = append(cand, x)
		}
	}
	for _, x := range cand { // each once, in queue order
		f.unlink(&ln.q, x)
		f.rrLeave(li, f.chunks[x].inLane, x, true)
		if !f.interleave(li, x) {
			f.queueAtOutput(li, x)
		}
	}
	f.rrJoins.scratch = cand
}

// rrJoins numbers the chunks that join switch output queues under round robin, so that
// the chunks that joined at the current nanosecond can be told apart (and in their order)
// without a time in every chunk.
type rrJoins struct {
	count   uint32   // joins so far (wrapping: compared as differences)
	first   uint32   // the number of the first join at nanosecond at
	at      sim.Time // the nanosecond of the latest join
	scratch []int32  // interleaveJoined's list
}

// join numbers a chunk joining a queue at now.
func (j *rrJoins) join(now sim.Time) uint32 {
	j.count++
	if j.at != now { // the first join of a new nanosecond
		j.first, j.at = j.count, now
	}
	return j.count
}

// now reports whether the chunk numbered n joined at nanosecond now.
func (j *rrJoins) now(n uint32, now sim.Time) bool {
	return j.at == now && int32(n-j.first) >= 0
}
