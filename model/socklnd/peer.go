package socklnd

import (
	"errors"
	"net/netip"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/model/tcp"
	"github.com/lnetsim/lnetsim/sim"
)

// peerNI is struct ksock_peer_ni.
type peerNI struct {
	net           *ksockNet
	nid           lnet.NID
	conns         []*conn // ksnp_conns, newest first as list_add puts them
	cb            *connCB // ksnp_conn_cb
	txQueue       []*tx   // ksnp_tx_queue: txs waiting for a connection
	accepting     int
	closing       bool
	err           int // errno the last conn closed with
	proto         Version
	incarnation   uint64
	lastAlive     sim.Time
	sendKeepalive sim.Time
	zcNext        uint64
	zcReq         []*tx // ksnp_zc_req_list
	linked        bool
}

// connCB is struct ksock_conn_cb: how and when to connect to a peer.
type connCB struct {
	idx           int
	peer          *peerNI
	addr          netip.AddrPort
	timeout       sim.Time // ksnr_timeout: when a reconnection may happen next
	retryInterval int64    // ksnr_retry_interval, seconds
	scheduled     bool
	connecting    bool
	deleted       bool
	connected     uint8 // bit per type
	ctrl, blki    int
	blko, count   int
	maxConns      int
	retryCount    int
	// the connect loop in progress (ksocknal_connect): its deadline and the type dialled
	deadline sim.Time
	typ      ConnType
}

// findPeer models ksocknal_find_peer_locked.
func (n *ksockNet) findPeer(nid lnet.NID) *peerNI { return n.peers[nid] }

// createPeer models ksocknal_create_peer (not yet in the table).
func (n *ksockNet) createPeer(nid lnet.NID) *peerNI {
	return &peerNI{net: n, nid: nid, zcNext: KeepalivePing + 1}
}

// linkPeer puts p in the peer table.
func (l *LND) linkPeer(p *peerNI) {
	p.linked = true
	p.net.peers[p.nid] = p
	b := peerBucket(p.nid)
	l.peers[b] = append(l.peers[b], p)
}

// unlinkPeer models ksocknal_unlink_peer_locked.
func (l *LND) unlinkPeer(p *peerNI) {
	if !p.linked {
		return
	}
	p.linked = false
	p.closing = true
	delete(p.net.peers, p.nid)
	b := peerBucket(p.nid)
	for i, x := range l.peers[b] {
		if x == p {
			l.peers[b] = append(l.peers[b][:i], l.peers[b][i+1:]...)
			break
		}
	}
}

// addPeer models ksocknal_add_peer for a NID LNet sends to: the peer with one conn cb to
// its address on port 988, asking for conns_per_peer bulk conns of each type.
func (l *LND) addPeer(n *ksockNet, nid lnet.NID) *peerNI {
	p := n.findPeer(nid)
	if p == nil {
		p = n.createPeer(nid)
		l.linkPeer(p)
	}
	if p.cb == nil {
		cb := &connCB{idx: len(l.cbs), peer: p, addr: netip.AddrPortFrom(ipOf(nid), AcceptorPort), maxConns: n.tun.connsPerPeer}
		l.cbs = append(l.cbs, cb)
		p.cb = cb
		for _, c := range p.conns { // associate conns the peer opened to me
			if c.peerAddr.Addr() == cb.addr.Addr() {
				l.associate(cb, c)
			}
		}
	}
	return p
}

// delPeer models ksocknal_del_peer_locked: its conn cb goes, its conns close, its waiting
// txs fail.
func (l *LND) delPeer(p *peerNI) {
	if p.cb != nil {
		p.cb.deleted = true
		p.cb = nil
	}
	for _, c := range append([]*conn(nil), p.conns...) {
		l.closeConn(c, 0)
	}
	txs := p.txQueue
	p.txQueue = nil
	l.unlinkPeer(p)
	l.txListDone(p.net, txs, -ESHUTDOWN)
}

func mask(p *peerNI) uint8 { return ConnMask(p.net.tun.TypedConns != 0) }

// findConnectable models ksocknal_find_connectable_conn_cb_locked: the peer's cb when it is
// not being worked on, misses a type and may retry now.
func (l *LND) findConnectable(p *peerNI) *connCB {
	cb := p.cb
	if cb == nil || cb.scheduled || mask(p)&^cb.connected == 0 {
		return nil
	}
	if cb.retryInterval != 0 && l.k.Now() < cb.timeout {
		return nil
	}
	return cb
}

