package lnet

// isReservedPortal reports ping/push traffic (LNET_RESERVED_PORTAL), which skips discovery
// and preferred-NI handling.
func isReservedPortal(m *Msg) bool {
	return (m.Hdr.Type == MsgGET || m.Hdr.Type == MsgPUT) && m.Hdr.Portal == ReservedPortal
}

// msgDiscovery models lnet_msg_discovery: only PUT and GET off the reserved portal trigger
// discovery of their destination (a router forwarding them too); ACK and REPLY never do.
func msgDiscovery(m *Msg) bool {
	t := m.Hdr.Type
	return (t == MsgPUT || t == MsgGET) && m.Hdr.Portal != ReservedPortal
}

// selectPathway models lnet_select_pathway. Order: find or create the destination peer NI;
// hold the message while the peer is discovered (lnet_msg_discovery: PUT and GET off the
// reserved portal, forwarded ones included); classify source-specified vs any, local vs remote, multi-rail vs not
// (a router's final hop is handled as non-MR unless mrForwardAllowed); choose the local NI
// and peer NI, or a route (routedPath); hand over to handleSend.
func (n *Node) selectPathway(src, dst NID, m *Msg, rtr NID) int {
	if n.shutdown {
		return -ESHUTDOWN
	}
	if dst.Net() == LoNet {
		return n.loSend(m)
	}
	lpni := n.nid2peerni(dst)
	p := lpni.peer
	if n.tun.Discovery && !p.discovered && msgDiscovery(m) {
		n.discoverPeer(p)
		if !p.discovered {
			p.pending.Push(m)
			return 0
		}
	}
	srcSpec := src != AnyNID
	var local bool
	if srcSpec {
		local = src.Net() == dst.Net()
	} else {
		local = n.netByID(dst.Net()) != nil
	}
	if !local {
		var ni *NI
		if srcSpec {
			if ni = n.niByNID[src]; ni == nil {
				return -EINVAL
			}
		}
		return n.routedPath(ni, lpni, m, rtr)
	}
	mr := p.mr && !m.recovery
	switch {
	case m.routing && !srcSpec && (!mr || !n.mrForwardAllowed(m, lpni)):
		// A router's non-MR final hop: the destination as given, the best NI on its net.
		ni := n.bestNI(n.netByID(dst.Net()))
		if ni == nil {
			return -EHOSTUNREACH
		}
		return n.handleSend(ni, lpni, nil, m)
	case srcSpec:
		// SRC_SPEC + LOCAL (MR or NMR): source NI and destination exactly as given
		// (lnet_handle_spec_local_{mr,nmr}_dst).
		ni := n.niByNID[src]
		if ni == nil {
			return -EINVAL
		}
		n.setNonMRPref(lpni, ni, m)
		return n.handleSend(ni, lpni, nil, m)
	case !mr:
		// SRC_ANY + LOCAL + NMR (lnet_handle_any_local_nmr_dst, lnet_select_preferred_best_ni):
		// the NI some NI of that peer net prefers (not for reserved-portal traffic), else the
		// best NI on the net; then remember it as preferred.
		var ni *NI
		if !isReservedPortal(m) {
			for _, x := range lpni.pnet.nis {
				if len(x.prefNIDs) > 0 {
					ni = n.niByNID[x.prefNIDs[0]]
					break
				}
			}
		}
		if ni == nil {
			ni = n.bestNI(n.netByID(dst.Net()))
		}
		if ni == nil {
			return -EHOSTUNREACH
		}
		n.setNonMRPref(lpni, ni, m)
		return n.handleSend(ni, lpni, nil, m)
	case m.isResponse:
		// SRC_ANY + LOCAL + MR response: destination fixed, best NI on its net.
		ni := n.bestNI(n.netByID(dst.Net()))
		if ni == nil {
			return -ENETDOWN
		}
		return n.handleSend(ni, lpni, nil, m)
	}
	// SRC_ANY + LOCAL + MR (lnet_handle_any_mr_dsta): best local net, best NI, best peer NI.
	lpn, net := n.bestLocalNet(p)
	if lpn == nil {
		return -EHOSTUNREACH
	}
	ni := n.bestNI(net)
	if ni == nil {
		return -ENETDOWN
	}
	best := n.selectPeerNI(ni, lpn)
	if best == nil {
		return -EHOSTUNREACH
	}
	return n.handleSend(ni, best, nil, m)
}

