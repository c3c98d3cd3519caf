package ib

import (
	"fmt"

	"github.com/lnetsim/lnetsim/sim"
)

// This file decides the fate of management traffic: CM MADs, the ARP exchange of address
// resolution and the path record query of route resolution. Each packet crosses the lanes
// of its route: a lane that is down loses it, a lane with loss or corruption draws on the
// link's own stream "ib.link.<index>.mad" (never the data stream, so data draws do not
// shift), and every lane's injected extra delay (link_delay) adds to its delivery time.
// The fault-free delivery times (CMTiming) already include the wire's nominal latency. MADs
// take no bandwidth, but each waits behind the data already on or queued for every lane it
// crosses (backlog), so a congested output delays management traffic as it delays data.

// mgmtState is the fabric's management traffic state.
type mgmtState struct {
	smDown bool          // the subnet manager answers no path record query (SMDown)
	rng    []*sim.Stream // MAD loss draws, by link, created on first use
	lost   uint64        // management packets lost (MADsLost)
}

// SMDown makes the subnet manager unreachable: path record queries (rdma_resolve_route)
// get no answer and end in ROUTE_ERROR at their timeout. Established connections and
// address resolution are unaffected.
func (f *Fabric) SMDown() { f.mgmt.smDown = true }

// SMUp makes the subnet manager reachable again.
func (f *Fabric) SMUp() { f.mgmt.smDown = false }

// MADsLost returns how many management packets (CM MADs, ARP requests and replies, path
// record queries and answers) were lost: to a lane down or its loss or corruption, to a
// port or HCA that is down, or to an unreachable subnet manager.
func (f *Fabric) MADsLost() uint64 { return f.mgmt.lost }

// madRNG returns the MAD loss stream of link i.
func (f *Fabric) madRNG(i int32) *sim.Stream {
	for int(i) >= len(f.mgmt.rng) {
		f.mgmt.rng = append(f.mgmt.rng, nil)
	}
	if f.mgmt.rng[i] == nil {
		f.mgmt.rng[i] = f.k.Rand(fmt.Sprintf("ib.link.%d.mad", i))
	}
	return f.mgmt.rng[i]
}

// laneFate reports whether a one-packet MAD crosses ln, and the delay the lane adds: its
// injected delay and its backlog.
func (f *Fabric) laneFate(ln *lane) (sim.Time, bool) {
	if !ln.up {
		return 0, false
	}
	if ln.loss > 0 || ln.corrupt > 0 {
		r := f.madRNG(ln.link)
		if r.Bernoulli(ln.loss) || r.Bernoulli(ln.corrupt) {
			return 0, false
		}
	}
	return ln.extra + f.backlog(ln), true
}

// backlog returns how long lane ln needs, from now, to send what is ahead of a packet that
// joins its output now: the rest of the chunk on the wire, then every queued chunk at the
// link rate. A FIFO switch output: its whole queue; under round-robin arbitration the queued
// chunks tagged no later than a one-packet MAD joining now would be. An HCA port serves its
// control packets first and then its QPs in turn, and a MAD goes out on QP1, one more QP in
// that turn: it waits for the chunk on the wire, a chunk staged for credits and the queued
// control packets, not for other QPs' messages. Credit stalls while the queue drains are
// not foreseen (the queue is taken to drain at the link rate).
func (f *Fabric) backlog(ln *lane) sim.Time {
	now := f.k.Now()
	var d sim.Time
	if ln.busy && ln.busyTo > now {
		d = ln.busyTo - now
	}
	var bytes int64
	free := ln.freeAt
	if at, ahead, ok := f.aheadBacklogOf(ln); ok { // chunks sent ahead count as queued (ahead.go)
		free, bytes = at, ahead
	}
	if free > now+d {
		d = free - now
	}
	q := ln.q
	if ln.from.kind == epPort {
		q = f.ports[ln.from.idx].ctrl
		if ln.staged >= 0 {
			bytes += int64(f.chunks[ln.staged].wire)
		}
	}
	rr := ln.from.kind == epSwitch && f.cfg.Arbitration == ArbitrationRoundRobin
	mine := ln.rr.base(now) + 1 // under round robin, the tag a one-packet MAD would take
	for c := q.head; c >= 0; c = f.chunks[c].next {
		if rr && int32(f.chunks[c].tag-mine) > 0 {
			break // it would go ahead of the rest
		}
		bytes += int64(f.chunks[c].wire)
	}
	if q.head >= 0 && ln.from.kind == epSwitch {
		bytes -= f.notArrived(ln) // queued by cutThrough ahead of their arrival
	}
	return d + sim.Time(bytes*8000/ln.mbps)
}

// madFate decides at sending time whether a MAD from src reaches dst: both ports active
// and every lane of the route crossed. It returns the extra delay the lanes add.
func (f *Fabric) madFate(src, dst *Port) (sim.Time, bool) {
	if !src.hca.alive() || !dst.hca.alive() {
		return 0, false
	}
	if src.hca.node == dst.hca.node {
		return 0, true
	}
	if src.state != PortActive || dst.state != PortActive {
		return 0, false
	}
	var extra sim.Time
	ok := f.walk(src, dst, func(ln *lane) bool {
		d, up := f.laneFate(ln)
		extra += d
		return up
	})
	return extra, ok
}

// roundTrip decides a request from src to dst and its answer: both must cross. It returns
// the extra delay of both ways and counts a loss.
func (f *Fabric) roundTrip(src, dst *Port) (sim.Time, bool) {
	there, ok := f.madFate(src, dst)
	if ok {
		var back sim.Time
		if back, ok = f.madFate(dst, src); ok {
			return there + back, true
		}
	}
	f.mgmt.lost++
	return 0, false
}

// saQuery decides a path record query from p to the subnet manager and its answer. The SM
// is modelled one link away: the query crosses p's own link both ways, and fails if the SM
// is down.
func (f *Fabric) saQuery(p *Port) (sim.Time, bool) {
	if f.mgmt.smDown || !p.hca.alive() || p.state != PortActive || p.lane < 0 {
		f.mgmt.lost++
		return 0, false
	}
	there, ok := f.laneFate(&f.lanes[p.lane])
	if ok {
		var back sim.Time
		if back, ok = f.laneFate(&f.lanes[p.lane^1]); ok {
			return there + back, true
		}
	}
	f.mgmt.lost++
	return 0, false
}
