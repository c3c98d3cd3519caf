package o2ib

import (
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// txQueue says which list a tx is on (its tx_list linkage).
type txQueue uint8

const (
	qNone   txQueue = iota
	qPeer           // ibp_tx_queue: waiting for a connection
	qNocred         // ibc_tx_queue_nocred
	qTx             // ibc_tx_queue
	qRsrvd          // ibc_tx_queue_rsrvd
	qActive         // ibc_active_txs
)

// tx is struct kib_tx: one o2iblnd transmit, its message, the RDMA before it, and up to
// two LNet messages to finalize when it is done.
type tx struct {
	idx int32
	gen uint32

	net  *kibNet
	conn *conn
	q    txQueue

	queued  bool  // tx_queued
	waiting bool  // tx_waiting: a reply from the peer is expected
	sending int32 // tx_sending: posted sends not completed

	status   int
	hstatus  lnet.HStatus
	deadline sim.Time
	lnt      [2]*lnet.Msg

	// Before msg, so a send completion (which reads read, sending and msg.typ) touches the
	// descriptor's first two cache lines only.
	rdma    int32  // bytes to RDMA WRITE ahead of the message (PUT_DONE, GET_DONE)
	rdmaKey uint32 // the peer's rkey for that WRITE
	readKey uint32 // the peer's rkey for that READ
	read    int32  // bytes to RDMA READ before the message may go (PUT_RDDONE; bulkread.go)

	// prev and next link the tx into the conn list q names (tx_list; see txList).
	prev, next *tx

	msg wireMsg

	// fmr is the pool of the FastReg descriptor the tx holds (tx_fmr's fmr_pool with its
	// fmr_frd), nil when it maps nothing (fmr.go).
	fmr *fmrPool
}

// cookie is tx_cookie: unique for the life of the descriptor.
func (t *tx) cookie() uint64 { return uint64(t.gen)<<32 | uint64(uint32(t.idx)) }

// txByCookie returns the live tx a cookie names, or nil.
func (l *LND) txByCookie(c uint64) *tx {
	i := int(uint32(c))
	if i >= len(l.txs) {
		return nil
	}
	t := l.txs[i]
	if t.gen != uint32(c>>32) || t.net == nil {
		return nil
	}
	return t
}

// getIdleTx models kiblnd_get_idle_tx: a descriptor from the net's pool. The pool starts
// with ntx descriptors and grows by ntx when exhausted, as kiblnd_pool_alloc_node does; the
// model never fails the allocation (nil is kept for the kernel's shape of the callers).
// Under WaitingTxStaleDeadline the descriptor comes with the deadline of its last use (0
// when new), which kiblnd_launch_tx did not reset: the model's descriptors are the LND's,
// so the net keeps the deadlines of its freed ones, last freed first as the kernel's pool
// hands them out.
func (l *LND) getIdleTx(n *kibNet) *tx {
	if n.ntx >= n.poolSize {
		n.poolSize += n.tun.NTx
		l.stats.TxPoolGrown++
	}
	var t *tx
	if k := len(l.freeTx); k > 0 {
		t = l.txs[l.freeTx[k-1]]
		l.freeTx = l.freeTx[:k-1]
	} else {
		t = &tx{idx: int32(len(l.txs))}
		l.txs = append(l.txs, t)
	}
	gen := t.gen + 1
	*t = tx{idx: t.idx, gen: gen, net: n}
	if k := len(n.staleDeadlines); k > 0 && n.staleTx {
		t.deadline = n.staleDeadlines[k-1]
		n.staleDeadlines = n.staleDeadlines[:k-1]
	}
	n.ntx++
	return t
}

// initTxMsg models kiblnd_init_tx_msg: set the message type and size.
func (t *tx) initMsg(typ MsgType, payload int) {
	t.msg.typ = typ
	t.msg.nob = int32(msgNob(typ, payload))
}

// txDone models kiblnd_tx_done: give back the FastReg descriptor the tx mapped with, if
// any (kiblnd_unmap_tx), release the tx descriptor, then finalize its LNet messages
// (the request with the tx's health status as it is, the optimized GET's REPLY with the
// status only), after the descriptor is free as the kernel does. A status of 0 with a
// health status other than OK reaches LNet as such, which then skips the health check
// (lnet_is_health_check: inconsistent pair).
func (l *LND) txDone(t *tx) {
	if t.queued || t.sending != 0 || t.waiting {
		panic("o2ib: tx_done on a busy tx")
	}
	if t.fmr != nil {
		l.fmrUnmap(t) // kiblnd_unmap_tx
	}
	m0, m1 := t.lnt[0], t.lnt[1]
	status, hs := t.status, t.hstatus
	n := t.net
	n.ntx--
	if n.staleTx {
		n.staleDeadlines = append(n.staleDeadlines, t.deadline)
	}
	// The message (its LNet header: two cold lines) is cleared by getIdleTx on reuse only.
	t.net, t.conn, t.lnt = nil, nil, [2]*lnet.Msg{}
	t.gen++
	l.freeTx = append(l.freeTx, t.idx)
	if m0 != nil {
		m0.Node().Finalize(m0, status, hs)
	}
	if m1 != nil {
		m1.Node().Finalize(m1, status, lnet.LNET_MSG_STATUS_OK)
	}
}

// txlistDone models kiblnd_txlist_done: fail every tx of a list with status, and with
// hstatus unless it is OK (then each tx keeps its own).
func (l *LND) txlistDone(txs []*tx, status int, hs lnet.HStatus) {
	for _, t := range txs {
		t.q = qNone
		t.queued = false
		t.waiting = false
		t.status = status
		if hs != lnet.LNET_MSG_STATUS_OK {
			t.hstatus = hs
		}
		l.txDone(t)
	}
}

// queueTxLocked models kiblnd_queue_tx_locked: arm the deadline and put the tx on the
// conn's queue for its type (requests on the reserved queue, completions and NOOPs on the
// no-credit queue, IMMEDIATE on the normal queue). The read variant's PUT_RDREQ is a
// request and PUT_RDDONE a completion; a PUT_RDREQ meeting a conn that negotiated no READ
// becomes the kernel's PUT_REQ here.
func (l *LND) queueTxLocked(t *tx, c *conn) {
	t.queued = true
	t.deadline = l.k.Now() + c.peer.net.timeout()
	t.conn = c
	if t.msg.typ == MsgPUT_RDREQ && !c.canRead() {
		downgradeRdReq(t)
	}
	switch t.msg.typ {
	case MsgPUT_REQ, MsgGET_REQ, MsgPUT_RDREQ:
		t.q = qRsrvd
		c.txRsrvd.Push(t)
	case MsgPUT_NAK, MsgPUT_ACK, MsgPUT_DONE, MsgGET_DONE, MsgPUT_RDDONE, MsgNOOP:
		t.q = qNocred
		c.txNocred.Push(t)
	default:
		t.q = qTx
		c.txQueue.Push(t)
	}
}

// queueTx models kiblnd_queue_tx: queue, then try to send.
func (l *LND) queueTx(t *tx, c *conn) {
	l.queueTxLocked(t, c)
	l.checkSends(c)
}

// launchTx models kiblnd_launch_tx: queue the tx on an established conn to nid, or on the
// peer waiting for its connection (creating the peer and starting conns_per_peer
// connection attempts if there is none).
func (l *LND) launchTx(n *kibNet, t *tx, nid lnet.NID) {
	p := n.peers[nid]
	if p != nil {
		if len(p.conns) > 0 {
			l.queueTx(t, p.nextConn())
			return
		}
		// Still connecting: wait on the peer.
		l.queueWaitingTx(t, p)
		return
	}
	p = l.createPeer(n, nid)
	l.linkPeer(p)
	p.connecting = n.tun.ConnsPerPeer
	l.queueWaitingTx(t, p)
	for i := 0; i < n.tun.ConnsPerPeer; i++ {
		l.connectPeer(p)
	}
}

// queueWaitingTx models kiblnd_queue_waiting_tx_locked: the tx waits for a connection with
// a deadline of connreq_timeout plus the two resolution timeouts (LU-17480); under
// WaitingTxStaleDeadline it keeps its descriptor's old one, as kiblnd_launch_tx did before
// LU-16184.
func (l *LND) queueWaitingTx(t *tx, p *peer) {
	if !p.net.tun.Profile.WaitingTxStaleDeadline {
		t.deadline = l.k.Now() + p.net.tun.connreqTimeout + 2*rdmaResolveTimeout
	}
	t.q = qPeer
	p.txQueue = append(p.txQueue, t)
}
