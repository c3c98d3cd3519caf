package o2ib

import (
	"fmt"

	"github.com/lnetsim/lnetsim/internal/invariants"
)

// registerInvariants hands the LND's checks to its kernel (a no-op without the invariants
// build tag; see package internal/invariants).
func (l *LND) registerInvariants() {
	if invariants.Enabled {
		l.k.AddInvariant(l.checkInvariants)
	}
}

// checkInvariants checks the LND's connections and peers: the conns created and not yet
// destroyed are exactly those whose CQ is alive, and each owns its QP number; a peer's
// conns are established, not destroyed and its own; and a tx waiting on a peer for a
// connection always has connd's timer to time it out; and the FastReg pools (checkFMR).
func (l *LND) checkInvariants() error {
	live := 0
	for _, c := range l.conns {
		if err := l.checkConn(c); err != nil {
			return err
		}
		if !c.destroyed {
			live++
		}
	}
	if uint64(len(l.conns)) != l.stats.ConnsCreated {
		return fmt.Errorf("o2ib: %d conns created, %d in the table: conn count unbalanced", l.stats.ConnsCreated, len(l.conns))
	}
	for b := range l.peerTab {
		for _, p := range l.peerTab[b] {
			if err := l.checkPeer(p); err != nil {
				return err
			}
		}
	}
	return l.checkFMR()
}

// checkFMR: each FastReg pool of a live net holds between 0 and its size free descriptors
// and its map count is the rest, and the descriptors a net's pools have out are exactly
// those its live txs hold (a map whose descriptor was never given back would leak one per
// failure, as LU-20400 fixed).
func (l *LND) checkFMR() error {
	held := make(map[*kibNet]int) // lookups only
	for _, t := range l.txs {
		if t.fmr == nil {
			continue
		}
		if t.net == nil {
			return fmt.Errorf("o2ib tx %d: free but holds a FastReg descriptor", t.idx)
		}
		held[t.net]++
	}
	for _, n := range l.nets {
		if n.fmr == nil {
			continue
		}
		out := 0
		for i := range n.fmr.sets {
			for j, p := range n.fmr.sets[i].pools {
				if p.free < 0 || p.free > p.size || p.mapCount != p.size-p.free {
					return fmt.Errorf("o2ib net %s: FastReg pool %d of CPT %d has %d of %d descriptors free and map count %d", n.nid, j, i, p.free, p.size, p.mapCount)
				}
				out += p.size - p.free
			}
		}
		if out != held[n] {
			return fmt.Errorf("o2ib net %s: %d FastReg descriptors out of its pools, %d held by its txs: descriptors leaked", n.nid, out, held[n])
		}
	}
	return nil
}

// checkConn: a live conn's CQ is alive and its QP maps back to it; a destroyed one's CQ is
// destroyed (an LND that forgot to destroy it grows the fabric's CQ table forever); credits
// within [0, queue depth] and sends posted within [0, concurrent_sends].
func (l *LND) checkConn(c *conn) error {
	name := func() string { return fmt.Sprintf("o2ib conn %d to %s (state %d)", c.idx, c.peer.nid, c.state) }
	switch {
	case c.cq != nil && c.cq.Dead() != c.destroyed:
		return fmt.Errorf("%s: destroyed %v but its CQ dead %v: CQ and conn counts unbalanced", name(), c.destroyed, c.cq.Dead())
	case !c.destroyed && c.qp != nil && (int(c.qp.Num()) >= len(l.connByQPN) || l.connByQPN[c.qp.Num()] != nil && l.connByQPN[c.qp.Num()] != c):
		return fmt.Errorf("%s: QP %d is mapped to another conn", name(), c.qp.Num())
	case c.credits < 0 || c.credits > c.queueDepth || c.outstanding < 0:
		return fmt.Errorf("%s: credits %d of %d, outstanding credits %d", name(), c.credits, c.queueDepth, c.outstanding)
	case c.nsendsPosted < 0 || c.nsendsPosted > c.concurrentSends():
		return fmt.Errorf("%s: %d sends posted, at most %d", name(), c.nsendsPosted, c.concurrentSends())
	}
	return nil
}

// checkPeer: every conn of a linked peer is established, live and its own; a peer with txs
// waiting for a connection is in the table and connd's timer is armed to time them out.
func (l *LND) checkPeer(p *peer) error {
	if !p.linked {
		return fmt.Errorf("o2ib peer %s is in the peer table but not linked", p.nid)
	}
	for _, c := range p.conns {
		if c.peer != p || c.destroyed || c.state != connEstablished {
			return fmt.Errorf("o2ib peer %s: conn %d (state %d, destroyed %v) on its list", p.nid, c.idx, c.state, c.destroyed)
		}
	}
	if len(p.txQueue) > 0 && !l.k.Armed(&l.connd) {
		return fmt.Errorf("o2ib peer %s: %d txs wait for a connection and connd's timer is not armed: nothing will time them out", p.nid, len(p.txQueue))
	}
	return nil
}
