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

// newPingTarget models lnet_ping_target_update (start-up, an NI added or deleted): a new ping
// target with the next sequence number (ln_ping_target_seqno), which every multi-rail peer
// that has not ACKed it needs pushed (needsPush).
func (n *Node) newPingTarget() {
	n.seqNo++
	n.updatePingBuffer()
}

// updatePingBuffer publishes the NIs, their status and the feature bits under the current
// sequence number, as the kernel edits its ping target in place (an NI's status, the routing
// and discovery feature bits): a buffer is immutable in the model, so a new one replaces it.
func (n *Node) updatePingBuffer() {
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
					n.pushEvent(lpni.peer, b, ev.MLength)
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

// discoverPeer queues p for discovery (lnet_peer_queue_for_discovery) and runs the discovery
// thread's pass for it at once (discoveryStep). A peer being discovered goes on from the event
// of the ping or push in flight.
func (n *Node) discoverPeer(p *Peer) {
	if p.discovering {
		return
	}
	p.discovering = true
	n.discoveryStep(p)
}

// discoveryStep is one pass of lnet_peer_discovery's state loop for a peer being discovered:
// a buffer it pushed meanwhile is merged first (LNET_PEER_DATA_PRESENT comes first:
// mergePushed), then it is pinged while its NIDs are not up to date (lnet_peer_needs_ping),
// else this node's ping buffer is pushed to it while it needs one (lnet_peer_needs_push),
// else it is discovered (lnet_peer_discovered).
func (n *Node) discoveryStep(p *Peer) {
	n.mergePushed(p)
	switch {
	case !p.uptodate || p.forcePing:
		n.sendDiscoveryPing(p)
	case n.needsPush(p):
		n.sendPush(p)
	default:
		n.discoveryDone(p, 0)
	}
}

// needsPush models lnet_peer_needs_push: a multi-rail peer without a push in flight needs one
// when forced (LNET_PEER_FORCE_PUSH), or, discovery being on at both ends, when the last
// buffer it ACKed (lp_node_seqno) is older than this node's.
func (n *Node) needsPush(p *Peer) bool {
	switch {
	case !p.mr || p.discPush != nil:
		return false
	case p.forcePush:
		return true
	case p.noDiscovery || !n.tun.Discovery:
		return false
	}
	return p.nodeSeq < n.seqNo
}

// sendDiscoveryPing models lnet_peer_send_ping: a GET on the reserved portal to the peer's
// primary NID, always response-tracked, into a buffer of discPingSize.
func (n *Node) sendDiscoveryPing(p *Peer) {
	md := n.allocMD(MDSpec{Length: p.discPingSize(), Threshold: 2, Options: MD_TRACK_RESPONSE | MD_TRUNCATE,
		Handler: &n.sysH, User: sysDiscovery<<56 | uint64(p.primary)})
	p.discPing, p.forcePing = md, false
	n.get(AnyNID, md, p.primary, ReservedPortal, PingMatchBits, 0, false)
}

// sendPush models lnet_peer_send_push: a PUT of this node's ping buffer on the reserved
// portal, ACK requested and response-tracked, from the local NI the last ping reply came to,
// to the peer NI it came from (lp_disc_src_nid, lp_disc_dst_nid; else any NI to the primary
// NID), which are then forgotten. The ACK (handlePushEvent) records the buffer's sequence as
// the peer's lp_node_seqno.
func (n *Node) sendPush(p *Peer) {
	src, dst := p.discSrc, p.discDst
	if dst == AnyNID {
		dst = p.primary
	}
	p.discSrc, p.discDst = AnyNID, AnyNID
	p.forcePush = false
	md := n.allocMD(MDSpec{Length: n.pingBuf.size(), Threshold: 2, Options: MD_TRACK_RESPONSE,
		Handler: &n.sysH, User: sysDiscovery<<56 | uint64(p.primary)})
	p.discPush, p.pushSeq = md, n.pingBuf.Seq
	n.pushTo(src, dst, md)
}

// DiscoverPeer starts discovery of the peer owning nid (`lnetctl discover`, lnet_discover):
// its NIDs are no longer up to date, so it is pinged (and pushed to if it needs it); with
// force (`discover --force`: LNET_PEER_FORCE_PING and LNET_PEER_FORCE_PUSH) it is pushed to
// even when it has this node's buffer, once its reply shows it multi-rail.
func (n *Node) DiscoverPeer(nid NID, force bool) {
	p := n.nid2peerni(nid).peer
	p.uptodate = false
	if force {
		p.forcePing, p.forcePush = true, true
	}
	n.discoverPeer(p)
}

// pushEvent models lnet_peer_push_event, a push received from a known peer: a truncated one is
// not used, the peer's NIDs are no longer up to date and it will be pinged with a buffer that
// fits (LNET_PEER_FORCE_PING); otherwise the buffer is kept for the discovery thread to merge
// (LNET_PEER_DATA_PRESENT; an older one than the data already kept is dropped). Either way the
// peer is queued for the discovery thread, which runs after this event (runDiscoveryQueue),
// so the push's ACK leaves first.
func (n *Node) pushEvent(p *Peer, b *PingBuffer, mlen int) {
	p.uptodate = false
	if !n.truncatedPing(p, b, mlen) && (p.data == nil || b.Seq > p.data.Seq) {
		p.data = b
	}
	if !p.dcQueued {
		p.dcQueued = true
		n.dcq = append(n.dcq, p)
		if !n.k.Armed(&n.dcTimer) {
			n.k.Arm(&n.dcTimer, n.k.Now())
		}
	}
}

// runDiscoveryQueue is the discovery thread's turn for the peers pushes queued
// (lnet_peer_discovery): each one's received data is merged (lnet_peer_data_present: its
// NIDs are up to date again, and a gateway's routes follow the buffer), then a peer not being
// discovered is, from that state: it is discovered at once unless it needs a ping or this
// node's push. A peer being discovered goes on from its ping's or push's event.
func (n *Node) runDiscoveryQueue() {
	for i := 0; i < len(n.dcq); i++ {
		p := n.dcq[i]
		p.dcQueued = false
		if n.shutdown {
			continue
		}
		n.mergePushed(p)
		n.discoverPeer(p)
	}
	n.dcq = n.dcq[:0]
}

// discoveryDisabled models lnet_is_discovery_disabled: discovery is off here, or the peer is
// not multi-rail or has no discovery (LNET_PEER_NO_DISCOVERY). lnet_peer_merge_data then only
// updates the status of the NIDs the peer has: it adds and deletes none.
func (n *Node) discoveryDisabled(p *Peer) bool {
	return !n.tun.Discovery || !p.mr || p.noDiscovery
}

// mergePushed merges the buffer p pushed, if one waits (lnet_peer_data_present): its NIDs are
// up to date again, and a gateway's routes follow the buffer.
func (n *Node) mergePushed(p *Peer) {
	b := p.data
	if b == nil {
		return
	}
	p.data = nil
	n.processPingBuffer(p, b, true)
	p.uptodate = true
	if p.gw != nil && !n.tun.Profile.RouterCheckerPing {
		n.updateGatewayRoutes(p, b) // 2.12: only its router checker does
	}
}

// handleDiscoveryEvent models lnet_discovery_event_handler. An event of the push in flight is
// handlePushEvent's. A ping's REPLY records where it came to and from (the push goes back
// that way), merges the peer's NIs and goes on with discoveryStep, unless it was truncated:
// then the ping counts as failed without an error (lnet_peer_ping_failed) and the peer is
// pinged again at once with a buffer that fits (LNET_REDISCOVER_PEER); a failed SEND or an
// UNLINK (the response tracker expired) fails discovery. The event is read before anything
// else runs: finalizing the waiting messages reuses the node's event.
func (n *Node) handleDiscoveryEvent(ev *Event, nid NID) {
	lpni := n.findPeerNI(nid)
	if lpni == nil {
		return
	}
	p := lpni.peer
	if md := p.discPush; md != nil && ev.MD == md.Handle() {
		n.handlePushEvent(p, ev)
		return
	}
	if !p.discovering {
		return
	}
	switch {
	case ev.Type == EventREPLY && ev.Status == 0:
		p.discSrc, p.discDst = ev.Target, ev.Initiator
		if b, ok := ev.Data.(*PingBuffer); ok {
			if n.truncatedPing(p, b, ev.MLength) {
				n.pingFailed(p, ev.Unlinked)
				n.sendDiscoveryPing(p)
				return
			}
			n.processPingBuffer(p, b, false)
		}
		p.discPing = nil
		p.uptodate = true
		n.discoveryStep(p)
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

// handlePushEvent models the push half of lnet_discovery_event_handler: the ACK records the
// pushed buffer's sequence as the peer's lp_node_seqno (lnet_discovery_event_ack) and
// discovery goes on (discoveryStep: done, or another push if this node's buffer changed
// meanwhile); a failed SEND, a failed ACK or an UNLINK (the response tracker expired, status
// -ETIMEDOUT) fails the push (lnet_peer_push_failed: its MD is unlinked) and with it the
// discovery, whose waiting messages are finalized with the error; the peer's NIDs stay up to
// date, so its next discovery pushes again without a ping. A push not sent by discovery (the
// router checker's) only records the ACK.
func (n *Node) handlePushEvent(p *Peer, ev *Event) {
	switch {
	case ev.Type == EventACK && ev.Status == 0:
		p.discPush = nil
		p.nodeSeq = p.pushSeq
		if p.discovering && p.discPing == nil {
			n.discoveryStep(p)
		}
	case ev.Status != 0 || ev.Type == EventUNLINK || ev.Type == EventACK:
		rc := ev.Status
		if rc == 0 {
			rc = -ETIMEDOUT
		}
		md := p.discPush
		p.discPush = nil
		if !ev.Unlinked {
			n.mdUnlink(md, 0)
		}
		if p.discovering {
			n.discoveryDone(p, rc)
		}
	}
}

// pingFailed models lnet_peer_ping_failed: forget the discovery ping's MD and unlink it unless
// the failing event already did, so its response tracker cannot expire later; the peer's
// next discovery pings (LNET_PEER_FORCE_PING, cleared when that ping is sent).
func (n *Node) pingFailed(p *Peer, unlinked bool) {
	md := p.discPing
	p.discPing, p.forcePing = nil, true
	if !unlinked {
		n.mdUnlink(md, 0)
	}
}

// discoveryDone models lnet_peer_discovery_complete: on success (lnet_peer_discovered) the
// peer is DISCOVERED and selection re-runs for the messages that waited; on error (the ping's
// or push's status) they are finalized with it and the peer is marked REDISCOVER (a peer
// discovered before stays DISCOVERED), so the next send discovers it again.
func (n *Node) discoveryDone(p *Peer, rc int) {
	p.discovering = false
	p.discPing = nil
	if rc == 0 { // lnet_peer_discovered
		p.discovered, p.rediscover = true, false
	} else { // lnet_peer_discovery_complete with an error
		p.rediscover = true
	}
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
// lnet_update_peer_ni status handling): the multi-rail and discovery flags are learnt
// (learnMultiRail; push: the buffer came in a push, else in a ping reply); a buffer listing
// no NI but 0@lo is not merged (find_primary fails); the buffer's primary NID (its first NI
// after 0@lo) becomes the peer's (adoptPrimary); unknown NIDs join the peer (a
// traffic-created single-NID peer owning one is merged), each NI's status is cached
// (discLPNIHealth), and NIDs missing from the buffer are deleted (delMissingNIDs).
func (n *Node) processPingBuffer(p *Peer, b *PingBuffer, push bool) {
	n.learnMultiRail(p, b, push)
	p.rtrEnabled = !b.RoutingDisabled
	if len(b.NIs) < 2 {
		return
	}
	n.adoptPrimary(p, b)
	frozen := n.discoveryDisabled(p)
	for _, e := range b.NIs {
		if e.NID.Net() == LoNet || n.isLocalNID(e.NID) && p.primary != e.NID && !n.isLocalNID(p.primary) {
			continue
		}
		lpni := n.peerNIs.get(e.NID)
		if frozen && (lpni == nil || lpni.peer != p) {
			continue // lnet_peer_merge_data: no NID is added or deleted
		}
		if lpni != nil && lpni.peer != p {
			if !n.absorbPeer(p, lpni.peer) {
				continue
			}
			lpni = nil
		}
		if lpni == nil {
			lpni = n.addPeerNI(p, e.NID)
		}
		n.discLPNIHealth(lpni, e.Status)
	}
	n.delMissingNIDs(p, b)
}

// adoptPrimary is the primary-NID step of lnet_peer_data_present, with the buffer's primary
// NID (find_primary: its first NI after 0@lo): the peer of 0@lo (this node's own, created by
// `discover 0@lo`) and a peer whose primary NID is not the buffer's take it
// (lnet_peer_set_primary_nid), unless the buffer still lists the peer's primary NID and
// discovery is off for the peer (lnet_is_discovery_disabled: off here, or the peer is not
// multi-rail or has no discovery), in which case only its NIs' status is merged. A configured
// peer keeps its primary NID (lnet_peer_add_nid refuses -EPERM, which set_primary_nid
// forgives), as does one whose primary NID is locked (LNET_PEER_LOCK_PRIMARY). The buffer's
// primary NID may belong to another peer: a traffic-created single-NID one is merged first
// (absorbPeer); deliberately not modelled, the kernel then hands the buffer to that other
// peer (lnet_peer_set_primary_data) and the peer being discovered is deleted when its NIDs
// move there, where here it keeps its primary NID and takes the buffer's other NIDs.
func (n *Node) adoptPrimary(p *Peer, b *PingBuffer) {
	prim := b.NIs[1].NID
	switch {
	case p.primary == prim:
		return
	case p.primary != LoNID && b.lists(p.primary) && n.discoveryDisabled(p):
		return
	case p.config || p.lockPrim:
		return
	}
	lpni := n.peerNIs.get(prim)
	if lpni != nil && lpni.peer != p {
		if !n.absorbPeer(p, lpni.peer) {
			return
		}
		lpni = nil
	}
	p.primary = prim
	if lpni == nil {
		n.addPeerNI(p, prim)
	}
}

// absorbPeer removes other, a peer owning a NID that p's buffer lists, so that its NID can
// join p (lnet_peer_add_nid deleting the peer whose primary NID it is): only a
// traffic-created peer with that one NID, no message waiting for its discovery nor for its
// router credits; a gateway's routes move to p (transferGateway), unless p is a gateway too.
// It reports whether it did; the peers it will not merge are kept apart (ARCHITECTURE.md).
func (n *Node) absorbPeer(p, other *Peer) bool {
	if len(other.nis) > 1 || other.config || other.pending.Len() > 0 || other.rtrq.Len() > 0 ||
		other.gw != nil && p.gw != nil {
		return false
	}
	if other.gw != nil {
		n.transferGateway(other, p)
	}
	n.removePeer(other)
	return true
}

// transferGateway models lnet_rtr_transfer_to_peer for a target that is no gateway yet: the
// routes through src, with its router-checker state and aliveness, now go through dst.
func (n *Node) transferGateway(src, dst *Peer) {
	g := src.gw
	dst.gw, src.gw = g, nil
	for _, r := range g.routes {
		r.gw = dst
	}
	n.gateways[g.idx] = dst
	dst.isRouter, dst.alive = src.isRouter, src.alive
	src.isRouter = false
	n.routesChanged()
}

// delMissingNIDs models the deletion half of lnet_peer_merge_data: each of the peer's NIDs
// its buffer no longer lists leaves the peer (lnet_peer_del_nid), except the primary NID of a
// peer with other NIDs (-EBUSY; a gateway's deletion is forced, LNET_PEER_RTR_NI_FORCE_DEL,
// and the kernel then makes its next NID primary: the model keeps a gateway's primary NID);
// a configured peer's NIDs stay and count as DOWN (-EPERM: handle_disc_lpni_health; up to
// 2.15, DiscoveryStatusNoHealth, they are left as they are). Nothing is deleted while discovery is off
// at either end (lnet_is_discovery_disabled). A deleted peer NI's queued messages stay on it
// and leave as its credits return, as on the kernel's zombie peer NI.
func (n *Node) delMissingNIDs(p *Peer, b *PingBuffer) {
	if n.discoveryDisabled(p) {
		return
	}
	for i := 0; i < len(p.nis); i++ {
		lpni := p.nis[i]
		if b.lists(lpni.nid) {
			continue
		}
		switch {
		case p.config:
			if !n.tun.Profile.DiscoveryStatusNoHealth { // 2.15 and before only log the -EPERM
				n.discLPNIHealth(lpni, NIStatusDown)
			}
		case lpni.nid == p.primary:
		default:
			n.detachPeerNI(lpni)
			i--
		}
	}
}

// lists reports whether the buffer lists nid.
func (b *PingBuffer) lists(nid NID) bool {
	for _, e := range b.NIs {
		if e.NID == nid {
			return true
		}
	}
	return false
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

// pushToPeers models lnet_push_update_to_peers(1) after a change of this node's ping buffer:
// forced pushes (lnet_push_update_to_peers does not force them while discovery is off here).
func (n *Node) pushToPeers() { n.pushUpdateToPeers(n.tun.Discovery) }

// pushUpdateToPeers models lnet_push_update_to_peers: with force, every multi-rail peer is to
// be pushed to (LNET_PEER_FORCE_PUSH); each peer that needs a push (needsPush) is queued for
// discovery, which pings it first if its NIDs are not up to date. Messages sent to such a peer
// wait for the discovery to end, after the push's ACK.
func (n *Node) pushUpdateToPeers(force bool) {
	for _, p := range n.peers {
		if n.isLocalNID(p.primary) {
			continue
		}
		if force && p.mr {
			p.forcePush = true
		}
		if n.needsPush(p) {
			n.discoverPeer(p)
		}
	}
}

// pushTo sends a push: a PUT of the current ping buffer on the reserved portal from src
// (AnyNID: any NI) to dst, out of md, with an ACK requested (LNET_ACK_REQ).
func (n *Node) pushTo(src, dst NID, md *MD) {
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
	h.WMD = md.wire()
	n.attachMD(m, md)
	m.evType = EventSEND
	if n.tracked(MsgPUT, md.spec.Options) {
		n.attachRspTracker(md)
	}
	if rc := n.send(src, m, AnyNID); rc != 0 {
		n.dropRspTracker(md)
		n.finalize(m, rc)
	}
}
