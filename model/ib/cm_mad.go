package ib

import "net/netip"

// cmMsg is a CM MAD in flight (IB CM REQ, REP, RTU, REJ, DREQ, DREP). MADs travel as timed
// messages, not as chunks: at sending, madFate walks the route (a lane down, or a loss or
// corruption draw, loses the MAD; link_delay and the lanes' backlog add to CMTiming.MAD); on
// arrival the MAD is lost again if the path went down meanwhile or either HCA died.
type cmMsg struct {
	typ      uint8
	from, to int32 // sender's id; receiver's id (-1 for a REQ: the listener is looked up)
	src, dst *Port
	addr     netip.AddrPort // REQ: destination address (service port)
	srcAddr  netip.AddrPort // REQ: source address
	priv     []byte
	reason   RejectReason
	qpn      uint32
	retry    uint8
	rdRes    uint8 // REQ/REP: the sender's responder_resources
	rdInit   uint8 // REQ/REP: the sender's initiator_depth
	local    bool  // generated inside the receiving node (COMM_EST), never lost
}

const (
	mREQ = iota
	mREP
	mRTU
	mREJ
	mDREQ
	mDREP
)

func (f *Fabric) sendMAD(m cmMsg) {
	if m.src == nil || m.dst == nil {
		return
	}
	extra, ok := f.madFate(m.src, m.dst)
	if !ok {
		f.mgmt.lost++
		return
	}
	f.defer_(f.cfg.CM.MAD+extra, pending{op: pCMMsg, msg: m})
}

func (f *Fabric) madLost(m cmMsg) bool {
	if !m.src.hca.alive() || !m.dst.hca.alive() {
		return true
	}
	if m.src.hca.node == m.dst.hca.node {
		return false
	}
	return !f.pathUp(m.src, m.dst)
}

func (f *Fabric) idAt(i int32) *CMID {
	if i < 0 || int(i) >= len(f.cmids) {
		return nil
	}
	return f.cmids[i]
}

// cmReceive is the CM state machine's handling of an arriving MAD.
func (f *Fabric) cmReceive(m cmMsg) {
	if !m.local && f.madLost(m) {
		f.mgmt.lost++
		return
	}
	if m.typ == mREQ {
		f.cmREQ(m)
		return
	}
	id := f.idAt(m.to)
	if id == nil || id.peer >= 0 && id.peer != m.from && m.typ != mREP {
		if m.typ == mDREQ { // nothing to disconnect: answer so the peer need not time out
			f.sendMAD(cmMsg{typ: mDREP, from: -1, to: m.from, src: m.dst, dst: m.src})
		}
		return
	}
	switch m.typ {
	case mREP:
		if id.state != cmConnecting {
			if id.state != cmEstablished || id.peer != m.from {
				// The active side gave up: refuse the late REP.
				f.sendMAD(cmMsg{typ: mREJ, from: id.idx, to: m.from, src: m.dst, dst: m.src, reason: RejTimeout})
			} else {
				f.sendMAD(cmMsg{typ: mRTU, from: id.idx, to: m.from, src: m.dst, dst: m.src})
			}
			return
		}
		f.k.Disarm(&id.timer)
		id.peer, id.peerQPN = m.from, m.qpn
		id.peerRes, id.peerInit = m.rdRes, m.rdInit
		if id.qp == nil || id.qp.Modify(QPRTR, id.rtrAttr()) != nil || id.qp.Modify(QPRTS, id.rtsAttr()) != nil {
			id.setState(cmFailed)
			f.sendMAD(cmMsg{typ: mREJ, from: id.idx, to: m.from, src: m.dst, dst: m.src, reason: RejNoQP})
			id.event(CMConnectError, ECONNRESET, nil)
			return
		}
		id.setState(cmEstablished)
		id.reqPriv = nil // never resent now
		f.sendMAD(cmMsg{typ: mRTU, from: id.idx, to: m.from, src: m.dst, dst: m.src})
		id.event(CMEstablished, 0, m.priv)
	case mRTU:
		if id.state != cmAccepting {
			return
		}
		f.k.Disarm(&id.timer)
		if id.qp == nil || id.qp.Modify(QPRTS, id.rtsAttr()) != nil {
			id.setState(cmFailed)
			id.event(CMConnectError, ECONNRESET, nil)
			return
		}
		id.setState(cmEstablished)
		id.param.PrivateData = nil // the REP is never resent now
		id.event(CMEstablished, 0, nil)
	case mREJ:
		switch id.state {
		case cmConnecting, cmAccepting:
			f.k.Disarm(&id.timer)
			was := id.state
			id.setState(cmFailed)
			if id.qp != nil && was == cmAccepting {
				id.qp.toErr()
			}
			id.deliver(CMEvent{Type: CMRejected, ID: id, Status: int(m.reason), PrivateData: m.priv})
		}
	case mDREQ:
		f.sendMAD(cmMsg{typ: mDREP, from: id.idx, to: m.from, src: m.dst, dst: m.src})
		switch id.state {
		case cmEstablished, cmAccepting, cmDisconnecting:
			if id.qp != nil && id.qp.state != QPErr {
				id.qp.toErr()
			}
			id.disconnected()
		}
	case mDREP:
		if id.state == cmDisconnecting {
			id.disconnected()
		}
	}
}

// cmREQ handles a connection request at the passive node: injected faults first, then
// duplicate detection, then the listener lookup (no listener: REJ INVALID_SERVICE_ID), then
// a new id in CONNECT_REQUEST state and the event on the listener's handler.
func (f *Fabric) cmREQ(m cmMsg) {
	ip := m.addr.Addr()
	for i := range f.cmFaults {
		cf := &f.cmFaults[i]
		if cf.ip != ip || cf.count == 0 {
			continue
		}
		if cf.count > 0 {
			cf.count--
		}
		if cf.noResponse {
			return
		}
		f.sendMAD(cmMsg{typ: mREJ, from: -1, to: m.from, src: m.dst, dst: m.src, reason: cf.reason, priv: cf.priv})
		return
	}
	if m.dst.hca.node.crashed {
		return
	}
	if i := f.passiveOf(m.from); i >= 0 { // a resent REQ: answer again from the existing passive id
		if id := f.cmids[i]; id != nil && id.state == cmAccepting {
			id.sendREP()
		}
		return
	}
	var lis *CMID
	for _, l := range m.dst.hca.node.listeners {
		if l.state == cmListen && l.local.Port() == m.addr.Port() && (l.port == nil || l.port == m.dst) {
			lis = l
			break
		}
	}
	if lis == nil {
		f.sendMAD(cmMsg{typ: mREJ, from: -1, to: m.from, src: m.dst, dst: m.src, reason: RejInvalidServiceID})
		return
	}
	id := lis.node.CreateID(lis.h)
	id.passive = true
	f.setPassive(m.from, id.idx)
	id.setState(cmConnectReq)
	id.port, id.dstPort = m.dst, m.src
	id.local, id.remote = m.addr, m.srcAddr
	id.peer, id.peerQPN = m.from, m.qpn
	id.param.RetryCount = m.retry
	id.peerRes, id.peerInit = m.rdRes, m.rdInit
	id.Context = lis.Context
	id.deliver(CMEvent{Type: CMConnectRequest, ID: id, Listen: lis, PrivateData: m.priv})
}
