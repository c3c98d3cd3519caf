package ib

import "github.com/lnetsim/lnetsim/sim"

// Quiet arrivals: the middle chunks of a message reaching an HCA port without an event.
//
// A data chunk that is neither the first nor the last of its message does nothing at the
// responder but count its bytes on the port and move the QP's expected chunk on by one
// (rxData), provided it arrives in order at a QP that is ready for it. Nothing else reads
// those two things until the next chunk for that QP arrives, a counter is read, or the
// QP's or port's state changes. So send does not schedule such a chunk's arrival: it
// appends the chunk to its lane's quiet list, with the ordinal its arrival event would have
// had (sim.Kernel.NextOrdinal), and the arrival is done, exactly as arrive would have done
// it, the first time anything could tell the difference (catchUp):
//   - a real arrival on the lane (arrive);
//   - a read or reset of counters (endCounters, Link.Counters, ResetCounters);
//   - a change of a QP's state on the port (Modify, toErr, reset, Destroy) and of the port's
//     liveness (syncPort).
//
// catchUp lands every listed chunk whose arrival event would have fired by now
// (sim.Kernel.Due: earlier, or at the same time and scheduled before the running event),
// in list order, which is arrival order: on a lane, chunks arrive in the order they were
// sent, and later ones later (the tail times increase while no extra delay changes).
//
// Landing late is exact only when the landing has no effect that carries a time: a
// middle chunk that arrives out of order sends a sequence NAK, and one reaching a QP in RTR
// raises COMM_EST. In a fabric where nothing has failed, a middle chunk always follows its
// message's previous chunk on the same path and finds its QP as the previous one left it,
// so neither happens, with two exceptions the model handles: a QP moving to RTR turns the
// chunks listed on its port into real events (quietConvert), and the first fault or
// topology change of a run (settle: link down or up, loss, corruption, extra delay, a route
// sweep, a new switch or link; syncPort: a port or HCA going down or up) lands what is due
// and turns every listed chunk into a real event, and ends quiet arrivals for the rest of
// the run (endQuiet). A chunk on a lane with loss or corruption is never quiet.
//
// Quiet arrivals change the number of events and hence the checksum, nothing else;
// TestEventSavingEquivalence and the scenario catalogue check that. A converted chunk's event
// is scheduled when it is converted, not when it was sent, so among events at the same
// nanosecond it may fire later than it would have; conversions happen only at the first
// fault of a run and when a QP moves to RTR.

// quietEligible reports whether chunk ch, about to be sent on lane ln towards an HCA port,
// may arrive quietly.
func (f *Fabric) quietEligible(ln *lane, ch *chunk) bool {
	return f.quiet && ch.kind == ckData && ch.span == 1 && ch.idx != 0 && ch.idx+1 < ch.n && !ln.lossy
}

// quietAdd lists chunk c on lane li in place of scheduling its arrival.
func (f *Fabric) quietAdd(li, c int32) {
	ln := &f.lanes[li]
	ch := &f.chunks[c]
	ch.next, ch.ord = -1, f.k.NextOrdinal()
	if ln.quietTail != 0 {
		f.chunks[ln.quietTail-1].next = c
	} else {
		ln.quietHead = c + 1
		if !ln.quietListed {
			ln.quietListed = true
			f.quietLanes = append(f.quietLanes, li)
		}
	}
	ln.quietTail = c + 1
}

// quietPop takes the first chunk off lane ln's quiet list, which must not be empty.
func (f *Fabric) quietPop(ln *lane) int32 {
	c := ln.quietHead - 1
	ch := &f.chunks[c]
	ln.quietHead = ch.next + 1
	if ln.quietHead == 0 {
		ln.quietTail = 0
	}
	ch.next = -1
	return c
}

// catchUp lands the chunks listed on lane ln whose arrival is due by now.
func (f *Fabric) catchUp(ln *lane) {
	for ln.quietHead != 0 {
		if ch := &f.chunks[ln.quietHead-1]; !f.k.Due(ch.tail, ch.ord) {
			return
		}
		f.land(ln, f.quietPop(ln))
	}
}

// catchUpAll lands every listed chunk whose arrival is due by now, lane by lane (chunks on
// different lanes touch different ports' counters and QPs), and forgets the lanes whose list
// is empty.
func (f *Fabric) catchUpAll() {
	n := 0
	for _, li := range f.quietLanes {
		ln := &f.lanes[li]
		f.catchUp(ln)
		if ln.quietHead != 0 {
			f.quietLanes[n] = li
			n++
		} else {
			ln.quietListed = false
		}
	}
	f.quietLanes = f.quietLanes[:n]
}

// quietConvert schedules the arrival of every chunk still listed on lane ln as an event,
// in list order; the caller has landed what was due.
func (f *Fabric) quietConvert(ln *lane) {
	for ln.quietHead != 0 {
		c := f.quietPop(ln)
		ev := f.k.Schedule(f.chunks[c].tail, f.hid, evArrive, uint64(c))
		f.aheadConverted(ln, c, ev)
		for i := range f.fast { // a cut-through chunk: settle now cancels the event
			if r := &f.fast[i]; r.c == c && r.ev == (sim.EventID{}) {
				r.ev = ev
			}
		}
	}
}

// endQuiet ends quiet arrivals for the rest of the run before a fault or topology change
// (see the top of this file): what is due lands, the rest become events. Before the first
// event (the cluster being built) nothing is listed and quiet arrivals stay on.
func (f *Fabric) endQuiet() {
	if !f.quiet || f.k.Fired() == 0 {
		return
	}
	f.quiet = false
	f.catchUpAll()
	for _, li := range f.quietLanes {
		ln := &f.lanes[li]
		f.quietConvert(ln)
		ln.quietListed = false
	}
	f.quietLanes = f.quietLanes[:0]
}

// quietQP lands what is due on qp's port before qp's state changes; a QP moving to RTR also
// turns the chunks still listed on its port into events (their arrival raises COMM_EST).
func (qp *QP) quietQP(toRTR bool) {
	f := qp.f
	if len(f.quietLanes) == 0 || qp.port == nil || qp.port.lane < 0 {
		return
	}
	ln := &f.lanes[qp.port.lane^1]
	f.catchUp(ln)
	if toRTR {
		f.quietConvert(ln)
	}
}

// quietRemoveLast takes chunk c, the last on lane ln's quiet list, off the list (settle
// taking back a cut-through chunk).
func (f *Fabric) quietRemoveLast(ln *lane, c int32) {
	if ln.quietHead-1 == c {
		ln.quietHead, ln.quietTail = 0, 0
		return
	}
	p := ln.quietHead - 1
	for f.chunks[p].next != c {
		p = f.chunks[p].next
	}
	f.chunks[p].next = -1
	ln.quietTail = p + 1
}
