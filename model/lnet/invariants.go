package lnet

import (
	"fmt"

	"github.com/lnetsim/lnetsim/internal/invariants"
)

// This file holds the node's invariants, checked by the kernel between events under the
// invariants build tag (see package internal/invariants). Each check returns an error naming
// the node, the NI, peer NI or pool, and the counts that disagree.

// registerInvariants hands the node's checks to its kernel (a no-op without the tag).
func (n *Node) registerInvariants() {
	if invariants.Enabled {
		n.k.AddInvariant(n.checkInvariants)
	}
}

// holderKey names one credit: an NI's tx queue on a CPT, or a peer NI.
type holderKey struct {
	ni   *NI
	cpt  int8
	lpni *PeerNI
}

// creditHolders counts, among the live messages, the holders of each kind of credit, and
// those that hold one without waiting for the next and without being in the LND or a delay
// rule (held: such a credit would never come back).
type creditHolders struct {
	niTx, peerTx, peerRtr map[holderKey]int
	waitNI, waitPeer      map[holderKey]int // holders queued for the NI credit, for the peer NI credit
	pool                  []int
	stranded              *Msg
}

// live reports whether m is allocated: allocMsg and freeMsg each bump its generation, which
// starts at 1, so a live message's generation is odd.
func (m *Msg) live() bool { return m.gen%2 == 1 }

// liveMsgs calls fn for every message allocated and not yet freed.
func (n *Node) liveMsgs(fn func(m *Msg)) {
	for _, m := range n.msgs {
		if m.live() {
			fn(m)
		}
	}
}

// countHolders walks the live messages once.
func (n *Node) countHolders() creditHolders {
	h := creditHolders{niTx: map[holderKey]int{}, peerTx: map[holderKey]int{}, peerRtr: map[holderKey]int{},
		waitNI: map[holderKey]int{}, waitPeer: map[holderKey]int{}, pool: make([]int, len(n.rtrPools))}
	n.liveMsgs(func(m *Msg) {
		inFlight := m.sending || m.delayed
		if m.niCredit {
			h.niTx[holderKey{ni: m.txNI, cpt: m.txCPT}]++
			if !inFlight {
				h.waitNI[holderKey{ni: m.txNI, cpt: m.txCPT}]++
			}
		}
		if m.peerCredit {
			h.peerTx[holderKey{lpni: m.txPeerNI}]++
			if !m.niCredit {
				h.waitPeer[holderKey{lpni: m.txPeerNI}]++
				if inFlight && h.stranded == nil {
					h.stranded = m
				}
			}
		}
		if m.peerRtrCredit {
			h.peerRtr[holderKey{lpni: m.rxPeerNI}]++
		}
		if m.rtrPool > 0 {
			h.pool[m.rtrPool-1]++
		}
	})
	return h
}

// checkInvariants checks, on every NI tx queue, peer NI and router buffer pool of the node:
// credits within [min, max]; the credits taken equal the live messages holding one
// (conservation: a leaked or doubly returned credit shows here); the messages queued equal
// the credits owed (-credits when negative); and every holder that is not queued is in the
// LND or held by a delay rule, so that a queued message always has a credit on its way back.
func (n *Node) checkInvariants() error {
	h := n.countHolders()
	if h.stranded != nil {
		m := h.stranded
		return fmt.Errorf("node %s: message %d to %s holds a peer NI credit without an NI credit but is in flight", n.name, m.id, m.target)
	}
	nis := n.nis
	if n.loNI != nil {
		nis = append([]*NI{n.loNI}, nis...)
	}
	for _, ni := range nis {
		if err := n.checkNICredits(ni, &h); err != nil {
			return err
		}
	}
	for _, p := range n.peers {
		for _, lpni := range p.nis {
			if err := n.checkPeerNICredits(lpni, &h); err != nil {
				return err
			}
		}
		if err := n.checkRtrq(p); err != nil {
			return err
		}
		if err := n.checkPeerHealth(p); err != nil {
			return err
		}
	}
	for _, r := range n.stale {
		if n.MD(r.h) == nil || r.md == r.p.discPing || r.md == r.p.discPush {
			return fmt.Errorf("node %s: stale discovery MD of peer %s is freed or the peer's in flight", n.name, r.p.primary)
		}
	}
	for i, p := range n.rtrPools {
		if err := checkQueueCredits(p.credits, p.nbuffers, p.minCredits, h.pool[i], p.msgs.Len(), -1); err != nil {
			return fmt.Errorf("node %s router buffer pool %d (%d pages): %w", n.name, i, p.npages, err)
		}
	}
	return nil
}

// checkNICredits checks each CPT tx queue of ni, and that ni_tx_credits is their sum.
func (n *Node) checkNICredits(ni *NI, h *creditHolders) error {
	if ni.health < 0 || ni.health > MaxHealth {
		return fmt.Errorf("node %s NI %s: health %d outside [0, %d]", n.name, ni.nid, ni.health, MaxHealth)
	}
	sum := 0
	for c := range ni.tq {
		tq := &ni.tq[c]
		k := holderKey{ni: ni, cpt: int8(c)}
		sum += tq.credits
		if err := checkQueueCredits(tq.credits, tq.max, tq.min, h.niTx[k], tq.delayed.Len(), h.waitNI[k]); err != nil {
			return fmt.Errorf("node %s NI %s CPT %d tx queue: %w", n.name, ni.nid, c, err)
		}
	}
	if sum != ni.txCredits {
		return fmt.Errorf("node %s NI %s: ni_tx_credits %d, its CPT queues sum to %d", n.name, ni.nid, ni.txCredits, sum)
	}
	return nil
}

