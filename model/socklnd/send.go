package socklnd

import (
	"fmt"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/model/tcp"
	"github.com/lnetsim/lnetsim/sim"
)

// tx is struct ksock_tx: an LNet message (or a NOOP when msg is nil) on its way.
type tx struct {
	msg       *lnet.Msg
	payload   int
	cookies   [2]uint64
	nonblk    bool
	zcCapable bool
	zcWait    bool // on the peer's zc_req list: sent, the peer's ZC-ACK not yet in
	zcAborted bool
	refs      int // ksock_tx refcount: 1 for the transmit, +1 while waiting for a ZC-ACK
	conn      *conn
	hstatus   lnet.HStatus
	deadline  sim.Time
	recs      int // records of the tx written to the socket so far (header, payload)
	resid     int // bytes not yet written
}

// wireNob is TxNob for the protocol (V3 before the peer's is known).
func (t *tx) wireNob(v Version) int {
	if v == 0 {
		v = ProtoV3
	}
	return TxNob(v, t.payload, t.msg == nil)
}

// Send models ksocknal_send: a tx for the message, zero-copy capable when its payload is at
// least zc_min_payload, launched by ksocknal_launch_packet. An immediate failure returns the
// errno with the message's health status set (REMOTE_ERROR when no route was usable).
func (l *LND) Send(ni *lnet.NI, _ any, msg *lnet.Msg) error {
	n, _ := ni.LNDData.(*ksockNet)
	if n == nil || n.shutdown {
		return lnet.Errno(-ESHUTDOWN)
	}
	t := &tx{msg: msg, payload: msg.Len(), refs: 1}
	t.zcCapable = t.payload >= n.tun.zcMinPayload
	if rc := l.launchPacket(n, t, msg.Target()); rc != 0 {
		msg.HStatus = t.hstatus
		return lnet.Errno(-EIO)
	}
	return nil
}

// Recv models ksocknal_recv: the conn reads the payload into msg (or skips it when msg is
// nil) and lnet_finalize follows once it is in; with no payload at once.
func (l *LND) Recv(ni *lnet.NI, private any, msg *lnet.Msg, _ bool, _, _, rlen int) error {
	c := private.(*conn)
	c.rxParsing = false
	if (c.dead || c.closing) && rlen > 0 {
		// the conn went while LNet held the message: its payload will never come
		c.rxWant, c.rxStarted = 0, false
		if msg != nil {
			c.net.node.Finalize(msg, -EIO, PartialRecvStatus)
		}
		return nil
	}
	c.rxMsg = msg
	c.rxWant = rlen
	if rlen == 0 {
		l.rxDone(c)
	}
	if !c.dead && !c.closing {
		c.sock.SetReading(true)
	}
	return nil
}

// txPrep models ksocknal_tx_prep: the tx is packed for the conn's protocol and counted on it.
func (l *LND) txPrep(c *conn, t *tx) {
	t.resid = t.wireNob(c.proto)
	c.txNob += t.resid
	t.conn = c
}

// queueTx models ksocknal_queue_tx_locked: the first tx on an idle conn starts its send
// deadline (and, if earlier bytes were acknowledged, marks the peer alive); a ZC-ACK NOOP
// rides on a NOOP already queued when one can carry it (pro_queue_tx_zcack); the scheduler
// is woken.
func (l *LND) queueTx(t *tx, c *conn) {
	l.txPrep(c, t)
	if len(c.txQueue) == 0 && c.sockQueued() == 0 {
		c.txDeadline = l.k.Now() + c.net.timeout()
		if c.txBufnob > 0 {
			c.peer.lastAlive = l.k.Now()
		}
		c.txBufnob = 0
	}
	if t.msg == nil && t.cookies[1] != KeepalivePing {
		for _, q := range c.txQueue {
			if q.msg == nil && q.recs == 0 && q.cookies[0] == 0 {
				if q.cookies[1] == KeepalivePing {
					q.cookies[1] = t.cookies[1] // a real ACK replaces the keepalive ping
				} else {
					q.cookies[0] = t.cookies[1]
				}
				c.txNob -= t.resid
				return
			}
		}
	}
	c.txQueue = append(c.txQueue, t)
	l.kick(c)
}

// kick wakes the conn's scheduler if it can write (ksocknal_queue_tx_locked's wake-up).
func (l *LND) kick(c *conn) {
	if c.txReady && !c.txScheduled && len(c.txQueue) > 0 {
		c.txScheduled = true
		l.k.After(0, l.hid, evTx, uint64(c.idx))
	}
}

