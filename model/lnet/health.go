package lnet

// isHealthCheck models lnet_is_health_check: only committed messages on the active list with
// a peer, whose status and hstatus agree (0 iff OK), are health-checked; under
// HealthFromSendsOnly (2.12) only messages committed for sending.
func (n *Node) isHealthCheck(m *Msg) bool {
	if !m.onActive || !(m.txCommitted || m.rxCommitted) {
		return false
	}
	if n.tun.Profile.HealthFromSendsOnly && !m.txCommitted {
		return false
	}
	if m.txCommitted && m.txPeerNI == nil || m.rxCommitted && m.rxPeerNI == nil {
		return false // e.g. the optimized GET's REPLY, which has no rx peer
	}
	return (m.status == 0) == (m.HStatus == LNET_MSG_STATUS_OK)
}

// healthCheck models lnet_health_check. It applies the health effects of the message's
// hstatus (reference table b) to the NI and peer NI it used (the tx pair if committed for
// sending, else the rx pair), counts the statistics (lnet_incr_hstats), and
// attempts a resend for resendable statuses; it reports whether the message was queued for
// resend (the caller must then leave it alone).
func (n *Node) healthCheck(m *Msg) bool {
	hs := m.HStatus
	var ni *NI
	var lpni *PeerNI
	if m.txCommitted {
		ni, lpni = m.txNI, m.txPeerNI
	} else {
		ni, lpni = m.rxNI, m.rxPeerNI
	}
	if n.k.Now() > m.deadline {
		n.stats.LateMsgCount++
		if hs != LNET_MSG_STATUS_OK {
			return false
		}
	}
	if n.shutdown {
		return false // LNet stopping (its monitor gone): no statistics, health or resend
	}
	if hs == LNET_MSG_STATUS_OK {
		if m.retries > 0 {
			n.stats.SuccessfulResends++
		}
		n.healthSuccess(m, ni, lpni)
		return false
	}
	multiRail := n.nonLoNIs() > 1
	localResend := multiRail || n.tun.Profile.SingleRailResend
	localHealth := multiRail || !n.tun.Profile.SingleRailNoLocalHealth
	remoteResend := true
	remoteLpni := lpni
	if m.recovery && n.tun.Profile.RecoveryFailureKeepsHealth {
		localHealth, remoteLpni = false, nil
	}
	if lpni != nil && len(lpni.peer.nis) <= 1 && !n.tun.Profile.SingleRailResend {
		remoteResend = false
		if !lpni.peer.isRouter && (!n.routing || n.tun.Profile.NotifyByHealth) {
			remoteLpni = nil
		}
	}
	if remoteLpni != nil && n.isLocalNID(remoteLpni.nid) {
		remoteLpni = nil // my own NIs recover through local NI recovery
	}
	n.stats.countHStatus(hs)
	countNIHStatus(ni, lpni, hs)
	if !localHealth {
		ni = nil
	}
	resend := false
	switch hs {
	case LNET_MSG_STATUS_LOCAL_INTERRUPT, LNET_MSG_STATUS_LOCAL_DROPPED,
		LNET_MSG_STATUS_LOCAL_ABORTED, LNET_MSG_STATUS_LOCAL_NO_ROUTE,
		LNET_MSG_STATUS_LOCAL_TIMEOUT:
		n.handleLocalFailure(ni)
		resend = localResend
	case LNET_MSG_STATUS_LOCAL_ERROR:
		n.handleLocalFailure(ni)
	case LNET_MSG_STATUS_REMOTE_DROPPED:
		n.handleRemoteFailure(remoteLpni, CauseFailure)
		resend = remoteResend
	case LNET_MSG_STATUS_REMOTE_ERROR, LNET_MSG_STATUS_REMOTE_TIMEOUT:
		n.handleRemoteFailure(remoteLpni, CauseFailure)
	case LNET_MSG_STATUS_NETWORK_TIMEOUT:
		n.handleRemoteFailure(remoteLpni, CauseFailure)
		if !n.tun.Profile.NetworkTimeoutRemoteOnly {
			n.handleLocalFailure(ni)
		}
	}
	if !resend || !m.txCommitted {
		return false
	}
	return n.attemptResend(m)
}