// checkPeerNICredits checks lpni's tx credits and queue, and its router credits.
func (n *Node) checkPeerNICredits(lpni *PeerNI, h *creditHolders) error {
	k := holderKey{lpni: lpni}
	if err := checkQueueCredits(lpni.txCredits, lpni.maxTxCredits, lpni.minTxCredits, h.peerTx[k], lpni.txq.Len(), h.waitPeer[k]); err != nil {
		return fmt.Errorf("node %s peer NI %s tx credits: %w", n.name, lpni.nid, err)
	}
	rc, mx, mn := lpni.rtrCredits, lpni.maxRtrCredits, lpni.minRtrCredits
	if rc > mx || mn > rc || mx-rc != h.peerRtr[k] {
		return fmt.Errorf("node %s peer NI %s router credits: %d of %d (min %d), %d messages hold one",
			n.name, lpni.nid, rc, mx, mn, h.peerRtr[k])
	}
	return nil
}

// checkPeerHealth: every peer NI's health within [0, MaxHealth], each peer net's health
// that of its healthiest NI.
func (n *Node) checkPeerHealth(p *Peer) error {
	for _, lpni := range p.nis {
		if lpni.Health() < 0 || lpni.Health() > MaxHealth {
			return fmt.Errorf("node %s peer NI %s: health %d outside [0, %d]", n.name, lpni.nid, lpni.Health(), MaxHealth)
		}
	}
	for _, pn := range p.nets {
		best := 0
		for _, lpni := range pn.nis {
			best = max(best, lpni.Health())
		}
		if pn.health != best {
			return fmt.Errorf("node %s peer %s net %s: health %d, its best NI %d", n.name, p.Primary(), pn.ID(), pn.health, best)
		}
	}
	return nil
}

// checkRtrq: a peer's lp_rtrq holds messages from its own NIs only while one of them owes
// router credits (the credits are per peer NI, the queue per peer, so a credit returned by
// one NI may release another's message). Messages spliced there from a gateway merged into
// the peer (transferRoutes) came from the deleted peer's NIs, whose credits can no longer
// release them: they wait for the peer's own NIs' credits, owed or not, as in the kernel.
func (n *Node) checkRtrq(p *Peer) error {
	own := 0
	p.rtrq.Each(func(m *Msg) bool {
		if m.rxPeerNI.peer == p {
			own++
		}
		return true
	})
	if own == 0 {
		return nil
	}
	for _, lpni := range p.nis {
		if lpni.rtrCredits < 0 {
			return nil
		}
	}
	return fmt.Errorf("node %s peer %s: %d messages on lp_rtrq with no router credit below 0: nothing will release them",
		n.name, p.Primary(), own)
}

// checkQueueCredits checks one credit counter and its wait queue: credits in [min, max],
// held (live messages holding a credit) equal to max-credits, queued equal to the credits
// owed, and waiting (holders neither in flight nor behind the next credit; -1: not counted)
// equal to queued.
func checkQueueCredits(credits, max, min, held, queued, waiting int) error {
	owed := 0
	if credits < 0 {
		owed = -credits
	}
	switch {
	case credits > max || min > credits:
		return fmt.Errorf("credits %d outside [min %d, max %d]", credits, min, max)
	case max-credits != held:
		return fmt.Errorf("credits not conserved: %d of %d taken, %d messages hold one", max-credits, max, held)
	case queued != owed:
		return fmt.Errorf("%d messages queued, %d credits owed", queued, owed)
	case waiting >= 0 && waiting != queued:
		return fmt.Errorf("%d credit holders neither in the LND nor in a delay rule, %d queued: a message waits on a credit nothing will return", waiting, queued)
	}
	return nil
}

// checkFreeMsg panics (under the invariants tag) when m is finalized a second time.
func (n *Node) checkFreeMsg(m *Msg) {
	if invariants.Enabled && !m.live() {
		panic(fmt.Sprintf("invariant violated: node %s frees message %d (%s to %s) twice: finalized more than once",
			n.name, m.id, m.Hdr.Type, m.target))
	}
}

// checkRouteMemo panics (under the invariants tag) when r's remembered aliveness differs from
// a fresh lnet_is_route_alive: an input changed without routesChanged.
func checkRouteMemo(n *Node, r *Route) {
	if invariants.Enabled && r.upMemo != n.computeRouteAlive(r) {
		panic(fmt.Sprintf("lnet invariant: %s: route to %s via %s remembered alive=%v, is %v (an input changed without routesChanged)",
			n.name, r.net, r.gwNID, r.upMemo, !r.upMemo))
	}
}

// checkGwMemo panics (under the invariants tag) when r's remembered gateway peer NI differs
// from a fresh gwBestLPNI: a peer NI or local net changed without routesChanged.
func checkGwMemo(n *Node, r *Route) {
	if invariants.Enabled && r.gwMemo != n.gwBestLPNI(r.gw, nil) {
		panic(fmt.Sprintf("lnet invariant: %s: route to %s via %s remembered gateway peer NI %s (a peer NI or local net changed without routesChanged)",
			n.name, r.net, r.gwNID, r.gwMemo.nid))
	}
}
