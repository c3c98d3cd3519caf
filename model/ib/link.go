package ib

import (
	"cmp"
	"slices"

	"github.com/lnetsim/lnetsim/sim"
)

// Event kinds of the fabric's handler.
const (
	evTxDone     = iota // arg: lane; the lane finished serialising its current chunk
	evArrive            // arg: chunk; the chunk reaches the far end of its lane
	evAckTimeout        // arg: QP index; the local ACK timer expired
	evRNRResume         // arg: QP index; the RNR wait is over
	evKick              // arg: QP index; posted work reaches the HCA's send engine
	evCQNotify          // arg: CQ index; completion interrupt
	evPending           // arg: pending slot; a deferred upcall or CM message
	evCMTimer           // arg: CM id index; a CM timeout
	evCreditWake        // arg: lane; a credit return a stalled lane waits for has arrived
	evLaneFree          // arg: lane; a lane whose end of transmission was not an event is free
)

// lane is one direction of a link: an output port with a FIFO queue, a serialiser and a
// propagation delay, plus credit-based flow control towards a switch's input buffer.
//
// Fields are grouped by the step that uses them, one cache line each, so that a step loads
// as few of the lane's lines as it can: the first line holds what an arrival reads and
// counts, and what tryStart and cutThrough test first (whether the lane is up, busy, free,
// has a queue), with the liveness of the HCA ports at the lane's ends and whether it draws
// losses, so those steps need not load the Port, the HCA or the fault rates; the second
// what a transmission reads and writes (with the stall start and the source port); the
// third the input buffer its chunk holds and credit returns. Rare counters, fault, adaptive-granularity and event-id fields
// follow. The size is a multiple of 64 bytes, so that in the lanes array (large, hence
// page-aligned) each lane starts a cache line (TestLaneLayout pins the lines).
type lane struct {
	// Arrival, and the first tests of tryStart and cutThrough.
	from, to epRef
	rx       rxCounters // receive counters of the port at the to end, kept where arrivals count them
	freeAt   sim.Time   // end of a transmission that schedules no evTxDone (see send)
	delay    sim.Time   // prop + extra: what every step adds, kept by SetExtraDelay
	epoch    uint32     // bumped on link down: chunks in flight from an older epoch are lost
	slowTo   int32      // switch outputs: chunks on their way to the switch through an arrival event, routed here
	up       bool
	busy     bool
	freeing  bool // an evLaneFree is scheduled for freeAt (freeEv)
	waking   bool // an evCreditWake is scheduled at wakeAt (wakeEv)
	// Liveness of the HCA ports at the lane's ends, kept by syncPort whenever a port's state
	// or its HCA's dead flag changes: srcDead and srcDown for a port at the from end (its HCA
	// dead; its state not ACTIVE), dstOK for a port at the to end (HCA alive and ACTIVE).
	srcDead, srcDown, dstOK bool
	lossy                   bool // loss or corrupt is above 0 (damage draws)

	// Transmission.
	mbps     int64
	rem      int64      // remainder of the last serialisation (bit-ns units), so the rate is exact
	credits  int64      // bytes the downstream input buffer can still take (below 0 after a coarse chunk; see need); -1 towards an HCA
	tx       txCounters // send-side counters of the port at the from end (see endCounters)
	waitFrom sim.Time   // start of a credit stall (PortXmitWait), -1 when not stalled
	q        chunkQueue // chunks waiting for this lane (switch output queue)
	src      *Port      // the HCA port at the from end (nil: a switch), so tryStart reads no f.ports

	// Input buffer, credit returns.
	curIn    int32 // input lane whose buffer the chunk on the wire occupies (credit to return)
	curInEp  uint32
	curBytes int64 // bytes of that input buffer it occupies
	staged   int32 // HCA port lanes: a chunk taken from a QP, waiting for credits; -1 = none
	link     int32
	retHead  int
	busyTo   sim.Time    // end of the transmission that holds busy (its evTxDone)
	rets     []creditRet // credits on their way back to the sender, in arrival order

	rare          rareCounters
	prop, extra   sim.Time    // propagation delay and injected extra delay (see delay)
	wakeAt        sim.Time    // see waking
	train         train       // adaptive granularity: the coarse chunk a switch output sends (see split)
	last          laneFlow    // adaptive granularity: the flow of the last chunk sent (see laneFlow)
	wakeEv        sim.EventID // see waking
	freeEv        sim.EventID // see freeing
	loss, corrupt float64
	rng           *sim.Stream
	quietHead     int32    // 1 + the first chunk of the lane's quiet list (0: empty; see quiet.go)
	quietTail     int32    // 1 + its last chunk
	quietListed   bool     // the lane is in Fabric.quietLanes
	aheadListed   bool     // the lane is in Fabric.aheadLanes
	_             [14]byte // to a multiple of 64 bytes (TestLaneLayout)
	rr            rrState  // round-robin arbitration at a switch output (see queueAtOutput)
}

