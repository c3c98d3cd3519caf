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

// sendData models struct lnet_send_data: one path selection's inputs, send case and choices.
type sendData struct {
	m        *Msg
	src, rtr NID     // sd_src_nid, sd_rtr_nid (AnyNID when not given)
	lpni     *PeerNI // sd_best_lpni: the destination's peer NI until a case picks another
	final    *PeerNI // sd_final_dst_lpni: the final destination of a routed send
	ni       *NI     // sd_best_ni: the local NI once chosen

	srcSpec bool // SRC_SPEC (else SRC_ANY)
	local   bool // LOCAL_DST (else REMOTE_DST)
	mr      bool // MR_DST (else NMR_DST)
	resp    bool // SND_RESP: an ACK or REPLY
}

// selectPathway models lnet_select_pathway: find or create the destination peer NI, hold the
// message on the peer while it is discovered (initiatePeerDiscovery), classify the send case
// (sendCase) and hand it to its handler (handleSendCase). It returns 0 (sent, queued on
// credits or waiting for discovery) or a negative errno.
func (n *Node) selectPathway(src, dst NID, m *Msg, rtr NID) int {
	if n.shutdown {
		return -ESHUTDOWN
	}
	if dst.Net() == LoNet {
		return n.loSend(m)
	}
	lpni := n.nid2peerni(dst)
	if n.initiatePeerDiscovery(lpni, m) {
		return 0 // LNET_DC_WAIT
	}
	sd := n.sendCase(src, rtr, lpni, m)
	return n.handleSendCase(&sd)
}

// initiatePeerDiscovery models lnet_initiate_peer_discovery: a PUT or GET off the reserved
// portal (lnet_msg_discovery) to a peer not yet discovered is queued on the peer
// (lnet_peer_queue_message) before discovery starts, so that a discovery failing at once
// finalizes it in discoveryDone. A gateway being checked (LNET_PEER_RTR_DISCOVERY,
// lnet_peer_gw_discovery: gwDiscovery) is not waited for. It reports whether the
// message now waits (LNET_DC_WAIT).
func (n *Node) initiatePeerDiscovery(lpni *PeerNI, m *Msg) bool {
	p := lpni.peer
	if !n.tun.Discovery || n.upToDate(p) || !msgDiscovery(m) || n.gwDiscovery(p) {
		return false
	}
	p.pending.Push(m)
	n.discoverPeer(p)
	return true
}

// gwDiscovery models lnet_peer_gw_discovery: a router check of gateway p is in flight, its
// own ping or one that joined an ordinary discovery (2.12's checker is no discovery).
func (n *Node) gwDiscovery(p *Peer) bool {
	g := p.gw
	return g != nil && (g.joined || g.ping != nil && !n.tun.Profile.RouterCheckerPing)
}

// sendCase classifies a send as lnet_select_pathway does: source specified or any; local
// destination (with a source, on the source's net; without, on any local net) or remote;
// multi-rail destination unless the peer is not multi-rail, the message is a recovery ping,
// or a router's final hop may not forward multi-rail (lnet_mr_forwarding_allowed). Under
// FinalHopFreeMR (2.12) a final hop forwards a PUT or GET multi-rail whenever the destination
// is (2.12's send cases have no final-hop rule; its ACK and REPLY keep their NID, SND_RESP).
func (n *Node) sendCase(src, rtr NID, lpni *PeerNI, m *Msg) sendData {
	sd := sendData{m: m, src: src, rtr: rtr, lpni: lpni, final: lpni, srcSpec: src != AnyNID, resp: m.isResponse}
	dnet := lpni.nid.Net()
	if sd.srcSpec {
		sd.local = src.Net() == dnet
	} else {
		sd.local = n.netByID(dnet) != nil
	}
	mrOK := true
	switch {
	case !m.routing || !sd.local:
	case n.tun.Profile.FinalHopFreeMR: // 2.12: no final-hop rule for a PUT or GET
		mrOK = m.Hdr.Type == MsgPUT || m.Hdr.Type == MsgGET || n.mrForwardAllowed(m, lpni)
	default: // the final hop asks on every message, whatever the destination
		mrOK = n.mrForwardAllowed(m, lpni)
	}
	sd.mr = lpni.peer.mr && !m.recovery && mrOK
	return sd
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
// more tx credits, lower sequence; a full tie keeps the earlier NI. Under FatalNINeverUsed
// (up to 2.15; LU-14955) a fatal NI is skipped, so a net whose NIs are all fatal has none.
// GPU device priority is not modelled (all MDs are host memory).
func (n *Node) bestNI(net *Net) *NI {
	if net == nil {
		return nil
	}
	var best *NI
	bd := 0
	for _, ni := range net.nis {
		if ni.fatal && n.tun.Profile.FatalNINeverUsed {
			continue
		}
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
