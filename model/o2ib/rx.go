package o2ib

import (
	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
)

// What reposting an rx gives back (IBLND_POSTRX_*).
const (
	postDontPost    = iota // the rx is kept (LNet owns it until Recv)
	postNoCredit           // repost, no credit (NOOP, or a buffer reserved for PUT_DONE)
	postPeerCredit         // repost and return a credit to the peer
	postRsrvdCredit        // repost and give back a reserved credit locally
)

// postRx models kiblnd_post_rx: post a buffer of c again (r, if not nil, is the rx that
// held it) and account the credit. The rx and its message go back to the LND's free lists
// (the model's change: an empty posted buffer holds neither, see rx).
func (l *LND) postRx(c *conn, r *rx, credit int) {
	if r != nil {
		l.rxPut(r)
	}
	if c.state > connEstablished || c.qp == nil {
		return
	}
	if err := c.qp.PostRecv(ib.RecvWR{ID: makeWID(widRx, 0, 0), Len: msgSize}); err != nil {
		l.closeConn(c, -lnet.EIO)
		return
	}
	switch credit {
	case postPeerCredit:
		c.outstanding++
	case postRsrvdCredit:
		c.reserved++
	default:
		return
	}
	l.checkSends(c)
}

// postInitialRx posts the conn's nrx receive buffers without credits at creation (the
// kernel's loop of kiblnd_post_rx with IBLND_POSTRX_NO_CREDIT in kiblnd_create_conn) as one
// chain of equal WRs: the same posts as nrx postRx calls, the first failure closing the
// conn, in one verbs call.
func (l *LND) postInitialRx(c *conn) {
	if c.state > connEstablished || c.qp == nil {
		return
	}
	if _, err := c.qp.PostRecvN(ib.RecvWR{ID: makeWID(widRx, 0, 0), Len: msgSize}, int(c.nrx)); err != nil {
		l.closeConn(c, -lnet.EIO)
	}
}

// rxComplete models kiblnd_rx_complete: a failed receive closes the conn; a message with
// the wrong NIDs or stamps is stale (-ESTALE); one arriving before the conn is established
// waits on the early list.
func (l *LND) rxComplete(c *conn, st ib.WCStatus, nob int) {
	if c.state > connEstablished {
		return
	}
	if st != ib.WCSuccess {
		l.closeConn(c, -lnet.EIO)
		return
	}
	m := c.rxWire.pop()
	if m == nil {
		l.closeConn(c, -lnet.EPROTO)
		return
	}
	if int(m.nob) != nob {
		l.freeMsgs = append(l.freeMsgs, m)
		l.closeConn(c, -lnet.EPROTO)
		return
	}
	n := c.peer.net
	if m.srcNID != c.peer.nid || m.dstNID != n.nid || m.srcStamp != c.incarnation || m.dstStamp != n.incarnation {
		l.freeMsgs = append(l.freeMsgs, m)
		l.closeConn(c, -eESTALE)
		return
	}
	r := l.rxGet(c, m)
	l.peerAlive(c.peer)
	if c.state < connEstablished {
		c.early = append(c.early, r)
		return
	}
	l.handleRx(r)
}

// handleRx models kiblnd_handle_rx: take the returned credits (more than the queue depth is
// a protocol error), then act on the message type. LNet messages go to lnet_parse, which
// keeps the rx until Recv; completions match the waiting tx by cookie.
func (l *LND) handleRx(r *rx) {
	c := r.conn
	m := r.msg
	if m.credits != 0 {
		if c.credits+int(m.credits) > c.queueDepth {
			l.closeConn(c, -lnet.EPROTO)
			l.postRx(c, r, postNoCredit)
			return
		}
		c.credits += int(m.credits)
		l.checkSends(c)
	}
	post := postPeerCredit
	rc := 0
	n := c.peer.net
	switch m.typ {
	case MsgNOOP:
		post = postNoCredit
	case MsgIMMEDIATE, MsgPUT_REQ, MsgGET_REQ, MsgPUT_RDREQ:
		if m.typ == MsgPUT_RDREQ && !c.canRead() {
			rc = -lnet.EPROTO // the peer pushes a pull on a conn without READ
			break
		}
		post = postDontPost
		rc = l.parse(n, r, m.typ != MsgIMMEDIATE)
		if rc < 0 {
			post = postPeerCredit
		}
	case MsgPUT_NAK:
		post = postRsrvdCredit
		l.handleCompletion(c, MsgPUT_REQ, int(m.status), m.cookie, nil)
	case MsgPUT_ACK:
		post = postRsrvdCredit
		t := l.findWaitingTx(c, MsgPUT_REQ, m.cookie)
		if t == nil {
			rc = -lnet.EPROTO
			break
		}
		c.removeActive(t)
		l.initRDMA(t, MsgPUT_DONE, int(m.rd.nob), m.rd, m.dstCookie)
		t.waiting = false
		l.queueTxLocked(t, c)
		l.checkSends(c)
	case MsgPUT_DONE:
		post = postPeerCredit
		l.handleCompletion(c, MsgPUT_ACK, int(m.status), m.cookie, nil)
	case MsgGET_DONE:
		post = postRsrvdCredit
		l.handleCompletion(c, MsgGET_REQ, int(m.status), m.cookie, m.hdr.Data)
	case MsgPUT_RDDONE:
		post = postRsrvdCredit
		l.handleCompletion(c, MsgPUT_RDREQ, int(m.status), m.cookie, nil)
	default:
		post = postNoCredit
		rc = -lnet.EPROTO
	}
	if rc < 0 {
		l.closeConn(c, rc)
	}
	if post != postDontPost {
		l.postRx(c, r, post)
	}
}