// chunk is the unit of data movement: up to Config.ChunkPackets packets of one message (or
// one control packet) travelling through the fabric together; under adaptive granularity, a
// coarse chunk of span consecutive fine chunks (see coarseSpan).
type chunk struct {
	kind     uint8
	op       Opcode
	nak      WCStatus // ckNak: the error reported (WCRNRRetryExcErr: RNR; nakSeqErr: sequence)
	rnrTimer uint8
	npkt     uint16
	span     uint16 // fine chunks this chunk covers: idx .. idx+span-1 (more than 1: adaptive coarse)
	idx, n   uint32 // fine chunk index within its message and the message's fine chunk count
	src, dst int32  // ports
	srcQP    uint32 // QPNs
	dstQP    uint32
	msn      uint32 // message sequence number on the requester's send queue
	bytes    uint32 // payload bytes in this chunk
	wire     uint32 // bytes on the wire including headers
	msgLen   uint32 // whole message's payload length
	rkey     uint32
	fine     uint32 // payload bytes of a full fine chunk (data chunks)
	raddr    uint64
	tail     sim.Time // when the chunk's last byte reaches the far end of its lane
	lane     int32
	epoch    uint32
	inLane   int32
	inEpoch  uint32
	next     int32
	slowOut  int32  // the switch output whose slowTo counts the chunk on its way to the switch, or -1
	ord      uint32 // on a quiet list: the ordinal its arrival event would have had (see quiet.go)
	tag      uint32 // queued at a switch output under round-robin arbitration: its finish round (see queueAtOutput)
	joined   uint32 // and the fabric's count of such joins when it joined (see joinedNow)
}

const (
	ckData     = iota // SEND or RDMA WRITE payload
	ckReadReq         // RDMA READ request
	ckReadResp        // RDMA READ response payload
	ckAck             // acknowledgement up to msn
	ckNak             // NAK (RNR or error) for msn
)

func (f *Fabric) newChunk() int32 {
	if n := len(f.freeChunks); n > 0 {
		c := f.freeChunks[n-1]
		f.freeChunks = f.freeChunks[:n-1]
		f.chunks[c] = chunk{next: -1, inLane: -1, span: 1, slowOut: -1}
		return c
	}
	f.chunks = append(f.chunks, chunk{next: -1, inLane: -1, span: 1, slowOut: -1})
	return int32(len(f.chunks) - 1)
}

func (f *Fabric) freeChunk(c int32) { f.freeChunks = append(f.freeChunks, c) }

// chunkQueue is a FIFO of chunks linked through chunk.next (-1 ends it and marks it empty).
type chunkQueue struct{ head, tail int32 }

var emptyQueue = chunkQueue{-1, -1}

// push appends chunk c to q.
func (f *Fabric) push(q *chunkQueue, c int32) {
	f.chunks[c].next = -1
	if q.tail < 0 {
		q.head = c
	} else {
		f.chunks[q.tail].next = c
	}
	q.tail = c
}

// pop removes and returns q's first chunk, or -1 when q is empty.
func (f *Fabric) pop(q *chunkQueue) int32 {
	c := q.head
	if c >= 0 {
		if q.head = f.chunks[c].next; q.head < 0 {
			q.tail = -1
		}
	}
	return c
}

// insertAfter puts chunk c into q after chunk prev (-1: at the head).
func (f *Fabric) insertAfter(q *chunkQueue, prev, c int32) {
	if prev < 0 {
		f.chunks[c].next, q.head = q.head, c
	} else {
		f.chunks[c].next, f.chunks[prev].next = f.chunks[prev].next, c
	}
	if q.tail == prev {
		q.tail = c
	}
}

// unlink removes chunk c from q (it must be there).
func (f *Fabric) unlink(q *chunkQueue, c int32) {
	prev := int32(-1)
	for x := q.head; x != c; x = f.chunks[x].next {
		prev = x
	}
	next := f.chunks[c].next
	if prev < 0 {
		q.head = next
	} else {
		f.chunks[prev].next = next
	}
	if q.tail == c {
		q.tail = prev
	}
	f.chunks[c].next = -1
}

// notArrived returns the wire bytes of the chunks cutThrough queued on lane ln ahead of
// their arrival whose head has not reached the switch by now (backlog leaves them out).
func (f *Fabric) notArrived(ln *lane) int64 {
	var n int64
	now := f.k.Now()
	for i := range f.fast {
		if r := &f.fast[i]; r.queued && r.at >= now && &f.lanes[r.out] == ln {
			n += int64(f.chunks[r.c].wire)
		}
	}
	return n
}

// freeQueue frees every chunk of q (their packets are lost) and empties it.
func (f *Fabric) freeQueue(q *chunkQueue) {
	for c := f.pop(q); c >= 0; c = f.pop(q) {
		f.freeChunk(c)
	}
}

