package ib

import "github.com/lnetsim/lnetsim/sim"

// This file is the RC transport: segmentation of work requests into chunks, the responder's
// in-order acceptance, ACK/NAK generation, the requester's ACK timer, retries and RNR
// handling. Sequence numbers count messages (one per WR), not packets: see ARCHITECTURE.md.

// before reports a < b in wrapping 32-bit sequence space.
func before(a, b uint32) bool { return int32(a-b) < 0 }

// AckTimeout returns the local ACK timeout for a local_ack_timeout exponent:
// 4.096us * 2^v, with 0 meaning infinite (returned as 0).
func AckTimeout(v uint8) sim.Time {
	if v == 0 {
		return 0
	}
	return sim.Time(4096) << v
}

// nakSeqErr marks a PSN sequence error NAK (never a completion status).
const nakSeqErr WCStatus = 255

// rnrTable is the IB encoding of min_rnr_timer, in nanoseconds (0 = 655.36ms).
var rnrTable = [32]sim.Time{
	655360000, 10000, 20000, 30000, 40000, 60000, 80000, 120000, 160000, 240000,
	320000, 480000, 640000, 960000, 1280000, 1920000, 2560000, 3840000, 5120000, 7680000,
	10240000, 15360000, 20480000, 30720000, 40960000, 61440000, 81920000, 122880000, 163840000, 245760000,
	327680000, 491520000,
}

// RNRDelay returns the receiver-not-ready wait encoded by a min_rnr_timer code.
func RNRDelay(code uint8) sim.Time { return rnrTable[code&31] }

// hasWork reports whether the QP has a chunk to put on the wire: a READ response (in RTR,
// RTS or SQD) or, in RTS and not waiting out an RNR NAK, the next chunk of its send queue.
// In SQD only a partly sent message is finished.
func (qp *QP) hasWork() bool {
	return qp.hca.alive() && qp.hasWorkAlive()
}

// hasWorkAlive is hasWork for a QP whose HCA is known to be alive: the port's round robin
// (pull) runs only for a live HCA's port (tryStart tests the lane's copy, srcDead), and
// every QP in a port's ring is on that port's HCA, so it need not load the HCA again.
func (qp *QP) hasWorkAlive() bool {
	if qp.respQueued && (qp.state == QPRTR || qp.state == QPRTS || qp.state == QPSQD) {
		return true
	}
	if qp.paused || qp.sqNext == qp.sqPosted || (qp.curChunk == 0 && qp.readBlocked()) {
		return false
	}
	return qp.state == QPRTS || (qp.state == QPSQD && qp.curChunk > 0)
}

func (qp *QP) chunkBytes() uint32 { return qp.mtu * uint32(qp.f.cfg.ChunkPackets) }

// quantum is the QP's deficit-round-robin credit per turn: the wire size of its largest
// chunk, so every turn sends at least one chunk.
func (qp *QP) quantum() uint32 {
	return qp.chunkBytes() + uint32(qp.f.cfg.ChunkPackets)*pktHeader + rethBytes
}

// peekWire returns the wire size of the chunk fill would produce next (hasWork is true).
func (qp *QP) peekWire() uint32 {
	if qp.respQueued && (qp.state == QPRTR || qp.state == QPRTS || qp.state == QPSQD) {
		r := &qp.resp[qp.respHead]
		_, _, wire := qp.sizes(r.len, qp.respNext, 1, aethBytes)
		return wire
	}
	w := &qp.sq[qp.sqNext%uint32(len(qp.sq))]
	extra := uint32(0)
	switch w.wr.Op {
	case OpRead:
		return readReqWir
	case OpWrite:
		extra = rethBytes
	}
	_, _, wire := qp.sizes(uint32(w.wr.Len), qp.curChunk, 1, extra)
	return wire
}

// leaveRing takes the QP off its port's round robin (it has nothing to send).
func (qp *QP) leaveRing() { qp.inRing, qp.inTurn, qp.deficit = false, false, 0 }

