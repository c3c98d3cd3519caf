package lnet

// handleSendCase models lnet_handle_send_case_locked: dispatch on the send case. With a source
// given the destination NID is used as given (the same RPC continues); without one,
// selection runs.
func (n *Node) handleSendCase(sd *sendData) int {
	switch {
	case sd.srcSpec && sd.local && !sd.mr:
		return n.handleSpecLocalNMRDst(sd)
	case sd.srcSpec && sd.local:
		return n.handleSpecLocalMRDst(sd)
	case sd.srcSpec:
		return n.handleSpecRouterDst(sd)
	case sd.local && !sd.mr:
		return n.handleAnyLocalNMRDst(sd)
	case sd.mr:
		return n.handleAnyMRDst(sd)
	}
	return n.handleAnyRouterNMRDst(sd)
}

// specNI sets the send's local NI to the given source NI (lnet_nid_to_ni_locked); -EINVAL if
// the source is not a local NID.
func (n *Node) specNI(sd *sendData) int {
	if sd.ni = n.niByNID.get(sd.src); sd.ni == nil {
		return -EINVAL
	}
	return 0
}

// sendDirect hands the chosen local NI and peer NI to handleSend (no gateway).
func (n *Node) sendDirect(sd *sendData) int { return n.handleSend(sd.ni, sd.lpni, nil, sd.m) }

// findRoutedPath runs routedPath and records its choice of local NI and final destination;
// setPref, for a non-MR destination, then records the local NI as the destination's
// preferred one (lnet_set_non_mr_pref_nid). It returns the gateway's peer NI.
func (n *Node) findRoutedPath(sd *sendData, setPref bool) (*PeerNI, int) {
	ni, gw, final, rc := n.routedPath(sd.ni, sd.lpni, sd.m, sd.rtr)
	if rc != 0 {
		return nil, rc
	}
	sd.ni, sd.final = ni, final
	if setPref {
		n.setNonMRPref(final, ni, sd.m)
	}
	return gw, 0
}

// sendRouted sends through the routed path: the gateway as next hop, the final destination
// in the header.
func (n *Node) sendRouted(sd *sendData, setPref bool) int {
	gw, rc := n.findRoutedPath(sd, setPref)
	if rc != 0 {
		return rc
	}
	return n.handleSend(sd.ni, gw, sd.final, sd.m)
}

// handleSpecLocalNMRDst models lnet_handle_spec_local_nmr_dst: source NI and destination as
// given; the source becomes the non-MR peer NI's preferred NI if it has none.
func (n *Node) handleSpecLocalNMRDst(sd *sendData) int {
	if rc := n.specNI(sd); rc != 0 {
		return rc
	}
	n.setNonMRPref(sd.lpni, sd.ni, sd.m)
	return n.sendDirect(sd)
}

// handleSpecLocalMRDst models lnet_handle_spec_local_mr_dst: source NI and destination as
// given, no selection on the peer's NIs.
func (n *Node) handleSpecLocalMRDst(sd *sendData) int {
	if rc := n.specNI(sd); rc != 0 {
		return rc
	}
	return n.sendDirect(sd)
}

// handleSpecRouterDst models lnet_handle_spec_router_dst: a given source NI to a remote
// destination, MR or not, goes to a gateway on the source's net; a non-MR destination gets
// the source as its preferred NI.
func (n *Node) handleSpecRouterDst(sd *sendData) int {
	if rc := n.specNI(sd); rc != 0 {
		return rc
	}
	return n.sendRouted(sd, !sd.mr)
}

// handleAnyLocalNMRDst models lnet_handle_any_local_nmr_dst: a router's final hop may use any
// NI on the destination's net; an originator keeps the non-MR peer's preferred NI
// (selectPreferredBestNI).
func (n *Node) handleAnyLocalNMRDst(sd *sendData) int {
	if !sd.m.routing {
		if rc := n.selectPreferredBestNI(sd); rc != 0 {
			return rc
		}
		return n.sendDirect(sd)
	}
	if sd.ni = n.bestNI(n.netByID(sd.lpni.nid.Net())); sd.ni == nil {
		return -EHOSTUNREACH
	}
	return n.sendDirect(sd)
}

