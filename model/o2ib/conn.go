package o2ib

import (
	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// connState is ibc_state with the kernel's values.
type connState uint8

const (
	connInit          connState = 0 // IBLND_CONN_INIT
	connActiveConnect connState = 1 // IBLND_CONN_ACTIVE_CONNECT
	connPassiveWait   connState = 2 // IBLND_CONN_PASSIVE_WAIT
	connEstablished   connState = 3 // IBLND_CONN_ESTABLISHED
	connClosing       connState = 4 // IBLND_CONN_CLOSING
	connDisconnected  connState = 5 // IBLND_CONN_DISCONNECTED
)

var connStateNames = [...]string{"INIT", "ACTIVE_CONNECT", "PASSIVE_WAIT", "ESTABLISHED", "CLOSING", "DISCONNECTED"}

// String returns the kernel's name without its IBLND_CONN_ prefix.
func (s connState) String() string { return connStateNames[s] }

// legalConnTransition reports whether ibc_state may move from one state to another, as
// kiblnd_set_conn_state's callers move it: a new conn connects actively or waits passively
// (kiblnd_create_conn), a connection request succeeds (kiblnd_connreq_done) or fails
// (kiblnd_finalise_conn), an established conn closes (kiblnd_close_conn_locked) and connd
// finalises it.
func legalConnTransition(from, to connState) bool {
	switch to {
	case connActiveConnect, connPassiveWait:
		return from == connInit
	case connEstablished:
		return from == connActiveConnect || from == connPassiveWait
	case connClosing:
		return from == connEstablished
	case connDisconnected:
		return from == connActiveConnect || from == connPassiveWait || from == connClosing
	}
	return false
}

// setState models kiblnd_set_conn_state with the transition checked: an illegal change is
// refused and counted (Stats.BadConnStates), as it can only be a model bug.
func (c *conn) setState(to connState) bool {
	if !legalConnTransition(c.state, to) {
		c.l.stats.BadConnStates++
		return false
	}
	c.state = to
	return true
}

// rx is struct kib_rx: one receive buffer of a conn holding a message. It exists only from
// the receive completion, which takes the message the SEND carried (conn.rxWire), until the
// buffer is posted again, which returns the rx and its message to the LND's free lists
// (rxGet, rxPut). A posted, empty buffer is only its receive WR on the QP: a conn posts
// 2*queue_depth+2 buffers, but few hold a message at once (at 1000 clients, per-conn rx
// arrays and their messages were most of a conn's memory). The kernel allocates a conn's
// rxs with it (ibc_rxs) and names the buffer in the WR id; the model's WR ids do not name
// one, as nothing but the receive completion reads them.
type rx struct {
	conn *conn
	msg  *wireMsg
}

// conn is struct kib_conn: one RC connection to a peer NI, its credits, queues, receive
// buffers and QP. The fields every completion and post reads come first (the counters
// and the wire list in the object's first two lines), then the four tx list heads (two
// words each, in the third line), then what only set-up and teardown touch: conns are
// 256-byte objects, a multiple of 64, so at 35k conns, where they do not stay in cache, a
// completion touches three of a conn's four lines (it used to touch five of six).
type conn struct {
	l     *LND
	peer  *peer
	qp    *ib.QP
	state connState
	// inCheck and checkAgain make checkSends re-entrant: a completion handled inside it
	// asks for another pass instead of recursing.
	inCheck     bool
	checkAgain  bool
	noopsPosted int8 // at most oobMsgs
	// What needNoop and postTx compare with on every check, fixed for the conn's life
	// (set by createConn from its queue depth and the net's tunables, which only
	// conns_per_peer changes at run time): they keep the check off the peer and the net.
	hiw      int16 // creditsHighwater()
	maxSends int16 // kiblnd_concurrent_sends

	credits      int // ibc_credits: sends I may still make
	outstanding  int // ibc_outstanding_credits: credits to return
	reserved     int // ibc_reserved_credits
	nsendsPosted int
	queueDepth   int

	incarnation uint64   // the peer's incarnation (ibc_incarnation)
	keepaliveAt sim.Time // ibc_last_send plus keepalive: a keepalive is due after it (MaxTime: off)
	wrSeq       uint64   // send work requests posted on the QP

	rxWire   wireRing // contents of SENDs in flight to this conn, in order
	txNocred txList
	txQueue  txList
	txRsrvd  txList
	active   txList
	early    []*rx

	cq          *ib.CQ
	cmid        *ib.CMID
	idx         int32
	maxFrags    int32
	nrx         uint16 // receive buffers posted at creation (rxMsgs then)
	version     uint16
	reconnect   bool
	established bool // reached ESTABLISHED once
	cmGone      bool // the CM delivered DISCONNECTED
	destroyed   bool
	started     sim.Time // created, with rdma_connect (an active conn's ibc_last_send until ESTABLISHED)
	commsError  int
}

// rxMsgs is IBLND_RX_MSGS: receive buffers per conn.
func (c *conn) rxMsgs() int { return 2*c.queueDepth + 2 }

// concurrentSends is kiblnd_concurrent_sends.
func (c *conn) concurrentSends() int { return int(c.maxSends) }

// sendWRs is IBLND_SEND_WRS in the model: an RDMA WRITE and a SEND per posted tx.
func (c *conn) sendWRs() int { return 2*c.concurrentSends() + 2 }

// createConn models kiblnd_create_conn: a CQ and an RC QP on the CM id's device, every
// receive buffer posted without a credit, state as given. If the QP cannot be made the CQ
// is destroyed again.
func (l *LND) createConn(p *peer, id *ib.CMID, state connState, version uint16) *conn {
	c := l.connSlab.New()
	c.l, c.idx, c.peer, c.cmid, c.version = l, int32(len(l.conns)), p, id, version
	c.queueDepth, c.maxFrags, c.started = p.queueDepth, int32(p.maxFrags), l.k.Now()
	c.maxSends = int16(p.net.tun.concurrentSends)
	c.hiw = int16(c.creditsHighwater())
	c.sent(0)
	hca := id.Port().HCA()
	cq, err := hca.CreateCQ(c.rxMsgs()+c.sendWRs(), c)
	if err != nil {
		return nil
	}
	qp, err := id.CreateQP(ib.QPInitAttr{SendCQ: cq, RecvCQ: cq, MaxSendWR: c.sendWRs(), MaxRecvWR: c.rxMsgs()})
	if err != nil {
		cq.Destroy()
		return nil
	}
	c.cq, c.qp = cq, qp
	cq.ReqNotify()
	l.conns = append(l.conns, c)
	for int(qp.Num()) >= len(l.connByQPN) {
		l.connByQPN = append(l.connByQPN, nil)
	}
	l.connByQPN[qp.Num()] = c
	c.nrx = uint16(min(c.rxMsgs(), 1<<16-1))
	c.setState(state)
	l.postInitialRx(c)
	l.stats.ConnsCreated++
	return c
}

// closeConn models kiblnd_close_conn_locked: record the first error; an established conn
// leaves its peer (the peer leaves the table with the conn's error when it was the last)
// and goes to connd CLOSING.
func (l *LND) closeConn(c *conn, err int) {
	if err != 0 && c.commsError == 0 {
		c.commsError = err
	}
	if c.state != connEstablished {
		return
	}
	p := c.peer
	for i, x := range p.conns {
		if x == c {
			p.setConns(append(p.conns[:i], p.conns[i+1:]...))
			break
		}
	}
	if len(p.conns) == 0 && p.linked {
		l.unlinkPeer(p)
		p.err = c.commsError
	}
	c.setState(connClosing)
	l.stats.ConnsClosed++
	l.connEvent(p.net, p.nid, "closed", err, 0, 0)
	l.k.After(0, l.hid, evDisconnect, uint64(c.idx))
}

// disconnectConn models kiblnd_disconnect_conn (connd): rdma_disconnect, finalise, notify.
func (l *LND) disconnectConn(c *conn) {
	if c.state != connClosing {
		return
	}
	_ = c.cmid.Disconnect()
	l.finaliseConn(c)
	l.peerNotify(c.peer)
}

// finaliseConn models kiblnd_finalise_conn: the QP goes to ERR (its posted work flushes),
// the conn is DISCONNECTED and every tx not waiting for a send completion is aborted;
// connd destroys the conn once the flushes are in.
func (l *LND) finaliseConn(c *conn) {
	if c.qp != nil && c.qp.State() != ib.QPErr {
		_ = c.qp.Modify(ib.QPErr, ib.QPAttr{})
	}
	c.setState(connDisconnected)
	l.abortTxs(c, &c.txNocred)
	l.abortTxs(c, &c.txQueue)
	l.abortTxs(c, &c.txRsrvd)
	l.abortActive(c)
	for _, r := range c.early {
		l.rxPut(r)
	}
	c.early = nil
	// The flush completions were pushed to the CQ before this event is scheduled, so their
	// notification runs first (events at equal times keep their order).
	l.k.After(0, l.hid, evZombie, uint64(c.idx))
}

// abortTxs models kiblnd_abort_txs on a send queue: LOCAL_TIMEOUT if the conn died of a
// timeout, else LOCAL_ERROR.
func (l *LND) abortTxs(c *conn, q *txList) {
	hs := lnet.LNET_MSG_STATUS_LOCAL_ERROR
	if c.commsError == -lnet.ETIMEDOUT {
		hs = lnet.LNET_MSG_STATUS_LOCAL_TIMEOUT
	}
	txs := q.Drain()
	for _, t := range txs {
		t.hstatus = hs
	}
	l.txlistDone(txs, -lnet.ECONNABORTED, lnet.LNET_MSG_STATUS_OK)
}

// abortActive models kiblnd_abort_txs on ibc_active_txs: after a timeout a tx only waiting
// gets REMOTE_TIMEOUT and one still sending NETWORK_TIMEOUT; other errors keep the tx's
// hstatus, except the read variant's PUT_RDREQ waiting for its PUT_RDDONE, which gets
// REMOTE_DROPPED (not in the kernel). Txs still sending finish on their flush completion.
func (l *LND) abortActive(c *conn) {
	var zombies []*tx
	for t := c.active.head; t != nil; {
		next := t.next
		if c.commsError == -lnet.ETIMEDOUT {
			if t.waiting && t.sending == 0 {
				t.hstatus = lnet.LNET_MSG_STATUS_REMOTE_TIMEOUT
			} else if t.sending != 0 {
				t.hstatus = lnet.LNET_MSG_STATUS_NETWORK_TIMEOUT
			}
		} else if t.waiting && t.msg.typ == MsgPUT_RDREQ {
			// The read variant: the source cannot know whether its data was pulled, as a
			// writer whose WRITE failed cannot (bulkread.go).
			t.hstatus = lnet.LNET_MSG_STATUS_REMOTE_DROPPED
		}
		t.status = -lnet.ECONNABORTED
		t.queued = false
		t.waiting = false
		if t.sending == 0 {
			c.active.remove(t)
			zombies = append(zombies, t)
		}
		t = next
	}
	l.txlistDone(zombies, -lnet.ECONNABORTED, lnet.LNET_MSG_STATUS_OK)
}

// destroyConn models connd's zombie handling (kiblnd_destroy_conn and the reconnect that
// follows a reject): the QP and then the CQ are destroyed, and a conn marked for
// reconnection reconnects its peer now, or next second after reconnHighRace reconnections
// in a row.
func (l *LND) destroyConn(c *conn) {
	if c.destroyed {
		return
	}
	c.destroyed = true
	if c.qp != nil {
		if q := c.qp.Num(); int(q) < len(l.connByQPN) {
			l.connByQPN[q] = nil
		}
		c.qp.Destroy()
	}
	if c.cq != nil {
		c.cq.Destroy()
	}
	if c.cmid != nil && (!c.established || c.cmGone) {
		// rdma_destroy_id once the CM has nothing more to say: never connected, or
		// DISCONNECTED already delivered.
		c.cmid.Destroy()
	}
	c.rxWire.reset(l)
	if !c.reconnect {
		return
	}
	p := c.peer
	if p.reconnected < reconnHighRace {
		l.reconnectPeer(p)
	} else {
		l.reconnW = append(l.reconnW, p)
	}
}

// CompletionEvent is the CQ's completion handler (kiblnd_cq_completion and the scheduler
// thread's polling loop): every completion is handled in order, then the CQ re-armed.
func (c *conn) CompletionEvent(cq *ib.CQ) {
	l := c.l
	for {
		n := cq.Poll(l.wcBuf[:])
		for i := 0; i < n; i++ {
			wc := l.wcBuf[i]
			l.complete(c, &wc)
		}
		if n == 0 && !cq.ReqNotify() {
			return
		}
	}
}

// Work request ids: the kind in the top bits (kiblnd's IBLND_WID_*), then a generation and
// an index.
const (
	widTx   = 1
	widRDMA = 2
	widRx   = 3
)

func makeWID(kind uint64, gen uint32, idx int32) uint64 {
	return kind<<62 | uint64(gen&0x3fffffff)<<32 | uint64(uint32(idx))
}

// complete models kiblnd_complete: a tx, RDMA or rx completion.
func (l *LND) complete(c *conn, wc *ib.WC) {
	idx := int32(uint32(wc.WRID))
	switch wc.WRID >> 62 {
	case widRDMA:
		// Only failures complete (the WRITE is unsignalled) and the SEND behind it fails too.
		return
	case widTx:
		t := l.txs[idx]
		if t.gen&0x3fffffff != uint32(wc.WRID>>32)&0x3fffffff || t.net == nil {
			return
		}
		l.txComplete(t, wc.Status)
	case widRx:
		l.rxComplete(c, wc.Status, wc.ByteLen)
	}
}

// txComplete models kiblnd_tx_complete: a failed send closes the conn with -EIO and fails
// the tx REMOTE_DROPPED; a tx is done when its last send completed and it waits for nothing.
func (l *LND) txComplete(t *tx, st ib.WCStatus) {
	if t.read > 0 {
		l.readComplete(t, st)
		return
	}
	c := t.conn
	failed := st != ib.WCSuccess
	if failed {
		l.closeConn(c, -lnet.EIO)
	} else {
		l.peerAlive(c.peer)
	}
	t.sending--
	c.nsendsPosted--
	if t.msg.typ == MsgNOOP {
		c.noopsPosted--
	}
	if failed {
		t.hstatus = lnet.LNET_MSG_STATUS_REMOTE_DROPPED
		t.waiting = false
		t.status = -lnet.EIO
	}
	idle := t.sending == 0 && !t.waiting && !t.queued
	if idle {
		c.removeActive(t)
	}
	l.checkSends(c)
	if idle {
		l.txDone(t)
	}
}

// removeActive takes t off ibc_active_txs (nothing if it is not there: a tx off every
// list has no links, and a crashed conn's lists were emptied).
func (c *conn) removeActive(t *tx) {
	if t.q != qActive || t.conn != c || (t.prev == nil && c.active.head != t) {
		return
	}
	c.active.remove(t)
	t.q = qNone
}

// wireRing holds the contents of the SENDs in flight to a conn, in posting order: RC
// delivers them in that order, so each successful receive completion takes the head. The
// messages come from the LND's free list and the receiving rx takes the one it pops (see
// rx). They are chained through their next field, so a conn holds no buffer of its own and
// a receive reads only the message it takes (a ring of pointers cost every conn a buffer,
// and every push and pop a cache miss on it, at tens of thousands of conns).
type wireRing struct {
	head, tail *wireMsg
	size       int
}

// push queues a copy of m.
func (r *wireRing) push(l *LND, m *wireMsg) {
	w := l.rxMsg()
	*w = *m
	w.next = nil
	if r.tail == nil {
		r.head = w
	} else {
		r.tail.next = w
	}
	r.tail = w
	r.size++
}

// pop hands over the oldest message, nil if none is in flight.
func (r *wireRing) pop() *wireMsg {
	m := r.head
	if m == nil {
		return nil
	}
	r.head, m.next = m.next, nil
	if r.head == nil {
		r.tail = nil
	}
	r.size--
	return m
}

// last returns the newest message in flight, nil if none.
func (r *wireRing) last() *wireMsg { return r.tail }

// reset drops the messages in flight (the conn is gone), back to the free list.
func (r *wireRing) reset(l *LND) {
	for m := r.pop(); m != nil; m = r.pop() {
		l.freeMsgs = append(l.freeMsgs, m)
	}
}
