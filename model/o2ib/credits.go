package o2ib

import (
	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// creditsHighwater models kiblnd_credits_highwater (v2, since LU-15828): peercredits_hiw
// scaled by the conn's queue depth over the net's peer_credits, so a conn negotiated down
// to a smaller depth returns credits proportionally earlier (depth 8 of 32, hiw 16: at 4).
// Under CreditsHighwaterMin it is IBLND_CREDITS_HIGHWATER's min(hiw, depth - 1) (7 there),
// under CreditsHighwaterFixed the hiw itself (16).
func (c *conn) creditsHighwater() int {
	t := &c.peer.net.tun
	switch {
	case t.Profile.CreditsHighwaterFixed:
		return t.hiw
	case t.Profile.CreditsHighwaterMin:
		return min(t.hiw, c.queueDepth-1)
	}
	return c.queueDepth * t.hiw / t.peerCredits
}

// sendKeepalive is kiblnd_send_keepalive: keepalive is on and nothing was sent for that
// long. The kernel adds the keepalive to ibc_last_send on every check; the conn keeps the
// sum (sent), as the keepalive does not change while the net is up.
func (l *LND) sendKeepalive(c *conn) bool { return l.k.Now() > c.keepaliveAt }

// sent records ibc_last_send: a keepalive is due keepalive seconds after now, never when
// keepalive is off.
func (c *conn) sent(now sim.Time) {
	c.keepaliveAt = sim.MaxTime
	if ka := c.peer.net.tun.Keepalive; ka > 0 {
		c.keepaliveAt = now + secs(ka)
	}
}

// needNoop models kiblnd_need_noop (v2): credits to return at the high-water mark, or a
// keepalive due, and nothing on the no-credit queue to piggy-back on, and either nothing
// queued to carry them or no credit to send it with.
func (l *LND) needNoop(c *conn) bool {
	if c.state < connEstablished {
		return false
	}
	if c.outstanding < int(c.hiw) && !l.sendKeepalive(c) {
		return false
	}
	if !c.txNocred.empty() {
		return false
	}
	return c.txQueue.empty() || c.credits == 0
}

// checkSends models kiblnd_check_sends_locked: move reserved-credit requests to the normal
// queue while reserved credits last, queue a NOOP if one is needed, then post from the
// no-credit queue first and the normal queue next until a post cannot be made. On a conn
// already closing (a late Recv's PUT_ACK/NAK or GET_DONE, a send completion after the close)
// the first post that finds a credit fails -ECONNABORTED and ends the check, as
// kiblnd_post_tx_locked does; the rest wait for kiblnd_finalise_conn to abort them.
func (l *LND) checkSends(c *conn) {
	if c.state < connEstablished {
		return
	}
	if c.inCheck {
		c.checkAgain = true
		return
	}
	c.inCheck = true
	for {
		c.checkAgain = false
		l.checkSendsOnce(c)
		if !c.checkAgain || c.state != connEstablished {
			break
		}
	}
	c.inCheck = false
}

func (l *LND) checkSendsOnce(c *conn) {
	for c.reserved > 0 && !c.txRsrvd.empty() {
		t := c.txRsrvd.Pop()
		t.q = qTx
		c.txQueue.Push(t)
		c.reserved--
	}
	if l.needNoop(c) {
		if t := l.getIdleTx(c.peer.net); t != nil {
			t.initMsg(MsgNOOP, 0)
			l.queueTxLocked(t, c)
		}
	}
	for {
		var t *tx
		credit := 0
		if t = c.txNocred.First(); t == nil {
			if t = c.txQueue.First(); t == nil {
				return
			}
			credit = 1
		}
		if !l.postTx(c, t, credit) {
			return
		}
	}
}

// postTx models kiblnd_post_tx_locked: it returns false (-EAGAIN or failure) when the
// caller must stop posting. Redundant NOOPs (no longer needed, or two already in flight) are
// dropped. The message takes the outstanding credits; a drop rule with a health mask
// (lnet_send_error_simulation) fails the post with its hstatus, which, like a failed
// ib_post_send, closes the conn.
func (l *LND) postTx(c *conn, t *tx, credit int) bool {
	if c.nsendsPosted == c.concurrentSends() {
		return false
	}
	if credit != 0 && c.credits == 0 {
		return false
	}
	if credit != 0 {
		c.txQueue.Pop()
	} else {
		c.txNocred.Pop()
	}
	t.queued = false
	t.q = qNone
	m := &t.msg
	if m.typ == MsgNOOP && (!l.needNoop(c) || c.noopsPosted == oobMsgs) {
		t.hstatus = lnet.LNET_MSG_STATUS_LOCAL_ERROR
		l.txDone(t)
		return true
	}
	n := c.peer.net
	m.srcNID, m.dstNID = n.nid, c.peer.nid
	m.srcStamp, m.dstStamp = n.incarnation, c.incarnation
	c.credits -= credit
	if t.read == 0 {
		m.credits = int32(c.outstanding)
		c.outstanding = 0
	} else {
		m.credits = 0 // a READ carries no message: the credits wait for the PUT_RDDONE
	}
	c.nsendsPosted++
	if m.typ == MsgNOOP {
		c.noopsPosted++
		l.stats.NoopsPosted++
	}
	t.sending++
	t.q = qActive
	c.active.Push(t)

	rc := 0
	if c.state != connEstablished {
		rc = -lnet.ECONNABORTED
	} else if t.lnt[0] != nil && t.lnt[0].TxNI() != nil {
		if hs, drop := n.node.SendErrorSimulation(t.lnt[0]); drop {
			t.hstatus = hs
			rc = -lnet.EINVAL
		}
	}
	if rc == 0 {
		rc = l.postWRs(c, t)
	}
	c.sent(l.k.Now())
	if rc == 0 {
		return true
	}
	c.credits += credit
	c.outstanding += int(m.credits)
	c.nsendsPosted--
	if m.typ == MsgNOOP {
		c.noopsPosted--
	}
	t.status = rc
	t.waiting = false
	t.sending--
	done := t.sending == 0
	if done {
		c.removeActive(t)
	}
	l.closeConn(c, rc)
	if done {
		l.txDone(t)
	}
	return false
}

// postWRs is ib_post_send of the tx's work requests: the unsignalled RDMA WRITE of the
// bulk (if any) and the signalled SEND of the message, whose content is handed to the
// receiving conn in order.
func (l *LND) postWRs(c *conn, t *tx) int {
	if t.read > 0 {
		return l.postRead(c, t)
	}
	if s, _ := c.qp.Outstanding(); s+2 > c.sendWRs() {
		return -lnet.ENOMEM
	}
	if t.rdma > 0 {
		if err := c.qp.PostSend(ib.SendWR{ID: makeWID(widRDMA, t.gen, t.idx), Op: ib.OpWrite, Len: int(t.rdma), RKey: t.rdmaKey}); err != nil {
			return -lnet.EIO
		}
		c.wrSeq++
		if l.obs != nil {
			ev := RDMAEvent{Time: l.k.Now(), Src: t.msg.srcNID, Dst: t.msg.dstNID, Bytes: int(t.rdma), RKey: t.rdmaKey,
				Cookie: t.msg.cookie, Seq: c.wrSeq - 1}
			ev.SrcLID, ev.DstLID, ev.SrcQPN, ev.DstQPN = c.addrs()
			l.obs.RDMAPosted(&ev)
		}
	}
	if err := c.qp.PostSend(ib.SendWR{ID: makeWID(widTx, t.gen, t.idx), Op: ib.OpSend, Len: int(t.msg.nob), Signaled: true}); err != nil {
		return -lnet.EIO
	}
	c.wrSeq++
	if q := c.qp.Attr().DestQPN; int(q) < len(l.connByQPN) {
		if rc := l.connByQPN[q]; rc != nil {
			rc.rxWire.push(l, &t.msg)
		}
	}
	if l.obs != nil {
		l.observePost(c, t)
	}
	return 0
}
