package lnet

import (
	"errors"

	"github.com/lnetsim/lnetsim/sim"
)

// ErrProto is the only error Parse returns: a malformed message (bad type or payload
// length), which the LND treats as a protocol error (o2ib closes the connection). Every other
// message LNet refuses is dropped as lnet_drop_message does: counted, and the LND told to
// receive nothing with Recv(ni, private, nil, ...).
var ErrProto = errors.New("lnet: malformed message")

// Parse is lnet_parse, the LND's entry point for every LNet message that arrives on ni from
// the previous hop fromNID (whose LNet header is hdr, copied). private is the LND's handle
// for the receive; rdmaReq is true for o2ib PUT_REQ/GET_REQ. On success LNet will call the
// LND's Recv exactly once for this private (possibly later, e.g. after a delay rule or a wait
// for router buffers; with a nil message to discard it, e.g. a message not for this node on
// a node that does not route, or one arriving after shutdown). On error (ErrProto only) LNet
// has not called and will not call Recv: the LND must drop the message itself.
//
// Order, as the kernel has it: validate sizes; a message for another node is dropped unless
// this node routes (and even then if its destination is on ni's own net or is another local
// NI); apply receive-side drop rules (without a health mask); find or create the sender's
// peer NI and mark it alive and UP; a message that came through a gateway is dropped under
// drop_asym_route if that gateway has no route back to the source net, and revives a gateway
// thought dead (reviveGateway); commit (arms the deadline); apply delay rules; then forward
// (lnet_parse_forward_locked) or parse locally (match, event, ACK/REPLY).
func (n *Node) Parse(ni *NI, hdr *Header, fromNID NID, private any, rdmaReq bool) error {
	switch hdr.Type {
	case MsgACK, MsgGET:
		if hdr.PayloadLength != 0 {
			return ErrProto
		}
	case MsgPUT, MsgREPLY:
		if hdr.PayloadLength > LNET_MTU || hdr.PayloadLength < 0 {
			return ErrProto
		}
	default:
		return ErrProto
	}
	if n.shutdown {
		n.dropMessage(ni, private, hdr.PayloadLength, hdr.Type)
		return nil
	}
	if n.routing {
		switch {
		case n.tun.Profile.NIAliveFromAnyMessage:
			n.niHeard(ni)
		case hdr.Type == MsgGET && hdr.Portal == ReservedPortal && !n.isLocalNID(hdr.Src):
			n.pingHeard(ni)
		}
	}
	forMe := hdr.Dst == ni.nid
	if !forMe && (!n.routing || hdr.Dst.Net() == ni.nid.Net() || n.isLocalNID(hdr.Dst)) {
		n.dropMessage(ni, private, hdr.PayloadLength, hdr.Type)
		return nil
	}
	if len(n.dropRules) > 0 && n.dropOnReceive(hdr, ni.nid) {
		n.dropMessage(ni, private, hdr.PayloadLength, hdr.Type)
		return nil
	}
	m := n.allocMsg()
	m.Hdr = *hdr
	m.start = n.k.Now()
	m.rxNI = ni
	m.from = fromNID
	m.private = private
	lpni := n.nid2peerni(fromNID)
	if hdr.Src.Net() != fromNID.Net() {
		// Came through a gateway (lnet_parse's asymmetric-route handling).
		gw := lpni.peer
		if n.tun.DropAsymRoute && forMe && !n.hasGatewayRouteTo(gw, hdr.Src.Net()) {
			n.freeMsg(m)
			n.rstats.Dropped++
			n.dropMessage(ni, private, hdr.PayloadLength, hdr.Type)
			return nil
		}
		n.reviveGateway(gw, hdr.Src.Net())
	}
	m.rxPeerNI = lpni
	lpni.lastAlive = n.k.Now()
	lpni.heardFrom = true
	if lpni.status != NIStatusUp {
		lpni.status = NIStatusUp
		n.routesChanged()
	}
	m.rxCommitted = true
	m.onActive = true
	m.deadline = n.deadline(ni)
	m.rdmaReq = rdmaReq
	m.routing = !forMe
	if len(n.delayRules) > 0 && !n.failCheck(FailDelayMsgForward) && n.delayOnReceive(m) {
		return nil
	}
	if m.routing {
		n.parseForward(m)
		return nil
	}
	n.parseLocal(m)
	return nil
}

// pingHeard models lnet_parse's handling, on a router, of a ping (a GET on the reserved
// portal whose header source is not one of this node's NIDs, whoever it is for) arriving on
// ni: the first in each whole second of virtual time
// (the kernel's ktime_get_seconds) per net records that second as the net's net_last_alive and
// sets ni's status UP, pushing if that changed it; a later ping in the same second, on this NI
// or another NI of the net, changes nothing. So an NI the monitor marked DOWN stays DOWN until
// a ping in a later second than the net's last, and of two NIs of a net pinged in the same
// second only the first is set UP.
func (n *Node) pingHeard(ni *NI) {
	now := wholeSecond(n.k.Now())
	if ni.net.lastAlive == now {
		return
	}
	ni.net.lastAlive = now
	n.setNIStatus(ni, NIStatusUp)
}

