package lnet

// PingNI is one entry of a ping buffer: an NI and the status its node advertises.
type PingNI struct {
	NID    NID      // the NI
	Status NIStatus // what its node advertises
}

// PingBuffer is what a node answers a ping with and pushes on change (struct
// lnet_ping_buffer, simplified): its NIs with status and whether it is multi-rail. A buffer
// is immutable once published; a change publishes a new one.
type PingBuffer struct {
	NIs       []PingNI // 0@lo first, as the kernel lists it
	MultiRail bool     // the node is multi-rail capable
	Seq       uint32   // bumped on every change
	// RoutingDisabled is LNET_PING_FEAT_RTE_DISABLED: the node does not forward.
	RoutingDisabled bool
	// Discovery is LNET_PING_FEAT_DISCOVERY: the node has discovery enabled.
	Discovery bool
}

func (b *PingBuffer) size() int { return 16 + 16*len(b.NIs) }

// PingBuffer returns the node's current ping buffer.
func (n *Node) PingBuffer() *PingBuffer { return n.pingBuf }

// pingInfoMinSize is LNET_PING_INFO_MIN_SIZE: a ping buffer with room for LNET_INTERFACES_MIN
// (16) entries, 0@lo included.
const pingInfoMinSize = 16 + 16*16

// pingBufSize is the size of the MDs recovery pings reply into (LNET_PING_INFO_MIN_SIZE;
// longer replies are truncated, which a recovery ping does not look at).
func (n *Node) pingBufSize() int { return pingInfoMinSize }

// discPingSize is the size of a discovery ping's MD for p, as lnet_peer_send_ping sizes it:
// what the peer's last ping buffer needed (lp_data_bytes), at least LNET_PING_INFO_MIN_SIZE.
func (p *Peer) discPingSize() int { return max(p.dataBytes, pingInfoMinSize) }

// truncatedPing models the truncation checks of lnet_discovery_event_reply and
// lnet_peer_push_event: b arrived in mlen bytes. It records the size the peer's buffer needs
// (lp_data_bytes) and grows the push target to it (ln_push_target_nbytes, resized by the
// discovery thread: here at once), and reports whether b was cut short, in which case the
// kernel ignores its content and pings the peer again with a buffer that fits.
func (n *Node) truncatedPing(p *Peer, b *PingBuffer, mlen int) bool {
	size := b.size()
	p.dataBytes = max(p.dataBytes, size)
	if mlen >= size {
		return false
	}
	if n.pushMD != nil && n.pushMD.spec.Length < size {
		n.pushMD.spec.Length = size
	}
	return true
}

// updatePingBuffer models lnet_ping_target_update: publish the NIs and their status.
func (n *Node) updatePingBuffer() {
	n.seqNo++
	b := &PingBuffer{MultiRail: true, Seq: n.seqNo, NIs: make([]PingNI, 0, len(n.nis)+1), RoutingDisabled: n.rtrState != rtrEnabled, Discovery: n.tun.Discovery}
	b.NIs = append(b.NIs, PingNI{NID: LoNID, Status: NIStatusUp})
	for _, ni := range n.nis {
		b.NIs = append(b.NIs, PingNI{NID: ni.nid, Status: ni.Status()})
	}
	n.pingBuf = b
	if n.pingMD != nil {
		n.pingMD.spec.Length = b.size() // lnet_ping_target_update sizes the new target for its NIs
	}
}

// System MD purposes, kept in the top byte of the MD's User value (the low 56 bits hold a NID).
const (
	sysPush          = 1
	sysLocalRecovery = 2
	sysPeerRecovery  = 3
	sysDiscovery     = 4
)

// sysHandler receives the events of LNet's own MDs (ping/push, recovery, discovery).
type sysHandler struct{ n *Node }