// shape fills a data chunk's sizes for fine chunks idx .. idx+ch.span-1 of an n-byte
// message (a coarse chunk is exactly its fine chunks put together: the same bytes, packets
// and wire bytes).
func (qp *QP) shape(ch *chunk, msgLen, idx uint32, extra uint32) {
	cb := qp.chunkBytes()
	ch.n = (msgLen + cb - 1) / cb
	if ch.n == 0 {
		ch.n = 1
	}
	ch.idx, ch.fine = idx, cb
	b, np, wire := qp.sizes(msgLen, idx, uint32(ch.span), extra)
	ch.bytes, ch.npkt, ch.wire = b, uint16(np), wire
	ch.msgLen = msgLen
}

// sizes returns the payload bytes, packets and wire bytes of fine chunks idx ..
// idx+span-1 of an msgLen-byte message whose first chunk carries extra header bytes.
func (qp *QP) sizes(msgLen, idx, span, extra uint32) (b, np, wire uint32) {
	cb := qp.chunkBytes()
	b = msgLen - idx*cb
	if b > cb*span {
		b = cb * span
	}
	np = (b + qp.mtu - 1) / qp.mtu
	if np == 0 {
		np = 1
	}
	wire = b + np*pktHeader
	if idx == 0 {
		wire += extra
	}
	return b, np, wire
}

// fill writes the QP's next chunk into chunk c (hasWork must be true) and returns its wire
// size. READ responses go before new requests, as a responder's resources are served first.
func (qp *QP) fill(c int32) uint32 {
	f := qp.f
	ch := &f.chunks[c]
	ch.src, ch.dst = int32(qp.port.idx), int32(qp.attr.DestLID)-1 // the remote port's index, without loading it
	ch.srcQP, ch.dstQP = qp.num, qp.attr.DestQPN
	if qp.respQueued && (qp.state == QPRTR || qp.state == QPRTS || qp.state == QPSQD) {
		r := &qp.resp[qp.respHead]
		ch.kind, ch.op, ch.msn = ckReadResp, OpRead, r.msn
		qp.shape(ch, r.len, qp.respNext, aethBytes)
		qp.respNext += uint32(ch.span)
		if qp.respNext == ch.n {
			qp.respNext = 0
			qp.respHead++
			if qp.respHead == len(qp.resp) {
				qp.resp, qp.respHead, qp.respQueued = qp.resp[:0], 0, false
			}
		}
		return ch.wire
	}
	w := &qp.sq[qp.sqNext%uint32(len(qp.sq))]
	ch.op, ch.msn = w.wr.Op, qp.sqNext
	ch.rkey, ch.raddr = w.wr.RKey, w.wr.RemoteAddr
	switch w.wr.Op {
	case OpRead:
		ch.kind, ch.n, ch.idx, ch.npkt, ch.wire, ch.msgLen = ckReadReq, 1, 0, 1, readReqWir, uint32(w.wr.Len)
		w.readDone = false
		qp.curChunk = 1
		qp.rdPeak = max(qp.rdPeak, qp.readsInFlight()+1) // this one is not yet in the count
	case OpWrite:
		ch.kind = ckData
		qp.shape(ch, uint32(w.wr.Len), qp.curChunk, rethBytes)
		qp.curChunk += uint32(ch.span)
	default:
		ch.kind = ckData
		qp.shape(ch, uint32(w.wr.Len), qp.curChunk, 0)
		qp.curChunk += uint32(ch.span)
	}
	if before(qp.sqSent, ch.msn+1) { // sqSent: one past the last message started on the wire
		qp.sqSent = ch.msn + 1
	}
	if qp.curChunk == ch.n {
		qp.curChunk = 0
		qp.sqNext++
	}
	if qp.ackDue == 0 {
		qp.startAck()
	}
	return ch.wire
}

// ctrl queues an ACK (kind ckAck) or NAK (ckNak with status) for message msn to the peer.
func (qp *QP) ctrl(kind uint8, msn uint32, status WCStatus) { qp.ctrlAt(kind, msn, 0, status) }

