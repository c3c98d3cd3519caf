package ib

import (
	"fmt"

	"github.com/lnetsim/lnetsim/sim"
)

// Granularity is how the fabric sizes the chunks it moves (Config.Granularity).
type Granularity uint8

// Granularities.
const (
	// GranularityFixed moves every message in chunks of Config.ChunkPackets packets.
	GranularityFixed Granularity = iota
	// GranularityAdaptive moves a message in coarse chunks of up to Config.CoarsePackets
	// packets where its path is uncontended when the HCA port takes the chunk, and in
	// chunks of ChunkPackets packets otherwise.
	GranularityAdaptive
)

var granularityNames = [...]string{"fixed", "adaptive"}

// String returns the name the scenario schema uses.
func (g Granularity) String() string {
	if int(g) < len(granularityNames) {
		return granularityNames[g]
	}
	return fmt.Sprintf("granularity(%d)", uint8(g))
}

// ParseGranularity reads "fixed" or "adaptive".
func ParseGranularity(s string) (Granularity, error) {
	for i, n := range granularityNames {
		if s == n {
			return Granularity(i), nil
		}
	}
	return 0, fmt.Errorf("unknown granularity %q (want fixed or adaptive)", s)
}

// need is the input-buffer credit a sender must have to start chunk c: all of its wire
// bytes, except that a coarse chunk starts with one fine chunk's worth (cut-through
// credit). The lane is charged the whole chunk when it starts (its credits may go below
// zero, so the next chunk waits until enough has come back) and the credit returns piece by
// piece as the chunk leaves the switch (coarseReturns), as its fine chunks' would: a coarse
// chunk larger than the buffer cannot stall for ever, and a flow that went coarse gets no
// more of a switch output than its buffer's worth ahead of the others.
func (f *Fabric) need(c int32) int64 {
	ch := &f.chunks[c]
	if w := int64(ch.wire); ch.span <= 1 || w <= f.fineMax() {
		return w
	}
	return f.fineMax()
}

// coarseReturns records (add) or takes back (!add) the input-buffer credit of coarse chunk
// c on lane in as it leaves the switch from start to finish, for its fine chunks from the
// one numbered from (0: all) on: one return per fine chunk, of its wire bytes, given when
// the chunk has sent that far (linearly between start and finish; the last at finish, when
// a single chunk's credit is given).
func (f *Fabric) coarseReturns(in, c int32, start, finish sim.Time, from uint32, add bool) {
	ch := &f.chunks[c]
	il := &f.lanes[in]
	w := int64(ch.wire)
	full := int64(ch.fine) + int64(f.cfg.ChunkPackets)*pktHeader
	extra := w - int64(ch.bytes) - int64(ch.npkt)*pktHeader
	for j := uint32(0); j < uint32(ch.span); j++ {
		prev, cum := extra+int64(j)*full, extra+int64(j+1)*full
		if j == 0 {
			prev = 0
		}
		given := start + sim.Time(int64(finish-start)*cum/w)
		if j+1 == uint32(ch.span) {
			cum, given = w, finish
		}
		if j < from {
			continue
		}
		if add {
			f.addRet(in, creditRet{given + il.delay, given, cum - prev})
		} else {
			f.dropRet(in, given, cum-prev)
		}
	}
}

// train is what a switch output towards an HCA port remembers of the coarse chunk it is
// sending, so that split can cut it. It is kept under adaptive granularity only: with fixed
// granularity nothing splits, and send leaves the train's cache lines alone.
type train struct {
	c                     int32 // the chunk, or -1
	epoch                 uint32
	txEv, arrEv           sim.EventID // its end of transmission (when hasTx) and its arrival
	start, finish, tailIn sim.Time    // its transmission, and its tail's arrival at the switch
	rem                   int64       // the lane's serialisation remainder before it
	credited, hasTx       bool        // coarseReturns recorded its credit; an evTxDone ends it (txEv)
}

