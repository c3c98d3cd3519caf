package socklnd

import (
	"errors"
	"io"
	"net/netip"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/model/tcp"
	"github.com/lnetsim/lnetsim/sim"
)

// Records on a socklnd socket (tcp.Record payloads). Their byte counts are the kernel's.
type (
	// ConnReq is struct lnet_acceptor_connreq: lnet_connect's first 16 bytes, naming the NI
	// the connection is for.
	ConnReq struct{ Target lnet.NID }
	// Msg is struct ksock_msg: a socklnd header (NOOP or LNET, two ZC cookies) and, for an
	// LNET message, its LNet header. Its payload follows as a Payload record.
	Msg struct {
		Type    uint32
		Cookies [2]uint64
		Hdr     lnet.Header
	}
	// Payload is an LNet message's payload bytes.
	Payload struct{ N int }
)

// The acceptor request (lnet_acceptor_connreq, acceptor.c): its size, magic and version.
const (
	ConnReqSize     = 16
	AcceptorMagic   = 0xacce7100 // LNET_PROTO_ACCEPTOR_MAGIC
	AcceptorVersion = 1          // LNET_PROTO_ACCEPTOR_VERSION
)

// Handshake phases of a conn.
const (
	hsConnReq = iota // passive: waiting for the acceptor request
	hsHello          // waiting for the peer's HELLO
	hsDone           // established (or refused and closing)
)

// conn is struct ksock_conn on a model/tcp connection.
type conn struct {
	l        *LND
	idx      int
	net      *ksockNet
	peer     *peerNI
	cb       *connCB
	sock     *tcp.Conn
	active   bool
	typ      ConnType
	proto    Version
	closing  bool
	dead     bool // terminated by the reaper
	hs       int
	helloT   sim.Timer
	myAddr   netip.AddrPort
	peerAddr netip.AddrPort

	// writer
	txQueue     []*tx
	txNob       int // bytes queued and not yet written to the socket (ksnc_tx_nob)
	txDeadline  sim.Time
	txBufnob    int // ksnc_tx_bufnob: what I think the socket buffer holds
	txReady     bool
	txScheduled bool
	lastPost    sim.Time
	txOff       uint64 // stream bytes written (captures' sequence numbers)

	// reader
	rxStarted  bool
	rxDeadline sim.Time
	rxWant     int       // payload bytes expected before the next header (0: a header is next)
	rxMsg      *lnet.Msg // lnet_finalize's argument once the payload is in
	rxParsing  bool      // lnet_parse called, Recv not yet
	rxHdr      Msg       // the header of the message being received
}

func (l *LND) newConn(n *ksockNet, s *tcp.Conn, active bool, typ ConnType) *conn {
	c := &conn{l: l, idx: len(l.conns), net: n, sock: s, active: active, typ: typ,
		myAddr: s.LocalAddr(), peerAddr: s.RemoteAddr()}
	c.helloT = sim.Timer{H: l.hid, Kind: evHello, Arg: uint64(c.idx)}
	l.conns = append(l.conns, c)
	s.SetHandler(c)
	return c
}

// sockQueued is the socket's sk_wmem_queued: bytes written and not yet acknowledged.
func (c *conn) sockQueued() int {
	if c.sock == nil || c.dead {
		return 0
	}
	return c.sock.Info().Queued
}

// createActive models the active half of ksocknal_create_conn up to the HELLO: lnet_connect
// has sent the acceptor request; the HELLO goes eagerly, in the peer's known protocol or V3,
// and the peer's answer is awaited for sock_timeout.
func (l *LND) createActive(cb *connCB, typ ConnType, s *tcp.Conn) {
	p := cb.peer
	c := l.newConn(p.net, s, true, typ)
	c.cb = cb
	c.proto = p.proto
	if c.proto == 0 {
		c.proto = ProtoV3
	}
	c.hs = hsHello
	l.write(c, tcp.Record{Bytes: ConnReqSize, Payload: &ConnReq{Target: p.nid}})
	l.sendHello(c, p.nid, typ)
	l.k.ArmAfter(&c.helloT, p.net.timeout())
}

// sendHello models ksocknal_send_hello.
func (l *LND) sendHello(c *conn, peer lnet.NID, typ ConnType) {
	h := &Hello{Version: c.proto, SrcNID: c.net.ni.NID(), DstNID: peer, SrcPID: lnet.LNET_PID_LUSTRE,
		DstPID: lnet.LNET_PID_LUSTRE, SrcIncarnation: c.net.incarnation, CType: typ}
	if c.peer != nil {
		h.DstIncarnation = c.peer.incarnation
	}
	l.write(c, tcp.Record{Bytes: HelloSize, Payload: h})
	l.event(c.net, peer, "hello_out", 0, typ.String())
}