// Handle dispatches the fabric's events; it implements sim.Handler.
func (f *Fabric) Handle(kind int, arg uint64) {
	switch kind {
	case evTxDone:
		f.txDone(int32(arg))
	case evArrive:
		f.arrive(int32(arg))
	case evAckTimeout:
		if qp := f.qps[arg]; qp != nil {
			qp.ackTimeout()
		}
	case evRNRResume:
		if qp := f.qps[arg]; qp != nil {
			qp.rnrResume()
		}
	case evKick:
		if qp := f.qps[arg]; qp != nil {
			qp.kickPending = false
			qp.schedule()
		}
	case evCQNotify:
		f.cqs[arg].notify()
	case evPending:
		f.runPending(int32(arg))
	case evCMTimer:
		if id := f.cmids[arg]; id != nil {
			id.timeout()
		}
	case evCreditWake:
		f.lanes[arg].waking = false
		f.tryStart(int32(arg))
	case evLaneFree:
		f.lanes[arg].freeing = false
		f.tryStart(int32(arg))
	}
}

// ser returns the serialisation time of n bytes on the lane, carrying the sub-nanosecond
// remainder to the next chunk so that long transfers run at exactly the link rate.
func (ln *lane) ser(n uint32) sim.Time {
	bits, mbps := int64(n)*8000+ln.rem, ln.mbps
	q := bits / mbps
	ln.rem = bits - q*mbps // bits % mbps, without a second division
	return sim.Time(q)
}

// creditRet is buffer space freed downstream at time given, usable by the sender from time
// at (given plus the link's delay at the time of giving). A return may be recorded before
// it is given (see send): rets is kept sorted by given.
type creditRet struct {
	at, given sim.Time
	bytes     int64
}

// giveCredit returns n bytes of input buffer to lane li's sender. The flow-control update
// travels back over the link, so the sender can use it one propagation delay later.
func (f *Fabric) giveCredit(li int32, n int64) {
	ln := &f.lanes[li]
	d := ln.delay
	if d == 0 {
		ln.credits += n
		f.tryStart(li)
		return
	}
	now := f.k.Now()
	f.addRet(li, creditRet{now + d, now, n})
}

// addRet records a credit return on lane li, keeping rets in the order the returns are
// given (flow-control updates travel in order: absorb stops at the first one not yet
// arrived), and wakes the sender if it is stalled on credits.
func (f *Fabric) addRet(li int32, r creditRet) {
	ln := &f.lanes[li]
	ln.rets = append(ln.rets, r)
	for i := len(ln.rets) - 1; i > ln.retHead && ln.rets[i-1].given > r.given; i-- {
		ln.rets[i], ln.rets[i-1] = ln.rets[i-1], ln.rets[i]
	}
	if ln.waitFrom >= 0 || ln.staged >= 0 {
		f.wake(li) // the sender is stalled on credits
	}
}

// dropRet takes back a credit return recorded on lane li ahead of time (given, bytes).
func (f *Fabric) dropRet(li int32, given sim.Time, bytes int64) {
	il := &f.lanes[li]
	for k := len(il.rets) - 1; k >= il.retHead; k-- {
		if il.rets[k].given == given && il.rets[k].bytes == bytes {
			il.rets = append(il.rets[:k], il.rets[k+1:]...)
			return
		}
	}
}

// absorb credits every return that has reached the sender by now.
func (f *Fabric) absorb(ln *lane) {
	now := f.k.Now()
	rets, h, credits := ln.rets, ln.retHead, ln.credits
	for h < len(rets) && rets[h].at <= now {
		credits += rets[h].bytes
		h++
	}
	ln.credits, ln.retHead = credits, h
	if h == len(rets) {
		ln.rets, ln.retHead = rets[:0], 0
	} else if h >= 32 && 2*h >= len(rets) {
		n := copy(rets, rets[h:])
		ln.rets, ln.retHead = rets[:n], 0
	}
}

// wake schedules a retry of a credit-stalled lane when its next credit return arrives.
func (f *Fabric) wake(li int32) {
	ln := &f.lanes[li]
	if ln.retHead == len(ln.rets) {
		return
	}
	at := max(ln.rets[ln.retHead].at, f.k.Now()) // a return re-timed by a link change may be due already
	if ln.waking {
		if at >= ln.wakeAt {
			return
		}
		f.k.Cancel(ln.wakeEv) // a return recorded ahead of time arrives earlier
	}
	ln.waking, ln.wakeAt = true, at
	ln.wakeEv = f.k.Schedule(at, f.hid, evCreditWake, uint64(li))
}

