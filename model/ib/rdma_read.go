package ib

// This file is RDMA READ on RC QPs: the requester's initiator depth (max_rd_atomic), the
// responder's resources (max_dest_rd_atomic), both negotiated by the CM, the responder
// streaming the response on its own outbound link, and the requester reassembling it.
//
// Ordering: the send queue is issued in order. A READ that finds the initiator depth used
// up waits, and every WR posted after it waits behind it (nothing overtakes a WQE in the
// send queue). A WR behind a READ already issued is not held for its response: without
// IBV_SEND_FENCE (not modelled) an HCA may start it at once, and the model does.

// readsInFlight counts the READs issued and not yet answered: those of the send queue
// between the oldest incomplete WR and the next to issue whose response is still due.
func (qp *QP) readsInFlight() int {
	n := 0
	for c := qp.sqDone; c != qp.sqNext; c++ {
		if w := &qp.sq[c%uint32(len(qp.sq))]; w.wr.Op == OpRead && !w.readDone {
			n++
		}
	}
	return n
}

// readBlocked reports whether the next WR to issue is a READ that the initiator depth
// holds back (the HCA's max_rd_atomic check before it sends a READ request).
func (qp *QP) readBlocked() bool {
	if qp.curChunk != 0 {
		return false
	}
	w := &qp.sq[qp.sqNext%uint32(len(qp.sq))]
	return w.wr.Op == OpRead && qp.readsInFlight() >= int(qp.attr.MaxRdAtomic)
}

// respHeld counts the READ requests the responder holds: answered in part or not yet.
func (qp *QP) respHeld() int { return len(qp.resp) - qp.respHead }

// rxReadReq is the responder's handling of an RDMA READ request: checked against the
// rkey, then answered with response chunks (a duplicate request is answered again). A new
// request beyond the responder resources (max_dest_rd_atomic) is refused with an invalid
// request NAK, as IB requires of a responder whose requester exceeds the negotiated
// number; a correctly negotiated requester never does.
func (qp *QP) rxReadReq(ch *chunk) {
	if before(qp.rxExpect, ch.msn) {
		qp.seqNak()
		return
	}
	if ch.msn == qp.rxExpect {
		qp.nakked = false
		if !qp.f.access(qp.hca, ch.rkey, ch.raddr, ch.msgLen, AccessRemoteRead) {
			qp.refuse(ch.msn, WCRemAccessErr)
			return
		}
		if qp.respHeld() >= int(qp.attr.MaxDestRdAtomic) {
			qp.refuse(ch.msn, WCRemInvReqErr)
			return
		}
		qp.rxExpect++
		qp.rxChunk = -1
	}
	cb := qp.chunkBytes()
	n := (ch.msgLen + cb - 1) / cb
	if n == 0 {
		n = 1
	}
	qp.resp, qp.respQueued = append(qp.resp, readResp{msn: ch.msn, len: ch.msgLen, n: n}), true
	qp.respPeak = max(qp.respPeak, qp.respHeld())
	qp.f.enqueue(qp)
}

// rxReadResp reassembles an RDMA READ response in order; its last chunk completes the READ
// (which implicitly acknowledges every earlier message) and frees its initiator depth
// slot, so a READ waiting for one may go.
func (qp *QP) rxReadResp(ch *chunk) {
	if before(ch.msn, qp.sqDone) || !before(ch.msn, qp.sqSent) {
		return
	}
	if ch.idx == 0 {
		qp.rdMsn, qp.rdChunk, qp.rdGap = ch.msn, 0, false
	}
	if ch.msn != qp.rdMsn || int64(ch.idx) != qp.rdChunk {
		// A response chunk of the oldest outstanding READ went missing: re-read at once,
		// once per gap (the rest of the broken response is ignored).
		if !qp.rdGap && (qp.rdChunk >= 0 || ch.msn == qp.sqDone) {
			qp.rdGap, qp.rdChunk = true, -1
			qp.retry()
		}
		return
	}
	qp.rdChunk += int64(ch.span)
	if ch.idx+uint32(ch.span) != ch.n {
		return
	}
	qp.rdChunk = -1
	qp.sq[ch.msn%uint32(len(qp.sq))].readDone = true
	if before(qp.ackedTo, ch.msn) {
		qp.ackedTo = ch.msn
	}
	qp.progress()
	qp.schedule()
}

// rdLimit is one side's READ limit as the CM negotiates it: the smaller of this side's
// offer and the peer's matching offer, capped by the local device's limit.
func rdLimit(own, peer uint8, device int) uint8 {
	return uint8(min(int(own), int(peer), device))
}

// holdNak keeps an error NAK for a message that is not the oldest outstanding: messages
// before it wait for READ responses (a SEND or WRITE before it is acknowledged by the NAK
// itself). When those complete, the NAKed message fails as if the NAK came then.
func (qp *QP) holdNak(ch *chunk) {
	if ch.nak == nakSeqErr || ch.nak == WCRNRRetryExcErr {
		return
	}
	if qp.heldStatus == WCSuccess || before(ch.msn, qp.heldMsn) {
		qp.heldMsn, qp.heldStatus = ch.msn, ch.nak
	}
}

// heldNakDue fails the oldest outstanding message with its held NAK's status, if it has
// one, and reports whether it did.
func (qp *QP) heldNakDue() bool {
	if qp.heldStatus == WCSuccess || qp.sqDone != qp.heldMsn {
		return false
	}
	st := qp.heldStatus
	qp.heldStatus = WCSuccess
	qp.fail(st)
	return true
}