// healthSuccess applies a success (the OK case of lnet_health_check): the NI gains the
// profile's increment; a peer NI we received from is alive (routers and gateways to full
// health, unless fail_loc CFS_FAIL_RTR_HEALTH_INC fails its check), or, under
// HealthFromSendsOnly (2.12), the peer NI we sent to gains the increment.
func (n *Node) healthSuccess(m *Msg, ni *NI, lpni *PeerNI) {
	n.incNIHealth(ni, CauseSuccess)
	if n.tun.Profile.HealthFromSendsOnly {
		if lpni != nil {
			n.incPeerHealth(lpni, CauseSuccess)
		}
		return
	}
	if !m.rxCommitted || lpni == nil {
		return
	}
	lpni.pingCount = 0
	ni.pingCount = 0
	// The node's flag first: a router loads no peer.
	if (n.routing || lpni.peer.isRouter) && !n.failCheck(FailRtrHealthInc) {
		n.setPeerHealth(lpni, MaxHealth, CauseRouter)
	} else {
		n.incPeerHealth(lpni, CauseSuccess)
	}
	if lpni.health < MaxHealth {
		n.peerNIAddToRecovery(lpni)
	}
}

// handleLocalFailure models lnet_handle_local_failure: decrement the NI's health and put it on
// the local recovery queue; nil (a single-NI node whose profile skips local health) is a
// no-op.
func (n *Node) handleLocalFailure(ni *NI) {
	if ni == nil {
		return
	}
	n.decNIHealth(ni, CauseFailure)
	n.niAddToRecovery(ni)
}

// handleRemoteFailure models lnet_handle_remote_failure_locked: decrement the peer NI's
// health (and so its peer net's) and queue it for recovery.
func (n *Node) handleRemoteFailure(lpni *PeerNI, cause HealthCause) {
	if lpni == nil {
		return
	}
	n.decPeerHealth(lpni, cause)
	n.peerNIAddToRecovery(lpni)
}

// decNIHealth models lnet_dec_healthv_locked on a local NI; landing on 0 sets status DOWN.
func (n *Node) decNIHealth(ni *NI, cause HealthCause) {
	s := n.tun.HealthSensitivity
	if s == 0 {
		return
	}
	v := ni.health - s
	if v < 0 {
		v = 0
	}
	n.setNIHealth(ni, v, cause)
}

// incNIHealth models lnet_inc_healthv on a local NI; reaching 1000 sets status UP.
func (n *Node) incNIHealth(ni *NI, cause HealthCause) {
	s := n.healthIncrement()
	if s == 0 || ni.health == MaxHealth {
		return
	}
	n.setNIHealth(ni, min(ni.health+s, MaxHealth), cause)
}

// peerSensitivity is what a peer NI's health moves by, s by default. Under
// GatewayOwnSensitivity (2.15, 2.16) a gateway's peer NIs move by its lp_health_sensitivity,
// which the last route added through it set (lnet_add_route: `route add
// --health_sensitivity`, else 1); a peer that became a gateway only by taking another's
// routes (transferRoutes: lnet_rtr_transfer_to_peer moves no sensitivity) has none of its
// own and moves by s; on a router with health_sensitivity 0 every other peer's by 1
// (lnet_peer_alloc gives the peers of a router 1; here judged when health moves, not when
// the peer is made).
func (n *Node) peerSensitivity(lpni *PeerNI, s int) int {
	if !n.tun.Profile.GatewayOwnSensitivity {
		return s
	}
	if p := lpni.peer; p.isRouter && p.gw != nil && p.gw.sensitivity > 0 {
		return p.gw.sensitivity
	}
	if n.routing && n.tun.HealthSensitivity == 0 {
		return 1
	}
	return s
}