// tryStart starts the next chunk on lane li if the lane is idle and up and the downstream
// buffer has room for it. Lanes leaving an HCA port pull from the port (control packets
// first, then QPs in deficit round robin); lanes leaving a switch pop their output FIFO.
func (f *Fabric) tryStart(li int32) {
	ln := &f.lanes[li]
	if ln.busy {
		return
	}
	now := f.k.Now()
	if now < ln.freeAt {
		if !ln.freeing {
			ln.freeing = true
			ln.freeEv = f.k.Schedule(ln.freeAt, f.hid, evLaneFree, uint64(li))
		}
		return
	}
	if !ln.up {
		if ln.from.kind == epPort && !ln.srcDead {
			f.discard(ln.src)
		}
		return
	}
	var c int32
	if ln.from.kind == epPort {
		if ln.srcDead {
			return
		}
		p := ln.src
		if ln.srcDown {
			f.discard(p)
			return
		}
		if c = ln.staged; c < 0 {
			if c = f.pull(p); c < 0 {
				ln.waitFrom = -1 // nothing left to send: no longer waiting
				return
			}
		}
		if ln.to.kind == epSwitch {
			if need := f.need(c); need > ln.credits {
				if f.absorb(ln); need > ln.credits {
					ln.staged = c
					f.stall(ln)
					f.wake(li)
					return
				}
			}
		}
		ln.staged = -1
	} else {
		if c = f.nextAtOutput(ln); c < 0 {
			return
		}
		if ln.to.kind == epSwitch {
			if need := f.need(c); need > ln.credits {
				if f.absorb(ln); need > ln.credits {
					f.stall(ln)
					f.wake(li)
					return
				}
			}
		}
		if f.cfg.Arbitration == ArbitrationRoundRobin {
			f.unlink(&ln.q, c)
			f.rrLeave(li, f.chunks[c].inLane, c, false)
			ln.rr.take(f.chunks[c].tag, now)
		} else {
			f.pop(&ln.q)
		}
	}
	// Transmit c: a credit stall ends (PortXmitWait counts it) and the chunk goes on the
	// wire now. Switches cut through: the head moves on after the propagation and switch
	// latency while the tail follows a serialisation time later, and no lane can finish
	// sending a chunk before its tail has arrived (see send).
	if ln.waitFrom >= 0 {
		ln.rare.xmitWait += uint64(now - ln.waitFrom)
		ln.waitFrom = -1
	}
	f.send(li, c, now)
	if f.cfg.Arbitration == ArbitrationRoundRobin && ln.from.kind == epSwitch && ln.to.kind == epPort && ln.q.head >= 0 {
		f.interleaveJoined(li)
	}
}

// discard drains what a port with its link down would send: the HCA's send engine keeps
// running and its packets die at the port, so QPs keep their ACK timers running and reach
// RETRY_EXC_ERR as they do on real hardware.
func (f *Fabric) discard(p *Port) {
	for c := f.pull(p); c >= 0; c = f.pull(p) {
		f.freeChunk(c)
	}
}

func (f *Fabric) stall(ln *lane) {
	if ln.waitFrom < 0 {
		ln.waitFrom = f.k.Now()
	}
}

// send serialises chunk c on lane li from time start (now, or, for cutThrough, the time
// the chunk reaches the switch) and schedules what follows: the lane's end of transmission
// and the chunk's arrival at the far end.
func (f *Fabric) send(li, c int32, start sim.Time) {
	ln := &f.lanes[li]
	ch := &f.chunks[c]
	remBefore, tailIn, txEv := ln.rem, ch.tail, sim.EventID{}
	finish := start + ln.ser(ch.wire)
	if ch.tail > finish {
		finish = ch.tail
	}
	if ln.to.kind == epSwitch {
		ln.credits -= int64(ch.wire)
	}
	ln.tx.data += uint64(ch.wire) / 4
	ln.tx.pkts += uint64(ch.npkt)
	ch.lane, ch.epoch = li, ln.epoch
	if f.cfg.Granularity == GranularityAdaptive {
		ln.last.note(ch, start, finish)
	}
	if f.cfg.Arbitration == ArbitrationRoundRobin && ln.to.kind == epPort && ln.from.kind == epSwitch {
		r := &ln.rr // what interleave needs of the chunk on the wire
		r.curIn, r.start, r.pkt = ch.inLane, start, sim.Time(int64(ch.wire)/int64(max(ch.npkt, 1))*8000/ln.mbps)
	}
	in := ch.inLane
	var il *lane // the input lane whose buffer the chunk holds (nil: none, from an HCA port)
	if in >= 0 {
		if il = &f.lanes[in]; il.epoch != ch.inEpoch {
			il = nil // the input link went down since: the credit is not given back
		}
	}
	coarseIn := ch.span > 1 && il != nil
	if coarseIn { // its input-buffer credit goes back piece by piece (coarseReturns)
		f.coarseReturns(in, c, start, finish, 0, true)
	}
	if il != nil && !perHopEvents && ln.to.kind == epPort && il.delay > 0 {
		// A switch output to an HCA port: nothing downstream waits for this lane (no
		// credits), so its end of transmission need not be an event. The lane counts as busy
		// until finish (an evLaneFree wakes it if a chunk queues meanwhile), and the credit
		// the chunk holds on its input buffer is recorded now to be given at finish, exactly
		// when txDone would give it (a link change on the input lane in between drops or
		// re-times it as it would the given credit; see LinkDown, SetExtraDelay).
		ln.freeAt = finish
		if !coarseIn {
			f.addRet(in, creditRet{finish + il.delay, finish, int64(ch.wire)})
		}
		if ln.q.head >= 0 && !ln.freeing { // more queued: serve it at finish
			ln.freeing = true
			ln.freeEv = f.k.Schedule(finish, f.hid, evLaneFree, uint64(li))
		}
	} else {
		ln.busy, ln.busyTo = true, finish
		ln.curIn, ln.curInEp, ln.curBytes = ch.inLane, ch.inEpoch, int64(ch.wire)
		if coarseIn {
			ln.curIn = -1
		}
		txEv = f.k.Schedule(finish, f.hid, evTxDone, uint64(li))
	}
	delay := ln.delay
	if ln.to.kind != epSwitch {
		ch.tail = finish + delay
		if f.quietEligible(ln, ch) {
			f.quietAdd(li, c)
			f.arriveEv = sim.EventID{}
		} else {
			f.arriveEv = f.k.Schedule(ch.tail, f.hid, evArrive, uint64(c))
		}
		if ch.span > 1 && ln.from.kind == epSwitch {
			tr := &ln.train
			tr.c, tr.epoch, tr.start, tr.finish, tr.tailIn, tr.rem = c, ln.epoch, start, finish, tailIn, remBefore
			tr.arrEv, tr.txEv, tr.credited, tr.hasTx = f.arriveEv, txEv, coarseIn, ln.busy
		} else if f.cfg.Granularity == GranularityAdaptive { // with fixed, no train is kept
			ln.train.c = -1
		}
		return
	}
	s := f.switches[ln.to.idx]
	delay += s.Latency
	ch.tail = finish + delay
	done, out := f.cutThrough(li, c, s, start+delay)
	if done {
		return
	}
	if out == noRoute {
		out = f.outLane(s, ch.dst)
	}
	f.slowArrival(s, c, start+delay, out)
}

