package o2ib

import (
	"net/netip"

	"github.com/lnetsim/lnetsim/internal/slab"
	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
)

// nidAddr is the IPoIB address of an o2ib NID.
func nidAddr(nid lnet.NID) netip.Addr {
	a := nid.Addr()
	return netip.AddrFrom4([4]byte{byte(a >> 24), byte(a >> 16), byte(a >> 8), byte(a)})
}

// connectPeer models kiblnd_connect_peer: a CM id resolving the peer's IPoIB address from
// this NI's interface (the route and the CONNREQ follow in the CM callback), within
// resolveTimeout.
func (l *LND) connectPeer(p *peer) {
	n := p.net
	id := n.dev.node.CreateID(l)
	id.Context = p
	dst := netip.AddrPortFrom(nidAddr(p.nid), uint16(n.tun.Service))
	l.connEvent(n, p.nid, "connect", 0, 0, 0)
	if err := id.ResolveAddr(n.dev.ip, dst, n.resolveTimeout()); err != nil {
		id.Destroy()
		l.peerConnectFailed(p, true, -lnet.EHOSTUNREACH)
	}
}

// CMEvent models kiblnd_cm_callback: the RDMA CM's events on o2iblnd's ids.
func (l *LND) CMEvent(ev ib.CMEvent) {
	id := ev.ID
	switch ev.Type {
	case ib.CMConnectRequest:
		l.passiveConnect(id, ev.PrivateData)
		return
	case ib.CMAddrResolved, ib.CMAddrError, ib.CMRouteResolved, ib.CMRouteError:
		p, _ := id.Context.(*peer)
		if p == nil {
			return
		}
		switch {
		case ev.Type == ib.CMAddrResolved && ev.Status == 0:
			if err := id.ResolveRoute(p.net.resolveTimeout()); err == nil {
				return
			}
		case ev.Type == ib.CMRouteResolved && ev.Status == 0:
			l.activeConnect(id, p)
			return
		}
		id.Destroy()
		l.peerConnectFailed(p, true, -lnet.EHOSTUNREACH)
		return
	}
	c, _ := id.Context.(*conn)
	if c == nil {
		return
	}
	switch ev.Type {
	case ib.CMUnreachable:
		l.connreqDone(c, -lnet.ENETDOWN)
	case ib.CMConnectError:
		l.connreqDone(c, -eNOTCONN)
	case ib.CMRejected:
		switch c.state {
		case connActiveConnect:
			l.rejected(c, ev.Status, ev.PrivateData)
		case connPassiveWait:
			l.connreqDone(c, -eCONNRESET)
		}
	case ib.CMEstablished:
		switch c.state {
		case connPassiveWait:
			l.connreqDone(c, 0)
		case connActiveConnect:
			l.checkConnreply(c, ev.PrivateData)
		}
	case ib.CMDisconnected:
		switch {
		case c.state < connEstablished:
			l.connreqDone(c, -eCONNRESET)
		case c.state == connEstablished:
			l.closeConn(c, 0)
		}
		c.cmGone = true
		if c.destroyed {
			id.Destroy()
		}
	}
}

// activeConnect models kiblnd_active_connect: create the conn and send the CONNREQ with
// its queue depth, max frags and message size, retry_count and rnr_retry_count.
func (l *LND) activeConnect(id *ib.CMID, p *peer) {
	n := p.net
	version := p.version
	if version == 0 {
		version = MsgVersion
	}
	c := l.createConn(p, id, connActiveConnect, version)
	if c == nil {
		id.Destroy()
		l.peerConnectFailed(p, true, -lnet.ENOMEM)
		return
	}
	id.Context = c
	m := connMsg{typ: MsgCONNREQ, version: version, srcNID: n.ni.NID(), dstNID: p.nid,
		srcStamp: n.incarnation, dstStamp: p.incarnation,
		cp: connParams{queueDepth: c.queueDepth, maxFrags: int(c.maxFrags), maxMsgSize: msgSize}}
	l.observeConnMsg(&m)
	rd := n.readOffer(c)
	err := id.Connect(ib.ConnParam{PrivateData: m.pack(&l.connBuf), RetryCount: uint8(n.tun.RetryCount), RNRRetryCount: uint8(n.tun.RNRRetryCount),
		ResponderResources: rd, InitiatorDepth: rd})
	if err != nil {
		l.connreqDone(c, -lnet.EIO)
	}
}

