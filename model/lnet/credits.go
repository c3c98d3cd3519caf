package lnet

import "github.com/lnetsim/lnetsim/sim"

// hdrSize is the LNet header's wire size, added to lpni_txqnob with the payload.
const hdrSize = 72

// postSend models lnet_post_send_locked: drop a message past its deadline (NETWORK_TIMEOUT,
// -ETIMEDOUT; routers never enforce it on routed messages, unless the opt-in
// RouterMsgExpiry policy drops one past its arrival deadline), drop a routed message to a
// peer NI whose cached status is not UP when the net's peer_timeout is set (REMOTE_DROPPED,
// -EHOSTUNREACH), refuse a message whose MD was unlinked (-ECANCELED),
// take a peer NI tx credit then an NI tx credit from the queue of the message's tx CPT
// (queueing FIFO when either goes negative),
// let a delay rule capture the message, and hand it to the LND. A message posted after
// waiting for a credit (doSend) is finalized with a drop's error; on its first post (from
// handleSend) the error is returned instead, as the kernel's do_send = 0 returns it up
// through lnet_send, whose caller ends the message (a forwarded one without a health check,
// forwardFailed). It returns 0 or that error.
func (n *Node) postSend(m *Msg, doSend bool) int {
	now := n.k.Now()
	if rc := n.checkMessageDrop(m, now); rc != 0 {
		n.dropOnPost(m)
		if doSend {
			n.finalize(m, rc)
		}
		return rc
	}
	if m.routing && n.tun.RouterMsgExpiry && now > m.rtrDeadline {
		// Opt-in expiry policy (not in the kernel): dropped and counted, no health effect
		// (OK hstatus with an error), no resend.
		n.dropOnPost(m)
		n.rstats.Expired++
		m.noResend = true
		m.HStatus = LNET_MSG_STATUS_OK
		n.finalize(m, -ETIMEDOUT)
		return 0
	}
	if md := m.md; md != nil && md.aborted {
		m.noResend = true
		n.finalize(m, -ECANCELED)
		return 0
	}
	lpni, ni := m.txPeerNI, m.txNI
	if !m.peerCredit {
		m.peerCredit = true
		lpni.txCredits--
		lpni.txqnob += m.Hdr.PayloadLength + hdrSize
		if lpni.txCredits < lpni.minTxCredits {
			lpni.minTxCredits = lpni.txCredits
		}
		if lpni.txCredits < 0 {
			lpni.txq.Push(m)
			return 0
		}
	}
	if !m.niCredit {
		m.niCredit = true
		tq := &ni.tq[m.txCPT]
		tq.credits--
		ni.txCredits--
		if tq.credits < tq.min {
			tq.min = tq.credits
		}
		if tq.credits < 0 {
			tq.delayed.Push(m)
			return 0
		}
	}
	if len(n.delayRules) > 0 && n.delayOnSend(m) {
		return 0
	}
	n.lndSend(m)
	return 0
}

// checkMessageDrop models lnet_check_message_drop: -ETIMEDOUT (NETWORK_TIMEOUT) for a
// message past its deadline (never a routed one; not at all under NoDropPastDeadline, up to
// 2.15, which has no such check), -EHOSTUNREACH (REMOTE_DROPPED) for a routed one whose next
// hop is not alive (lnet_is_peer_ni_alive: gwNIAlive) when the net's peer_timeout is set (a
// router does not forward to a peer NI it believes dead); 0 otherwise.
func (n *Node) checkMessageDrop(m *Msg, now sim.Time) int {
	switch {
	case !m.routing && now > m.deadline && !n.tun.Profile.NoDropPastDeadline:
		m.HStatus = LNET_MSG_STATUS_NETWORK_TIMEOUT
		return -ETIMEDOUT
	case m.routing && m.txNI.net.Tunables.PeerTimeout > 0 && !n.gwNIAlive(m.txPeerNI) &&
		!n.legacyPeerAlive(m, now):
		m.HStatus = LNET_MSG_STATUS_REMOTE_DROPPED
		return -EHOSTUNREACH
	}
	return 0
}

// legacyPeerAlive is the part of 2.15's lnet_peer_alive_locked that LU-17855 (2.16) removed,
// under NotifyByHealth: a routed message is still sent when it is a resend, a recovery ping
// or a response, or while the next hop was heard from within the net's peer_timeout.
func (n *Node) legacyPeerAlive(m *Msg, now sim.Time) bool {
	if !n.tun.Profile.NotifyByHealth {
		return false
	}
	lpni := m.txPeerNI
	last := lpni.lastAlive / sim.Second * sim.Second
	return m.retries > 0 || m.recovery || m.isResponse ||
		last+sim.Time(m.txNI.net.Tunables.PeerTimeout)*sim.Second > now/sim.Second*sim.Second
}