// parse hands an LNet message to lnet_parse. A malformed message is an error (the conn
// closes); a message LNet refuses otherwise is discarded by LNet itself through Recv with no
// message (lnet_drop_message: NAK, GET_DONE(-ENODATA) or a plain repost).
func (l *LND) parse(n *kibNet, r *rx, rdma bool) int {
	if err := n.node.Parse(n.ni, &r.msg.hdr, r.msg.srcNID, r, rdma); err != nil { // Parse copies the header
		return -lnet.EPROTO
	}
	return 0
}

// findWaitingTx models kiblnd_find_waiting_tx_locked: the active tx of this conn with the
// cookie, waiting, of the given type.
func (l *LND) findWaitingTx(c *conn, typ MsgType, cookie uint64) *tx {
	t := l.txByCookie(cookie)
	if t == nil || t.conn != c || t.q != qActive || !t.waiting || t.msg.typ != typ {
		return nil
	}
	return t
}

// handleCompletion models kiblnd_handle_completion: the peer's PUT_NAK/PUT_DONE/GET_DONE
// ends a waiting tx; a negative status is REMOTE_ERROR; a GET_DONE's byte count is the
// REPLY's length, and data what the RDMA before it wrote into the GET's sink when that is
// LNet's own content (a ping buffer too big to go IMMEDIATE). An unmatched completion is a
// protocol error.
func (l *LND) handleCompletion(c *conn, typ MsgType, status int, cookie uint64, data any) {
	t := l.findWaitingTx(c, typ, cookie)
	if t == nil {
		l.closeConn(c, -lnet.EPROTO)
		return
	}
	if t.status == 0 {
		if status < 0 {
			t.status = status
			t.hstatus = lnet.LNET_MSG_STATUS_REMOTE_ERROR
		} else if typ == MsgGET_REQ && t.lnt[1] != nil {
			t.net.node.SetReplyLength(t.lnt[1], status)
			t.net.node.SetReplyData(t.lnt[1], data)
		}
	}
	t.waiting = false
	if !t.queued && t.sending == 0 {
		c.removeActive(t)
		l.txDone(t)
	}
}

// handleEarlyRxs models kiblnd_handle_early_rxs.
func (l *LND) handleEarlyRxs(c *conn) {
	for len(c.early) > 0 && c.state == connEstablished {
		r := c.early[0]
		c.early = c.early[1:]
		l.handleRx(r)
	}
}

// rxGet takes an rx from the free list (or allocates one) for a buffer of c that received m.
func (l *LND) rxGet(c *conn, m *wireMsg) *rx {
	var r *rx
	if n := len(l.freeRx); n > 0 {
		r = l.freeRx[n-1]
		l.freeRx = l.freeRx[:n-1]
	} else {
		r = new(rx)
		l.rxsMade++
	}
	r.conn, r.msg = c, m
	return r
}

// rxPut returns r and its message to the free lists.
func (l *LND) rxPut(r *rx) {
	if r.msg != nil {
		l.freeMsgs = append(l.freeMsgs, r.msg)
	}
	*r = rx{}
	l.freeRx = append(l.freeRx, r)
}

// rxMsg takes a message from the free list (postRx and wireRing.reset return them), or
// allocates one: a SEND in flight holds it, then the rx that receives it.
func (l *LND) rxMsg() *wireMsg {
	if n := len(l.freeMsgs); n > 0 {
		m := l.freeMsgs[n-1]
		l.freeMsgs = l.freeMsgs[:n-1]
		return m
	}
	l.msgsMade++
	return new(wireMsg)
}
