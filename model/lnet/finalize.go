package lnet

// Finalize is lnet_finalize, the LND's completion call for a message it was given by Send or
// Recv: status is 0 or a negative errno, hstatus the health status (OK iff status == 0; a
// mismatched pair finalizes without health change or resend, as in the kernel).
func (n *Node) Finalize(m *Msg, status int, hstatus HStatus) {
	if m == nil {
		return
	}
	m.HStatus = hstatus
	n.finalize(m, status)
}

// finalize models lnet_finalize + lnet_complete_msg_locked: run the health check (which may
// queue a resend and keep the message), deliver the MD event, forward a routed message
// received into a router buffer, send a pending ACK with the same message, otherwise
// decommit (credits, stats) and free.
func (n *Node) finalize(m *Msg, status int) {
	m.status = int32(status)
	if n.isHealthCheck(m) && n.healthCheck(m) {
		return // queued for resend
	}
	if m.md != nil {
		n.deliverEvent(m, status)
	}
	if status == 0 && m.routing && !m.forwarded {
		// A routed message whose payload is in the router buffer: forward it on the next
		// net, with its own selection and credits (lnet_complete_msg_locked).
		m.forwarded = true
		rc := n.send(AnyNID, m, AnyNID)
		if rc == 0 {
			return
		}
		n.forwardFailed(m, rc)
		n.completeMsgCounted(m, 0, rc)
		return
	}
	if status == 0 && m.ackPending {
		// The PUT becomes its ACK (lnet_complete_msg_locked): from the NID the PUT was
		// addressed to, back through the hop it came from.
		m.ackPending = false
		n.traceDone(m, 0, true)
		n.decommitRx(m, 0)
		n.decommitTx(m, 0)
		if n.sendAck(m) == 0 {
			return
		}
		status = int(m.status)
	}
	n.completeMsg(m, status)
}

// sendAck turns a received PUT into its ACK and sends it (lnet_complete_msg_locked's ACK
// branch). It returns lnet_send's result.
func (n *Node) sendAck(m *Msg) int {
	rxni := m.rxNI
	h := &m.Hdr
	wmd, mbits, mlen := h.WMD, h.MatchBits, m.ev.mlen
	*h = Header{Type: MsgACK, Dst: m.ev.initiator, SrcPID: LNET_PID_LUSTRE, DstPID: h.SrcPID,
		WMD: wmd, MatchBits: mbits, MLength: mlen}
	m.isResponse = true
	m.HStatus = LNET_MSG_STATUS_OK
	m.start = n.k.Now()
	m.evType = 0
	n.nextMsgID++
	m.id = n.nextMsgID
	rc := n.send(rxni.nid, m, m.from)
	if rc != 0 {
		m.status = int32(rc)
	}
	return rc
}

// completeMsg decommits and frees the message, telling the tracer. The REPLY to an optimized
// GET (rdmaReq) is never committed for sending, but it is the data this node sent: the
// tracer sees it as sent, as lnet_msg_decommit_rx counts its bytes in send_length.
func (n *Node) completeMsg(m *Msg, status int) { n.completeMsgCounted(m, status, status) }

// completeMsgCounted is completeMsg with the status the statistics count (lnet_msg_decommit's)
// apart from the one the message ends with.
func (n *Node) completeMsgCounted(m *Msg, counted, status int) {
	rx := m.rxCommitted && !m.txCommitted && !(m.rdmaReq && m.isResponse)
	n.decommitTx(m, counted)
	n.decommitRx(m, counted)
	m.onActive = false
	n.traceDone(m, status, rx)
	n.freeMsg(m)
}

// traceDone reports a finished message to the tracer.
func (n *Node) traceDone(m *Msg, status int, rx bool) {
	if n.tracer == nil {
		return
	}
	n.done = MsgRecord{ID: m.id, Node: n.name, Type: m.Hdr.Type, Src: m.Hdr.Src,
		Dst: m.Hdr.Dst, Size: m.Hdr.PayloadLength, Start: m.start, End: n.k.Now(),
		Status: status, HStatus: m.HStatus, Resends: int(m.retries), Received: rx}
	n.tracer.MsgDone(&n.done)
}

// deliverEvent builds the message's event and detaches it from its MD (lnet_msg_detach_md).
func (n *Node) deliverEvent(m *Msg, status int) {
	md := m.md
	if m.evType == 0 || md.spec.Handler == nil {
		n.detachMD(m, nil, status)
		return
	}
	ev := n.newEvent(m.evType, md)
	ev.Status = status
	ev.MsgType = m.Hdr.Type
	switch m.evType {
	case EventSEND:
		ev.Initiator = m.Hdr.Src
		ev.Target = m.Hdr.Dst
		ev.Sender = m.Hdr.Src
		ev.Portal = m.Hdr.Portal
		ev.MatchBits = m.Hdr.MatchBits
		ev.RLength = m.Hdr.PayloadLength
		ev.MLength = m.Hdr.PayloadLength
		ev.Offset = m.Hdr.Offset
		ev.HdrData = m.Hdr.HdrData
	default:
		e := &m.ev
		ev.Initiator = e.initiator
		ev.Target = e.target
		ev.Sender = e.sender
		ev.Portal = e.portal
		ev.MatchBits = e.matchBits
		ev.RLength = e.rlen
		ev.MLength = e.mlen
		ev.Offset = e.offset
		ev.HdrData = e.hdrData
		ev.Data = e.data
	}
	n.detachMD(m, ev, status)
}
