package o2ib

import (
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// conndTick is the timed part of kiblnd_connd, once a second: check a slice of the peer
// table sized so that every peer is checked four times per timeout (n = 4, p = 1 s), which
// puts timeout detection within about 1.25 x timeout; then retry the reconnects deferred
// after too many in a row.
func (l *LND) conndTick() {
	chunk := peerHashSize
	if to := l.maxTimeout(); to > 4*sim.Second {
		chunk = int(sim.Time(peerHashSize) * 4 * sim.Second / to)
	}
	if chunk == 0 {
		chunk = 1
	}
	for i := 0; i < chunk; i++ {
		l.checkConns(l.checkIdx)
		l.checkIdx = (l.checkIdx + 1) % peerHashSize
	}
	w := l.reconnW
	l.reconnW = nil
	for _, p := range w {
		l.reconnectPeer(p)
	}
	if len(l.nets) > 0 {
		l.k.ArmAfter(&l.connd, sim.Second)
	}
}

// maxTimeout is kiblnd_timeout() as connd sees it (one module-wide value in the kernel; the
// longest of the nets' here).
func (l *LND) maxTimeout() sim.Time {
	var to sim.Time
	for _, n := range l.nets {
		if t := n.timeout(); t > to {
			to = t
		}
	}
	return to
}

// checkConns models kiblnd_check_conns on one bucket: txs waiting for a connection past
// their deadline fail NETWORK_TIMEOUT (failWaitingTxs); active connection requests
// (ibp_connreqs, not under NoConnreqTimeout) whose rdma_connect is more than
// connreq_timeout old are aborted (-ENETDOWN), while a passive
// side's wait for the RTU is left to the CM; an established conn with any tx past its
// deadline is closed with -ETIMEDOUT; otherwise a conn owing a NOOP gets a send check.
func (l *LND) checkConns(bucket int) {
	now := l.k.Now()
	var timedOut []*tx
	var closes, checks, connreqs []*conn
	for _, p := range l.peerTab[bucket] {
		keep := p.txQueue[:0]
		for _, t := range p.txQueue {
			if now >= t.deadline {
				timedOut = append(timedOut, t)
			} else {
				keep = append(keep, t)
			}
		}
		clear(p.txQueue[len(keep):])
		p.txQueue = keep
		for _, c := range p.conns {
			switch {
			case l.connTimedOut(c, now):
				closes = append(closes, c)
			case l.needNoop(c):
				checks = append(checks, c)
			}
		}
	}
	for _, c := range l.conns[l.firstLiveConn():] {
		if c.state == connActiveConnect && c.peer.bucket == bucket &&
			!c.peer.net.tun.Profile.NoConnreqTimeout && now-c.started > c.peer.net.tun.connreqTimeout {
			connreqs = append(connreqs, c)
		}
	}
	l.stats.TimedOutTxs += uint64(len(timedOut))
	l.failWaitingTxs(timedOut)
	for _, c := range connreqs {
		_ = c.cmid.Disconnect()
		l.connreqDone(c, -lnet.ENETDOWN)
	}
	for _, c := range closes {
		l.closeConn(c, -lnet.ETIMEDOUT)
	}
	for _, c := range checks {
		l.checkSends(c)
	}
}

// failWaitingTxs fails the txs connd found past their deadline while waiting for a
// connection: -ETIMEDOUT with NETWORK_TIMEOUT, or LOCAL_TIMEOUT under
// LocalConnFailureStatus (each tx's own net's rule: one bucket holds peers of every net).
func (l *LND) failWaitingTxs(txs []*tx) {
	for _, t := range txs {
		hs := lnet.LNET_MSG_STATUS_NETWORK_TIMEOUT
		if t.net.tun.Profile.LocalConnFailureStatus {
			hs = lnet.LNET_MSG_STATUS_LOCAL_TIMEOUT
		}
		l.txlistDone([]*tx{t}, -lnet.ETIMEDOUT, hs)
	}
}

// firstLiveConn skips the conns destroyed long ago (the conn table only grows).
func (l *LND) firstLiveConn() int {
	for i := l.liveFrom; i < len(l.conns) && l.conns[i].destroyed; i++ {
		l.liveFrom = i + 1
	}
	return l.liveFrom
}

// connTimedOut models kiblnd_conn_timed_out_locked: any tx on any queue, or active, past
// its deadline.
func (l *LND) connTimedOut(c *conn, now sim.Time) bool {
	f := func(t *tx) bool { return now >= t.deadline }
	late := c.txQueue.any(f) || c.txRsrvd.any(f) || c.txNocred.any(f) || c.active.any(f)
	if late {
		l.stats.TimedOutTxs++
	}
	return late
}