// niHeard models 2.12's lnet_parse on a router (NIAliveFromAnyMessage): any message that
// arrives on ni, whoever it is for and whatever becomes of it, records its whole second as
// ni's ni_last_alive (per NI, not per net), and the first in a later second sets ni's word UP
// if it was DOWN, in place: no new ping target and no push, so peers see it at their next
// ping of this node.
func (n *Node) niHeard(ni *NI) {
	now := wholeSecond(n.k.Now())
	if ni.lastAlive == now {
		return
	}
	ni.lastAlive = now
	if ni.status == NIStatusDown {
		n.editNIStatus(ni, NIStatusUp)
	}
}

// wholeSecond is t truncated to its whole second, as the kernel's ktime_get_seconds sees it.
func wholeSecond(t sim.Time) sim.Time { return t / sim.Second * sim.Second }

// dropMessage models lnet_drop_message: count the drop on the receiving NI and tell the LND to
// receive nothing.
func (n *Node) dropMessage(ni *NI, private any, length int, t MsgType) {
	n.stats.DropCount++
	n.stats.DropLength += uint64(length)
	ni.stats.DropCount++
	ni.stats.DropLength += uint64(length)
	ni.stats.Dropped.inc(t)
	_ = ni.net.lnd.Recv(ni, private, nil, false, 0, 0, 0)
}

// parseLocal models lnet_parse_local: dispatch on the message type.
func (n *Node) parseLocal(m *Msg) {
	var rc int
	switch m.Hdr.Type {
	case MsgPUT:
		rc = n.parsePut(m)
	case MsgGET:
		rc = n.parseGet(m)
	case MsgACK:
		rc = n.parseAck(m)
	case MsgREPLY:
		rc = n.parseReply(m)
	}
	if rc != 0 {
		// free_drop: finalize with the error (no health change: hstatus stays OK), then
		// count the drop and let the LND discard the payload (lnet_drop_message).
		ni, priv, ln, t := m.rxNI, m.private, m.Hdr.PayloadLength, m.Hdr.Type
		n.finalize(m, rc)
		n.dropMessage(ni, priv, ln, t)
	}
}

func (n *Node) setRxEvent(m *Msg, t EventType, mlen int) {
	h := &m.Hdr
	m.evType = t
	m.ev = evInfo{initiator: h.Src, target: h.Dst, sender: m.from, portal: h.Portal,
		matchBits: h.MatchBits, rlen: h.PayloadLength, mlen: mlen, offset: h.Offset,
		hdrData: h.HdrData, data: h.Data}
}

// recv models lnet_ni_recv: hand the receive to the LND; an immediate error finalizes with
// the errno the LND returned (an Errno; -EIO for an error that carries none).
func (n *Node) recv(m *Msg, offset, mlen, rlen int) {
	ni := m.rxNI
	m.rxLen = mlen
	if err := ni.net.lnd.Recv(ni, m.private, m, false, offset, mlen, rlen); err != nil {
		n.finalize(m, errnoOf(err, -EIO))
	}
}

// parsePut models lnet_parse_put: match an ME/MD on the portal; the PUT event fires when the
// receive finalizes, and an ACK follows if one was asked for and the MD allows it.
func (n *Node) parsePut(m *Msg) int {
	md, mlen := n.matchMD(&m.Hdr, MD_OP_PUT)
	if md == nil {
		return -ENOENT
	}
	n.attachMD(m, md)
	n.setRxEvent(m, EventPUT, mlen)
	m.ackPending = !m.Hdr.WMD.IsZero() && md.spec.Options&MD_ACK_DISABLE == 0
	n.recv(m, m.Hdr.Offset, mlen, m.Hdr.PayloadLength)
	return 0
}