// findNet returns the started net of the device whose NI has nid.
func (l *LND) findNet(d *dev, nid lnet.NID) *kibNet {
	for _, n := range d.nets {
		if n.ni.NID() == nid && !n.shutdown {
			return n
		}
	}
	return nil
}

// reject sends a consumer-defined CM reject with a kib_rej and forgets the id.
func (l *LND) reject(id *ib.CMID, n *kibNet, from lnet.NID, r rejMsg) {
	l.stats.Rejects++
	if n != nil {
		l.connEvent(n, from, "reject", 0, r.why, r.cp.queueDepth)
	}
	_ = id.Reject(r.pack())
	id.Destroy()
}

// passiveConnect models kiblnd_passive_connect: validate the CONNREQ (destination NI on
// this device, stamps, queue depth, frags, message size), resolve a stale peer instance
// and the connection race (the higher NID wins, unless maxConnRaces races already
// happened), then accept with a CONNACK.
func (l *LND) passiveConnect(id *ib.CMID, priv []byte) {
	d, _ := id.Context.(*dev)
	rej := rejMsg{version: MsgVersion, why: RejectFatal, cp: connParams{maxMsgSize: msgSize}}
	req, ok := unpackConnMsg(priv)
	if d == nil || !ok || req.typ != MsgCONNREQ {
		l.reject(id, nil, 0, rej)
		return
	}
	n := l.findNet(d, req.dstNID)
	if n == nil {
		l.reject(id, nil, 0, rej)
		return
	}
	rej.incarnation = n.incarnation
	rej.cp.queueDepth = n.tun.peerCredits
	rej.cp.maxFrags = maxRDMAFrags
	nid := req.srcNID
	switch {
	case req.dstStamp != 0 && req.dstStamp != n.incarnation:
		rej.why = RejectConnStale
	case req.version != MsgVersion:
		rej.why = RejectConnUncompat
	case req.cp.maxFrags > maxRDMAFrags:
		rej.why = RejectRDMAFrags
	case req.cp.queueDepth > n.tun.peerCredits:
		rej.why = RejectMsgQueueSize
	case req.cp.maxMsgSize > msgSize:
		rej.why = RejectFatal
	default:
		rej.why = 0
	}
	if rej.why != 0 {
		l.reject(id, n, nid, rej)
		return
	}
	p := n.peers[nid]
	if p != nil {
		if p.version == 0 {
			p.version, p.incarnation = req.version, req.srcStamp
		}
		if p.incarnation != req.srcStamp || p.version != req.version {
			// Not the instance I talked with: its old conns are stale.
			l.closePeerConns(p, -eESTALE)
			if p.linked {
				p.incarnation, p.version = req.srcStamp, req.version
			}
			rej.why = RejectConnStale
			l.reject(id, n, nid, rej)
			return
		}
		if p.connecting != 0 && nid < n.ni.NID() && p.races < maxConnRaces {
			p.races++
			rej.why = RejectConnRace
			l.reject(id, n, nid, rej)
			return
		}
		p.reconnecting = 0
		p.races = 0
		p.accepting++
		p.maxFrags = req.cp.maxFrags
		p.queueDepth = req.cp.queueDepth
	} else {
		p = l.createPeer(n, nid)
		p.maxFrags = req.cp.maxFrags
		p.queueDepth = req.cp.queueDepth
		p.accepting = 1
		p.version, p.incarnation = req.version, req.srcStamp
		l.linkPeer(p)
	}
	c := l.createConn(p, id, connPassiveWait, req.version)
	if c == nil {
		l.peerConnectFailed(p, false, -lnet.ENOMEM)
		rej.why = RejectNoResources
		l.reject(id, n, nid, rej)
		return
	}
	id.Context = c
	c.incarnation = req.srcStamp
	c.credits = c.queueDepth
	c.reserved = c.queueDepth
	ack := connMsg{typ: MsgCONNACK, version: req.version, srcNID: n.ni.NID(), dstNID: nid,
		srcStamp: n.incarnation, dstStamp: req.srcStamp,
		cp: connParams{queueDepth: c.queueDepth, maxFrags: int(c.maxFrags), maxMsgSize: msgSize}}
	l.observeConnMsg(&ack)
	rd := n.readOffer(c)
	if err := id.Accept(ib.ConnParam{PrivateData: ack.pack(&l.connBuf), RNRRetryCount: uint8(n.tun.RNRRetryCount),
		ResponderResources: rd, InitiatorDepth: rd}); err != nil {
		l.connreqDone(c, -lnet.EIO)
	}
}