// acceptTimeout is lnet_acceptor_timeout: accept_timeout's default, 5 s.
const acceptTimeout = 5 * sim.Second

// accept models lnet_acceptor handing a socket to ksocknal_accept: the acceptor request names
// the NI, then ksocknal_create_conn (passive) reads the HELLO.
func (l *LND) accept(hs *hostState, s *tcp.Conn) {
	c := l.newConn(nil, s, false, ConnNone)
	c.hs = hsConnReq
	l.k.ArmAfter(&c.helloT, acceptTimeout)
}

// Data is the socket's record upcall: the handshake, or ksocknal_process_receive.
func (c *conn) Data(_ *tcp.Conn, rec tcp.Record) {
	l := c.l
	if c.dead || (c.closing && c.hs == hsDone) {
		return
	}
	switch c.hs {
	case hsConnReq:
		req, ok := rec.Payload.(*ConnReq)
		n := (*ksockNet)(nil)
		if ok {
			n = l.byNID[req.Target]
		}
		if n == nil || n.host != s2host(c) || n.shutdown {
			l.abortHandshake(c) // lnet_accept: no such NI here
			return
		}
		c.net = n
		c.hs = hsHello
		l.k.ArmAfter(&c.helloT, acceptTimeout)
		return
	case hsHello:
		h, ok := rec.Payload.(*Hello)
		if !ok {
			l.handshakeFailed(c, -EPROTO)
			return
		}
		l.k.Disarm(&c.helloT)
		l.helloIn(c, h)
		return
	}
	l.receive(c, rec)
}

func s2host(c *conn) *tcp.Host { return c.sock.Host() }

// helloIn models ksocknal_recv_hello and the rest of ksocknal_create_conn once the peer's
// HELLO is in.
func (l *LND) helloIn(c *conn, h *Hello) {
	n := c.net
	rc := 0
	if c.active {
		match := c.proto == h.Version
		c.proto = h.Version
		_, res, err := CheckHello(h, c.typ, c.cb.peer.nid, lnet.LNET_PID_LUSTRE, match)
		switch {
		case err != nil:
			l.handshakeFailed(c, -EPROTO)
			return
		case res == HelloLostRace:
			rc = EALREADY
			l.stats.LostRaces++
		case res == HelloRenegotiate:
			rc = EPROTO
		}
	} else {
		c.proto = h.Version
		t, _, err := CheckHello(h, ConnNone, 0, 0, true)
		if err != nil {
			l.handshakeFailed(c, -EPROTO)
			return
		}
		c.typ = t
	}
	l.event(n, h.SrcNID, "hello_in", rc, h.CType.String())
	var p *peerNI
	if c.active {
		p = c.cb.peer
	} else {
		p = n.findPeer(h.SrcNID)
		if p == nil {
			p = n.createPeer(h.SrcNID)
			l.linkPeer(p)
		}
		p.accepting++
		connecting := p.cb != nil && p.cb.connecting && p.cb.addr.Addr() == c.peerAddr.Addr()
		if LosesRace(h.SrcNID, n.ni.NID(), connecting) {
			l.stats.RaceRefused++
			l.createFailed(c, p, EALREADY)
			return
		}
	}
	c.peer = p
	if p.closing || (c.active && c.cb.deleted) {
		l.createFailed(c, p, -ESTALE)
		return
	}
	if p.proto == 0 {
		p.proto, p.incarnation = c.proto, h.SrcIncarnation
	}
	if p.proto != c.proto || p.incarnation != h.SrcIncarnation {
		// the peer rebooted, or I had the wrong protocol version
		l.closePeerConns(p, netip.Addr{}, 0)
		p.proto = 0
		l.createFailed(c, p, ESTALE)
		return
	}
	if rc != 0 {
		l.createFailed(c, p, rc)
		return
	}
	if c.peerAddr.Addr() != c.myAddr.Addr() {
		dup := 0
		for _, c2 := range p.conns {
			if c2.peerAddr.Addr() != c.peerAddr.Addr() || c2.myAddr.Addr() != c.myAddr.Addr() || c2.typ != c.typ {
				continue
			}
			dup++
			if (p.cb != nil && dup < p.cb.maxConns) || (p.cb == nil && dup < n.tun.connsPerPeer) {
				continue
			}
			if !c.active {
				rc = EALREADY
			}
			l.createFailed(c, p, rc)
			return
		}
	}
	if cb := p.cb; cb != nil && c.peerAddr.Addr() == cb.addr.Addr() {
		l.associate(cb, c)
	}
	now := l.k.Now()
	p.lastAlive, p.sendKeepalive, p.err = now, 0, 0
	c.lastPost = now
	c.txBufnob = c.sockQueued()
	c.txDeadline = now + n.timeout()
	p.conns = append([]*conn{c}, p.conns...)
	l.stats.ConnsCreated++
	var keep []*tx
	for _, t := range p.txQueue {
		if MatchTx(c.proto, c.typ, t.wireNob(c.proto), t.msg == nil, t.nonblk, n.tun.MinBulk) == MatchNo {
			keep = append(keep, t)
			continue
		}
		l.queueTx(t, c)
	}
	p.txQueue = keep
	if !c.active {
		l.sendHello(c, p.nid, c.typ)
		p.accepting--
	}
	c.hs = hsDone
	c.txReady = true
	l.event(n, p.nid, "conn_up", 0, c.typ.String())
	l.kick(c)
	if c.active {
		l.connectStep(c.cb, 0)
	}
}