// slowArrival schedules chunk c's arrival at switch s at time at as an event, counting it
// on the switch and on out, the output it is routed to (see cutThrough).
func (f *Fabric) slowArrival(s *Switch, c int32, at sim.Time, out int32) {
	s.slowIn++
	if out >= 0 {
		f.lanes[out].slowTo++
		f.chunks[c].slowOut = out
	}
	f.k.Schedule(at, f.hid, evArrive, uint64(c))
}

// recountSlow moves the chunks on their way to a switch through an arrival event to the
// outputs the routes now send them to: called after the routes change.
func (f *Fabric) recountSlow() {
	for c := range f.chunks {
		ch := &f.chunks[c]
		if ch.slowOut < 0 {
			continue
		}
		f.lanes[ch.slowOut].slowTo--
		ch.slowOut = -1
		if out := f.outLane(f.switches[f.lanes[ch.lane].to.idx], ch.dst); out >= 0 {
			f.lanes[out].slowTo++
			ch.slowOut = out
		}
	}
}

// perHopEvents turns off the event-saving paths (a switch output's end of transmission
// without an event, cutThrough): tests compare runs with and without them.
var perHopEvents bool

// noRoute is an output lane not looked up.
const noRoute = -2

// noQueueAhead limits cutThrough to idle outputs (no queueing ahead of the arrival): tests
// compare runs with and without it.
var noQueueAhead bool

// noQuiet turns quiet arrivals off (quiet.go): tests compare runs with and without them.
var noQuiet bool

// fastRec is a chunk that cutThrough sent on through a switch before its head reached the
// switch, with what settle needs to take that back.
type fastRec struct {
	sentRec
	in, out    int32
	queued     bool     // queued on the output ahead of its arrival (see cutThrough), not sent on
	lastBefore laneFlow // the out lane's last flow before the chunk (adaptive granularity only)
}

// sentRec is what undoing a send on a switch output made before it happened needs (the
// records of cutThrough, fastRec, and of sendAhead, aheadRec).
type sentRec struct {
	c          int32
	seq        uint64      // order of cutThroughs and sends ahead (Fabric.sendSeq)
	at         sim.Time    // when the chunk's head reaches the switch
	tailIn     sim.Time    // the chunk's tail time on its input lane
	given      sim.Time    // when its input-buffer credit is given back (the output's finish)
	freeBefore sim.Time    // the output's free time ...
	remBefore  int64       // ... and serialisation remainder before the chunk
	ev         sim.EventID // its far-port arrival (zero: listed as a quiet arrival)
}

// unsend undoes, newest first, the transmission of r's chunk on switch output out from
// start: its far-port arrival, the output's free time and remainder, its send counters and
// the credit return to input lane in. The chunk is left as it was on in.
func (f *Fabric) unsend(out, in int32, r *sentRec, start sim.Time) {
	ch := &f.chunks[r.c]
	ol := &f.lanes[out]
	if r.ev == (sim.EventID{}) { // a quiet chunk: the last sent on its output lane
		f.quietRemoveLast(ol, r.c)
	} else {
		f.k.Cancel(r.ev)
	}
	ol.rem, ol.freeAt = r.remBefore, r.freeBefore
	ol.tx.data -= uint64(ch.wire) / 4
	ol.tx.pkts -= uint64(ch.npkt)
	if ch.span > 1 {
		f.coarseReturns(in, r.c, start, r.given, 0, false)
	} else {
		f.dropRet(in, r.given, int64(ch.wire))
	}
	ch.lane, ch.epoch, ch.tail = in, ch.inEpoch, r.tailIn
}