// ctrlAt is ctrl with a chunk index (where a sequence error NAK asks to resume).
func (qp *QP) ctrlAt(kind uint8, msn, idx uint32, status WCStatus) {
	f := qp.f
	c := f.newChunk()
	ch := &f.chunks[c]
	ch.kind, ch.msn, ch.nak, ch.rnrTimer = kind, msn, status, qp.attr.MinRNRTimer
	ch.src, ch.dst, ch.srcQP, ch.dstQP = int32(qp.port.idx), int32(qp.attr.DestLID)-1, qp.num, qp.attr.DestQPN
	ch.n, ch.npkt, ch.wire, ch.idx = 1, 1, ackWire, idx
	f.sendCtrl(qp.port, c)
}

// deliver hands a chunk that reached the port with LID lid to its destination QP (compared
// with the QP's copy of its port's LID, so no Port is loaded). Packets for unknown QPs,
// QPs of another connection and QPs not in RTR/RTS/SQD are silently dropped.
func (f *Fabric) deliver(lid uint32, ch *chunk) {
	qi := int(ch.dstQP) - 1
	if qi < 0 || qi >= len(f.qps) {
		return
	}
	qp := f.qps[qi]
	if qp == nil || qp.lid != lid || qp.destQPN != ch.srcQP {
		return
	}
	switch qp.state {
	case QPRTR:
		qp.commEst()
	case QPRTS, QPSQD:
	default:
		return
	}
	switch ch.kind {
	case ckData:
		qp.rxData(ch)
	case ckReadReq:
		qp.rxReadReq(ch)
	case ckReadResp:
		qp.rxReadResp(ch)
	case ckAck:
		qp.rxAck(ch.msn)
	case ckNak:
		qp.rxNak(ch)
	}
}

// rxData is the responder's handling of SEND and RDMA_WRITE chunks: messages are accepted
// in order only; a duplicate's last chunk is re-acknowledged; a gap (lost chunk) is
// answered once with a sequence error NAK, so the requester goes back at once instead of
// waiting for its ACK timeout; a SEND finding the receive
// queue empty is refused with an RNR NAK; a WRITE to a bad rkey or range gets a remote
// access NAK; a SEND longer than its receive buffer completes the receive with LOC_LEN_ERR,
// NAKs the requester and moves the responder to ERR.
func (qp *QP) rxData(ch *chunk) {
	if ch.msn != qp.rxExpect {
		if before(ch.msn, qp.rxExpect) {
			if ch.idx+uint32(ch.span) == ch.n {
				qp.ctrl(ckAck, qp.rxExpect-1, WCSuccess)
			}
			return
		}
		qp.seqNak() // a whole message is missing
		return
	}
	if ch.idx == 0 {
		qp.rxChunk, qp.nakked = 0, false
		switch ch.op {
		case OpSend:
			if !qp.rxHave {
				if qp.rqDone == qp.rqPosted {
					qp.refuse(ch.msn, WCRNRRetryExcErr)
					return
				}
				qp.rxHave = true
			}
		case OpWrite:
			if !qp.f.access(qp.hca, ch.rkey, ch.raddr, ch.msgLen, AccessRemoteWrite) {
				qp.refuse(ch.msn, WCRemAccessErr)
				return
			}
		}
	}
	if int32(ch.idx) != qp.rxChunk { // a message has fewer than 2^24 chunks (MTU 256 or more)
		qp.seqNak() // part of this message is missing
		return
	}
	qp.nakked = false
	qp.rxChunk += int32(ch.span)
	if ch.idx+uint32(ch.span) != ch.n {
		return
	}
	qp.rxChunk = -1
	if ch.op == OpSend {
		w := qp.popRecv()
		qp.rxHave = false
		if int(ch.msgLen) > w.Len {
			qp.complete(qp.init.RecvCQ, WC{WRID: w.ID, Status: WCLocLenErr, Opcode: WCRecv, QPNum: qp.num, SrcQP: ch.srcQP})
			qp.ctrl(ckNak, ch.msn, WCRemInvReqErr)
			qp.toErr()
			return
		}
		if !qp.complete(qp.init.RecvCQ, WC{WRID: w.ID, Status: WCSuccess, Opcode: WCRecv, ByteLen: int(ch.msgLen), QPNum: qp.num, SrcQP: ch.srcQP}) {
			return // the receive CQ overran: the QP failed, nothing is acknowledged
		}
	}
	qp.rxExpect++
	qp.ctrl(ckAck, ch.msn, WCSuccess)
}