// transmit models the scheduler's transmit loop with ksocknal_process_transmit and
// ksocknal_transmit: each tx's records go into the socket while its send buffer takes them;
// a full buffer leaves the rest for the write-space upcall. Written bytes are counted in
// ksnc_tx_bufnob; a socket buffer found smaller than that means bytes were acknowledged:
// the send deadline restarts and the peer is alive. A tx fully written is done, or, sent
// zero-copy, waits for the peer's ZC-ACK.
func (l *LND) transmit(c *conn) {
	if c.dead || c.closing {
		return
	}
	for len(c.txQueue) > 0 && c.txReady {
		t := c.txQueue[0]
		if t.msg != nil {
			if hs, drop := c.net.node.SendErrorSimulation(t.msg); drop {
				l.simulatedError(c, t, hs)
				continue
			}
		}
		if t.recs == 0 && t.msg != nil && t.zcCapable {
			l.checkZcReq(c, t)
		}
		for t.resid > 0 {
			rec := l.record(c, t)
			if !l.write(c, rec) {
				c.txReady = false
				break
			}
			t.recs++
			t.resid -= rec.Bytes
			c.txNob -= rec.Bytes
			c.txBufnob += rec.Bytes
			if q := c.sockQueued(); q < c.txBufnob {
				c.txDeadline = l.k.Now() + c.net.timeout()
				c.peer.lastAlive = l.k.Now()
				c.txBufnob = q
			}
		}
		if t.resid > 0 {
			return
		}
		c.txQueue = c.txQueue[1:]
		l.event(c.net, c.peer.nid, "tx", 0, fmt.Sprintf("%s on %s nob=%d", txName(t), c.typ, t.wireNob(c.proto)))
		l.txDecref(c.net, t)
	}
}

// simulatedError is ksocknal_process_transmit failing a tx by lnet_send_error_simulation (a
// drop rule with a health mask, checked each time the tx is to be written): the tx, off the
// queue, completes with -EIO and the rule's hstatus; the conn stays open unless fail_loc
// CFS_FAIL_SOCK_CONN (master) closes it and its siblings with -EINVAL first.
func (l *LND) simulatedError(c *conn, t *tx, hs lnet.HStatus) {
	c.txQueue = c.txQueue[1:]
	c.txNob -= t.resid
	t.hstatus = hs
	if t.zcWait {
		l.uncheckZcReq(c.peer, t)
	}
	if c.net.node.FailCheck(lnet.FailSockConn) {
		l.closeConnAndSiblings(c, -EINVAL)
	}
	// The tx left the conn before the close: it keeps the rule's hstatus (txDone would
	// otherwise take a closing conn's unsent tx for one the close failed).
	t.conn = nil
	l.event(c.net, c.peer.nid, "tx_error_sim", -EINVAL, txName(t))
	l.txDecref(c.net, t)
}

// uncheckZcReq models ksocknal_uncheck_zc_req: a tx no longer waits for its ZC-ACK.
func (l *LND) uncheckZcReq(p *peerNI, t *tx) {
	for i, x := range p.zcReq {
		if x == t {
			p.zcReq = append(p.zcReq[:i], p.zcReq[i+1:]...)
			break
		}
	}
	t.zcWait = false
	t.cookies[0] = 0
	t.refs-- // the transmit's own reference keeps the tx
}

// record returns the tx's next record: the header, then the payload.
func (l *LND) record(c *conn, t *tx) tcp.Record {
	if t.recs > 0 {
		return tcp.Record{Bytes: t.payload, Payload: &Payload{N: t.payload}}
	}
	m := &Msg{Type: MsgNoop, Cookies: t.cookies}
	size := KsockMsgHdrSize
	if t.msg != nil {
		m.Type, m.Hdr = MsgLNet, t.msg.Hdr
		size += LNetHdrSize
	}
	if c.proto == ProtoV1 {
		size -= KsockMsgHdrSize
	}
	return tcp.Record{Bytes: size, Payload: m}
}

func txName(t *tx) string {
	if t.msg == nil {
		return "noop"
	}
	return t.msg.Type().String()
}

// checkZcReq models ksocknal_check_zc_req: on V2+ the tx gets the peer's next cookie, joins
// the peer's zc_req list with deadline now + sock_timeout, and holds a reference until the
// peer's ZC-ACK.
func (l *LND) checkZcReq(c *conn, t *tx) {
	if c.proto == ProtoV1 {
		return
	}
	p := c.peer
	t.refs++
	t.zcWait = true
	t.deadline = l.k.Now() + c.net.timeout()
	t.cookies[0] = p.zcNext
	p.zcNext++
	if p.zcNext == 0 {
		p.zcNext = KeepalivePing + 1
	}
	p.zcReq = append(p.zcReq, t)
	l.stats.ZcReqs++
}

// txDecref drops a reference; the last one completes the tx (ksocknal_tx_decref).
func (l *LND) txDecref(n *ksockNet, t *tx) {
	if t.refs--; t.refs == 0 {
		l.txDone(n, t, 0)
	}
}