// split is called when a chunk has just queued at switch output li. If the lane is sending
// a coarse chunk towards an HCA port, the chunk is cut at the end of the fine chunk it is
// sending now: the rest becomes a chunk of its own, queued behind the newcomer (ahead of its
// own flow's later chunks), as packet
// interleaving would let the newcomer in within a fine chunk (the port arbitration the
// model has at a switch output is FIFO by chunk). The part already sent keeps its credit
// returns; those of the rest are taken back and recorded again when it is sent. Only the
// last hop splits: on a lane towards another switch the chunk's head has already moved on.
func (f *Fabric) split(li int32) {
	ln := &f.lanes[li]
	tr := &ln.train
	now := f.k.Now()
	if tr.c < 0 || tr.epoch != ln.epoch || tr.start > now || now >= tr.finish {
		return
	}
	c := tr.c
	ch := &f.chunks[c]
	if ch.span <= 1 || ch.lane != li || ch.epoch != ln.epoch || ch.fine == 0 {
		return
	}
	cp := uint32(f.cfg.ChunkPackets)
	full := int64(ch.fine) + int64(cp)*pktHeader
	wOld := int64(ch.wire)
	extra := wOld - int64(ch.bytes) - int64(ch.npkt)*pktHeader
	sent := int64(now-tr.start) * ln.mbps / 8000 // bytes on the wire by now
	k := uint32(1)
	if s := sent - extra; s > 0 {
		k = uint32(s/full) + 1
	}
	if k >= uint32(ch.span) {
		return
	}
	w2 := extra + int64(k)*full
	// The cut chunk's end: its serialisation, and no earlier than its tail can arrive.
	rem := tr.rem
	bits := w2*8000 + rem
	fin := tr.start + sim.Time(bits/ln.mbps)
	if in := ch.inLane; in >= 0 {
		fin = max(fin, tr.tailIn-sim.Time((wOld-w2)*8000/f.lanes[in].mbps))
	}
	if fin <= now || fin >= tr.finish {
		return
	}
	if tr.credited {
		f.coarseReturns(ch.inLane, c, tr.start, tr.finish, k, false)
	}
	for i := range f.fast { // its head reaches the switch now: cutThrough's record is spent
		if f.fast[i].c == c && f.fast[i].at >= now {
			f.fast[i].at = now - 1
		}
	}
	delay := ch.tail - tr.finish
	r := f.newChunk() // may move f.chunks
	ch = &f.chunks[c]
	rest := &f.chunks[r]
	*rest = *ch
	rest.idx += k
	rest.span -= uint16(k)
	rest.bytes -= k * ch.fine
	rest.npkt -= uint16(k * cp)
	rest.wire -= uint32(w2)
	rest.tail, rest.next = tr.tailIn, -1
	ch.span, ch.bytes, ch.npkt, ch.wire = uint16(k), k*ch.fine, uint16(k*cp), uint32(w2)
	ln.tx.data = ln.tx.data - uint64(wOld)/4 + uint64(w2)/4
	ln.tx.pkts -= uint64(rest.npkt)
	ln.rem = bits % ln.mbps
	if tr.hasTx {
		f.k.Cancel(tr.txEv)
		ln.busyTo = fin
		tr.txEv = f.k.Schedule(fin, f.hid, evTxDone, uint64(li))
	} else {
		ln.freeAt = fin
		if ln.freeing {
			f.k.Cancel(ln.freeEv)
			ln.freeEv = f.k.Schedule(fin, f.hid, evLaneFree, uint64(li))
		}
	}
	f.k.Cancel(tr.arrEv)
	ch.tail = fin + delay
	tr.arrEv = f.k.Schedule(ch.tail, f.hid, evArrive, uint64(c))
	tr.finish = fin
	ln.last.end = fin
	f.queueRest(&ln.q, r)
}

// queueRest queues the rest r of a split chunk at the back of q, but ahead of any chunk of
// its own flow already queued there, so that a flow's chunks keep their order.
func (f *Fabric) queueRest(q *chunkQueue, r int32) {
	rc := &f.chunks[r]
	prev := int32(-1)
	for c := q.head; c >= 0; prev, c = c, f.chunks[c].next {
		if ch := &f.chunks[c]; ch.src == rc.src && ch.srcQP == rc.srcQP {
			f.insertAfter(q, prev, r)
			return
		}
	}
	f.push(q, r)
}