// closePeerConns models kiblnd_close_peer_conns_locked.
func (l *LND) closePeerConns(p *peer, err int) {
	for _, c := range append([]*conn(nil), p.conns...) {
		l.closeConn(c, err)
	}
}

// checkConnreply models kiblnd_check_connreply: the CONNACK must not raise the queue
// depth, frags or message size, and must be addressed to this NI's incarnation; a bad one
// is recorded as a comms error so that the conn, once established, closes at once.
func (l *LND) checkConnreply(c *conn, priv []byte) {
	n := c.peer.net
	m, ok := unpackConnMsg(priv)
	rc := 0
	switch {
	case !ok, m.typ != MsgCONNACK, m.version != c.version,
		m.cp.queueDepth > c.queueDepth, m.cp.maxFrags > int(c.maxFrags), m.cp.maxMsgSize > msgSize:
		rc = -lnet.EPROTO
	case m.dstNID != n.ni.NID() || m.dstStamp != n.incarnation:
		rc = -eESTALE
	}
	if rc != 0 {
		c.commsError = rc
		l.connreqDone(c, 0)
		return
	}
	c.incarnation = m.srcStamp
	c.credits = m.cp.queueDepth
	c.reserved = m.cp.queueDepth
	c.queueDepth = m.cp.queueDepth
	c.maxFrags = int32(m.cp.maxFrags)
	l.connreqDone(c, 0)
}

// connreqDone models kiblnd_connreq_done: on failure the attempt is over
// (kiblnd_peer_connect_failed) and the conn finalised; on success the conn is ESTABLISHED,
// joins its peer, stale conns of another incarnation close, and the txs waiting for a
// connection move onto it.
func (l *LND) connreqDone(c *conn, status int) {
	if c.state != connActiveConnect && c.state != connPassiveWait {
		return
	}
	p := c.peer
	active := c.state == connActiveConnect
	if status != 0 {
		l.peerConnectFailed(p, active, status)
		l.finaliseConn(c)
		return
	}
	c.sent(l.k.Now())
	c.setState(connEstablished)
	c.established = true
	l.peerAlive(p)
	p.setConns(slab.Append(p.conns, c, &l.connRefs))
	p.reconnected = 0
	p.retries = 0
	if active {
		p.connecting--
	} else {
		p.accepting--
	}
	if p.version == 0 {
		p.version, p.incarnation = c.version, c.incarnation
	}
	if p.version != c.version || p.incarnation != c.incarnation {
		for _, o := range append([]*conn(nil), p.conns...) {
			if o != c && (o.version != c.version || o.incarnation != c.incarnation) {
				l.closeConn(o, -eESTALE)
			}
		}
		p.version, p.incarnation = c.version, c.incarnation
	}
	txs := p.txQueue
	p.txQueue = nil
	l.connEvent(p.net, p.nid, "established", 0, 0, c.queueDepth)
	if !p.linked || c.commsError != 0 {
		l.closeConn(c, -lnet.ECONNABORTED)
		l.txlistDone(txs, -lnet.ECONNABORTED, lnet.LNET_MSG_STATUS_LOCAL_ERROR)
		return
	}
	for _, t := range txs {
		l.queueTxLocked(t, c)
	}
	l.checkSends(c)
	l.handleEarlyRxs(c)
}