// txDone models ksocknal_tx_done.
func (l *LND) txDone(n *ksockNet, t *tx, rc int) {
	if t.conn != nil && t.conn.closing && t.resid > 0 {
		t.hstatus = lnet.LNET_MSG_STATUS_LOCAL_ERROR
	}
	rc, hs := TxDone(rc, t.hstatus, t.resid, t.zcAborted)
	if t.msg != nil {
		t.msg.HStatus = hs
		n.node.Finalize(t.msg, rc, hs)
	}
}

// txListDone models ksocknal_txlist_done: each tx gets TxListStatus for error (under the NI's
// release profile) and completes.
func (l *LND) txListDone(n *ksockNet, txs []*tx, errno int) {
	for _, t := range txs {
		t.hstatus = n.profile.txListStatus(t.hstatus, errno)
		l.txDone(n, t, errno)
	}
}

// noop models ksocknal_alloc_tx_noop and its launch: a NOOP carrying cookie.
func (l *LND) noop(p *peerNI, cookie uint64, nonblk bool) int {
	l.stats.Noops++
	t := &tx{cookies: [2]uint64{0, cookie}, nonblk: nonblk, refs: 1}
	return l.launchPacket(p.net, t, p.nid)
}

// receive models ksocknal_process_receive for one record of an established conn.
func (l *LND) receive(c *conn, rec tcp.Record) {
	now := l.k.Now()
	c.peer.lastAlive = now
	c.rxDeadline = now + c.net.timeout()
	c.rxStarted = true
	if c.rxWant > 0 {
		if _, ok := rec.Payload.(*Payload); !ok {
			l.closeConnAndSiblings(c, -EPROTO)
			return
		}
		l.rxDone(c)
		return
	}
	m, ok := rec.Payload.(*Msg)
	if !ok {
		l.closeConnAndSiblings(c, -EPROTO)
		return
	}
	if m.Cookies[1] != 0 {
		cookie := uint64(0)
		if m.Type == MsgNoop {
			cookie = m.Cookies[0]
		}
		if l.handleZcAck(c, cookie, m.Cookies[1]) != 0 {
			l.closeConnAndSiblings(c, -EPROTO)
			return
		}
	}
	if m.Type == MsgNoop {
		c.rxStarted = false
		return
	}
	c.rxHdr = *m
	c.rxParsing = true
	c.rxWant = -1 // until Recv says how much
	c.sock.SetReading(false)
	hdr := m.Hdr
	if err := c.net.node.Parse(c.net.ni, &hdr, c.peer.nid, c, false); err != nil {
		c.rxParsing = false
		c.rxWant = 0
		c.sock.SetReading(true)
		l.closeConnAndSiblings(c, -EPROTO)
	}
}

// rxDone completes a received message (SOCKNAL_RX_LNET_PAYLOAD): a zero-copy sender is
// ACKed (ksocknal_handle_zcreq), then lnet_finalize; the conn waits for the next header.
func (l *LND) rxDone(c *conn) {
	m := c.rxMsg
	c.rxMsg, c.rxWant, c.rxStarted = nil, 0, false
	if ck := c.rxHdr.Cookies[0]; ck != 0 {
		c.rxHdr.Cookies[0] = 0
		l.handleZcReq(c, ck)
	}
	if m != nil {
		c.net.node.Finalize(m, 0, lnet.LNET_MSG_STATUS_OK)
	}
}

// handleZcReq models ksocknal_handle_zcreq: the ACK rides on a queued NOOP of the conn the
// nonblocking match picks (the BULK_IN socket from V3, as nonblk_zcack is set), or goes as
// its own NOOP.
func (l *LND) handleZcReq(c *conn, cookie uint64) {
	p := c.peer
	l.noop(p, cookie, c.net.tun.NonblkZcack != 0 || c.rxHdr.Hdr.Src != p.nid)
}

// handleZcAck models ksocknal_handle_zcack: the txs whose cookies the ACK names (cookie1 ..
// cookie2, or the two) leave the zc_req list and complete; a keepalive ping is ignored.
func (l *LND) handleZcAck(c *conn, cookie1, cookie2 uint64) int {
	if cookie1 == 0 {
		cookie1 = cookie2
	}
	count := 2
	if cookie1 <= cookie2 {
		count = int(cookie2 - cookie1 + 1)
	}
	if cookie2 == KeepalivePing && c.proto >= ProtoV3 {
		if count == 1 {
			return 0
		}
		return -EPROTO
	}
	p := c.peer
	var done []*tx
	keep := p.zcReq[:0]
	for _, t := range p.zcReq {
		ck := t.cookies[0]
		if count > 0 && (ck == cookie1 || ck == cookie2 || (cookie1 < ck && ck < cookie2)) {
			t.cookies[0] = 0
			done = append(done, t)
			count--
			continue
		}
		keep = append(keep, t)
	}
	p.zcReq = keep
	for _, t := range done {
		t.zcWait = false
		l.txDecref(p.net, t)
	}
	if count != 0 {
		return -EPROTO
	}
	return 0
}
