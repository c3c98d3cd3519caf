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
	_            [48]byte // to a multiple of 64 bytes (TestLaneLayout)
}

// take records that the output took chunk c now.
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
// ahead of every queued chunk of more than one packet. Chunk granularity remains: the
// chunk on the wire is not interrupted, and chunks of one tag range are served whole.
func (f *Fabric) queueAtOutput(li, c int32) {
	ln := &f.lanes[li]
	if f.cfg.Arbitration != ArbitrationRoundRobin {
		f.push(&ln.q, c)
		return
	}
	ch := &f.chunks[c]
	now := f.k.Now()
	ch.queuedAt = now
	f.joins++
	ch.joined = f.joins
	base := ln.rr.base(now)
	for x := ln.q.head; x >= 0; x = f.chunks[x].next {
		if xc := &f.chunks[x]; xc.inLane == ch.inLane && int32(xc.tag-base) > 0 {
			base = xc.tag
		}
	}
	ch.tag = base + uint32(ch.npkt)
	prev := int32(-1)
	for x := ln.q.head; x >= 0 && int32(f.chunks[x].tag-ch.tag) <= 0; x = f.chunks[x].next {
		prev = x
	}
	if prev < 0 {
		ch.next, ln.q.head = ln.q.head, c
		if ln.q.tail < 0 {
			ln.q.tail = c
		}
		return
	}
	ch.next = f.chunks[prev].next
	f.chunks[prev].next = c
	if ln.q.tail == prev {
		ln.q.tail = c
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
	now := f.k.Now()
	first := c
	for x := c; x >= 0; x = f.chunks[x].next {
		xc := &f.chunks[x]
		if xc.queuedAt < now {
			return x
		}
		if xc.joined < f.chunks[first].joined {
			first = x
		}
	}
	return first
}