// selectPreferredBestNI models lnet_select_preferred_best_ni: the local NI a peer NI of the
// destination's peer net prefers (not for reserved-portal traffic), else the best NI on that
// net; it then becomes the preferred NI if the peer NI has none.
func (n *Node) selectPreferredBestNI(sd *sendData) int {
	if !isReservedPortal(sd.m) {
		sd.ni = n.existingPreferredNI(sd.lpni)
	}
	if sd.ni == nil {
		sd.ni = n.bestNI(n.netByID(sd.lpni.nid.Net()))
	}
	if sd.ni == nil {
		return -EHOSTUNREACH
	}
	n.setNonMRPref(sd.lpni, sd.ni, sd.m)
	return 0
}

// existingPreferredNI models lnet_find_existing_preferred_best_ni: the local NI named by the
// first peer NI on lpni's peer net that has a preferred NID (nil if none, or not local).
func (n *Node) existingPreferredNI(lpni *PeerNI) *NI {
	for _, x := range lpni.pnet.nis {
		if len(x.prefNIDs) > 0 {
			return n.niByNID.get(x.prefNIDs[0])
		}
	}
	return nil
}

// handleAnyMRDst models lnet_handle_any_mr_dst: a response to a remote MR peer goes back
// through a gateway to the NID given; otherwise the peer's local nets are tried first
// (handleAnyMRDsta), even when the NID given is remote, and only a peer with no local net
// is routed to (routedPath round-robins over its routed nets).
func (n *Node) handleAnyMRDst(sd *sendData) int {
	if !sd.local && sd.resp {
		gw, rc := n.findRoutedPath(sd, false)
		if rc != 0 {
			return -EHOSTUNREACH
		}
		return n.handleSend(sd.ni, gw, sd.final, sd.m)
	}
	if rc, done := n.handleAnyMRDsta(sd); done {
		return rc
	}
	return n.sendRouted(sd, false)
}

// handleAnyMRDsta models lnet_handle_any_mr_dsta: a response goes to the NID given from the
// best NI on its net; a fresh PUT or GET takes the best of the peer's nets that are local
// (bestLocalNet; a router check's ping, the net of the check, rtrDiscNet), the best NI on it and the best peer NI there (lnet_find_best_lpni), and is
// sent directly, the header naming the chosen peer NI. done is false when the peer has no
// local net (PASS_THROUGH).
func (n *Node) handleAnyMRDsta(sd *sendData) (rc int, done bool) {
	if sd.resp {
		if sd.ni = n.bestNI(n.netByID(sd.lpni.nid.Net())); sd.ni == nil {
			return -EHOSTUNREACH, true
		}
		return n.sendDirect(sd), true
	}
	lpn, net := n.rtrDiscNet(sd.lpni.peer, sd.m)
	if lpn == nil {
		lpn, net = n.bestLocalNet(sd.lpni.peer)
	}
	if lpn == nil {
		return 0, false
	}
	if sd.ni = n.bestNI(net); sd.ni == nil {
		return 0, false
	}
	sd.lpni = n.selectPeerNI(sd.ni, lpn) // never nil: bestLocalNet skips empty peer nets
	sd.final = sd.lpni
	return n.sendDirect(sd), true
}

// handleAnyRouterNMRDst models lnet_handle_any_router_nmr_dst: a remote non-MR peer is sent
// to from the local NI it already prefers, through a gateway on that NI's net; the first
// send picks the NI with the route and records it as preferred, so the source NID stays
// the same.
func (n *Node) handleAnyRouterNMRDst(sd *sendData) int {
	sd.ni = n.existingPreferredNI(sd.lpni)
	return n.sendRouted(sd, true)
}