// associate models ksocknal_associate_cb_conn_locked and ksocknal_incr_conn_count.
func (l *LND) associate(cb *connCB, c *conn) {
	c.cb = cb
	cb.count++
	switch c.typ {
	case ConnControl:
		cb.ctrl++
		cb.connected |= 1 << ConnControl
	case ConnBulkIn:
		cb.blki++
		if cb.blki >= cb.maxConns {
			cb.connected |= 1 << ConnBulkIn
		}
	case ConnBulkOut:
		cb.blko++
		if cb.blko >= cb.maxConns {
			cb.connected |= 1 << ConnBulkOut
		}
	case ConnAny:
		if cb.count >= cb.maxConns {
			cb.connected |= 1 << ConnAny
		}
	}
	cb.retryInterval = 0
}

// dissociate models ksocknal_decr_conn_count.
func dissociate(cb *connCB, t ConnType) {
	cb.count--
	switch t {
	case ConnControl:
		if cb.ctrl--; cb.ctrl == 0 {
			cb.connected &^= 1 << ConnControl
		}
	case ConnBulkIn:
		if cb.blki--; cb.blki == 0 {
			cb.connected &^= 1 << ConnBulkIn
		}
	case ConnBulkOut:
		if cb.blko--; cb.blko == 0 {
			cb.connected &^= 1 << ConnBulkOut
		}
	case ConnAny:
		if cb.count == 0 {
			cb.connected &^= 1 << ConnAny
		}
	}
}

// createFailed models ksocknal_create_conn's failed_2 path: a peer left with nothing is
// unlinked and its waiting txs fail; a passive side asks the peer to retry with a CONN_NONE
// HELLO when rc > 0; the socket is released; the active connect loop goes on with rc.
func (l *LND) createFailed(c *conn, p *peerNI, rc int) {
	var zombies []*tx
	if !p.closing && len(p.conns) == 0 && p.cb == nil {
		zombies, p.txQueue = p.txQueue, nil
		l.unlinkPeer(p)
	}
	if !c.active {
		if rc > 0 {
			l.sendHello(c, p.nid, ConnNone)
		}
		p.accepting--
	}
	l.event(c.net, p.nid, "conn_refused", rc, c.typ.String())
	rc2 := rc
	if rc == 0 {
		rc2 = -EALREADY
	} else if rc > 0 {
		rc2 = -rc
	}
	l.txListDone(c.net, zombies, rc2)
	l.releaseHandshake(c)
	if c.active {
		l.connectStep(c.cb, rc)
	}
}

// releaseHandshake closes a socket that never became an established conn (sock_release: the
// FIN follows what was written, a refusing HELLO included).
func (l *LND) releaseHandshake(c *conn) {
	l.k.Disarm(&c.helloT)
	c.hs, c.closing, c.dead = hsDone, true, true
	l.closeSock(c, false)
}

// abortHandshake drops an accepted socket whose acceptor request is bad.
func (l *LND) abortHandshake(c *conn) {
	l.k.Disarm(&c.helloT)
	c.hs, c.closing, c.dead = hsDone, true, true
	l.closeSock(c, true)
}

// handshakeFailed ends a handshake with an error (timeout, protocol, socket error): the
// socket goes; an active attempt fails with rc.
func (l *LND) handshakeFailed(c *conn, rc int) {
	l.releaseHandshake(c)
	if c.net != nil {
		l.event(c.net, 0, "hello_failed", rc, c.typ.String())
	}
	if c.active {
		l.connectFailed(c.cb, rc)
	}
}

