package ib

import (
	"fmt"

	"github.com/lnetsim/lnetsim/internal/invariants"
)

// registerInvariants hands the fabric's checks to its kernel (a no-op without the
// invariants build tag; see package internal/invariants).
func (f *Fabric) registerInvariants() {
	if invariants.Enabled {
		f.k.AddInvariant(f.checkInvariants)
	}
}

// checkInvariants checks the copies of port liveness and fault rates the lanes keep
// (syncPort, lossy), that a port's round robin holds only QPs of its HCA (pull relies on
// it), and the fabric's CQ and QP tables: each CQ sits in its own slot and holds no more
// completions than its size; the free CQ slots are exactly the destroyed CQs whose slot was
// released, each once; each live QP sits at its QPN and uses CQs of its own HCA that are in
// the table. Under round robin, Fabric.rrLast names each input's last chunk in each switch
// output's queue and nothing else (checkRRLast). Chunks sent ahead that have not started
// follow one another on their output (checkAhead).
func (f *Fabric) checkInvariants() error {
	if err := f.checkCQs(); err != nil {
		return err
	}
	for _, p := range f.ports {
		if p.lane < 0 {
			continue
		}
		for _, qp := range p.ring[p.ringHead:] {
			if qp.hca != p.hca { // pull relies on it (hasWorkAlive)
				return fmt.Errorf("ib: QP %d of %s in the round robin of port %s", qp.num, qp.hca.Name, p)
			}
		}
		out, in := &f.lanes[p.lane], &f.lanes[p.lane^1]
		if out.srcDead != p.hca.dead || out.srcDown != (p.state != PortActive) || in.dstOK != (!p.hca.dead && p.state == PortActive) {
			return fmt.Errorf("ib: port %s: lane liveness flags (%v %v %v) disagree with HCA dead %v, state %v", p, out.srcDead, out.srcDown, in.dstOK, p.hca.dead, p.state)
		}
	}
	for i := range f.lanes {
		if ln := &f.lanes[i]; ln.lossy != (ln.loss > 0 || ln.corrupt > 0) {
			return fmt.Errorf("ib: lane %d: lossy %v with loss %v, corruption %v", i, ln.lossy, ln.loss, ln.corrupt)
		}
	}
	if err := f.checkRRLast(); err != nil {
		return err
	}
	if err := f.checkAhead(); err != nil {
		return err
	}
	for i, qp := range f.qps {
		if qp == nil {
			continue
		}
		if qp.num != uint32(i+1) {
			return fmt.Errorf("ib: QP %d sits in the slot of QPN %d", qp.num, i+1)
		}
		for _, cq := range []*CQ{qp.init.SendCQ, qp.init.RecvCQ} {
			if cq != nil && !cq.freed && (int(cq.idx) >= len(f.cqs) || f.cqs[cq.idx] != cq) {
				return fmt.Errorf("ib: QP %d on %s uses a CQ missing from the fabric's table (slot %d)", qp.num, qp.hca.Name, cq.idx)
			}
		}
	}
	return nil
}

// checkAhead checks the chunks sent ahead on each switch output that have not started: each
// is on that lane, starts no earlier than its head reaches the switch and than the one
// before it ends, and the lane is not free before the last of them ends.
func (f *Fabric) checkAhead() error {
	for _, li := range f.aheadLanes {
		ln := &f.lanes[li]
		if !ln.aheadListed {
			return fmt.Errorf("ib: lane %d listed for chunks sent ahead without its flag", li)
		}
		live := f.aheadLive(li)
		for i, r := range live {
			if f.chunks[r.c].lane != li || r.start < r.at || i > 0 && r.start < live[i-1].given {
				return fmt.Errorf("ib: lane %d: chunk %d sent ahead (head at %v, start %v, on lane %d) out of order", li, r.c, r.at, r.start, f.chunks[r.c].lane)
			}
		}
		if n := len(live); n > 0 && ln.freeAt < live[n-1].given {
			return fmt.Errorf("ib: lane %d free at %v before its last chunk sent ahead ends (%v)", li, ln.freeAt, live[n-1].given)
		}
	}
	return nil
}

// checkCQs checks the CQ table against its free list.
func (f *Fabric) checkCQs() error {
	freed := 0
	for i, cq := range f.cqs {
		switch {
		case int(cq.idx) != i:
			return fmt.Errorf("ib: CQ in slot %d thinks it is in slot %d", i, cq.idx)
		case int(cq.n) > cq.size || cq.n < 0:
			return fmt.Errorf("ib: CQ %d on %s holds %d completions, size %d", i, cq.hca.Name, cq.n, cq.size)
		case cq.freed && !cq.dead:
			return fmt.Errorf("ib: CQ %d on %s is live but its slot is free", i, cq.hca.Name)
		case cq.freed:
			freed++
		}
	}
	seen := make(map[int]bool, len(f.freeCQs))
	for _, i := range f.freeCQs {
		if seen[i] || i >= len(f.cqs) || !f.cqs[i].freed {
			return fmt.Errorf("ib: free CQ slot %d listed twice or not freed (%d slots, %d free)", i, len(f.cqs), len(f.freeCQs))
		}
		seen[i] = true
	}
	if freed != len(f.freeCQs) {
		return fmt.Errorf("ib: %d CQs released, %d free slots listed: CQ count unbalanced", freed, len(f.freeCQs))
	}
	return nil
}

// Dead reports whether the CQ was destroyed or its node crashed.
func (cq *CQ) Dead() bool { return cq.dead }

// checkRRLast checks that under round-robin arbitration Fabric.rrLast holds, for each switch
// output and each input with chunks in its queue, the input's last chunk there, and no other
// entry.
func (f *Fabric) checkRRLast() error {
	if f.cfg.Arbitration != ArbitrationRoundRobin {
		return nil
	}
	n := 0
	for li := range f.lanes {
		ln := &f.lanes[li]
		if ln.from.kind != epSwitch {
			continue
		}
		last := map[int32]int32{} // by input lane: its last chunk in the queue
		var inputs []int32        // the inputs in the order of their first chunk
		for x := ln.q.head; x >= 0; x = f.chunks[x].next {
			in := f.chunks[x].inLane
			if _, ok := last[in]; !ok {
				inputs = append(inputs, in)
			}
			last[in] = x
		}
		for _, in := range inputs {
			if got, ok := f.rrLast[rrKey(int32(li), in)]; !ok || got != last[in] {
				return fmt.Errorf("ib: switch output lane %d: input lane %d's last queued chunk is %d, rrLast says %d (present %v)", li, in, last[in], got, ok)
			}
		}
		n += len(inputs)
	}
	if n != len(f.rrLast) {
		return fmt.Errorf("ib: rrLast has %d entries for %d inputs with chunks queued at switch outputs", len(f.rrLast), n)
	}
	return nil
}