// cutThrough handles, at the moment chunk c leaves an HCA port on lane li, its arrival at
// switch s at time at (the head's arrival) and its forwarding to the destination port, so
// that a chunk crossing an idle switch costs one event (its arrival at the far port) instead
// of two. It does so only when that is provably what the arrival event would do at time
// at: no loss or corruption to draw; the output lane leads to an HCA port (no credits), is
// up, has nothing queued and is free by at; no chunk can reach s before at (no chunk is on
// its way to s through an arrival event, and every input lane of s has at least the
// propagation delay of li, so a chunk sent later arrives later); the input-buffer credit
// goes back over a link with a delay. Faults and other changes to the fabric first settle
// (see settle) the chunks that have not yet reached their switch.
//
// It also returns the output it looked up (noRoute if it did not).
func (f *Fabric) cutThrough(li, c int32, s *Switch, at sim.Time) (bool, int32) {
	ln := &f.lanes[li]
	ch := &f.chunks[c]
	d := ln.delay
	if perHopEvents || d > s.minInProp || d == 0 || ln.lossy || ln.from.kind != epPort {
		return false, noRoute
	}
	out := f.outLane(s, ch.dst)
	if out < 0 {
		return false, out
	}
	ol := &f.lanes[out]
	if !ol.up || ol.to.kind != epPort || ol.busy || ol.lossy {
		return false, out
	}
	// What arrive does at a switch, as of time at.
	queued := ol.q.head >= 0 || ol.freeAt > at
	if queued {
		// A busy output: the arrival would only queue the chunk, and is left out when it
		// changes nothing else. The output sends nothing before at (it is free only after
		// at) and its lane-free wake-up is already scheduled, so the arrival's tryStart
		// would do nothing; the chunk joins the queue now, in the order the arrivals would
		// have been taken. It counts as received from at (see Link.Counters, backlog).
		if noQueueAhead || ol.slowTo > 0 {
			return false, out
		}
		if ch.inEpoch = ch.epoch; f.canSendAhead(ol, ln, ch, at) { // a FIFO output sending ahead (ahead.go)
			ch.inLane = li
			f.sendAhead(out, c, at, true)
			ln.rx.data += uint64(ch.wire) / 4
			ln.rx.pkts += uint64(ch.npkt)
			return true, out
		}
		if !ol.freeing || ol.freeAt <= at || f.cfg.Granularity == GranularityAdaptive ||
			f.cfg.Arbitration == ArbitrationRoundRobin {
			return false, out
		}
	} else if s.slowIn > 0 {
		return false, out
	}
	r := f.newFast()
	f.sendSeq++
	r.c, r.in, r.out, r.queued, r.at, r.tailIn, r.seq = c, li, out, queued, at, ch.tail, f.sendSeq
	r.remBefore, r.freeBefore = ol.rem, ol.freeAt
	if f.cfg.Granularity == GranularityAdaptive { // only adaptive granularity notes flows
		r.lastBefore = ol.last
	}
	ch.inLane, ch.inEpoch = li, ch.epoch
	if queued {
		r.given, r.ev = 0, sim.EventID{}
		f.push(&ol.q, c)
	} else {
		if f.cfg.Arbitration == ArbitrationRoundRobin { // taken at at, as the arrival would take it
			ol.rr.take(ol.rr.base(at)+uint32(ch.npkt), at)
		}
		f.send(out, c, at) // towards an HCA port: no cutThrough, f.fast stays as it is
		r.given, r.ev = ol.freeAt, f.arriveEv
	}
	ln.rx.data += uint64(ch.wire) / 4
	ln.rx.pkts += uint64(ch.npkt)
	return true, out
}

// newFast appends a record to f.fast and returns it (its fields are all set by the
// caller), first forgetting the records of chunks that have reached their switch once
// there are fastKeep of them: 32, or twice the records that were left the last time, so
// that a crowd of chunks on their way at once (a connection storm) is not walked at every
// record.
func (f *Fabric) newFast() *fastRec {
	if len(f.fast) >= max(32, f.fastKeep) {
		now, n := f.k.Now(), 0
		for i := range f.fast {
			if f.fast[i].at >= now {
				if n != i {
					f.fast[n] = f.fast[i]
				}
				n++
			}
		}
		f.fast = f.fast[:n]
		f.fastKeep = 2 * n
	}
	if len(f.fast) < cap(f.fast) {
		f.fast = f.fast[:len(f.fast)+1]
	} else {
		f.fast = append(f.fast, fastRec{})
	}
	return &f.fast[len(f.fast)-1]
}

// settle takes back every cutThrough whose chunk has not yet reached its switch (head
// arrival now or later), newest first, and schedules those chunks' arrivals as events, in
// their original order: called before any change (a link fault, loss, delay, a route
// sweep, a counter reset) that could alter what happens to them at the switch. A chunk
// whose head reaches the switch at the very time of the change is thus handled after it.
func (f *Fabric) settle() {
	f.takeBack()
	f.endQuiet()
}