// OnEvent dispatches a system MD event.
func (h *sysHandler) OnEvent(ev *Event) {
	n := h.n
	nid := NID(ev.User & (1<<56 - 1))
	switch ev.User >> 56 {
	case sysPush:
		if ev.Type == EventPUT && ev.Status == 0 {
			if b, ok := ev.Data.(*PingBuffer); ok {
				if lpni := n.findPeerNI(ev.Initiator); lpni != nil {
					if n.truncatedPing(lpni.peer, b, ev.MLength) {
						// LNET_PEER_FORCE_PING: the peer is pinged with a buffer that fits.
						p := lpni.peer
						p.discovered = false
						n.discoverPeer(p)
						return
					}
					n.processPingBuffer(lpni.peer, b, true)
					if lpni.peer.gw != nil && !n.tun.Profile.RouterCheckerPing {
						n.updateGatewayRoutes(lpni.peer, b) // 2.12: only its router checker does
					}
				}
			}
		}
	case sysLocalRecovery:
		n.handleRecoveryEvent(ev, true, nid)
	case sysPeerRecovery:
		n.handleRecoveryEvent(ev, false, nid)
	case sysDiscovery:
		n.handleDiscoveryEvent(ev, nid)
	case sysRouterRef:
		n.handleRouterPingEvent(ev, int(nid))
	}
}

// discoverPeer starts discovery of p (models lnet_peer_queue_for_discovery and the ping step
// of lnet_peer_discovery): a GET on the reserved portal to the peer's primary NID, always
// response-tracked, into a buffer of discPingSize. Simplified: no separate push step; the
// reply's NI list is merged at once.
func (n *Node) discoverPeer(p *Peer) {
	if p.discovering || p.discovered {
		return
	}
	p.discovering = true
	n.sendDiscoveryPing(p)
}

// sendDiscoveryPing models lnet_peer_send_ping.
func (n *Node) sendDiscoveryPing(p *Peer) {
	md := n.allocMD(MDSpec{Length: p.discPingSize(), Threshold: 2, Options: MD_TRACK_RESPONSE | MD_TRUNCATE,
		Handler: &n.sysH, User: sysDiscovery<<56 | uint64(p.primary)})
	p.discPing = md
	n.get(AnyNID, md, p.primary, ReservedPortal, PingMatchBits, 0, false)
}

// DiscoverPeer starts discovery of the peer owning nid (`lnetctl discover`).
func (n *Node) DiscoverPeer(nid NID) {
	p := n.nid2peerni(nid).peer
	p.discovered = false
	n.discoverPeer(p)
}

// handleDiscoveryEvent models lnet_discovery_event_handler for the discovery ping's MD: a
// REPLY merges the peer's NIs and completes discovery, unless it was truncated: then the ping
// counts as failed without an error (lnet_peer_ping_failed) and the peer is pinged again at
// once with a buffer that fits (LNET_REDISCOVER_PEER); a failed SEND or an UNLINK (the
// response tracker expired) fails it. The event is read before anything else runs: finalizing
// the waiting messages reuses the node's event.
func (n *Node) handleDiscoveryEvent(ev *Event, nid NID) {
	lpni := n.findPeerNI(nid)
	if lpni == nil {
		return
	}
	p := lpni.peer
	if !p.discovering {
		return
	}
	switch {
	case ev.Type == EventREPLY && ev.Status == 0:
		if b, ok := ev.Data.(*PingBuffer); ok {
			if n.truncatedPing(p, b, ev.MLength) {
				n.pingFailed(p, ev.Unlinked)
				n.sendDiscoveryPing(p)
				return
			}
			n.processPingBuffer(p, b, false)
		}
		n.discoveryDone(p, 0)
	case ev.Status != 0 || ev.Type == EventUNLINK:
		if p.discPing == nil {
			return // the UNLINK of pingFailed's own unlink
		}
		rc := ev.Status
		if rc == 0 {
			rc = -ETIMEDOUT // the ping's MD was unlinked by its response tracker
		}
		n.pingFailed(p, ev.Unlinked)
		n.discoveryDone(p, rc)
	}
}

// pingFailed models lnet_peer_ping_failed: forget the discovery ping's MD and unlink it unless
// the failing event already did, so its response tracker cannot expire later.
func (n *Node) pingFailed(p *Peer, unlinked bool) {
	md := p.discPing
	p.discPing = nil
	if !unlinked {
		n.mdUnlink(md, 0)
	}
}

