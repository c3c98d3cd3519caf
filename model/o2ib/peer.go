package o2ib

import (
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// peerHashSize is the size of kiblnd_data.kib_peers (DECLARE_HASHTABLE(..., 7)).
const (
	peerHashBits = 7
	peerHashSize = 1 << peerHashBits
)

// Conn race and reconnect limits (o2iblnd.h).
const (
	maxConnRaces   = 20 // MAX_CONN_RACES_BEFORE_ABORT
	reconnHighRace = 10 // KIB_RECONN_HIGH_RACE
)

// peer is struct kib_peer_ni: o2iblnd's view of one peer NID on one net.
//
// A peer is 192 bytes, three whole cache lines (TestHotObjectSizes). What a send and a
// completion read is in the first: with one conn (the usual case) nextConn finds it in
// conn0 without loading the conns array, which lives in a separate allocation.
type peer struct {
	// What sends and completions touch first (peerAlive on every completion).
	net       *kibNet
	nid       lnet.NID
	lastAlive sim.Time
	conns     []*conn // written only through setConns
	conn0     *conn   // conns[0], or nil
	next      int32
	linked    bool // in the peer table (kiblnd_peer_active)

	bucket  int
	txQueue []*tx // ibp_tx_queue: txs waiting for a connection

	connecting   int // ibp_connecting
	accepting    int // ibp_accepting
	reconnecting int // ibp_reconnecting
	reconnected  int // ibp_reconnected
	retries      int // ibp_retries: no-listener rejects (NoListenerReconnect)
	races        int // ibp_races
	version      uint16
	incarnation  uint64
	queueDepth   int
	maxFrags     int
	err          int // ibp_error

	_ [8]byte // to 192 bytes: peers in a slab chunk each start a cache line
}

// hashNID is hash_64(nid, 7): the peer table bucket.
func hashNID(nid lnet.NID) int {
	return int((uint64(nid) * 0x61C8864680B583EB) >> (64 - peerHashBits))
}

// createPeer models kiblnd_create_peer: queue depth from peer_credits, max frags the
// protocol's.
func (l *LND) createPeer(n *kibNet, nid lnet.NID) *peer {
	p := l.peerSlab.New()
	p.net, p.nid, p.bucket, p.queueDepth, p.maxFrags = n, nid, hashNID(nid), n.tun.peerCredits, maxRDMAFrags
	return p
}

// linkPeer adds the peer to the table (hash_add).
func (l *LND) linkPeer(p *peer) {
	p.linked = true
	p.net.peers[p.nid] = p
	l.peerTab[p.bucket] = append(l.peerTab[p.bucket], p)
}

// unlinkPeer models kiblnd_unlink_peer_locked.
func (l *LND) unlinkPeer(p *peer) {
	if !p.linked {
		return
	}
	p.linked = false
	if p.net.peers[p.nid] == p {
		delete(p.net.peers, p.nid)
	}
	b := l.peerTab[p.bucket]
	for i, q := range b {
		if q == p {
			l.peerTab[p.bucket] = append(b[:i], b[i+1:]...)
			break
		}
	}
}

// connectingNow is kiblnd_peer_connecting.
func (p *peer) connectingNow() bool {
	return p.connecting != 0 || p.reconnecting != 0 || p.accepting != 0
}

// idle is kiblnd_peer_idle.
func (p *peer) idle() bool { return !p.connectingNow() && len(p.conns) == 0 }

// setConns sets the peer's established conns, keeping conn0.
func (p *peer) setConns(cs []*conn) {
	p.conns, p.conn0 = cs, nil
	if len(cs) > 0 {
		p.conn0 = cs[0]
	}
}

// nextConn models kiblnd_get_conn_locked: round-robin over the established conns.
func (p *peer) nextConn() *conn {
	if len(p.conns) == 1 { // the round robin's only choice, without loading the array
		p.next = 1
		return p.conn0
	}
	if int(p.next) >= len(p.conns) {
		p.next = 0
	}
	c := p.conns[p.next]
	p.next++
	return c
}

// alive models kiblnd_peer_alive.
func (l *LND) peerAlive(p *peer) { p.lastAlive = l.k.Now() }

// peerNotify models kiblnd_peer_notify: an idle peer with an error is reported down.
func (l *LND) peerNotify(p *peer) {
	if p.idle() && p.err != 0 {
		p.err = 0
		l.lnetNotify(p.net, p.nid, p.lastAlive)
	}
}

// delPeer models kiblnd_del_peer_locked for shutdown: close its conns, fail waiting txs.
func (l *LND) delPeer(p *peer) {
	for _, c := range append([]*conn(nil), p.conns...) {
		l.closeConn(c, -lnet.ESHUTDOWN)
	}
	txs := p.txQueue
	p.txQueue = nil
	l.unlinkPeer(p)
	l.txlistDone(txs, -lnet.EIO, lnet.LNET_MSG_STATUS_LOCAL_ERROR)
}

// peerConnectFailed models kiblnd_peer_connect_failed: when no attempt is left the waiting
// txs fail with the hstatus the error maps to (EHOSTUNREACH/ETIMEDOUT: NETWORK_TIMEOUT,
// ECONNREFUSED: REMOTE_DROPPED, anything else: LOCAL_DROPPED; LOCAL_DROPPED for all under
// LocalConnFailureStatus, and for ECONNREFUSED under RefusedLocalDropped), the peer leaves
// the table and LNet is told it is down.
func (l *LND) peerConnectFailed(p *peer, active bool, err int) {
	if active && p.connecting > 0 {
		p.connecting--
	} else if !active && p.accepting > 0 {
		p.accepting--
	}
	if p.connectingNow() {
		return
	}
	p.reconnected = 0
	var zombies []*tx
	if len(p.conns) == 0 {
		zombies = p.txQueue
		p.txQueue = nil
		l.unlinkPeer(p)
		p.err = err
	}
	l.connEvent(p.net, p.nid, "failed", err, 0, 0)
	l.peerNotify(p)
	if len(zombies) == 0 {
		return
	}
	hs := lnet.LNET_MSG_STATUS_LOCAL_DROPPED
	rules := &p.net.tun.Profile
	switch {
	case rules.LocalConnFailureStatus:
	case err == -lnet.EHOSTUNREACH, err == -lnet.ETIMEDOUT:
		hs = lnet.LNET_MSG_STATUS_NETWORK_TIMEOUT
	case err == -eCONNREFUSED && !rules.RefusedLocalDropped:
		hs = lnet.LNET_MSG_STATUS_REMOTE_DROPPED
	}
	l.txlistDone(zombies, err, hs)
}

// Errnos o2iblnd uses that model/lnet does not name.
const (
	eCONNREFUSED = 111
	eNOTCONN     = 107
	eCONNRESET   = 104
	eESTALE      = 116
	eMSGSIZE     = 90
)