// takeBack is settle's first half: it takes back the cutThrough chunks that have not reached
// their switch and the chunks sent ahead that have not started (ahead.go), undoing the
// sends newest first (each restores its output lane as it found it). Chunks whose head has
// not reached the switch get arrival events, in their original order; chunks sent ahead
// that had reached it go back to the front of their output's queue.
func (f *Fabric) takeBack() {
	now := f.k.Now()
	back := f.fast[:0]
	for _, r := range f.fast {
		if r.at >= now {
			back = append(back, r)
		}
	}
	items := f.undo[:0]
	for j := range back {
		items = append(items, undoItem{seq: back[j].seq, fast: j})
	}
	items = f.aheadTakeBack(items)
	slices.SortFunc(items, func(a, b undoItem) int { return cmp.Compare(b.seq, a.seq) })
	for k := range items {
		if it := &items[k]; it.fast < 0 {
			if it.rec.at < now {
				f.aheadUndone[0]++
			} else {
				f.aheadUndone[1]++
			}
			f.unsendAhead(it.li, &it.rec)
		} else {
			f.unsendFast(&back[it.fast])
		}
	}
	slices.Reverse(items) // sending order
	requeue := f.requeue[:0]
	for k := range items {
		it := &items[k]
		if it.fast < 0 && it.rec.at < now {
			requeue = append(requeue, *it)
			continue
		}
		c, in, at := it.rec.c, f.chunks[it.rec.c].inLane, it.rec.at
		if it.fast >= 0 {
			c, in, at = back[it.fast].c, back[it.fast].in, back[it.fast].at
		}
		f.chunks[c].inLane = -1
		s := f.switches[f.lanes[in].to.idx]
		f.slowArrival(s, c, at, f.outLane(s, f.chunks[c].dst))
	}
	f.requeueAhead(requeue)
	f.fast = f.fast[:0]
	f.undo, f.requeue = items[:0], requeue[:0]
}

// unsendFast undoes cutThrough record r: a chunk queued ahead leaves its output's queue; a
// chunk sent on has its transmission on the output undone (newest first). Either way the
// switch input's reception is taken back; the chunk is left as it was on its input lane.
func (f *Fabric) unsendFast(r *fastRec) {
	ch := &f.chunks[r.c]
	rcv := &f.lanes[r.in].rx
	rcv.data -= uint64(ch.wire) / 4
	rcv.pkts -= uint64(ch.npkt)
	if r.queued { // out of the output's queue, where nothing has moved it yet
		f.unlink(&f.lanes[r.out].q, r.c)
		return
	}
	f.unsend(r.out, r.in, &r.sentRec, r.at)
	if f.cfg.Granularity == GranularityAdaptive {
		f.lanes[r.out].last = r.lastBefore
	}
}

// txDone frees lane li, returns the input-buffer credit its chunk held upstream and starts
// the next chunks on both lanes.
func (f *Fabric) txDone(li int32) {
	ln := &f.lanes[li]
	ln.busy = false
	if in := ln.curIn; in >= 0 {
		ln.curIn = -1
		if f.lanes[in].epoch == ln.curInEp {
			f.giveCredit(in, ln.curBytes)
		}
	}
	f.tryStart(li)
}

// releaseInput returns the credit a chunk dropped at a switch held on its input lane.
func (f *Fabric) releaseInput(ch *chunk) {
	if ch.inLane >= 0 && f.lanes[ch.inLane].epoch == ch.inEpoch {
		f.giveCredit(ch.inLane, int64(ch.wire))
	}
}

// arrive handles a chunk reaching the far end of its lane: at a switch it is queued on the
// routed output lane; at an HCA port it lands (land), after the quiet chunks sent before it
// on the lane (see quiet.go).
func (f *Fabric) arrive(c int32) {
	ch := &f.chunks[c]
	li := ch.lane
	ln := &f.lanes[li]
	if ln.to.kind != epSwitch {
		if ln.quietHead != 0 {
			f.catchUp(ln)
		}
		f.land(ln, c)
		return
	}
	f.switches[ln.to.idx].slowIn--
	if o := ch.slowOut; o >= 0 {
		f.lanes[o].slowTo--
		ch.slowOut = -1
	}
	if !f.received(ln, c) {
		return
	}
	s := f.switches[ln.to.idx]
	out := f.outLane(s, ch.dst)
	ch.inLane, ch.inEpoch = li, ch.epoch
	if out < 0 || !f.lanes[out].up {
		if out >= 0 {
			f.lanes[out].rare.xmitDiscards += uint64(ch.npkt)
		}
		f.releaseInput(ch)
		f.freeChunk(c)
		return
	}
	if f.interleave(out, c) {
		return
	}
	if ol := &f.lanes[out]; f.canSendAhead(ol, ln, ch, f.k.Now()) {
		f.sendAhead(out, c, f.k.Now(), false)
		return
	}
	f.queueAtOutput(out, c)
	if f.cfg.Granularity == GranularityAdaptive {
		f.split(out)
	}
	f.tryStart(out)
}