// Writable is the socket's write-space upcall (ksocknal_write_callback).
func (c *conn) Writable(*tcp.Conn) {
	if c.dead || c.hs != hsDone {
		return
	}
	c.txReady = true
	c.l.kick(c)
}

// Closed is the socket's error upcall: a reset, a timeout (retransmissions, keepalive) or
// the peer's FIN. The kernel's scheduler meets it as a read error or EOF and closes the conn
// and its siblings, an EOF without error.
func (c *conn) Closed(_ *tcp.Conn, err error) {
	l := c.l
	if c.dead {
		return
	}
	if errors.Is(err, tcp.ErrConnReset) {
		l.sockReset(c)
	}
	if c.hs != hsDone {
		l.handshakeFailed(c, -sockErrno(err))
		return
	}
	if c.closing {
		return
	}
	rc := 0
	if !errors.Is(err, io.EOF) {
		rc = -sockErrno(err)
	}
	l.closeConnAndSiblings(c, rc)
}

// closeConnAndSiblings models ksocknal_close_conn_and_siblings: every conn to the same
// peer address closes with why.
func (l *LND) closeConnAndSiblings(c *conn, why int) {
	if c.peer == nil {
		return
	}
	l.closePeerConns(c.peer, c.peerAddr.Addr(), why)
}

// closePeerConns models ksocknal_close_peer_conns_locked (every conn if addr is invalid).
func (l *LND) closePeerConns(p *peerNI, addr netip.Addr, why int) int {
	n := 0
	for _, c := range append([]*conn(nil), p.conns...) {
		if !addr.IsValid() || c.peerAddr.Addr() == addr {
			n++
			l.closeConn(c, why)
		}
	}
	return n
}

// closeConn models ksocknal_close_conn_locked: the conn leaves its peer and cb; if it was the
// peer's last, txs waiting on the peer move to it (to fail), the protocol is renegotiated
// next time and the error kept for the notification; the reaper terminates it.
func (l *LND) closeConn(c *conn, why int) {
	if c.closing {
		return
	}
	c.progress()
	c.closing = true
	p := c.peer
	for i, x := range p.conns {
		if x == c {
			p.conns = append(p.conns[:i], p.conns[i+1:]...)
			break
		}
	}
	if cb := c.cb; cb != nil {
		dissociate(cb, c.typ)
		c.cb = nil
	}
	if len(p.conns) == 0 {
		for _, t := range p.txQueue {
			l.txPrep(c, t)
		}
		c.txQueue = append(c.txQueue, p.txQueue...)
		p.txQueue = nil
		p.proto = 0
		p.err = why
		if p.cb == nil {
			l.unlinkPeer(p)
		}
	}
	l.stats.ConnsClosed++
	l.event(c.net, p.nid, "conn_closed", why, c.typ.String())
	l.k.After(0, l.hid, evKill, uint64(c.idx))
}

// terminate models ksocknal_terminate_conn and ksocknal_destroy_conn: txs still queued are
// "sent to /dev/null" (ksocknal_transmit on a closing socket: -ESHUTDOWN, LOCAL_ERROR, then
// -EIO from ksocknal_tx_done); zero-copy txs awaiting this conn's ACK are aborted; a receive
// cut short fails with -EIO, REMOTE_ERROR; the socket is aborted (SO_LINGER off); if the
// peer's last conn closed in error, ksocknal_peer_failed may notify LNet.
func (l *LND) terminate(c *conn) {
	if c.dead {
		return
	}
	c.dead = true
	p := c.peer
	n := c.net
	txs := c.txQueue
	c.txQueue = nil
	for _, t := range txs {
		t.hstatus = lnet.LNET_MSG_STATUS_LOCAL_ERROR
		l.txDone(n, t, 0)
	}
	var zc []*tx
	keep := p.zcReq[:0]
	for _, t := range p.zcReq {
		if t.conn == c {
			t.zcAborted = true
			zc = append(zc, t)
		} else {
			keep = append(keep, t)
		}
	}
	p.zcReq = keep
	for _, t := range zc {
		t.zcWait = false
		l.txDecref(n, t)
	}
	if c.rxWant > 0 && c.rxMsg != nil {
		m := c.rxMsg
		c.rxMsg = nil
		n.node.Finalize(m, -EIO, PartialRecvStatus)
	}
	l.closeSock(c, true)
	if p.err != 0 && len(p.conns) == 0 {
		p.err = 0
		l.peerFailed(p)
	}
}