// discoveryDone models lnet_peer_discovery_complete: on success re-run selection for the
// messages that waited; on error (the ping's status) finalize them with it; the peer will be
// rediscovered on the next send.
func (n *Node) discoveryDone(p *Peer, rc int) {
	p.discovering = false
	p.discPing = nil
	p.discovered = rc == 0
	if n.discHook != nil {
		n.discHook(p.primary, rc)
	}
	for k := p.pending.Len(); k > 0; k-- {
		m := p.pending.Pop()
		if rc != 0 {
			m.noResend = true
			n.finalize(m, rc)
			continue
		}
		if r := n.send(m.srcSpec, m, m.rtrNID); r != 0 {
			m.noResend = true
			n.finalize(m, r)
		}
	}
}

// processPingBuffer merges a peer's advertised NIs (models lnet_peer_data_present /
// lnet_update_peer_ni status handling): unknown NIDs join the peer (a traffic-created
// single-NID peer owning one is merged), the multi-rail flag is learnt (learnMultiRail; push:
// the buffer came in a push, else in a ping reply), and each NI's status is cached
// (discLPNIHealth). NIDs missing from the buffer are kept (simplification).
func (n *Node) processPingBuffer(p *Peer, b *PingBuffer, push bool) {
	n.learnMultiRail(p, b, push)
	for _, e := range b.NIs {
		if e.NID.Net() == LoNet || n.isLocalNID(e.NID) && p.primary != e.NID && !n.isLocalNID(p.primary) {
			continue
		}
		lpni := n.peerNIs.get(e.NID)
		if lpni != nil && lpni.peer != p {
			other := lpni.peer
			if len(other.nis) > 1 || other.config || other.pending.Len() > 0 {
				continue
			}
			n.removePeer(other)
			lpni = nil
		}
		if lpni == nil {
			lpni = n.addPeerNI(p, e.NID)
		}
		n.discLPNIHealth(lpni, e.Status)
	}
}

// discLPNIHealth models handle_disc_lpni_health: a change of advertised status to DOWN counts
// as a remote failure; an NI reported UP again, never heard from, gets full health (not one
// that comes back UP from DOWN). Under DiscoveryStatusNoHealth (2.15 and before) the status
// is only stored.
func (n *Node) discLPNIHealth(lpni *PeerNI, st NIStatus) {
	old := lpni.status
	lpni.status = st
	n.routesChanged()
	if n.tun.Profile.DiscoveryStatusNoHealth {
		return
	}
	switch {
	case old != st && st == NIStatusDown:
		n.handleRemoteFailure(lpni, CauseDiscovery)
	case old == st && st == NIStatusUp && !lpni.heardFrom && lpni.health < MaxHealth:
		n.setPeerHealth(lpni, MaxHealth, CauseDiscovery)
	}
}

// pushToPeers models the discovery push after a ping buffer change: a PUT of the new buffer
// on the reserved portal to every discovered multi-rail peer (no ACK in the model).
func (n *Node) pushToPeers() {
	for _, p := range n.peers {
		if !p.discovered || !p.mr || n.isLocalNID(p.primary) {
			continue
		}
		n.pushTo(AnyNID, p.primary)
	}
}

// pushTo sends one push (lnet_peer_send_push, simplified: no ACK): a PUT of the current
// ping buffer on the reserved portal from src (AnyNID: any NI) to dst.
func (n *Node) pushTo(src, dst NID) {
	md := n.allocMD(MDSpec{Length: n.pingBuf.size(), Threshold: 1})
	m := n.allocMsg()
	m.start = n.k.Now()
	h := &m.Hdr
	h.Type = MsgPUT
	h.Dst = dst
	h.SrcPID, h.DstPID = LNET_PID_LUSTRE, LNET_PID_LUSTRE
	h.PayloadLength = n.pingBuf.size()
	h.Portal = ReservedPortal
	h.MatchBits = PingMatchBits
	h.Data = n.pingBuf
	n.attachMD(m, md)
	m.evType = EventSEND
	if rc := n.send(src, m, AnyNID); rc != 0 {
		n.finalize(m, rc)
	}
}