// land hands chunk c, arriving now at the end of lane ln, to the HCA port there (received)
// and to its QP if the port works.
func (f *Fabric) land(ln *lane, c int32) {
	if !f.received(ln, c) {
		return
	}
	if ln.dstOK { // the port's HCA is alive and the port ACTIVE (syncPort)
		f.deliver(uint32(ln.to.idx)+1, &f.chunks[c])
	}
	f.freeChunk(c)
}

// received is the receiving end of lane ln taking chunk c, arriving now: the chunk is lost
// (freed, false) if the link went down while it was on the lane or a loss or corruption
// draw spoils it (a corrupted one is counted; a switch's input buffer gives its space back
// at once); otherwise it is counted (true).
func (f *Fabric) received(ln *lane, c int32) bool {
	ch := &f.chunks[c]
	if ln.epoch != ch.epoch { // the link went down while the chunk was on it
		f.freeChunk(c)
		return false
	}
	if ln.lossy {
		if lost, bad := f.damage(ln, ch.npkt); lost || bad {
			if bad {
				ln.rare.symbolErrors++
				ln.rare.rcvErrors++
			}
			if ln.to.kind == epSwitch {
				f.giveCredit(ch.lane, int64(ch.wire))
			}
			f.freeChunk(c)
			return false
		}
	}
	ln.rx.data += uint64(ch.wire) / 4
	ln.rx.pkts += uint64(ch.npkt)
	return true
}

// damage draws whether a chunk of npkt packets is lost or corrupted on ln: each packet is
// lost with probability loss and corrupted with probability corrupt, and one bad packet
// spoils the chunk.
func (f *Fabric) damage(ln *lane, npkt uint16) (lost, bad bool) {
	for i := uint16(0); i < npkt; i++ {
		if ln.rng.Bernoulli(ln.loss) {
			return true, false
		}
		if ln.rng.Bernoulli(ln.corrupt) {
			return false, true
		}
	}
	return false, false
}

// pull takes the next chunk an HCA port transmits: queued control packets first, then QPs
// in deficit round robin by wire bytes: a QP at the head of the ring gets one chunk's worth
// of credit per turn and sends while its next chunk fits, so a flow of small messages and a
// flow of large ones share the port by bytes. It is called only for a port whose HCA is
// alive.
func (f *Fabric) pull(p *Port) int32 {
	if c := f.pop(&p.ctrl); c >= 0 {
		return c
	}
	for p.ringHead < len(p.ring) {
		qp := p.ring[p.ringHead]
		// A QP destroyed since it joined the ring is still there, but without work (Destroy
		// resets it); the ring holds pointers so that a turn need not read f.qps.
		if !qp.hasWorkAlive() { // the port's HCA is alive (see tryStart, discard)
			p.ringPop()
			qp.leaveRing()
			continue
		}
		if p.ringHead == len(p.ring)-1 { // alone: no one to share with
			qp.inTurn, qp.deficit = false, 0
		} else if !qp.inTurn {
			qp.inTurn = true
			qp.deficit += int64(qp.quantum())
		}
		// No chunk's wire size exceeds the quantum, so a QP holding a quantum's credit or
		// more need not peek at its next chunk.
		if qp.inTurn && qp.deficit < int64(qp.quantum()) && int64(qp.peekWire()) > qp.deficit {
			qp.inTurn = false // turn over: to the back, keeping the remaining credit
			p.ringPop()
			p.ring = append(p.ring, qp)
			continue
		}
		c := f.newChunk() // span 1: fixed granularity
		if f.cfg.Granularity == GranularityAdaptive {
			f.chunks[c].span = f.coarseSpan(p, p.lane, qp)
		}
		qp.deficit -= int64(qp.fill(c))
		if !qp.hasWorkAlive() {
			p.ringPop()
			qp.leaveRing()
		}
		return c
	}
	return -1
}

// ringPop drops the head of the port's round robin, keeping its storage bounded.
func (p *Port) ringPop() {
	p.ringHead++
	if p.ringHead == len(p.ring) {
		p.ring = p.ring[:0]
		p.ringHead = 0
	} else if p.ringHead >= 32 && 2*p.ringHead >= len(p.ring) {
		n := copy(p.ring, p.ring[p.ringHead:])
		p.ring = p.ring[:n]
		p.ringHead = 0
	}
}

// sendCtrl queues a one-packet control chunk on port p and kicks its lane.
func (f *Fabric) sendCtrl(p *Port, c int32) {
	f.push(&p.ctrl, c)
	if p.lane >= 0 {
		f.tryStart(p.lane)
	}
}

// enqueue puts qp on its port's round-robin and kicks the lane.
func (f *Fabric) enqueue(qp *QP) {
	p := qp.port
	if qp.inRing || p == nil {
		return
	}
	qp.inRing = true
	p.ring = append(p.ring, qp)
	if p.lane >= 0 {
		f.tryStart(p.lane)
	}
}
