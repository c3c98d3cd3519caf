package o2ib

import (
	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
)

// This file is the RDMA READ bulk variant (Params.Bulk = BulkRead), which is not in the
// kernel: o2iblnd offers 0 initiator depth and 0 responder resources at connect
// (kiblnd_active_connect, kiblnd_passive_connect), so its QPs can issue no READ, and
// every large PUT or REPLY is pushed by the sender with RDMA WRITE after a PUT_ACK. With
// the variant on, the receiver pulls instead: see readOffer, and the PUT_RDREQ and
// PUT_RDDONE messages (msg.go).

// readOffer is what a conn of the net offers as both initiator depth and responder
// resources at connect: 0 on a write net (the kernel's offer); on a read net read_depth,
// or by default the conn's queue depth, capped at the device's limit. The queue depth is
// the default because a peer can have at most that many PUT_RDREQs on the conn at once
// (each takes a credit), so a deeper offer is never used and a shallower one queues READs
// on the QP behind each other.
func (n *kibNet) readOffer(c *conn) uint8 {
	if n.tun.Bulk != BulkRead {
		return 0
	}
	d := n.tun.ReadDepth
	if d == 0 {
		d = c.queueDepth
	}
	return uint8(min(d, maxReadDepth))
}

// canRead reports whether the conn negotiated RDMA READ both ways: its QP may issue READs
// (initiator depth) and answer them (responder resources). Both sides must have offered
// it, so a read net meeting a write peer (per-NI parameters) falls back to the write path.
func (c *conn) canRead() bool {
	if c.qp == nil {
		return false
	}
	a := c.qp.Attr()
	return a.MaxRdAtomic > 0 && a.MaxDestRdAtomic > 0
}

// downgradeRdReq turns a PUT_RDREQ into the kernel's PUT_REQ: its conn negotiated no READ.
func downgradeRdReq(t *tx) {
	t.msg.rd = rdmaDesc{}
	t.initMsg(MsgPUT_REQ, 0)
}

// recvRdReq is the receiving side of a PUT_RDREQ once LNet has matched it (the read
// variant's counterpart of kiblnd_recv for a PUT_REQ): nothing wanted (mlen 0, or LNet
// dropped the message) is answered at once by PUT_RDDONE(0), as the write path's PUT_NAK;
// otherwise a tx READs mlen bytes from the source descriptor into the matched buffer and,
// once the READ has completed, becomes the PUT_RDDONE(mlen) that lets the sender finalize
// (readComplete). The tx goes on the no-credit queue as a PUT_ACK does, with the same
// deadline; the rx is reposted with a credit by the caller (nothing else of this PUT will
// land in it, unlike the write path's PUT_DONE). The sink is mapped with a FastReg
// descriptor as the write path's is; a failed map is answered PUT_RDDONE(-EINVAL).
func (l *LND) recvRdReq(n *kibNet, c *conn, rxm *wireMsg, msg *lnet.Msg, mlen int) error {
	if mlen == 0 || msg == nil {
		if msg != nil {
			n.node.Finalize(msg, 0, lnet.LNET_MSG_STATUS_OK)
		}
		l.sendCompletion(c, MsgPUT_RDDONE, 0, rxm.cookie)
		return nil
	}
	t := l.getIdleTx(n)
	if t == nil {
		return ErrNoTx // not replying breaks the connection (the peer times out)
	}
	if err := l.fmrMap(n, t, n.node.CPTOfNID(c.peer.nid)); err != nil {
		t.hstatus = lnet.LNET_MSG_STATUS_LOCAL_ERROR
		l.txDone(t)
		l.sendCompletion(c, MsgPUT_RDDONE, -lnet.EINVAL, rxm.cookie) // as the write path's PUT_NAK
		return err
	}
	t.msg.cookie = rxm.cookie
	t.msg.status = int32(mlen)
	t.initMsg(MsgPUT_RDDONE, 0)
	if mlen > int(rxm.rd.nob) {
		t.msg.status = -eMSGSIZE
		t.status = -eMSGSIZE
		t.hstatus = lnet.LNET_MSG_STATUS_LOCAL_ERROR
	} else {
		t.read, t.readKey = int32(mlen), rxm.rd.key
	}
	t.lnt[0] = msg
	l.queueTx(t, c)
	return nil
}