// rejected models kiblnd_rejected: decode the reject (a consumer-defined kib_rej carries
// the reason and the peer's limits), let kiblnd_check_reconnect decide on a reconnect, and
// end this attempt with -ECONNREFUSED. No listener (INVALID_SERVICE_ID) is never retried
// since LU-14536: the attempt fails at once with -EHOSTUNREACH; before (the
// NoListenerReconnect rule) it counts one more retry of the peer (ibp_retries, LU-13972)
// and goes to kiblnd_check_reconnect like a stale conn.
func (l *LND) rejected(c *conn, reason int, priv []byte) {
	p := c.peer
	l.stats.Rejected++
	status := -eCONNREFUSED
	why := 0
	switch ib.RejectReason(reason) {
	case ib.RejStaleConn:
		why = RejectConnStale
		l.checkReconnect(c, MsgVersion, 0, why, nil)
	case ib.RejInvalidServiceID:
		why = RejectInvalidSrvID
		if p.net.tun.Profile.NoListenerReconnect {
			p.retries++
			l.checkReconnect(c, MsgVersion, 0, why, nil)
			break
		}
		status = -lnet.EHOSTUNREACH
	case ib.RejConsumerDefined:
		if r, ok := unpackRej(priv); ok && r.version == MsgVersion {
			why = r.why
			l.checkReconnect(c, r.version, r.incarnation, r.why, &r.cp)
		}
	}
	l.connEvent(p.net, p.nid, "rejected", reason, why, 0)
	l.connreqDone(c, status)
}

// checkReconnect models kiblnd_check_reconnect: reconnect at once if txs still wait (or
// the version changed), this attempt is the one connecting and no passive accept is under
// way, adopting the peer's smaller queue depth or frags. Under NoListenerReconnect a "no
// listener" reject reconnects too, unless the peer was refused more than retry_count
// times (LU-13972; never, with NoListenerUnlimited).
func (l *LND) checkReconnect(c *conn, version uint16, incarnation uint64, why int, cp *connParams) {
	p := c.peer
	reconnect := (len(p.txQueue) > 0 || p.version != version) && p.connecting > 0 && p.accepting == 0
	if !reconnect {
		return
	}
	if rules := &p.net.tun.Profile; rules.NoListenerReconnect && !rules.NoListenerUnlimited &&
		p.retries > p.net.tun.RetryCount {
		return
	}
	switch why {
	case RejectRDMAFrags:
		if cp == nil || int(c.maxFrags) <= cp.maxFrags {
			return
		}
		p.maxFrags = cp.maxFrags
	case RejectMsgQueueSize:
		if cp == nil || c.queueDepth <= cp.queueDepth {
			return
		}
		p.queueDepth = cp.queueDepth
	case RejectConnStale, RejectConnRace, RejectConnUncompat, RejectInvalidSrvID:
	default:
		return
	}
	c.reconnect = true
	p.reconnecting++
	p.version = version
	if incarnation != 0 {
		p.incarnation = incarnation
	}
}

// reconnectPeer models kiblnd_reconnect_peer (connd): start the next attempt, or abort the
// waiting txs (LOCAL_ABORTED) if the peer left the table meanwhile.
func (l *LND) reconnectPeer(p *peer) {
	if p.reconnecting == 0 {
		return
	}
	p.reconnecting--
	if !p.linked {
		txs := p.txQueue
		p.txQueue = nil
		l.txlistDone(txs, -lnet.ECONNABORTED, lnet.LNET_MSG_STATUS_LOCAL_ABORTED)
		return
	}
	p.connecting++
	p.reconnected++
	l.stats.Reconnects++
	l.connEvent(p.net, p.nid, "reconnect", 0, 0, p.queueDepth)
	l.connectPeer(p)
}