// coarseSpan decides, as port p's lane li takes qp's next chunk, how many fine chunks it
// covers: 1 (fixed granularity) unless the fabric is adaptive and nothing can compete with
// it at the moment it is taken: no control packet queued on the port, the QP alone in the
// port's round robin, the next work a data chunk (SEND, RDMA WRITE or READ response), and
// every lane of its route up, lossless, at least as fast as the first, with nothing queued
// and free by the time the chunk's head reaches it, none that carried two flows' chunks
// close together in the last coarseQuiet (laneFlow), and no chunk on its way to any switch of
// the route (so the decision rests only on what has reached the switches, and is the same
// whether or not cutThrough took a chunk's switch hop ahead of time). The span is then as many fine chunks as
// are left of the message, up to Config.CoarsePackets packets. This is the decision
// kiblnd has no part in and real hardware does not make (it always moves packets): it is
// the simulator's choice of event granularity, and a competitor that appears after it was
// made waits behind the coarse chunk (at most CoarsePackets packet times per hop instead of
// ChunkPackets; ARCHITECTURE.md states the bound).
func (f *Fabric) coarseSpan(p *Port, li int32, qp *QP) uint16 {
	if f.cfg.Granularity != GranularityAdaptive || f.cfg.CoarsePackets <= f.cfg.ChunkPackets ||
		p.ctrl.head >= 0 || p.ringHead != len(p.ring)-1 {
		return 1
	}
	var left uint32 // fine chunks left of the message
	if qp.respQueued && (qp.state == QPRTR || qp.state == QPRTS || qp.state == QPSQD) {
		r := &qp.resp[qp.respHead]
		left = r.n - qp.respNext
	} else {
		w := &qp.sq[qp.sqNext%uint32(len(qp.sq))]
		if w.wr.Op == OpRead {
			return 1
		}
		cb := qp.chunkBytes()
		n := (uint32(w.wr.Len) + cb - 1) / cb
		if n <= qp.curChunk {
			return 1
		}
		left = n - qp.curChunk
	}
	span := uint32(f.cfg.CoarsePackets / f.cfg.ChunkPackets)
	if left < span {
		span = left
	}
	if span <= 1 || !f.idlePath(li, int32(qp.attr.DestLID)-1) {
		return 1
	}
	return uint16(span)
}

// idlePath reports whether the route from lane li (an HCA port's lane) to port dst is free
// for a coarse chunk started now: see coarseSpan.
func (f *Fabric) idlePath(li, dst int32) bool {
	ln := &f.lanes[li]
	now := f.k.Now()
	if !ln.up || ln.loss > 0 || ln.corrupt > 0 || ln.last.contended(now) {
		return false
	}
	rate := ln.mbps
	at := now
	for ln.to.kind == epSwitch {
		s := f.switches[ln.to.idx]
		if s.slowIn > 0 || f.fastTo(ln.to.idx, now) {
			return false
		}
		at += ln.delay + s.Latency
		out := f.outLane(s, dst)
		if out < 0 {
			return false
		}
		ol := &f.lanes[out]
		if !ol.up || ol.loss > 0 || ol.corrupt > 0 || ol.mbps < rate || ol.q.head >= 0 || ol.staged >= 0 || ol.last.contended(now) ||
			(ol.busy && ol.busyTo > at) || ol.freeAt > at {
			return false
		}
		ln = ol
	}
	return true
}

// coarseQuiet is how long a lane counts as contended after it carried chunks of two flows
// close together (see laneFlow): adaptive granularity sends no coarse chunk over it until
// then, so a flow that competes in bursts (a closed loop of small messages beside a bulk
// transfer) keeps meeting fine chunks between its bursts.
const coarseQuiet = 100 * sim.Microsecond

// laneFlow is what a lane remembers of the flows it carries, for adaptive granularity: the
// flow (source port and QP) of its last chunk, when that chunk's transmission ends, and the
// last time a chunk of another flow followed within coarseQuiet of the previous one's end.
type laneFlow struct {
	src     int32 // -1: nothing sent yet
	qp      uint32
	end     sim.Time
	mixedAt sim.Time
	mixed   bool // mixedAt is set
}

// note records chunk ch's transmission on the lane from start to finish.
func (l *laneFlow) note(ch *chunk, start, finish sim.Time) {
	if l.src >= 0 && (l.src != ch.src || l.qp != ch.srcQP) && start-l.end < coarseQuiet {
		l.mixedAt, l.mixed = start, true
	}
	l.src, l.qp, l.end = ch.src, ch.srcQP, finish
}

// contended reports whether the lane carried two flows within coarseQuiet of now.
func (l *laneFlow) contended(now sim.Time) bool { return l.mixed && now-l.mixedAt < coarseQuiet }

// fastTo reports whether a chunk cutThrough sent on through switch sw has yet to reach it.
func (f *Fabric) fastTo(sw int32, now sim.Time) bool {
	for i := range f.fast {
		if r := &f.fast[i]; r.at >= now && f.lanes[r.in].to.idx == sw {
			return true
		}
	}
	return false
}