// parseGet models lnet_parse_get: match an MD, then turn the same message into the REPLY (from
// the receiving NI, back through the hop it came from). For an rdmaReq GET the LND sends the
// reply data and finalizes; otherwise LNet consumes the GET and sends the REPLY. The GET event
// fires when the REPLY finalizes. Deliberate difference: the rdmaReq REPLY gets the receiving
// NI as header source and one traced hand-off, so traces show who sent a read's data.
func (n *Node) parseGet(m *Msg) int {
	md, mlen := n.matchMD(&m.Hdr, MD_OP_GET)
	if md == nil {
		return -ENOENT
	}
	n.attachMD(m, md)
	h := &m.Hdr
	n.setRxEvent(m, EventGET, mlen)
	m.ev.rlen = h.SinkLen
	n.traceDone(m, 0, true)
	rxni := m.rxNI
	var data any
	if md == n.pingMD {
		data = n.pingBuf
	}
	*h = Header{Type: MsgREPLY, Dst: m.ev.initiator, SrcPID: LNET_PID_LUSTRE, DstPID: h.SrcPID,
		PayloadLength: mlen, WMD: h.WMD, Offset: h.Offset, Data: data}
	m.isResponse = true
	n.nextMsgID++
	m.id = n.nextMsgID
	m.start = n.k.Now()
	if m.rdmaReq {
		// The LND sends the data from the NI the GET came in on to the hop it came from (the
		// kernel leaves this REPLY's header source unset: no LNet header goes on the wire).
		h.Src = rxni.nid
		if n.tracer != nil {
			n.tracer.MsgAttempt(n.name, m.id, 0, n.k.Now(), rxni.nid, m.from)
		}
		n.recv(m, m.ev.offset, mlen, mlen)
		return 0
	}
	_ = rxni.net.lnd.Recv(rxni, m.private, nil, false, 0, 0, 0)
	// The LND has released its private: the REPLY is a fresh send (Send gets a nil private).
	m.private = nil
	if rc := n.send(rxni.nid, m, m.from); rc != 0 {
		n.finalize(m, rc)
	}
	return 0
}

// parseAck models lnet_parse_ack: find the initiator's MD by the wire handle; a late ACK (MD
// gone) is dropped without any health effect. The response tracker is detached.
func (n *Node) parseAck(m *Msg) int {
	md := n.lookupMD(m.Hdr.WMD.Idx, m.Hdr.WMD.Gen)
	if md == nil || md.unlinked || md.threshold == 0 || md.me != nil {
		return -ENOENT
	}
	n.detachRspTracker(md)
	n.attachMD(m, md)
	n.setRxEvent(m, EventACK, m.Hdr.MLength)
	m.ev.rlen = m.Hdr.MLength
	n.recv(m, 0, 0, 0)
	return 0
}

// parseReply models lnet_parse_reply: find the GET's MD; a late REPLY is dropped. The payload is
// truncated to the MD's length.
func (n *Node) parseReply(m *Msg) int {
	md := n.lookupMD(m.Hdr.WMD.Idx, m.Hdr.WMD.Gen)
	if md == nil || md.unlinked || md.threshold == 0 {
		return -ENOENT
	}
	mlen := m.Hdr.PayloadLength
	if mlen > md.spec.Length {
		if md.spec.Options&MD_TRUNCATE == 0 {
			return -ENOENT
		}
		mlen = md.spec.Length
	}
	n.detachRspTracker(md)
	n.attachMD(m, md)
	n.setRxEvent(m, EventREPLY, mlen)
	n.recv(m, 0, mlen, m.Hdr.PayloadLength)
	return 0
}

// CreateReplyMsg models lnet_create_reply_msg for an LND's optimized GET (o2ib GET_REQ): called
// from Send for the GET, it returns a REPLY message on the initiator, bound to the GET's MD,
// that the LND finalizes (after SetReplyLength) when GET_DONE arrives, after finalizing the GET
// itself. It returns nil if the GET's MD can take no more operations.
func (n *Node) CreateReplyMsg(ni *NI, get *Msg) *Msg {
	md := get.md
	if md == nil || md.threshold == 0 {
		return nil
	}
	m := n.allocMsg()
	m.start = n.k.Now()
	m.Hdr = Header{Type: MsgREPLY, Src: get.Hdr.Dst, Dst: get.Hdr.Src, WMD: get.Hdr.WMD}
	m.rxNI = ni
	m.from = get.target
	m.rxCommitted = true // no rx peer: never health-checked (as in the kernel)
	m.onActive = true
	m.deadline = n.deadline(ni)
	m.Hdr.PayloadLength = md.spec.Length
	n.attachMD(m, md)
	n.setRxEvent(m, EventREPLY, md.spec.Length)
	m.ev.initiator = get.txPeerNI.peer.primary
	return m
}

// SetReplyData records what an optimized GET's RDMA wrote into the MD when it is LNet's own
// content (a ping buffer, Header.Data): the REPLY event carries it, as a parsed REPLY's does.
func (n *Node) SetReplyData(m *Msg, data any) { m.ev.data = data }

// SetReplyLength models lnet_set_reply_msg_len: the bytes an optimized GET's REPLY carried.
func (n *Node) SetReplyLength(m *Msg, length int) {
	m.Hdr.PayloadLength = length
	m.ev.rlen = length
	m.ev.mlen = length
	m.rxLen = length
}
