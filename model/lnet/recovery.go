package lnet

import "github.com/lnetsim/lnetsim/sim"

// niAddToRecovery models lnet_ni_add_to_recoveryq_locked: an NI below full health joins the
// local recovery queue once, with its next ping due after interval(ping count).
func (n *Node) niAddToRecovery(ni *NI) {
	if ni.inRecovery || ni.health == MaxHealth {
		return
	}
	ni.inRecovery = true
	ni.nextPing = n.nowSeconds() + n.tun.recoveryInterval(ni.pingCount)
	n.localRecov = append(n.localRecov, ni)
}

// peerNIAddToRecovery models lnet_peer_ni_add_to_recoveryq_locked: only a peer NI below full
// health that we have heard from, and (with recovery_limit > 0) heard from within the limit;
// an aged-out peer NI has its ping count reset and is not queued. Under
// PeerRecoveryUnbounded (2.12, before LU-13569) any peer NI below full health is queued.
func (n *Node) peerNIAddToRecovery(lpni *PeerNI) {
	bounded := !n.tun.Profile.PeerRecoveryUnbounded
	if lpni.inRecovery || lpni.health == MaxHealth || bounded && !lpni.heardFrom {
		return
	}
	now := n.nowSeconds()
	last := lpni.lastAlive / sim.Second * sim.Second
	if lim := n.tun.RecoveryLimit; bounded && lim > 0 && now > last+sim.Time(lim)*sim.Second {
		lpni.pingCount = 0
		return
	}
	lpni.inRecovery = true
	lpni.nextPing = n.nowSeconds() + n.tun.recoveryInterval(lpni.pingCount)
	n.peerRecov = append(n.peerRecov, lpni)
}

// recoverLocalNIs models lnet_recover_local_nis: drop NIs back at full health; unlink the MD
// of a failed ping; when a ping is due and none is pending, send a recovery ping (a GET on
// the reserved portal to the NI's own NID, chosen by normal NMR selection), count it and set
// the next ping after interval(ping count).
func (n *Node) recoverLocalNIs() {
	if len(n.localRecov) == 0 {
		return
	}
	now := n.nowSeconds()
	q := n.localRecov
	keep := q[:0]
	var due []*NI
	for _, ni := range q {
		if ni.health == MaxHealth {
			ni.inRecovery = false
			continue
		}
		keep = append(keep, ni)
		if md := ni.takeFailedPing(); md != nil {
			n.mdUnlink(md, 0)
		}
		if now >= ni.nextPing && !ni.pingPending {
			due = append(due, ni)
		}
	}
	for i := len(keep); i < len(q); i++ {
		q[i] = nil
	}
	n.localRecov = keep
	for _, ni := range due {
		ni.pingPending = true
		ni.pingCount++
		ni.nextPing = now + n.tun.recoveryInterval(ni.pingCount)
		md := n.allocMD(MDSpec{Length: n.pingBufSize(), Threshold: 2, Options: MD_TRACK_RESPONSE | MD_TRUNCATE,
			Handler: &n.sysH, User: sysLocalRecovery<<56 | uint64(ni.nid)})
		ni.recoveryMD = md
		n.get(AnyNID, md, ni.nid, ReservedPortal, PingMatchBits, 0, true)
	}
}

// recoverPeerNIs models lnet_recover_peer_nis: as recoverLocalNIs for peer NIs, pinging the
// peer NI's NID; a peer NI is re-queued through the same eligibility check (so
// recovery_limit ages it out).
func (n *Node) recoverPeerNIs() {
	if len(n.peerRecov) == 0 {
		return
	}
	now := n.nowSeconds()
	q := n.peerRecov
	n.peerRecov = nil
	var due []*PeerNI
	for _, lpni := range q {
		lpni.inRecovery = false
		if lpni.health == MaxHealth {
			continue
		}
		if md := lpni.takeFailedPing(); md != nil {
			n.mdUnlink(md, 0)
		}
		if now >= lpni.nextPing && !lpni.pingPending {
			due = append(due, lpni)
			continue
		}
		// Not due: stays queued with its ping time.
		lpni.inRecovery = true
		n.peerRecov = append(n.peerRecov, lpni)
	}
	for _, lpni := range due {
		lpni.pingPending = true
		lpni.pingCount++
		n.peerNIAddToRecovery(lpni)
		if lpni.inRecovery {
			lpni.nextPing = now + n.tun.recoveryInterval(lpni.pingCount)
		}
		md := n.allocMD(MDSpec{Length: n.pingBufSize(), Threshold: 2, Options: MD_TRACK_RESPONSE | MD_TRUNCATE,
			Handler: &n.sysH, User: sysPeerRecovery<<56 | uint64(lpni.nid)})
		lpni.recoveryMD = md
		n.get(AnyNID, md, lpni.nid, ReservedPortal, PingMatchBits, 0, true)
	}
}

// handleRecoveryEvent models lnet_handle_recovery_reply: a SEND error, an UNLINK or a REPLY
// clears the pending flag; any error marks the ping failed (its MD is unlinked on the next
// pass); a successful REPLY to a local NI's ping raises the NI's health. A peer NI's health
// rises through the received REPLY's own health check.
func (n *Node) handleRecoveryEvent(ev *Event, local bool, nid NID) {
	if ev.Type == EventSEND && ev.Status == 0 {
		return
	}
	failed := ev.Status != 0 || ev.Type == EventUNLINK
	if local {
		ni := n.niByNID.get(nid)
		if ni == nil {
			return
		}
		ni.pingDone(ev, failed)
		if failed {
			return
		}
		if ev.Type == EventREPLY {
			n.incNIHealth(ni, CauseRecoveryReply)
		}
		return
	}
	lpni := n.findPeerNI(nid)
	if lpni == nil {
		return
	}
	lpni.pingDone(ev, failed)
}

// nowSeconds is the current time truncated to whole seconds: recovery times are kept in
// ktime_get_seconds() units, as in the kernel.
func (n *Node) nowSeconds() sim.Time { return n.k.Now() / sim.Second * sim.Second }