// connectingCB models ksocknal_find_connecting_conn_cb_locked.
func connectingCB(p *peerNI) *connCB {
	if p.cb != nil && p.cb.scheduled {
		return p.cb
	}
	return nil
}

// launchConnection models ksocknal_launch_connection_locked: the cb goes to connd, which runs
// ksocknal_connect at once (a free connd thread).
func (l *LND) launchConnection(cb *connCB) {
	cb.scheduled = true
	l.k.After(0, l.hid, evConnect, uint64(cb.idx))
}

// launchPacket models ksocknal_launch_packet: queue tx on a conn to the peer if one fits
// and nothing needs connecting; else create the peer if new, launch its connections, and
// queue on a fitting conn, or on the peer while a connection is under way (deadline now +
// sock_timeout). With neither, the send fails at once: -EHOSTUNREACH, REMOTE_ERROR.
func (l *LND) launchPacket(n *ksockNet, t *tx, nid lnet.NID) int {
	if p := n.findPeer(nid); p != nil && l.findConnectable(p) == nil {
		if c := l.findConn(p, t); c != nil {
			l.queueTx(t, c)
			return 0
		}
	}
	p := l.addPeer(n, nid)
	for cb := l.findConnectable(p); cb != nil; cb = l.findConnectable(p) {
		l.launchConnection(cb)
	}
	if c := l.findConn(p, t); c != nil {
		l.queueTx(t, c)
		return 0
	}
	if p.accepting > 0 || connectingCB(p) != nil {
		t.deadline = l.k.Now() + n.timeout()
		p.txQueue = append(p.txQueue, t)
		return 0
	}
	t.hstatus = NoRouteStatus
	return -EHOSTUNREACH
}

// findConn runs FindConn over the peer's conns.
func (l *LND) findConn(p *peerNI, t *tx) *conn {
	loads := make([]ConnLoad, len(p.conns))
	for i, c := range p.conns {
		loads[i] = ConnLoad{Type: c.typ, Queued: c.txNob + c.sockQueued(), LastPost: toSecs(c.lastPost)}
	}
	i := FindConn(loads, p.proto, t.wireNob(p.proto), t.msg == nil, t.nonblk, p.net.tun.MinBulk, p.net.tun.RoundRobin != 0)
	if i < 0 {
		return nil
	}
	c := p.conns[i]
	c.lastPost = l.k.Now()
	return c
}

// toSecs is ktime_get_seconds() at virtual time t.
func toSecs(t sim.Time) int64 { return int64(t / sim.Second) }

// connect models ksocknal_connect for one cb: open the next wanted type (dialling from a
// reserved port, then the HELLO exchange: connectDone, helloIn), one at a time, until every
// type is connected; retry later while the peer is connecting to me.
func (l *LND) connect(cb *connCB) {
	p := cb.peer
	if !cb.connecting {
		cb.connecting = true
		cb.deadline = l.k.Now() + p.net.timeout()
	}
	wanted := mask(p) &^ cb.connected
	if p.closing || cb.deleted || wanted == 0 {
		l.connectEnd(cb, false, 0)
		return
	}
	if p.accepting > 0 {
		l.connectEnd(cb, true, 0)
		return
	}
	cb.typ = NextConnType(wanted, cb.blki, cb.blko)
	if l.k.Now() >= cb.deadline {
		l.connectFailed(cb, -ETIMEDOUT)
		return
	}
	typ := cb.typ
	dst := netip.AddrPortFrom(cb.addr.Addr(), l.dialPort(p.net, typ))
	opt := l.sockOptions(p.net)
	src, ok := l.listen[p.net.host].reservedPort(p.net.addr, dst, opt)
	if !ok {
		l.connectFailed(cb, -EADDRINUSE)
		return
	}
	p.net.host.Dial(src, dst, opt, func(s *tcp.Conn, err error) { l.dialed(cb, typ, s, err) })
}

// dialed continues ksocknal_connect once lnet_connect's socket is up (or failed).
func (l *LND) dialed(cb *connCB, typ ConnType, s *tcp.Conn, err error) {
	if err != nil {
		if errors.Is(err, tcp.ErrAddrInUse) { // lnet_connect tries the next reserved port
			l.connect(cb)
			return
		}
		l.connectFailed(cb, -sockErrno(err))
		return
	}
	l.createActive(cb, typ, s)
}