// setNonMRPref models lnet_set_non_mr_pref_nid: the first non-response send to a non-MR peer NI
// records the local NI used as its preferred NID.
func (n *Node) setNonMRPref(lpni *PeerNI, ni *NI, m *Msg) {
	if !lpni.peer.mr && !m.isResponse && len(lpni.prefNIDs) == 0 {
		lpni.prefNIDs = append(lpni.prefNIDs, ni.nid)
		lpni.nonMRPref = true
	}
}

// bestLocalNet models lnet_find_best_ni_on_local_net's choice among the peer's nets that are
// local nets: higher peer-net health, lower peer-net priority, higher local-net health, lower
// local-net priority, lower peer-net sequence, lower net sequence; a full tie keeps the first.
func (n *Node) bestLocalNet(p *Peer) (*PeerNet, *Net) {
	var bl *PeerNet
	var bn *Net
	var bnh int
	for _, lpn := range p.nets {
		net := n.netByID(lpn.id)
		if net == nil || len(net.nis) == 0 || len(lpn.nis) == 0 {
			continue
		}
		nh := net.healthv()
		if bl != nil {
			switch {
			case lpn.health != bl.health:
				if lpn.health < bl.health {
					continue
				}
			case lpn.SelPriority != bl.SelPriority:
				if lpn.SelPriority > bl.SelPriority {
					continue
				}
			case nh != bnh:
				if nh < bnh {
					continue
				}
			case net.SelPriority != bn.SelPriority:
				if net.SelPriority > bn.SelPriority {
					continue
				}
			case lpn.seq != bl.seq:
				if lpn.seq > bl.seq {
					continue
				}
			case net.seq != bn.seq:
				if net.seq > bn.seq {
					continue
				}
			default:
				continue
			}
		}
		bl, bn, bnh = lpn, net, nh
	}
	return bl, bn
}

// bestNI models lnet_get_best_ni: among the net's NIs prefer not fatal, then higher health,
// lower selection priority, lower NUMA distance (distances below numa_range count as equal),
// more tx credits, lower sequence; a full tie keeps the earlier NI. GPU device priority is not
// modelled (all MDs are host memory).
func (n *Node) bestNI(net *Net) *NI {
	if net == nil {
		return nil
	}
	var best *NI
	bd := 0
	for _, ni := range net.nis {
		d := max(ni.NUMADist, n.tun.NUMARange)
		if best != nil {
			switch {
			case ni.fatal != best.fatal:
				if ni.fatal {
					continue
				}
			case ni.health != best.health:
				if ni.health < best.health {
					continue
				}
			case ni.SelPriority != best.SelPriority:
				if ni.SelPriority > best.SelPriority {
					continue
				}
			case d != bd:
				if d > bd {
					continue
				}
			case ni.txCredits != best.txCredits:
				if ni.txCredits < best.txCredits {
					continue
				}
			case ni.seq != best.seq:
				if ni.seq > best.seq {
					continue
				}
			default:
				continue
			}
		}
		best, bd = ni, d
	}
	return best
}

// selectPeerNI models lnet_select_peer_ni: higher health, lower selection priority, an NI that
// lists ni as preferred, more tx credits, lower sequence; a full tie keeps the earlier.
func (n *Node) selectPeerNI(ni *NI, lpn *PeerNet) *PeerNI { return n.selectPeerNIFrom(ni, lpn, nil) }

// selectPeerNIFrom is lnet_select_peer_ni with a best peer NI carried in from another peer
// net (lnet_find_best_lpni over every local net of a gateway): that one competes on its
// health and tx credits only, as in the kernel, whose best priority and preferred flag start
// afresh (UINT_MAX, false) on each call. With ni nil no peer NI counts as preferred.
func (n *Node) selectPeerNIFrom(ni *NI, lpn *PeerNet, best *PeerNI) *PeerNI {
	bp := false
	bprio := ^uint32(0)
	for _, lpni := range lpn.nis {
		pref := ni != nil && lpni.isPreferred(ni.nid)
		if best != nil {
			switch {
			case lpni.health != best.health:
				if lpni.health < best.health {
					continue
				}
			case lpni.SelPriority != bprio:
				if lpni.SelPriority > bprio {
					continue
				}
			case pref != bp:
				if !pref {
					continue
				}
			case lpni.txCredits != best.txCredits:
				if lpni.txCredits < best.txCredits {
					continue
				}
			case lpni.seq != best.seq:
				if lpni.seq > best.seq {
					continue
				}
			default:
				continue
			}
		}
		best, bp, bprio = lpni, pref, lpni.SelPriority
	}
	return best
}