// refuse NAKs message rxExpect with status and ignores the rest of it until the requester
// starts it again.
func (qp *QP) refuse(msn uint32, status WCStatus) {
	qp.rxChunk, qp.nakked = -1, true
	qp.ctrl(ckNak, msn, status)
}

// seqNak answers a gap in the request stream with one PSN sequence error NAK naming the
// first chunk missing (of message rxExpect); further out-of-sequence chunks are dropped
// silently until the requester resends that chunk.
func (qp *QP) seqNak() {
	if qp.nakked {
		return
	}
	qp.nakked = true
	idx := uint32(0)
	if qp.rxChunk > 0 {
		idx = uint32(qp.rxChunk)
	}
	qp.ctrlAt(ckNak, qp.rxExpect, idx, nakSeqErr)
}

// rxAck records a cumulative acknowledgement of every message up to msn.
func (qp *QP) rxAck(msn uint32) {
	if before(msn, qp.sqDone) || !before(msn, qp.sqSent) {
		return
	}
	if before(qp.ackedTo, msn+1) {
		qp.ackedTo = msn + 1
	}
	qp.progress()
}

// rxNak handles a NAK for message msn: messages before it are acknowledged; an RNR NAK
// rewinds to msn and waits min_rnr_timer (retrying up to rnr_retry times, forever if 7);
// an error NAK completes the WR with that error and moves the QP to ERR.
func (qp *QP) rxNak(ch *chunk) {
	if before(ch.msn, qp.sqDone) || !before(ch.msn, qp.sqSent) || qp.paused {
		return
	}
	if before(qp.ackedTo, ch.msn) {
		qp.ackedTo = ch.msn
	}
	qp.progress()
	if qp.state == QPErr {
		return
	}
	if ch.msn != qp.sqDone {
		qp.holdNak(ch)
		return
	}
	switch ch.nak {
	case WCRNRRetryExcErr:
	case nakSeqErr:
		qp.retryAt(ch.idx)
		return
	default:
		qp.fail(ch.nak)
		return
	}
	if qp.attr.RNRRetry != 7 {
		if qp.rnrLeft == 0 {
			qp.fail(WCRNRRetryExcErr)
			return
		}
		qp.rnrLeft--
	}
	qp.rewind()
	qp.paused = true
	qp.ackDue = 0
	qp.f.k.ArmAfter(&qp.rnrTimer, RNRDelay(ch.rnrTimer))
}

func (qp *QP) rnrResume() {
	qp.paused = false
	qp.schedule()
}

// rewind restarts transmission at the oldest unacknowledged message (go-back-N).
func (qp *QP) rewind() {
	qp.sqNext, qp.curChunk, qp.rdChunk = qp.sqDone, 0, -1
}