// healthIncrement is what a success adds to health: health_sensitivity, or 1 under
// HealthIncrementOne (2.12's lnet_inc_healthv).
func (n *Node) healthIncrement() int {
	if n.tun.Profile.HealthIncrementOne {
		return 1
	}
	return n.tun.HealthSensitivity
}

// setNIHealth sets a local NI's health, traces it, and applies the status edges of a change
// (niStatusFromHealth).
func (n *Node) setNIHealth(ni *NI, v int, cause HealthCause) {
	old := ni.health
	if old == v {
		return
	}
	ni.health = v
	if n.tracer != nil {
		n.tracer.HealthChange(n.k.Now(), n.name, ni.nid, true, old, v, cause)
	}
	n.niStatusFromHealth(ni)
}

// niStatusFromHealth models the status edges LU-19476 (3f423f8d49, 2.17) adds to
// lnet_dec_ni_healthv_locked, lnet_inc_ni_healthv and lnet_ni_set_healthv: an NI at health
// 0 has its word in the ping buffer set DOWN, at 1000 UP, by lnet_ni_set_status alone: the
// word is edited in place, the buffer keeps its sequence number and nothing is pushed (2.17
// and master alike), so peers learn it at their next ping or discovery of this node, or from
// a push made for another reason. Nothing under NoNIStatusFromHealth (up to 2.16).
func (n *Node) niStatusFromHealth(ni *NI) {
	if n.tun.Profile.NoNIStatusFromHealth {
		return
	}
	switch ni.health {
	case 0:
		n.editNIStatus(ni, NIStatusDown)
	case MaxHealth:
		n.editNIStatus(ni, NIStatusUp)
	}
}

// setNIStatus models lnet_ni_set_status followed, when it changed the word, by
// lnet_push_update_to_peers (as lnet_parse and the router monitor do): editNIStatus, then a
// push to peers.
func (n *Node) setNIStatus(ni *NI, s NIStatus) {
	if n.editNIStatus(ni, s) && n.started {
		n.pushToPeers()
	}
}

// editNIStatus models lnet_ni_set_status: it writes the NI's word in the ping buffer (same
// sequence number) and reports whether that changed it; a change is traced (as the NI's
// status, see NI.Status).
func (n *Node) editNIStatus(ni *NI, s NIStatus) bool {
	if ni.status == s {
		return false
	}
	old := ni.Status()
	ni.status = s
	n.traceNIStatus(ni, old)
	if n.started {
		n.updatePingBuffer()
	}
	return true
}

// traceNIStatus traces a change of an NI's status from old; it reports whether it changed.
func (n *Node) traceNIStatus(ni *NI, old NIStatus) bool {
	cur := ni.Status()
	if cur == old {
		return false
	}
	if n.tracer != nil {
		n.tracer.NIStatusChange(n.k.Now(), n.name, ni.nid, old, cur)
	}
	return true
}

// decPeerHealth decrements a peer NI's health (lnet_dec_lpni_healthv_locked) and its peer
// net's.
func (n *Node) decPeerHealth(lpni *PeerNI, cause HealthCause) {
	s := n.peerSensitivity(lpni, n.tun.HealthSensitivity)
	if s == 0 {
		return
	}
	n.setPeerHealth(lpni, max(lpni.health-s, 0), cause)
}

// incPeerHealth increments a peer NI's health (lnet_inc_lpni_healthv_locked).
func (n *Node) incPeerHealth(lpni *PeerNI, cause HealthCause) {
	s := n.peerSensitivity(lpni, n.healthIncrement())
	if s == 0 || lpni.health == MaxHealth {
		return
	}
	n.setPeerHealth(lpni, min(lpni.health+s, MaxHealth), cause)
}

func (n *Node) setPeerHealth(lpni *PeerNI, v int, cause HealthCause) {
	old := lpni.health
	if old == v {
		return
	}
	lpni.health = v
	lpni.pnet.updateHealth()
	n.routesChanged()
	if n.tracer != nil {
		n.tracer.HealthChange(n.k.Now(), n.name, lpni.nid, false, old, v, cause)
	}
}
