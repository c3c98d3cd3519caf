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
	// Metadata lists the NIDs that have an entry of NID metadata after the NIs (struct
	// lnet_nid_metadata; metadata.go): LNET_PING_FEAT_METADATA is set when it is not empty.
	Metadata []NID
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
	for _, ni := range n.nis {
		ni.status = ni.Status() // the install writes each NI's lnet_ni_get_status_locked
	}
	n.pingExtra = n.extraBytesForMD() // lnet_ping_target_setup
	n.pingMeta = n.installMetadata()  // lnet_ping_target_install_locked
	n.updatePingBuffer()
}

// updatePingBuffer publishes the NIs, their status and the feature bits under the current
// sequence number, as the kernel edits its ping target in place (an NI's status, the routing
// and discovery feature bits): a buffer is immutable in the model, so a new one replaces it.
func (n *Node) updatePingBuffer() {
	b := &PingBuffer{MultiRail: true, Seq: n.seqNo, NIs: make([]PingNI, 0, len(n.nis)+1), RoutingDisabled: n.rtrState != rtrEnabled, Discovery: n.tun.Discovery, Metadata: n.pingMeta}
	b.NIs = append(b.NIs, PingNI{NID: LoNID, Status: NIStatusUp})
	for _, ni := range n.nis {
		b.NIs = append(b.NIs, PingNI{NID: ni.nid, Status: ni.status})
	}
	n.pingBuf = b
	if n.pingMD != nil {
		n.pingMD.spec.Length = n.pingTargetBytes() // lnet_ping_target_update sizes the new target for its NIs
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
		if ev.Type == EventPUT {
			b, ok := ev.Data.(*PingBuffer)
			if lpni := n.findPeerNI(ev.Initiator); lpni != nil && (ok || ev.Status != 0) {
				n.pushEvent(lpni.peer, b, ev.MLength, ev.Status)
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
	if p.discovering || p.deleted {
		return
	}
	p.discovering = true
	n.discoveryStep(p)
}

// discoveryStep is one pass of lnet_peer_discovery's state loop for a peer being discovered:
// a buffer it pushed, or its ping's reply, is merged first (LNET_PEER_DATA_PRESENT comes
// first: mergePushed), then a failed ping or push is dealt with (lnet_peer_ping_failed,
// lnet_peer_push_failed: failedStep), then it is pinged while its NIDs are not up to date
// or FORCE_PING asks for it (lnet_peer_needs_ping), a ping in flight or not (the earlier one
// goes on as a stale ping: supersede), else this node's ping buffer is pushed to it while it
// needs one (lnet_peer_needs_push), else it is discovered (lnet_peer_discovered), even while
// a ping sent before a push's data was merged is still out (its reply is kept for the next
// discovery).
func (n *Node) discoveryStep(p *Peer) {
	if q := n.mergePushed(p); q != nil || p.deleted {
		n.afterMerge(p, q)
		return
	}
	if n.failedStep(p) {
		return
	}
	forceFirst := n.tun.Profile.ForcePushFirst && p.forcePush && !p.forcePing
	if forceFirst && !p.mr {
		// lnet_peer_send_push refuses a peer that is not multi-rail: FORCE_PUSH is
		// dropped, and with its NIDs up to date the peer is discovered; one whose NIDs are
		// not stays DISCOVERING with nothing sent, until an event queues it again.
		p.forcePush, forceFirst = false, false
		if !p.uptodate {
			return
		}
	}
	switch {
	case forceFirst:
		n.sendPush(p) // up to 2.16: FORCE_PUSH, before NIDs not up to date, a push out or not
	case !p.uptodate || p.forcePing:
		n.sendDiscoveryPing(p) // a ping in flight or not (lnet_peer_needs_ping)
	case p.forcePush && p.discPush != nil:
		n.discoveryRound(p) // from 2.17: discovered, not up to date, until that push's event
	case n.needsPush(p):
		n.sendPush(p)
	default:
		n.discoveryDone(p, 0)
	}
}

// needsPush models lnet_peer_needs_push: a multi-rail peer, not deleted, without a push in
// flight needs one when forced (LNET_PEER_FORCE_PUSH), or, discovery being on at both ends,
// when the last buffer it ACKed (lp_node_seqno) is older than this node's. Under
// PushWhilePushing (up to 2.15) a push in flight does not count: the peer is pushed again.
func (n *Node) needsPush(p *Peer) bool {
	switch {
	case !p.mr || p.deleted || p.discPush != nil && !n.tun.Profile.PushWhilePushing:
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
	n.supersede(p, true)
	md := n.allocMD(MDSpec{Length: p.discPingSize(), Threshold: 2, Options: MD_TRACK_RESPONSE | MD_TRUNCATE,
		Handler: &n.sysH, User: sysDiscovery<<56 | uint64(p.primary)})
	p.discPing, p.forcePing = md, false
	n.get(AnyNID, md, p.primary, ReservedPortal, PingMatchBits, 0, false)
}

// sendPush models lnet_peer_send_push: a PUT of this node's ping buffer on the reserved
// portal, ACK requested and response-tracked, from the local NI the last ping reply came to,
// to the peer NI it came from (lp_disc_src_nid, lp_disc_dst_nid; else any NI to the primary
// NID), which are then forgotten. The ACK (handlePushEvent) records the buffer's sequence as
// the peer's lp_node_seqno. The new push's MD becomes the peer's lp_push_mdh: one still in
// flight (PushWhilePushing) or whose PUSH_SENT an earlier push's event cleared goes on as a
// stale push (supersede).
func (n *Node) sendPush(p *Peer) {
	n.supersede(p, false)
	src, dst := p.discSrc, p.discDst
	if dst == AnyNID {
		dst = p.primary
	}
	p.discSrc, p.discDst = AnyNID, AnyNID
	p.forcePush, p.checkerPush = false, false
	md := n.allocMD(MDSpec{Length: n.pingTargetBytes(), Threshold: 2, Options: MD_TRACK_RESPONSE,
		Handler: &n.sysH, User: sysDiscovery<<56 | uint64(p.primary)})
	p.discPush, p.pushSeq = md, n.pingBuf.Seq
	n.pushTo(src, dst, md)
}

// DiscoverPeer starts discovery of the peer owning nid (`lnetctl discover`, lnet_discover):
// its NIDs are no longer up to date, so it is pinged (and pushed to if it needs it); with
// force (`discover --force`: LNET_PEER_FORCE_PING and LNET_PEER_FORCE_PUSH) it is pushed to
// even when it has this node's buffer, once its reply shows it multi-rail.
// A gateway whose router check is in flight (not 2.12's) is not pinged: the check is its
// discovery, which this one waits for and goes on from (rtrPingDone).
func (n *Node) DiscoverPeer(nid NID, force bool) {
	p := n.nid2peerni(nid).peer
	p.uptodate = false
	if force {
		p.forcePing, p.forcePush = true, true
	}
	if g := p.gw; g != nil && g.ping != nil && !p.discovering && !p.deleted && !n.tun.Profile.RouterCheckerPing {
		// The router check in flight is the gateway's discovery (LNET_PEER_RTR_DISCOVERY):
		// lnet_discover_peer_locked finds the peer queued already and waits for it.
		p.discovering, g.discWaits = true, true
		return
	}
	n.discoverPeer(p)
}

// pushEvent models lnet_peer_push_event, a push received from a known peer: one whose event
// carries an error (status: its receive failed) or that was truncated is not used, the
// peer's NIDs are no longer up to date and it will be pinged (LNET_PEER_FORCE_PING; after a
// truncated one with a buffer that fits); otherwise the buffer is kept for the discovery
// thread to merge (LNET_PEER_DATA_PRESENT; an older one than the data already kept is
// dropped). Either way the peer is queued for the discovery thread, which runs after this
// event (runDiscoveryQueue), so the push's ACK (none after a failed receive) leaves first.
// FORCE_PING matters up to 2.16 (ForcePushFirst), whose discovery loop pings a peer that has
// it before it sends a forced push. All releases handle a push's event alike.
func (n *Node) pushEvent(p *Peer, b *PingBuffer, mlen, status int) {
	p.uptodate = false
	switch {
	case status != 0 || n.truncatedPing(p, b, mlen):
		p.forcePing = true
	case p.data == nil || b.Seq > p.data.Seq:
		p.data, p.dataReply = b, false
	}
	n.queueDiscovery(p)
}

// queueDiscovery puts p on the discovery thread's queue (lnet_peer_queue_for_discovery's
// wake-up), which runs after the current event (runDiscoveryQueue).
func (n *Node) queueDiscovery(p *Peer) {
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
// node's push. A peer being discovered takes its next step at once, with its ping or push
// still in flight (lnet_peer_push_event moves it to the request queue): after its buffer was
// merged (LNET_REDISCOVER_PEER: discoveryStep), and after a truncated or failed push, which
// left nothing to merge, its NIDs no longer up to date and FORCE_PING, so it is pinged again
// (beside a ping in flight: the earlier one goes on as a stale ping). A deleted
// peer's discovery completes (lnet_peer_deletion), and a peer the buffer was handed to goes
// on from its new state (afterMerge).
func (n *Node) runDiscoveryQueue() {
	for i := 0; i < len(n.dcq); i++ {
		p := n.dcq[i]
		p.dcQueued = false
		if n.shutdown {
			continue
		}
		if p.deleted {
			if p.discovering {
				n.discoveryDone(p, 0)
			}
			continue
		}
		q := n.mergePushed(p)
		if p.deleted || q != nil {
			n.afterMerge(p, q)
			continue
		}
		if p.discovering {
			// The push moved the peer to the request queue (lnet_peer_push_event): merged,
			// the next step follows at once (LNET_REDISCOVER_PEER); truncated, FORCE_PING
			// pings again. Either way with a ping or push in flight or not.
			n.discoveryStep(p)
			continue
		}
		n.discoverPeer(p)
	}
	n.dcq = n.dcq[:0]
}

// failedStep models the PING_FAILED and PUSH_FAILED steps of lnet_peer_discovery
// (lnet_peer_ping_failed, lnet_peer_push_failed), the ping's first: the failure is cleared,
// the MD the peer's lp_ping_mdh or lp_push_mdh names is unlinked (unlinkMDH), whose UNLINK
// event fails the other one if it is in flight, a failed ping makes the next discovery ping
// (LNET_PEER_FORCE_PING), and a failure with an error ends the discovery with it
// (discoveryDone), which it reports; without one (a truncated reply, a push whose ACK came
// after all) the loop takes its next step: the other failure, if any, then on.
func (n *Node) failedStep(p *Peer) bool {
	for p.pingFailed || p.pushFailed {
		rc := 0
		if p.pingFailed {
			rc = p.pingErr
			p.pingFailed, p.pingErr, p.forcePing = false, 0, true
			if len(n.stale) > 0 {
				n.unlinkMDH(p, true)
			}
		} else {
			rc = p.pushErr
			p.pushFailed, p.pushErr = false, 0
			if len(n.stale) > 0 {
				n.unlinkMDH(p, false)
			}
		}
		if rc != 0 {
			n.discoveryDone(p, rc)
			return true
		}
	}
	return false
}

// afterMerge goes on after p's buffer was merged (lnet_peer_discovery's loop after
// lnet_peer_data_present returns LNET_REDISCOVER_PEER): a peer deleted meanwhile, its NIDs
// now another's, completes its discovery (lnet_peer_deletion: the messages that waited for it
// are sent again), another takes its next step; then q, the peer the buffer was handed to if
// that queued it (lnet_peer_set_primary_data), takes its first.
func (n *Node) afterMerge(p, q *Peer) {
	switch {
	case p.deleted:
		if p.discovering {
			n.discoveryDone(p, 0)
		}
	case p.discovering:
		n.discoveryStep(p)
	default:
		n.discoverPeer(p)
	}
	if q != nil && q.discovering && !q.deleted {
		n.discoveryStep(q)
	}
}

// discoveryDisabled models lnet_is_discovery_disabled: discovery is off here, or the peer is
// not multi-rail or has no discovery (LNET_PEER_NO_DISCOVERY). lnet_peer_merge_data then only
// updates the status of the NIDs the peer has: it adds and deletes none.
func (n *Node) discoveryDisabled(p *Peer) bool {
	return !n.tun.Discovery || !p.mr || p.noDiscovery
}

// mergePushed merges the buffer p pushed or its ping's reply, if one waits
// (lnet_peer_data_present): its NIDs are up to date again, and a gateway's routes follow the
// buffer (a ping reply's as lnet_peer_merge_data's lnet_router_discovery_ping_reply has them).
func (n *Node) mergePushed(p *Peer) *Peer {
	b := p.data
	if b == nil {
		return nil
	}
	push := !p.dataReply
	p.data, p.dataReply = nil, false
	q := n.processPingBuffer(p, b, push)
	p.uptodate = true
	if g := n.gatewayOf(p, q); g != nil && !n.tun.Profile.RouterCheckerPing {
		n.gatewayBufferRoutes(g, b, push) // 2.12: only its router checker does
	}
	return q
}

// gatewayOf is the peer whose routes follow a buffer merged for p: q, the peer the buffer was
// handed to, if p's routes moved there with its NIDs (p deleted), else p if it is a gateway.
func (n *Node) gatewayOf(p, q *Peer) *Peer {
	switch {
	case q != nil && q.gw != nil && p.deleted:
		return q
	case p.gw != nil:
		return p
	}
	return nil
}

// handleDiscoveryEvent models lnet_discovery_event_handler. An event of the push in flight is
// handlePushEvent's. A ping's REPLY records where it came to and from (the push goes back
// that way), failed or not (lnet_discovery_event_reply sets lp_disc_src_nid and
// lp_disc_dst_nid before it looks at the status; 2.12 has only the former), and keeps its
// buffer for the discovery step to merge (LNET_PEER_DATA_PRESENT, replacing a pushed one), unless it was truncated: then the ping
// counts as failed without an error and the peer will be pinged again with a buffer that
// fits; a failed SEND or REPLY fails the ping (PING_FAILED: pingFailed; an MD the event did
// not unlink is unlinked by the step that deals with the failure, whose UNLINK event fails a
// push in flight too), and an UNLINK (the response tracker expired: -ETIMEDOUT) fails the
// ping and a push in flight (lnet_discovery_event_unlink: unlinkFailsBoth). An event of a
// stale ping or push (one sent before the peer's latest) is handleStale's. Then, as for
// every event but a successful SEND, a peer that is not up to date (upToDate: being
// discovered, or its last discovery failed, ...) is queued and stepped at once (requeue); one
// that is keeps the reply or failure for its next discovery. The event is read before
// anything else runs: finalizing the waiting messages reuses the node's event.
func (n *Node) handleDiscoveryEvent(ev *Event, nid NID) {
	if len(n.stale) > 0 && n.handleStale(ev) {
		return // a stale one's peer is its own, whoever has its NID now
	}
	lpni := n.findPeerNI(nid)
	if lpni == nil {
		return
	}
	p := lpni.peer
	if md := p.discPush; md != nil && ev.MD == md.Handle() {
		n.handlePushEvent(p, ev)
		return
	}
	if p.discPing == nil || ev.MD != p.discPing.Handle() {
		return // not this peer's ping: a deleted peer's, its NID another's now
	}
	if ev.Type == EventREPLY {
		p.discSrc, p.discDst = ev.Target, ev.Initiator // whatever its status
	}
	switch {
	case ev.Type == EventREPLY && ev.Status == 0:
		b, ok := ev.Data.(*PingBuffer)
		switch {
		case ok && n.truncatedPing(p, b, ev.MLength):
			n.pingFailed(p, ev.Unlinked, 0)
		case ok:
			p.discPing = nil
			p.data, p.dataReply = b, true
		default:
			p.discPing = nil
			p.uptodate = true
		}
	case ev.Type == EventUNLINK: // the ping's MD was unlinked by its response tracker
		n.unlinkFailsBoth(p, p.discPing)
	case ev.Status != 0:
		n.pingFailed(p, ev.Unlinked, ev.Status)
	default:
		return // a successful SEND: only a failure asks for another look
	}
	n.requeue(p)
}

// requeue models the end of lnet_discovery_event_handler: a peer that is not up to date is
// queued for discovery (lnet_peer_queue_for_discovery: DISCOVERING) and, the model's
// discovery thread running in the caller, takes its next step at once.
func (n *Node) requeue(p *Peer) {
	if p.deleted || n.upToDate(p) {
		return
	}
	p.discovering = true
	n.discoveryStep(p)
}

// handlePushEvent models the push half of lnet_discovery_event_handler: the ACK records the
// pushed buffer's sequence as the peer's lp_node_seqno (lnet_discovery_event_ack); a failed
// SEND, a failed ACK or an UNLINK (the response tracker expired, status -ETIMEDOUT) fails the
// push (PUSH_FAILED, with its error; an MD the event did not unlink is unlinked by the step
// that deals with the failure, lnet_peer_push_failed, and that UNLINK event fails a ping in
// flight too: failedStep, unlinkMDH), and an UNLINK fails the push and a ping in flight
// (unlinkFailsBoth). Then a peer that is not up to date takes its next step (requeue): a
// discovery goes on (done, or another push if this node's buffer changed
// meanwhile), a failed push fails it, whose waiting messages are finalized with the error
// (the peer's NIDs stay up to date, so its next discovery pushes again without a ping), and a
// peer whose last discovery failed is discovered again. Deliberately, a failed push of the
// router checker's (sent on its ping's reply) to a peer not being discovered is only
// forgotten: the model's router check has ended already (Router checker: Deliberate
// differences).
func (n *Node) handlePushEvent(p *Peer, ev *Event) {
	switch {
	case ev.Type == EventACK && ev.Status == 0:
		p.discPush = nil
		p.nodeSeq, p.pushErr = p.pushSeq, 0 // lp_push_error takes the ACK's status
	case p.checkerPush && !p.discovering && (ev.Status != 0 || ev.Type == EventUNLINK || ev.Type == EventACK):
		md := p.discPush
		p.discPush = nil
		if !ev.Unlinked {
			n.mdUnlink(md, 0)
		}
		return
	case ev.Type == EventUNLINK:
		n.unlinkFailsBoth(p, p.discPush)
	case ev.Status != 0 || ev.Type == EventACK:
		rc := ev.Status
		if rc == 0 {
			rc = -ETIMEDOUT
		}
		if ev.Unlinked {
			p.discPush = nil
		} else {
			n.clearSent(p, false) // lnet_peer_push_failed unlinks it (failedStep)
		}
		p.pushFailed, p.pushErr = true, rc
	default:
		return // a successful SEND
	}
	n.requeue(p)
}

// staleMD is a discovery ping or push still in flight that is no longer the peer's ping or
// push in flight (Peer.discPing, discPush): the peer was pinged again while it was out
// (lnet_peer_send_ping does not look at LNET_PEER_PING_SENT), pushed again (PushWhilePushing),
// or an event of such an earlier ping or push cleared PING_SENT or PUSH_SENT while it was out.
// The kernel's discovery events name only their peer (md_user_ptr), not which ping or push
// they belong to, so a stale one's events still act on the peer (handleStale).
type staleMD struct {
	md   *MD
	h    MDHandle // md's handle when it went stale (the MD is reused under a new one once freed)
	p    *Peer
	seq  uint32 // a push's: the sequence of the ping buffer it carries (its ACK sets lp_node_seqno)
	ping bool   // a discovery ping (lp_ping_mdh), else a push (lp_push_mdh)
	// mdh: it is still the peer's lp_ping_mdh or lp_push_mdh (its PING_SENT or PUSH_SENT
	// cleared by an earlier one's event, and none sent since), which lnet_peer_ping_failed or
	// lnet_peer_push_failed unlink (unlinkMDH).
	mdh bool
}

// supersede is the start of lnet_peer_send_ping (ping) or lnet_peer_send_push for a peer that
// already has one out: the handle is overwritten, so the ping or push in flight and one the
// handle still named go on as stale ones that no handle names.
func (n *Node) supersede(p *Peer, ping bool) {
	n.clearSent(p, ping)
	for i := range n.stale {
		if r := &n.stale[i]; r.p == p && r.ping == ping {
			r.mdh = false
		}
	}
}

// clearSent clears LNET_PEER_PING_SENT (ping) or PUSH_SENT: the ping or push in flight goes
// on as a stale one the peer's handle still names.
func (n *Node) clearSent(p *Peer, ping bool) {
	md, seq := p.discPush, p.pushSeq
	if ping {
		md, seq = p.discPing, 0
	}
	if md == nil {
		return
	}
	n.stale = append(n.stale, staleMD{md: md, h: md.Handle(), p: p, seq: seq, ping: ping, mdh: true})
	if ping {
		p.discPing = nil
	} else {
		p.discPush = nil
	}
}

// unlinkFailsBoth models lnet_discovery_event_unlink, whichever of the peer's MDs the UNLINK
// event is for: the ping in flight (PING_SENT) and the push in flight (PUSH_SENT) both fail
// with -ETIMEDOUT. One the event unlinked is forgotten; another goes on as a stale one its
// handle names (clearSent), which the failure's step unlinks (unlinkMDH).
func (n *Node) unlinkFailsBoth(p *Peer, md *MD) {
	if p.discPing != nil {
		if p.discPing == md {
			p.discPing = nil
		} else {
			n.clearSent(p, true)
		}
		p.pingFailed, p.pingErr = true, -ETIMEDOUT
	}
	if p.discPush != nil {
		if p.discPush == md {
			p.discPush = nil
		} else {
			n.clearSent(p, false)
		}
		p.pushFailed, p.pushErr = true, -ETIMEDOUT
	}
}

// unlinkDisc is the discovery thread's LNetMDUnlink of p's ping or push md, no longer the
// peer's ping or push in flight nor tracked as stale (lnet_peer_ping_failed,
// lnet_peer_push_failed). An MD no message holds unlinks at once, and its UNLINK event fails
// the ping or push still in flight (unlinkFailsBoth); the peer it would queue is the one the
// thread is stepping, so nothing else follows. One a message still holds is aborted and goes
// on as a stale one: that message's event comes later with -ETIMEDOUT (lnet_msg_detach_md).
func (n *Node) unlinkDisc(p *Peer, md *MD, ping bool) {
	if md.refs > 0 {
		n.stale = append(n.stale, staleMD{md: md, h: md.Handle(), p: p, ping: ping})
		n.mdUnlink(md, 0)
		return
	}
	n.mdUnlink(md, 0)
	if !p.deleted {
		n.unlinkFailsBoth(p, nil)
	}
}

// handleStale models lnet_discovery_event_handler for an event of a stale ping or push (it
// reports whether ev was one), which acts on its peer as any ping's or push's event does,
// whichever is in flight. A ping's REPLY (lnet_discovery_event_reply) records the NIDs it
// came to and from, clears PING_SENT (clearSent) and keeps its buffer for the next step
// (DATA_PRESENT, replacing one kept), or, failed or truncated, fails the ping (PING_FAILED,
// the error or 0). A failed SEND (lnet_discovery_event_send) clears PING_SENT or PUSH_SENT by
// its kind and fails that with its status. A push's ACK (lnet_discovery_event_ack) clears
// PUSH_SENT and fails the push with its status or, successful, sets lp_node_seqno to the
// sequence of the buffer that push carried, older than the one in flight if this node's
// buffer changed in between. An UNLINK (its response tracker expired) fails the ping and the
// push in flight, if any (unlinkFailsBoth). Every event but a successful SEND then queues a
// peer that is not up to date (requeue). A stale one leaves the list with the event that
// unlinks its MD. Deliberately, a deleted peer's stale pings' and pushes' events are ignored,
// as the model ignores the deleted peer's other discovery events.
func (n *Node) handleStale(ev *Event) bool {
	i := 0
	for ; i < len(n.stale) && n.stale[i].h != ev.MD; i++ {
	}
	if i == len(n.stale) {
		return false
	}
	r := n.stale[i]
	if ev.Unlinked {
		n.stale = append(n.stale[:i], n.stale[i+1:]...)
	}
	p := r.p
	if p.deleted {
		return true
	}
	switch {
	case ev.Type == EventSEND && ev.Status == 0:
		return true // only a failed SEND asks for another look
	case ev.Type == EventUNLINK:
		n.unlinkFailsBoth(p, nil)
	case r.ping && ev.Type == EventREPLY:
		p.discSrc, p.discDst = ev.Target, ev.Initiator
		n.clearSent(p, true)
		b, ok := ev.Data.(*PingBuffer)
		switch {
		case ev.Status != 0:
			p.pingFailed, p.pingErr = true, ev.Status
		case ok && n.truncatedPing(p, b, ev.MLength):
			p.pingFailed, p.pingErr = true, 0
		case ok:
			p.data, p.dataReply = b, true
		default:
			p.uptodate = true
		}
	case r.ping: // a failed SEND
		n.clearSent(p, true)
		p.pingFailed, p.pingErr = true, ev.Status
	case ev.Type == EventACK:
		n.clearSent(p, false)
		if p.pushErr = ev.Status; ev.Status != 0 {
			p.pushFailed = true
		} else {
			p.nodeSeq = r.seq
		}
	default: // a push's failed SEND
		n.clearSent(p, false)
		p.pushFailed, p.pushErr = true, ev.Status
	}
	n.requeue(p)
	return true
}

// unlinkMDH is lnet_peer_ping_failed's (ping) or lnet_peer_push_failed's unlink of the peer's
// lp_ping_mdh or lp_push_mdh when that names a stale one (the handle is forgotten): see
// unlinkDisc.
func (n *Node) unlinkMDH(p *Peer, ping bool) {
	for i := range n.stale {
		if r := n.stale[i]; r.p == p && r.ping == ping && r.mdh {
			n.stale = append(n.stale[:i], n.stale[i+1:]...)
			n.unlinkDisc(p, r.md, ping)
			return
		}
	}
}

// pingFailed records a failed discovery ping (LNET_PEER_PING_FAILED with lp_ping_error rc, 0
// for a truncated reply): PING_SENT is cleared, and an MD the failing event did not unlink
// stays linked, named by lp_ping_mdh (a stale ping: clearSent), until the discovery step
// that deals with the failure unlinks it (failedStep: lnet_peer_ping_failed), so its response
// tracker cannot expire later.
func (n *Node) pingFailed(p *Peer, unlinked bool, rc int) {
	if unlinked {
		p.discPing = nil
	} else {
		n.clearSent(p, true)
	}
	p.pingFailed, p.pingErr = true, rc
}

// discoveryDone models lnet_peer_discovery_complete: on success (lnet_peer_discovered) the
// peer is DISCOVERED and selection re-runs for the messages that waited; on error (the ping's
// or push's status) they are finalized with it and the peer is marked REDISCOVER (a peer
// discovered before stays DISCOVERED), so the next send discovers it again. Before that, a
// peer with routes completes as a gateway (routerDiscoveryComplete: alive or dead by rc,
// RTR_DISCOVERED), from 2.13 (not RouterCheckerPing); a deleted peer's routes went to the
// peer that took its NIDs, whose own discovery completes it.
func (n *Node) discoveryDone(p *Peer, rc int) {
	n.completeDiscovery(p, rc)
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

// discoveryRound models, from 2.17, the step of a peer whose forced push (FORCE_PUSH) waits
// behind a push in flight: lnet_peer_needs_push refuses (PUSH_SENT), so lnet_peer_discovered
// completes the discovery (completeDiscovery: DISCOVERED, a gateway's router discovery
// completes alive), leaving the peer not up to date (lnet_peer_is_uptodate: FORCE_PUSH).
// Each message that waited is sent again, finds the peer not up to date and queues it again,
// and the discovery completes again, round after round in no time, until that push's event,
// which queues the peer for the forced push. The model takes one round: the messages stay
// on a peer that stays DISCOVERING, as the kernel's is for all but an instant of each round,
// and the discovery hook is not told (lnet_discover's waiter, woken each round, finds the
// peer not up to date and queues it again). A peer no message waited for is left not
// DISCOVERING: the push's event or the next message sent to it queues it.
func (n *Node) discoveryRound(p *Peer) {
	n.completeDiscovery(p, 0)
	p.discovering = p.pending.Len() > 0
}

// completeDiscovery is what discoveryDone and discoveryRound share: lnet_peer_discovered or
// lnet_peer_discovery_complete's error (REDISCOVER), and a gateway's completion.
func (n *Node) completeDiscovery(p *Peer, rc int) {
	p.discovering = false
	if rc == 0 { // lnet_peer_discovered
		p.discovered, p.rediscover = true, false
	} else { // lnet_peer_discovery_complete with an error
		p.rediscover = true
	}
	if g := p.gw; g != nil && g.joined {
		g.joined = false // the router check that joined this discovery ends with it
		if rc != 0 {
			g.pingFails++
			n.rstats.RtrPingFail++
		}
	}
	if p.rtrRefcount() > 0 && !p.deleted && !n.tun.Profile.RouterCheckerPing {
		n.routerDiscoveryComplete(p, rc)
	}
}

// processPingBuffer models lnet_peer_data_present for a buffer from p's node (push: it came
// in a push, else in a ping reply): the multi-rail and discovery flags are learnt
// (learnMultiRail); a buffer listing no NI but 0@lo is not merged (find_primary fails). Its
// primary NID (the first NI after 0@lo) decides where it goes: the peer of 0@lo (this node's
// own, created by `discover 0@lo`) takes it as primary (setPrimaryNID) and merges the buffer
// (mergeData); so does a peer that already has it as primary, or whose own primary NID the
// buffer lists while discovery is off for the peer (lnet_is_discovery_disabled: then only its
// NIs' status is merged); a peer that has that NID as another of its NIs, or nobody has it,
// takes it as primary and merges. When the NID is another peer's, the buffer is handed to
// that peer (handOff), which it returns; as its NIDs move there p may be deleted. Before all
// that, a peer LNetAddPeer marked to merge into another (lp_merge_primary_nid) takes that
// NID as primary (setPrimaryNID), which deletes the other peer and may lock p's primary.
func (n *Node) processPingBuffer(p *Peer, b *PingBuffer, push bool) *Peer {
	n.learnMultiRail(p, b, push)
	p.rtrEnabled = !b.RoutingDisabled
	if len(b.NIs) < 2 {
		return nil
	}
	if m := p.mergePrim; m != AnyNID {
		p.mergePrim = AnyNID
		n.setPrimaryNID(p, m, b.MultiRail) // LNetAddPeer's merge (LU-17379)
	}
	prim := b.NIs[1].NID
	if p.primary != LoNID && (p.primary == prim || b.lists(p.primary) && n.discoveryDisabled(p)) {
		n.mergeData(p, b)
		return nil
	}
	if lpni := n.peerNIs.get(prim); p.primary != LoNID && lpni != nil && lpni.peer != p {
		return n.handOff(p, lpni.peer, b)
	} else if lpni != nil && lpni.peer == p && n.tun.Profile.BareDiscoveryHandOff {
		n.mergeData(p, b) // 2.12: the buffer is handed to p itself, whose primary NID stays
		return nil
	}
	if n.setPrimaryNID(p, prim, b.MultiRail) {
		n.mergeData(p, b)
	}
	return nil
}

// setPrimaryNID models lnet_peer_set_primary_nid: nid becomes p's primary NID, unless p's is
// locked (LNET_PEER_LOCK_PRIMARY), and joins p (addDiscNID); if it cannot, p keeps its old
// one. It reports whether the buffer is to be merged: the NID joined, or p is configured or
// locked, whose refusals are not failures.
func (n *Node) setPrimaryNID(p *Peer, nid NID, mr bool) bool {
	if p.primary == nid {
		return true
	}
	old := p.primary
	if !p.lockPrim {
		p.primary = nid
	}
	if !n.addDiscNID(p, nid, mr) {
		p.primary = old
		return p.config || p.lockPrim
	}
	return true
}

// handOff models the hand-off of lnet_peer_data_present and lnet_peer_set_primary_data: the
// buffer p received names as primary a NID of q, the same node's peer. From 2.14.51 (LU-13894;
// not BareDiscoveryHandOff) q takes p's discovery and multi-rail state and the NIDs the
// reply came to and from, so that its push goes back the same way. q is put on the discovery
// thread's request queue, being discovered or not (afterMerge steps it: a ping in flight is
// not waited for); a newer buffer q already holds (LNET_PEER_DATA_PRESENT) wins over this
// one; q's NIDs are up to date, a forced ping is dropped, and the buffer is merged into q
// (mergeData), which takes p's listed NIDs from it, and with p's primary NID deletes p. The
// routes of a gateway p go with its NID (transferGateway), which covers
// lnet_consolidate_routes_locked. It returns q.
func (n *Node) handOff(p, q *Peer, b *PingBuffer) *Peer {
	if !n.tun.Profile.BareDiscoveryHandOff {
		if !p.noDiscovery {
			q.noDiscovery = false
		}
		if p.mr && !q.mr {
			q.setMultiRail(true)
		}
		if p.discSrc != AnyNID {
			q.discSrc, q.discDst = p.discSrc, p.discDst
		}
	}
	q.discovering = true
	if q.mr && q.data != nil && q.data.Seq >= b.Seq {
		b = q.data
	}
	q.data = nil
	q.forcePing = false
	q.uptodate = true
	n.mergeData(q, b)
	return q
}

// mergeData models lnet_peer_merge_data: the routing feature is cached (LNET_PEER_ROUTER_ENABLED);
// each of p's NIDs the buffer lists has its status merged (discLPNIHealth); unless discovery is
// off for p (lnet_is_discovery_disabled), each listed NID p lacks joins it (addDiscNID: not a
// local NID of this node, for a peer that is not this node's own) and has its status merged
// wherever it lives, and p's NIDs no longer listed leave it (delMissingNIDs); the buffer's
// primary NID then comes first (primaryFirst).
func (n *Node) mergeData(p *Peer, b *PingBuffer) {
	p.rtrEnabled = !b.RoutingDisabled
	var missing []*PeerNI
	for _, lpni := range p.kernelOrder() {
		if lpni.nid == LoNID {
			continue
		}
		if st, ok := b.status(lpni.nid); ok {
			n.discLPNIHealth(lpni, st)
		} else {
			missing = append(missing, lpni)
		}
	}
	if n.discoveryDisabled(p) {
		return
	}
	for _, e := range b.NIs[1:] {
		if lpni := n.peerNIs.get(e.NID); lpni != nil && lpni.peer == p || e.NID.Net() == LoNet ||
			n.isLocalNID(e.NID) && p.primary != e.NID && !n.isLocalNID(p.primary) {
			continue
		}
		n.addDiscNID(p, e.NID, b.MultiRail)
		if lpni := n.peerNIs.get(e.NID); lpni != nil {
			n.discLPNIHealth(lpni, e.Status)
		}
	}
	n.delMissingNIDs(p, missing)
	n.primaryFirst(p, b.NIs[1].NID)
}

// addDiscNID models lnet_peer_add_nid as discovery calls it (not LNET_PEER_CONFIGURED): nid
// joins p and it reports whether nid is p's now. A configured p takes no NID (-EPERM), nor a
// non-multi-rail one a second NID on a net (-ENOTUNIQ); a multi-rail buffer makes p
// multi-rail. A NID of a configured peer stays there (-EEXIST). Another peer's NID that is
// not its primary moves to p with its state (movePeerNI); one that is deletes that peer
// (deletePeer) and joins p anew: if that peer's primary NID is locked and it has other NIDs
// both are flagged LNET_PEER_BAD_CONFIG and the NID stays; if it is locked and p is not, or
// p was locked later, p takes the NID as its locked primary (lp_prim_lock_ts); a gateway's
// routes go to p first (LNET_PEER_RTR_NI_FORCE_DEL, lnet_rtr_transfer_to_peer:
// transferRoutes), whether p is a gateway or not.
func (n *Node) addDiscNID(p *Peer, nid NID, mr bool) bool {
	if p.config {
		return false
	}
	if mr && !p.mr {
		p.setMultiRail(true)
	}
	lpni := n.peerNIs.get(nid)
	if lpni != nil {
		q := lpni.peer
		switch {
		case q == p:
			return true
		case q.config:
			return false
		case nid != q.primary:
		case q.lockPrim && len(q.nis) > 1:
			p.badConfig, q.badConfig = true, true
			return false
		default:
			if q.lockPrim && (!p.lockPrim || q.lockSeq < p.lockSeq) {
				p.lockSeq, p.primary, p.lockPrim = q.lockSeq, nid, true
			}
			if q.rtrRefcount() > 0 {
				n.transferRoutes(q, p)
			}
			n.deletePeer(q)
			lpni = nil
		}
	}
	if !p.mr {
		for _, pn := range p.nets {
			if pn.id == nid.Net() {
				return false
			}
		}
	}
	if lpni != nil {
		n.movePeerNI(lpni, p)
	} else {
		n.addPeerNI(p, nid)
	}
	return true
}

// transferRoutes models lnet_rtr_transfer_to_peer, run when discovery moves gateway src's
// primary NID to peer dst (lnet_peer_add_nid), just before src is deleted. Each of src's
// routes, newest first (lp_routes), meets dst's route to the same net, if dst has one: src's
// is dropped unless it has both a lower priority and fewer hops (lr_hops compared unsigned,
// so undefined hops lose to any number), in which case dst's is dropped instead. A route that
// survives leaves its net's list and comes back through dst (lnet_move_route) at a new
// random place (insertRoute: lnet_add_route_to_rnet, drawn from lnet/routes/<node>), with its
// NID, hops, priority, cached aliveness and sequence, and makes each of dst's nets due for a
// router check. A dst that was no gateway becomes one at the end of the router list (a new
// router-checker slot), alive unless check_routers_before_use (its lp_alive from
// lnet_peer_alloc: the transfer moves no aliveness), never pinged, on its own routing
// feature bit; src, left with no route, is no longer a router, and its router check in
// flight is cancelled with its deletion (deletePeer). src's lp_rtrq goes to the head of
// dst's (list_splice_init): those messages wait for a router credit returned by one of dst's
// NIs, since the credits of src's NIs, deleted with src, return to src (their lpn_peer) and
// release nothing. A route is deleted by its gateway's primary NID (lnet_move_route,
// lnet_del_route_from_rnet), which dst shares with src when it took that NID as primary
// first (lnet_peer_set_primary_nid, a locked primary in lnet_peer_add_nid, LNetAddPeer's
// merge): src's route dropped as present then takes dst's route to that net with it.
// Deliberately, when src's route has both a lower priority and fewer hops than dst's and the
// two share the primary NID, the model drops dst's and moves src's as it would otherwise
// (the kernel's deletion of dst's route frees src's too, which it then moves: a use after
// free), and a gateway dst whose routes were all dropped before one moved to it keeps its
// router-checker slot (the kernel's lnet_rtr_decref_locked and lnet_rtr_addref_locked put it
// at the end of its router list).
func (n *Node) transferRoutes(src, dst *Peer) {
	if dst.gw == nil {
		dst.gw = &gwState{idx: len(n.gateways), rtrDisabled: !dst.rtrEnabled}
		dst.alive = !n.tun.CheckRoutersBeforeUse
		n.gateways = append(n.gateways, dst)
	}
	if src.rtrq.Len() > 0 {
		// list_splice_init: src's waiting messages go to the head of dst's lp_rtrq.
		moved := src.rtrq.Drain()
		for _, m := range append(moved, dst.rtrq.Drain()...) {
			dst.rtrq.Push(m)
		}
	}
	moving := append([]*Route(nil), src.gw.routes...)
	for i := len(moving) - 1; i >= 0; i-- {
		r := moving[i]
		present := false
		for _, r2 := range append([]*Route(nil), dst.gw.routes...) {
			if r2.net != r.net {
				continue
			}
			if r.priority >= r2.priority || uint32(r.hops) >= uint32(r2.hops) {
				present = true
			} else {
				n.deleteRoute(r2)
			}
		}
		n.deleteRoute(r)
		if present {
			if src.primary == dst.primary {
				// lnet_move_route deletes by the gateway's primary NID, dst's too.
				for _, r2 := range append([]*Route(nil), dst.gw.routes...) {
					if r2.net == r.net {
						n.deleteRoute(r2)
					}
				}
			}
			continue
		}
		r.gw = dst
		n.insertRoute(n.remoteNetOf(r.net), r)
		for j := range dst.gw.netPings {
			dst.gw.netPings[j].next = n.k.Now()
		}
		dst.gw.routes = append(dst.gw.routes, r)
		dst.isRouter = true
	}
	n.routesChanged()
}

// deleteRoute takes r out of its net's list and its gateway's routes (lnet_del_route_from_rnet
// for one route); the net's entry stays (lnet_move_route leaves it).
func (n *Node) deleteRoute(r *Route) {
	rn := n.remoteNetOf(r.net)
	rn.routes = removePtr(rn.routes, r)
	n.unlinkGatewayRoute(r)
}

// remoteNetOf returns the routes to net (nil if the node has none).
func (n *Node) remoteNetOf(net NetID) *remoteNet {
	if i := n.remoteNetIndex(net); i >= 0 {
		return n.remoteNets[i]
	}
	return nil
}

// delMissingNIDs models the deletion half of lnet_peer_merge_data: each of the peer's NIDs
// its buffer no longer lists leaves the peer (lnet_peer_del_nid), except the primary NID of a
// peer with other NIDs (-EBUSY). A gateway's deletion is forced (LNET_PEER_RTR_NI_FORCE_DEL;
// not GatewayPrimaryStays): its primary NID leaves too and the peer NI after it in the
// peer's order (lnet_get_next_peer_ni_locked) becomes primary; the kernel asserts there is
// one, and a primary NID last in that order stays here;
// a configured peer's NIDs and a locked primary NID stay and count as DOWN (-EPERM:
// handle_disc_lpni_health; up to 2.15, DiscoveryStatusNoHealth, they are left as they are).
// A deleted peer NI's queued messages stay on it and leave as its credits return, as on the
// kernel's zombie peer NI.
func (n *Node) delMissingNIDs(p *Peer, missing []*PeerNI) {
	for _, lpni := range missing {
		switch {
		case lpni.peer != p: // moved meanwhile (-ECHILD)
		case p.config || p.lockPrim && lpni.nid == p.primary:
			if !n.tun.Profile.DiscoveryStatusNoHealth { // 2.15 and before only log the -EPERM
				n.discLPNIHealth(lpni, NIStatusDown)
			}
		case lpni.nid == p.primary:
			if p.gw == nil || n.tun.Profile.GatewayPrimaryStays {
				break
			}
			if next := p.nextPeerNI(lpni); next != nil {
				p.primary = next.nid
				n.detachPeerNI(lpni)
			}
		default:
			n.detachPeerNI(lpni)
		}
	}
}

// nextPeerNI models lnet_get_next_peer_ni_locked(p, NULL, lpni): the peer NI after lpni in
// p's order, the next net's first after a net's last, nil after the last.
func (p *Peer) nextPeerNI(lpni *PeerNI) *PeerNI {
	order := p.kernelOrder()
	for i, x := range order {
		if x == lpni && i+1 < len(order) {
			return order[i+1]
		}
	}
	return nil
}

// status returns the status the buffer lists for nid, if it lists it.
func (b *PingBuffer) status(nid NID) (NIStatus, bool) {
	for _, e := range b.NIs {
		if e.NID == nid {
			return e.Status, true
		}
	}
	return 0, false
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
	// A merge during one peer's discovery may delete others: walk a copy.
	for _, p := range append([]*Peer(nil), n.peers...) {
		if p.deleted {
			continue
		}
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
	h.PayloadLength = n.pingTargetBytes()
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
