package lnet

import "github.com/lnetsim/lnetsim/sim"

// send models lnet_send: remember the source and gateway parameters for resends, run path
// selection, and map a selection failure to an hstatus (-EHOSTUNREACH -> REMOTE_ERROR, other
// errors -> LOCAL_ERROR). It returns 0 (sent, queued on credits or waiting for discovery) or a
// negative errno the caller finalizes with.
func (n *Node) send(src NID, m *Msg, rtr NID) int {
	m.srcSpec = src
	m.rtrNID = rtr
	rc := n.selectPathway(src, m.Hdr.Dst, m, rtr)
	if rc < 0 {
		if rc == -EHOSTUNREACH {
			m.HStatus = LNET_MSG_STATUS_REMOTE_ERROR
		} else {
			m.HStatus = LNET_MSG_STATUS_LOCAL_ERROR
		}
	}
	return rc
}

// commitTx models lnet_msg_commit for a send: the message joins the active list and gets its
// deadline (see deadline) and its latency start (msg_t_start).
func (n *Node) commitTx(m *Msg) {
	m.txCommitted = true
	m.tStart = n.k.Now()
	m.onActive = true
	m.deadline = n.deadline(m.txNI)
}

// deadline models get_msg_deadline for a message sent or received on ni; under a profile
// before 2.17 it is lnet_msg_commit's now + transaction_timeout whatever the LND.
func (n *Node) deadline(ni *NI) sim.Time {
	now := n.k.Now()
	if t := ni.net.timeoutLND; t != nil && !n.tun.Profile.DeadlineFromTransactionTimeout {
		if lt := t.Timeout(ni); lt > 0 {
			return now + lt*sim.Time(n.tun.RetryCount+1) + sim.Second
		}
	}
	return now + sim.Time(n.tun.TransactionTimeout)*sim.Second
}

// handleSend models lnet_handle_send: bump the round-robin sequences of the chosen net, NI,
// peer net and peer NI, record the choice on the message, commit it, set the header source
// (unless forwarding: the originator's stays) and destination, record the next hop in the
// response tracker and post it. For a routed send lpni is the gateway's peer NI and final the
// destination's (whose sequences are bumped too): the message targets the router
// (msg_target_is_router) and the header names the final destination. Otherwise the header
// names the chosen peer NI, also on a router's final hop, where multi-rail forwarding may
// have chosen another NI of the destination than the originator addressed.
//
// A message whose MD was unlinked meanwhile (LNET_MD_FLAG_ABORTED) is refused after the
// commit, as lnet_post_send_locked(msg, do_send = 0) refuses it: -ECANCELED goes back up
// through lnet_send, which sets LOCAL_ERROR, and the caller finalizes the committed message,
// so its health check charges the selected local NI (lnet_handle_local_failure). Only a
// resend meets this (an API send checks its MD first): a GET queued for resend whose MD the
// user unlinked on the failed REPLY event that o2iblnd delivers with it (kiblnd_tx_done)
// costs the client's own NI a local failure.
func (n *Node) handleSend(ni *NI, lpni, final *PeerNI, m *Msg) int {
	p := lpni.peer
	p.sendSeq++
	lpni.pnet.seq = p.sendSeq
	lpni.seq = p.sendSeq
	n.netSeq++
	ni.net.seq = n.netSeq
	ni.seq = n.netSeq

	m.txNI = ni
	m.txPeerNI = lpni
	m.txCPT = int8(n.cptOfNID(lpni.nid)) // lnet_cpt_of_nid_locked(best_lpni's NID, best_ni)
	m.target = lpni.nid
	m.targetIsRtr = final != nil
	n.commitTx(m)
	dst := lpni
	if final != nil {
		fp := final.peer
		fp.sendSeq++
		final.pnet.seq = fp.sendSeq
		final.seq = fp.sendSeq
		dst = final
	}
	if !m.routing {
		m.Hdr.Src = ni.nid
	}
	m.Hdr.Dst = dst.nid
	if md := m.md; md != nil && md.rspt != 0 {
		n.rsp.setNextHop(md.rspt, lpni.nid)
	}
	if md := m.md; md != nil && md.aborted && !m.routing {
		return -ECANCELED
	}
	return n.postSend(m, false)
}
