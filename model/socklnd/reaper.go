package socklnd

import "github.com/lnetsim/lnetsim/sim"

// reap models one second of ksocknal_reaper: ReaperChunk buckets of the peer table are
// checked (ksocknal_check_peer_timeouts) in turn.
func (l *LND) reap() {
	timeout := 0
	for _, n := range l.nets {
		timeout = max(timeout, int(n.timeout()/sim.Second))
	}
	for range ReaperChunk(timeout) {
		l.checkPeerTimeouts(l.rIdx)
		l.rIdx = (l.rIdx + 1) % PeerHashSize
	}
	if len(l.nets) > 0 {
		l.k.ArmAfter(&l.reaper, sim.Second)
	}
}

// checkPeerTimeouts models ksocknal_check_peer_timeouts for one bucket: per peer, a due
// keepalive NOOP; a conn with a socket error or past its receive or send deadline closes
// (with its siblings) with -ETIMEDOUT or the error, its queued txs NETWORK_TIMEOUT; txs
// waiting on the peer past their deadline fail (ksocknal_flush_stale_txs); zero-copy txs
// whose ACK is overdue close their conn.
func (l *LND) checkPeerTimeouts(b int) {
again:
	for _, p := range l.peers[b] {
		for _, c := range p.conns {
			c.progress()
		}
		if l.sendKeepalive(p) {
			goto again
		}
		if c, rc := l.findTimedOutConn(p); c != nil {
			l.stats.TimedOutConns++
			l.closeConnAndSiblings(c, rc)
			goto again
		}
		now := l.k.Now()
		if len(p.txQueue) > 0 && now >= p.txQueue[0].deadline {
			var stale []*tx
			for len(p.txQueue) > 0 && now >= p.txQueue[0].deadline {
				t := p.txQueue[0]
				p.txQueue = p.txQueue[1:]
				t.hstatus = p.net.profile.timedOut()
				stale = append(stale, t)
			}
			l.stats.StaleTxs += uint64(len(stale))
			l.txListDone(p.net, stale, -ETIMEDOUT)
			goto again
		}
		for _, t := range p.zcReq {
			if now < t.deadline {
				break
			}
			if t.conn.closing {
				continue
			}
			l.stats.TimedOutConns++
			l.event(p.net, p.nid, "zc_timeout", -ETIMEDOUT, "")
			l.closeConnAndSiblings(t.conn, -ETIMEDOUT)
			goto again
		}
	}
}

// findTimedOutConn models ksocknal_find_timed_out_conn with ConnTimers.TimedOut on each of
// the peer's conns; a send timeout marks the conn's queued txs NETWORK_TIMEOUT (LOCAL_TIMEOUT
// under Profile.TimeoutLocalStatus).
func (l *LND) findTimedOutConn(p *peerNI) (*conn, int) {
	now := toSecs(l.k.Now())
	for _, c := range p.conns {
		ct := ConnTimers{RxStarted: c.rxStarted, RxDeadline: ceilSecs(c.rxDeadline),
			TxPending: len(c.txQueue) > 0 || c.sockQueued() != 0, TxDeadline: ceilSecs(c.txDeadline)}
		rc := ct.TimedOut(now)
		if rc == 0 {
			continue
		}
		if ct.TxPending && !(c.rxStarted && now >= ct.RxDeadline) {
			for _, t := range c.txQueue {
				t.hstatus = p.net.profile.timedOut()
			}
		}
		l.event(p.net, p.nid, "conn_timeout", rc, c.typ.String())
		return c, rc
	}
	return nil, 0
}

// progress brings what c's socket has moved since the reaper last looked into the conn's
// clocks, as the kernel does at each step. Receive: ksocknal_recv_iter, on every read that
// returns bytes, marks the peer alive (ksnp_last_alive) and, with a message under way, moves
// the receive deadline (ksnc_rx_deadline) to that read + sock_timeout; model/tcp reads at
// chunk granularity, so this is the last chunk (or piece of one) that extended the in-order
// stream. Send: ksocknal_transmit, woken by write space while a tx is still being copied into
// a full socket buffer, finds sk_wmem_queued below ksnc_tx_bufnob (bytes acknowledged) and
// moves the send deadline (ksnc_tx_deadline) to then + sock_timeout, the peer alive; in the
// model a record is written whole, so those wake-ups are the ACKs that came while more than
// the send buffer was queued (tcp.Progress.AckedFullAt). Deadlines only move later, so reading
// them late changes nothing.
func (c *conn) progress() {
	if c.dead || c.sock == nil || c.hs != hsDone || c.peer == nil {
		return
	}
	pr := c.sock.Progress()
	t := c.net.timeout()
	if at := pr.ReadAt; at != 0 {
		c.peer.lastAlive = max(c.peer.lastAlive, at)
		if c.rxStarted {
			c.rxDeadline = max(c.rxDeadline, at+t)
		}
	}
	if at := pr.AckedFullAt; at != 0 {
		c.peer.lastAlive = max(c.peer.lastAlive, at)
		c.txDeadline = max(c.txDeadline, at+t)
	}
}

// ceilSecs is a deadline in the kernel's whole seconds: the model's deadlines are exact
// times; the kernel's are ktime_get_seconds() + timeout, so compared at whole seconds.
func ceilSecs(t sim.Time) int64 { return int64((t + sim.Second - 1) / sim.Second) }

// sendKeepalive models ksocknal_send_keepalive_locked (KeepaliveDue) and reports whether a
// NOOP was launched.
func (l *LND) sendKeepalive(p *peerNI) bool {
	now := toSecs(l.k.Now())
	var c *conn
	if len(p.conns) > 0 {
		c = l.findConn(p, &tx{nonblk: true})
	}
	queued := c != nil && len(c.txQueue) > 0
	armed, send := KeepaliveDue(p.proto, len(p.conns), p.net.tun.Keepalive, now, toSecs(p.lastAlive),
		toSecs(p.sendKeepalive), queued)
	if !armed {
		return false
	}
	p.sendKeepalive = secs(int(NextKeepalive(now)))
	if !send {
		return false
	}
	l.stats.Keepalives++
	l.event(p.net, p.nid, "keepalive", 0, "")
	return l.noop(p, KeepalivePing, true) == 0
}