// progress completes, in order, every message acknowledged so far (a READ only once its
// response has arrived), resets the retry counters on progress and re-arms or stops the
// ACK timer.
func (qp *QP) progress() {
	moved := false
	for qp.sqDone != qp.sqSent {
		if qp.heldNakDue() {
			return
		}
		w := &qp.sq[qp.sqDone%uint32(len(qp.sq))]
		if w.wr.Op == OpRead {
			if !w.readDone {
				break
			}
		} else if !before(qp.sqDone, qp.ackedTo) {
			break
		}
		qp.sqDone++
		moved = true
		if w.wr.Signaled {
			qp.sqFreed = qp.sqDone
			qp.complete(qp.init.SendCQ, WC{WRID: w.wr.ID, Status: WCSuccess, Opcode: wcOp(w.wr.Op), ByteLen: w.wr.Len, QPNum: qp.num})
		}
		if qp.state == QPErr { // the CQ push may have failed the QP
			return
		}
	}
	if !moved {
		return
	}
	if before(qp.sqNext, qp.sqDone) {
		qp.sqNext, qp.curChunk = qp.sqDone, 0
	}
	qp.retryLeft, qp.rnrLeft = qp.attr.RetryCnt, qp.attr.RNRRetry
	if qp.sqDone == qp.sqSent {
		qp.ackDue = 0
		qp.checkDrained()
	} else {
		qp.startAck()
	}
}

// ackTimeout is the local ACK timer expiring: retransmit from the oldest unacknowledged
// message, or, once retry_cnt retries are used up, complete it with RETRY_EXC_ERR and move
// the QP to ERR (flushing the rest).
func (qp *QP) ackTimeout() {
	if qp.ackDue == 0 {
		return
	}
	if now := qp.f.k.Now(); now < qp.ackDue { // restarted since this firing was scheduled
		qp.f.k.Arm(&qp.ackTimer, qp.ackDue)
		return
	}
	qp.ackDue = 0
	if qp.sqDone == qp.sqSent || qp.paused || qp.state == QPErr {
		return
	}
	qp.retry()
}

// startAck (re)starts the local ACK timer from now. Restarting does not move the pending
// kernel event: a firing before the new deadline re-arms itself, so the per-ACK restart
// costs no cancel and no schedule.
func (qp *QP) startAck() {
	to := AckTimeout(qp.attr.Timeout)
	if to == 0 {
		return
	}
	qp.ackDue = qp.f.k.Now() + to
	if !qp.f.k.Armed(&qp.ackTimer) {
		qp.f.k.Arm(&qp.ackTimer, qp.ackDue)
	}
}

// retry spends one of retry_cnt retries going back to the oldest unacknowledged message
// (after an ACK timeout or a sequence error NAK), or fails it with RETRY_EXC_ERR.
func (qp *QP) retry() { qp.retryAt(0) }

// retryAt is retry resuming the oldest unacknowledged message at chunk idx (what a PSN
// sequence error NAK asks for); a READ is always requested again whole.
func (qp *QP) retryAt(idx uint32) {
	if qp.retryLeft == 0 {
		qp.fail(WCRetryExcErr)
		return
	}
	qp.retryLeft--
	qp.rewind()
	if w := &qp.sq[qp.sqDone%uint32(len(qp.sq))]; w.wr.Op != OpRead {
		qp.curChunk = idx
	}
	qp.startAck()
	qp.schedule()
}

// fail completes the oldest outstanding send WR with status and moves the QP to ERR.
func (qp *QP) fail(status WCStatus) {
	w := &qp.sq[qp.sqDone%uint32(len(qp.sq))]
	qp.sqDone++
	qp.sqFreed = qp.sqDone
	qp.complete(qp.init.SendCQ, WC{WRID: w.wr.ID, Status: status, Opcode: wcOp(w.wr.Op), QPNum: qp.num})
	qp.toErr()
}

// commEst handles the first packet reaching a QP in RTR: IBV_EVENT_COMM_EST is raised
// and, if the QP belongs to a CM id still waiting for the RTU, the CM completes the
// connection as rdma_notify would (the QP moves to RTS, ESTABLISHED is delivered).
func (qp *QP) commEst() {
	if qp.commEstSent {
		return
	}
	qp.commEstSent = true
	qp.f.async(AsyncEvent{Type: EventCommEst, HCA: qp.hca, QP: qp})
	if id := qp.cmid; id != nil && id.state == cmAccepting {
		id.f.defer_(0, pending{op: pCMMsg, msg: cmMsg{typ: mRTU, from: id.peer, to: id.idx, src: id.dstPort, dst: id.port, local: true}})
	}
}