// connectStep is where ksocknal_connect's loop goes after ksocknal_create_conn returned rc
// for one socket: 0 continues with the next type, > 0 (lost race, renegotiation, stale)
// ends the loop for a later retry, < 0 fails.
func (l *LND) connectStep(cb *connCB, rc int) {
	switch {
	case rc < 0:
		l.connectFailed(cb, rc)
	case rc > 0:
		cb.retryCount++
		l.connectEnd(cb, true, rc)
	default:
		cb.retryCount = 0
		l.connect(cb)
	}
}

// connectEnd is the end of ksocknal_connect's loop without failure: after SOCKNAL_MAX_RETRIES
// lost races a peer that has one conn of each type is taken as fully connected (else the
// attempt fails); a retry is rescheduled, min_reconnectms later after a lost race or while
// the peer is connecting to me.
func (l *LND) connectEnd(cb *connCB, retryLater bool, rc int) {
	cb.scheduled, cb.connecting = false, false
	if cb.retryCount >= MaxRetries && cb.typ > ConnNone {
		if cb.blki > 0 && cb.blko > 0 && cb.ctrl > 0 {
			cb.connected |= 1<<ConnControl | 1<<ConnBulkIn | 1<<ConnBulkOut
		} else {
			l.connectFailed(cb, -EALREADY)
			return
		}
		retryLater = false
	}
	if !retryLater {
		return
	}
	if rc == EALREADY || (rc == 0 && cb.peer.accepting > 0) {
		cb.retryInterval = LostRaceInterval(cb.peer.net.tun.MinReconnectms)
		cb.timeout = l.k.Now() + secs(int(cb.retryInterval))
	}
	cb.scheduled = true
	at := max(l.k.Now(), cb.timeout)
	l.k.Schedule(at, l.hid, evConnect, uint64(cb.idx))
}

// connectFailed models ksocknal_connect's failed path: the retry interval doubles within
// [min_reconnectms, max_reconnectms]; if nothing else can carry the peer's waiting txs they
// fail with the connect error; ksocknal_peer_failed may tell LNet the peer is down.
func (l *LND) connectFailed(cb *connCB, rc int) {
	p := cb.peer
	l.stats.ConnectFailed++
	cb.scheduled, cb.connecting = false, false
	tun := p.net.tun
	cb.retryInterval = NextRetryInterval(cb.retryInterval, tun.MinReconnectms, tun.MaxReconnectms)
	cb.timeout = l.k.Now() + secs(int(cb.retryInterval))
	l.event(p.net, p.nid, "connect_failed", rc, "")
	var zombies []*tx
	if len(p.txQueue) > 0 && p.accepting == 0 && connectingCB(p) == nil {
		zombies, p.txQueue = p.txQueue, nil
	}
	l.peerFailed(p)
	l.txListDone(p.net, zombies, rc)
}

// peerFailed models ksocknal_peer_failed.
func (l *LND) peerFailed(p *peerNI) {
	if PeerFailedNotifies(false, len(p.conns), p.accepting, connectingCB(p) != nil) {
		l.lnetNotify(p.net, p.nid, p.lastAlive)
	}
}

// sockErrno maps model/tcp's errors to the errno the kernel's socket calls return.
func sockErrno(err error) int {
	switch {
	case errors.Is(err, tcp.ErrConnRefused):
		return ECONNREFUSED
	case errors.Is(err, tcp.ErrConnReset):
		return ECONNRESET
	case errors.Is(err, tcp.ErrTimedOut):
		return ETIMEDOUT
	case errors.Is(err, tcp.ErrBrokenPipe):
		return 32 // EPIPE
	}
	return EHOSTUNREACH
}

// sockOptions models ksocknal_lib_setup_sock's socket options: buffer sizes (0: the
// system's) and TCP keepalive when keepalive_idle, _count and _intvl are all positive.
func (l *LND) sockOptions(n *ksockNet) tcp.Options {
	t := n.tun
	o := tcp.Options{SendBuffer: t.TxBufferSize, RecvBuffer: t.RxBufferSize, Reuse: n.profile.reuse()}
	if t.KeepaliveIdle > 0 && t.KeepaliveCount > 0 && t.KeepaliveIntvl > 0 {
		o.KeepIdle, o.KeepIntvl, o.KeepCnt = secs(t.KeepaliveIdle), secs(t.KeepaliveIntvl), t.KeepaliveCount
	}
	return o
}