// postRead is ib_post_send of a pulling tx's RDMA READ: one signalled work request, no
// SEND behind it (the PUT_RDDONE waits for the READ's completion: without a fence a SEND
// posted behind the READ could reach the sender before the data is read). Its completion
// comes back with the tx's own work request id.
func (l *LND) postRead(c *conn, t *tx) int {
	if s, _ := c.qp.Outstanding(); s+1 > c.sendWRs() {
		return -lnet.ENOMEM
	}
	if err := c.qp.PostSend(ib.SendWR{ID: makeWID(widTx, t.gen, t.idx), Op: ib.OpRead, Len: int(t.read), RKey: t.readKey, Signaled: true}); err != nil {
		return -lnet.EIO
	}
	c.wrSeq++
	if l.obs != nil {
		ev := RDMAEvent{Time: l.k.Now(), Src: t.msg.srcNID, Dst: t.msg.dstNID, Bytes: int(t.read), RKey: t.readKey,
			Cookie: t.msg.cookie, Seq: c.wrSeq - 1, Read: true}
		ev.SrcLID, ev.DstLID, ev.SrcQPN, ev.DstQPN = c.addrs()
		l.obs.RDMAPosted(&ev)
	}
	return 0
}

// readComplete is kiblnd_tx_complete for a pulling tx's READ. Success: the data is in the
// matched buffer, so the received PUT is finalized now, and the tx, its READ done, is
// queued again as the PUT_RDDONE (before the finalize, so that an ACK LNet sends at once
// follows it). Failure closes the conn -EIO as any failed work request does, and finalizes
// the received PUT with readFailure's status.
func (l *LND) readComplete(t *tx, st ib.WCStatus) {
	c := t.conn
	t.sending--
	c.nsendsPosted--
	t.read = 0
	if st != ib.WCSuccess {
		l.closeConn(c, -lnet.EIO)
		t.status, t.hstatus = readFailure(st)
		t.waiting = false
		idle := t.sending == 0 && !t.queued
		if idle {
			c.removeActive(t)
		}
		l.checkSends(c)
		if idle {
			l.txDone(t)
		}
		return
	}
	l.peerAlive(c.peer)
	c.removeActive(t)
	msg := t.lnt[0]
	t.lnt[0] = nil
	if c.state == connEstablished {
		l.queueTxLocked(t, c)
		l.checkSends(c)
	} else {
		l.txDone(t) // the conn is closing: no PUT_RDDONE, the sender's tx is aborted
	}
	t.net.node.Finalize(msg, 0, lnet.LNET_MSG_STATUS_OK)
}

// readFailure maps a failed READ completion to the tx's status and LNet health status,
// after kiblnd_tx_complete (every failed work request: -EIO, REMOTE_DROPPED), which is kept
// for the transport's failures (RETRY_EXC_ERR: the path to the source died mid-READ;
// WR_FLUSH_ERR: the conn closed under it; RNR and others). A refusal by the source's HCA
// (REM_ACCESS_ERR: rkey, range or rights; REM_INV_REQ_ERR: more READs than its responder
// resources) is REMOTE_ERROR: the peer answered, and sending the same descriptor again
// would be refused again.
func readFailure(st ib.WCStatus) (int, lnet.HStatus) {
	switch st {
	case ib.WCRemAccessErr, ib.WCRemInvReqErr:
		return -lnet.EIO, lnet.LNET_MSG_STATUS_REMOTE_ERROR
	}
	return -lnet.EIO, lnet.LNET_MSG_STATUS_REMOTE_DROPPED
}