// lndSend models lnet_ni_send: hand the message to its NI's LND. An immediate failure
// finalizes the message with no resend (the LND's hstatus, if any, still drives health).
func (n *Node) lndSend(m *Msg) {
	m.sending = true
	ni := m.txNI
	if n.tracer != nil {
		n.tracer.MsgAttempt(n.name, m.id, int(m.retries), n.k.Now(), ni.nid, m.target)
	}
	// The kernel passes msg_private, which no LND's send reads; here Send's private is always
	// nil (a received message's private has been released by Recv before it is sent on).
	if err := ni.net.lnd.Send(ni, nil, m); err != nil {
		m.noResend = true
		n.finalize(m, errnoOf(err, -EIO))
	}
}

// dropOnPost counts a message dropped by lnet_check_message_drop: globally and on the NI and
// peer NI it was to use.
func (n *Node) dropOnPost(m *Msg) {
	ln := uint64(m.Hdr.PayloadLength)
	n.stats.DropCount++
	n.stats.DropLength += ln
	t := statsType(m)
	m.txNI.stats.DropCount++
	m.txNI.stats.DropLength += ln
	m.txNI.stats.Dropped.inc(t)
	if m.txPeerNI != nil {
		m.txPeerNI.dropped.inc(t)
	}
}

// returnTxCredits models lnet_return_tx_credits_locked: give back the NI and peer NI tx
// credits the message holds; each returned credit that was owed to a waiting message posts
// the head of that queue (which re-runs the deadline check).
func (n *Node) returnTxCredits(m *Msg) {
	if m.niCredit {
		m.niCredit = false
		ni := m.txNI
		tq := &ni.tq[m.txCPT]
		tq.credits++
		ni.txCredits++
		if tq.credits <= 0 {
			if m2 := tq.delayed.Pop(); m2 != nil {
				n.postSend(m2, true)
			}
		}
	}
	if m.peerCredit {
		m.peerCredit = false
		lpni := m.txPeerNI
		lpni.txqnob -= m.Hdr.PayloadLength + hdrSize
		lpni.txCredits++
		if lpni.txCredits <= 0 {
			if m2 := lpni.txq.Pop(); m2 != nil {
				n.postSend(m2, true)
			}
		}
	}
}

// decommitTx models lnet_msg_decommit_tx: count the send when status is 0 (a forwarded
// message as route_count/route_length instead of send_count; a failure or a resend counts
// nothing here; drops are counted where they happen) and return the credits.
func (n *Node) decommitTx(m *Msg, status int) {
	if !m.txCommitted {
		return
	}
	m.txCommitted = false
	ln := uint64(m.Hdr.PayloadLength)
	switch {
	case status == 0 && m.routing:
		n.stats.RouteCount++
		n.stats.RouteLength += ln
		if m.status == 0 { // not a forward that failed (forwardFailed)
			n.rstats.Forwarded++
		}
		fallthrough
	case status == 0:
		if !m.routing {
			n.stats.SendCount++
			n.stats.SendLength += ln
		}
		m.txNI.stats.SendCount++
		m.txNI.stats.SendLength += ln
		t := statsType(m)
		m.txNI.stats.Sent.inc(t)
		if m.txPeerNI != nil {
			m.txPeerNI.sent.inc(t)
		}
		n.recordEgress(m)
	}
	n.returnTxCredits(m)
	m.sending = false
}

// decommitRx models lnet_msg_decommit_rx: count a successful receive (a routed one only in
// the NI and peer NI statistics; an optimized GET's passive side as send_length) and return
// the router buffer and router credit a routed message holds (lnet_return_rx_credits_locked).
func (n *Node) decommitRx(m *Msg, status int) {
	if !m.rxCommitted {
		return
	}
	if m.rtrPool != 0 || m.peerRtrCredit {
		defer n.returnRxCredits(m)
	}
	m.rxCommitted = false
	ln := uint64(m.rxLen)
	if status == 0 {
		// The passive side of an optimized GET (the LND sent the REPLY's data from its
		// receive) counts those bytes as send_length, as the kernel does on LNET_EVENT_GET;
		// any other receive counts its payload as recv_length. The per-NI byte counts are the
		// model's own (the kernel keeps only message counts per NI) and follow the same rule.
		passiveGet := m.evType == EventGET
		if !m.routing { // a forwarded message counts once, as route_count (decommitTx)
			n.stats.RecvCount++
			if passiveGet {
				n.stats.SendLength += ln
			} else {
				n.stats.RecvLength += ln
			}
		}
		if passiveGet {
			m.rxNI.stats.SendLength += ln
		} else {
			m.rxNI.stats.RecvLength += ln
		}
		// The message counts of the NI and peer NI are the kernel's: only a parsed message
		// has msg_rxni and msg_rxpeer (lnet_parse sets them); the initiator's REPLY of an
		// optimized GET (lnet_create_reply_msg) has neither, so it counts in the node's
		// recv_count but in no NI's or peer NI's statistics.
		if m.rxPeerNI != nil {
			t := statsType(m)
			m.rxNI.stats.RecvCount++
			m.rxNI.stats.Received.inc(t)
			m.rxPeerNI.received.inc(t)
		}
	}
}
