package o2ib

import (
	"errors"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// Errors Send returns for an immediate failure (LNet then finalizes the message itself).
var (
	ErrNoTx    = errors.New("o2ib: no tx descriptor (ENOMEM)")
	ErrNoReply = errors.New("o2ib: cannot create the REPLY of an optimized GET (EIO)")
	ErrNotUp   = errors.New("o2ib: NI not started")
	ErrMap     = errors.New("o2ib: can't map the payload (EIO)")
)

// Send models kiblnd_send: an ACK, a small PUT/REPLY and a GET whose reply fits go
// IMMEDIATE (finalized on send completion); a larger PUT/REPLY goes PUT_REQ and waits for
// PUT_ACK/NAK; a larger GET goes GET_REQ with this node's sink and a pre-created REPLY, and
// waits for GET_DONE. A GET that is being forwarded or goes to a router is always sent
// IMMEDIATE (the sink is on the final destination's side of the router). The GET's sink, the
// PUT's source and (from LU-14008) an IMMEDIATE's payload are mapped with a FastReg
// descriptor first (kiblnd_setup_rd_kiov, fmr.go); a map that fails releases the tx and
// fails the send -EIO, a GET's with LOCAL_ERROR.
func (l *LND) Send(ni *lnet.NI, _ any, msg *lnet.Msg) error {
	n, _ := ni.LNDData.(*kibNet)
	if n == nil || n.shutdown {
		return ErrNotUp
	}
	target := msg.Target()
	typ := MsgIMMEDIATE
	switch msg.Type() {
	case lnet.MsgGET:
		// msg_routing, msg_target_is_router: the sink is beyond the router
		if msgNob(MsgIMMEDIATE, msg.Hdr.SinkLen) > msgSize && !msg.Routing() && !msg.TargetIsRouter() {
			typ = MsgGET_REQ
		}
	case lnet.MsgPUT, lnet.MsgREPLY:
		if msgNob(MsgIMMEDIATE, msg.Len()) > msgSize {
			typ = MsgPUT_REQ
			if n.tun.Bulk == BulkRead {
				typ = MsgPUT_RDREQ
			}
		}
	}
	t := l.getIdleTx(n)
	if t == nil {
		return ErrNoTx
	}
	t.msg.hdr = msg.Hdr
	if typ != MsgIMMEDIATE || msg.Len() > 0 && !n.tun.Profile.ImmediatePayloadCopied {
		if err := l.fmrMap(n, t, n.node.CPTOfNID(target)); err != nil {
			if typ == MsgGET_REQ {
				t.hstatus = lnet.LNET_MSG_STATUS_LOCAL_ERROR
			}
			l.txDone(t)
			return ErrMap
		}
	}
	switch typ {
	case MsgGET_REQ:
		t.msg.cookie = t.cookie()
		t.msg.rd = rdmaDesc{key: n.dev.mr.RKey, nob: int32(msg.Hdr.SinkLen)}
		t.initMsg(MsgGET_REQ, 0)
		t.lnt[1] = n.node.CreateReplyMsg(ni, msg)
		if t.lnt[1] == nil {
			t.hstatus = lnet.LNET_MSG_STATUS_LOCAL_ERROR
			l.txDone(t)
			return ErrNoReply
		}
		t.waiting = true
	case MsgPUT_REQ:
		t.msg.cookie = t.cookie()
		t.initMsg(MsgPUT_REQ, 0)
		t.waiting = true
	case MsgPUT_RDREQ:
		t.msg.cookie = t.cookie()
		t.msg.rd = rdmaDesc{key: n.dev.mr.RKey, nob: int32(msg.Len())}
		t.initMsg(MsgPUT_RDREQ, 0)
		t.waiting = true
	default:
		t.initMsg(MsgIMMEDIATE, msg.Len())
	}
	t.lnt[0] = msg
	l.launchTx(n, t, target)
	return nil
}

// Recv models kiblnd_recv for the rx LNet was given by Parse: an IMMEDIATE's payload is
// already here (finalize now); a PUT_REQ wanting nothing is NAKed, otherwise a PUT_ACK
// with this node's sink goes back and waits for PUT_DONE (the rx is reposted without a
// credit: its buffer is the one PUT_DONE will use), or, when the sink's FastReg map fails,
// a PUT_NAK with the map's -EINVAL, and LNet finalizes the PUT with the error; a GET_REQ is answered by RDMA and
// GET_DONE (kiblnd_reply), or GET_DONE(-ENODATA) when nothing matched; the read variant's
// PUT_RDREQ is pulled (recvRdReq) and its rx reposted with a credit at once.
func (l *LND) Recv(ni *lnet.NI, private any, msg *lnet.Msg, _ bool, _, mlen, rlen int) error {
	r, _ := private.(*rx)
	if r == nil || r.conn == nil {
		return ErrNotUp
	}
	c := r.conn
	n := c.peer.net
	rxm := r.msg
	post := postPeerCredit
	var rc error
	switch rxm.typ {
	case MsgIMMEDIATE:
		if msgNob(MsgIMMEDIATE, rlen) > msgSize {
			rc = errors.New("o2ib: IMMEDIATE longer than its buffer (EPROTO)")
			break
		}
		if msg != nil {
			n.node.Finalize(msg, 0, lnet.LNET_MSG_STATUS_OK)
		}
	case MsgPUT_REQ:
		if mlen == 0 || msg == nil {
			if msg != nil {
				n.node.Finalize(msg, 0, lnet.LNET_MSG_STATUS_OK)
			}
			l.sendCompletion(c, MsgPUT_NAK, 0, rxm.cookie)
			break
		}
		t := l.getIdleTx(n)
		if t == nil {
			rc = ErrNoTx // not replying breaks the connection (the peer times out)
			break
		}
		if err := l.fmrMap(n, t, n.node.CPTOfNID(c.peer.nid)); err != nil {
			t.hstatus = lnet.LNET_MSG_STATUS_LOCAL_ERROR
			l.txDone(t)
			l.sendCompletion(c, MsgPUT_NAK, -lnet.EINVAL, rxm.cookie) // the map's error
			rc = err
			break
		}
		t.msg.cookie = rxm.cookie
		t.msg.dstCookie = t.cookie()
		t.msg.rd = rdmaDesc{key: n.dev.mr.RKey, nob: int32(mlen)}
		t.initMsg(MsgPUT_ACK, 0)
		t.lnt[0] = msg
		t.waiting = true
		l.queueTx(t, c)
		post = postNoCredit
	case MsgGET_REQ:
		if msg != nil {
			l.reply(n, r, msg, mlen)
		} else {
			l.sendCompletion(c, MsgGET_DONE, -lnet.ENODATA, rxm.cookie)
		}
	case MsgPUT_RDREQ:
		rc = l.recvRdReq(n, c, rxm, msg, mlen)
	}
	l.postRx(c, r, post)
	return rc
}

// reply models kiblnd_reply: RDMA WRITE the REPLY's data, mapped with a FastReg descriptor,
// into the GET's sink, then GET_DONE(bytes); a REPLY without data finalizes at once. A
// failed map fails the REPLY -EIO with LOCAL_ERROR and sends nothing (the GET's initiator
// times out).
func (l *LND) reply(n *kibNet, r *rx, msg *lnet.Msg, nob int) {
	t := l.getIdleTx(n)
	if t == nil {
		n.node.Finalize(msg, -lnet.EIO, lnet.LNET_MSG_STATUS_LOCAL_ERROR)
		return
	}
	if nob > 0 {
		if err := l.fmrMap(n, t, n.node.CPTOfNID(r.conn.peer.nid)); err != nil {
			t.hstatus = lnet.LNET_MSG_STATUS_LOCAL_ERROR
			l.txDone(t)
			n.node.Finalize(msg, -lnet.EIO, lnet.LNET_MSG_STATUS_LOCAL_ERROR)
			return
		}
	}
	if rc := l.initRDMA(t, MsgGET_DONE, nob, r.msg.rd, r.msg.cookie); rc < 0 {
		t.hstatus = lnet.LNET_MSG_STATUS_LOCAL_ERROR
		l.txDone(t)
		n.node.Finalize(msg, -lnet.EIO, lnet.LNET_MSG_STATUS_LOCAL_ERROR)
		return
	}
	if nob == 0 {
		n.node.Finalize(msg, 0, lnet.LNET_MSG_STATUS_OK)
	} else {
		t.lnt[0] = msg
		// The bytes the RDMA writes: LNet's own content (a ping buffer) travels with the
		// GET_DONE that follows the WRITE on the same QP, so it is there when that arrives.
		t.msg.hdr.Data = msg.Hdr.Data
	}
	l.queueTx(t, r.conn)
}

// initRDMA models kiblnd_init_rdma: the RDMA WRITE of resid bytes into the peer's sink,
// followed by the completion message carrying the byte count (or -EMSGSIZE if the sink is
// too small) and the peer's cookie.
func (l *LND) initRDMA(t *tx, typ MsgType, resid int, dst rdmaDesc, dstCookie uint64) int {
	rc := resid
	t.rdma, t.rdmaKey = 0, 0
	if resid > int(dst.nob) {
		rc = -eMSGSIZE
	} else if resid > 0 {
		t.rdma, t.rdmaKey = int32(resid), dst.key
	}
	t.msg.status = int32(rc)
	t.msg.cookie = dstCookie
	t.msg.dstCookie = 0
	t.msg.rd = rdmaDesc{}
	t.msg.hdr = lnet.Header{}
	t.initMsg(typ, 0)
	return rc
}

// sendCompletion models kiblnd_send_completion: a PUT_NAK or GET_DONE with a status.
func (l *LND) sendCompletion(c *conn, typ MsgType, status int, cookie uint64) {
	t := l.getIdleTx(c.peer.net)
	if t == nil {
		return
	}
	t.msg.status = int32(status)
	t.msg.cookie = cookie
	t.initMsg(typ, 0)
	l.queueTx(t, c)
}
