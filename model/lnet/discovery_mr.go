package lnet

// learnMultiRail updates a peer's multi-rail and discovery flags from its ping buffer, as
// lnet_discovery_event_reply does for a ping reply and lnet_peer_push_event for a push:
// the peer has no discovery (LNET_PEER_NO_DISCOVERY) when its buffer lacks the discovery
// feature or, for a reply, when this node's discovery is off; a peer advertising multi-rail
// becomes multi-rail unless it was configured by hand, this node's discovery is off, or the
// peer has no discovery; a reply without the multi-rail feature clears the flag of a peer
// that was not configured (a push without it is never sent: every node advertises it).
// Deliberately not modelled: a non-configured peer found to have turned discovery off after
// it was discovered (or while multi-rail) is not deleted and created again
// (LNET_PEER_MARK_DELETION); it only stops being multi-rail from the next push or reply on.
func (n *Node) learnMultiRail(p *Peer, b *PingBuffer, push bool) {
	p.noDiscovery = !b.Discovery || !push && !n.tun.Discovery
	switch {
	case !b.MultiRail:
		if p.mr && !p.config {
			p.setMultiRail(false)
		}
	case p.mr, p.config, !n.tun.Discovery, p.noDiscovery:
	default:
		p.setMultiRail(true)
	}
}
