package ib

import (
	"fmt"
	"net/netip"

	"github.com/lnetsim/lnetsim/sim"
)

// This file is the fault API a scenario timeline calls at virtual times. Every fault takes
// effect at the current virtual time of the kernel.

// LinkDown takes the link down: both ends' LinkDownedCounter increases, HCA ports at either
// end go DOWN and raise IBV_EVENT_PORT_ERR, every chunk on the wire or queued for the link
// is lost, and switch buffers behind it are released. QPs using the link are not told:
// they find out through ACK timeouts (RETRY_EXC_ERR), as on real hardware. Routes change
// only through Resweep or, with Config.SMSweepDelay, the subnet manager's sweep.
func (l *Link) LinkDown() {
	f := l.f
	f.settle()
	if l.Up() {
		defer f.smTrap()
	}
	for d := 0; d < 2; d++ {
		li := int32(2*l.idx + d)
		ln := &f.lanes[li]
		if !ln.up {
			continue
		}
		ln.up = false
		ln.epoch++
		ln.rare.linkDowned++
		ln.waitFrom = -1
		for c := f.pop(&ln.q); c >= 0; c = f.pop(&ln.q) { // queued at a switch output: dropped
			if f.cfg.Arbitration == ArbitrationRoundRobin {
				delete(f.rrLast, rrKey(li, f.chunks[c].inLane))
			}
			ln.rare.xmitDiscards += uint64(f.chunks[c].npkt)
			f.releaseInput(&f.chunks[c])
			f.freeChunk(c)
		}
		if ln.to.kind == epSwitch {
			ln.credits = f.bufBytes()
			ln.rets, ln.retHead = ln.rets[:0], 0
			if ln.waking { // the return it waits for is gone
				f.k.Cancel(ln.wakeEv)
				ln.waking = false
			}
		}
		if ln.staged >= 0 {
			f.freeChunk(ln.staged)
			ln.staged = -1
		}
		if ln.from.kind == epPort {
			p := f.ports[ln.from.idx]
			f.setPortState(p, PortDown)
			f.freeQueue(&p.ctrl)
			if p.hca.alive() {
				f.async(AsyncEvent{Type: EventPortErr, HCA: p.hca, Port: p.Num})
			}
		}
	}
}

// smTrap schedules the subnet manager's sweep after a topology change (Config.SMSweepDelay).
func (f *Fabric) smTrap() {
	if f.cfg.SMSweepDelay > 0 {
		f.defer_(f.cfg.SMSweepDelay, pending{op: pResweep})
	}
}

// LinkUp brings the link back: lanes carry traffic at once, and HCA ports at either end
// become ACTIVE and raise IBV_EVENT_PORT_ACTIVE after Config.LinkUpDelay.
func (l *Link) LinkUp() {
	f := l.f
	f.settle()
	if !l.Up() {
		defer f.smTrap()
	}
	for d := 0; d < 2; d++ {
		li := int32(2*l.idx + d)
		ln := &f.lanes[li]
		if ln.up {
			continue
		}
		ln.up = true
		if ln.from.kind == epPort {
			f.defer_(f.cfg.LinkUpDelay, pending{op: pPortActive, port: f.ports[ln.from.idx]})
		} else {
			f.tryStart(li)
		}
	}
}

// Up reports whether the link is up.
func (l *Link) Up() bool { return l.f.lanes[2*l.idx].up }

func (f *Fabric) portActive(p *Port) {
	if p.lane < 0 || !f.lanes[p.lane].up || p.state == PortActive {
		return
	}
	f.setPortState(p, PortActive)
	if p.hca.alive() {
		f.async(AsyncEvent{Type: EventPortActive, HCA: p.hca, Port: p.Num})
		f.tryStart(p.lane)
	}
}

// SetLoss sets the probability that a packet is silently lost on the link, in both
// directions (default 0). A chunk is lost if any of its packets is; the RC transport
// recovers by ACK timeout and retransmission. Draws come from the stream
// "ib.link.<index>.faults".
func (l *Link) SetLoss(p float64) {
	l.f.settle()
	for d := 0; d < 2; d++ {
		ln := &l.f.lanes[2*l.idx+d]
		ln.loss = p
		ln.lossy = ln.loss > 0 || ln.corrupt > 0
		l.ensureRNG(ln)
	}
}

// SetCorruption sets the probability that a packet arrives corrupted (default 0): it is
// dropped by the receiving port, which counts SymbolErrorCounter and PortRcvErrors.
func (l *Link) SetCorruption(p float64) {
	l.f.settle()
	for d := 0; d < 2; d++ {
		ln := &l.f.lanes[2*l.idx+d]
		ln.corrupt = p
		ln.lossy = ln.loss > 0 || ln.corrupt > 0
		l.ensureRNG(ln)
	}
}

func (l *Link) ensureRNG(ln *lane) {
	if ln.rng == nil {
		ln.rng = l.f.k.Rand(fmt.Sprintf("ib.link.%d.faults", l.idx))
	}
}

// SetExtraDelay adds d to the link's propagation latency in both directions (0 removes it).
// It applies to chunks that start crossing the link from now on.
func (l *Link) SetExtraDelay(d sim.Time) {
	f := l.f
	f.settle()
	now := f.k.Now()
	for li := int32(2 * l.idx); li < int32(2*l.idx+2); li++ {
		ln := &f.lanes[li]
		ln.extra, ln.delay = d, ln.prop+d
		// Credit returns recorded ahead of their giving (see send) travel back with
		// the delay in force when they are given.
		moved := false
		for i := ln.retHead; i < len(ln.rets); i++ {
			if r := &ln.rets[i]; r.given > now {
				r.at, moved = r.given+ln.delay, true
			}
		}
		if moved {
			if ln.waitFrom >= 0 || ln.staged >= 0 {
				if ln.waking {
					f.k.Cancel(ln.wakeEv)
					ln.waking = false
				}
				f.wake(li)
			}
		}
	}
}

// Resweep recomputes every switch's forwarding table over the links that are up now, as
// a subnet manager's heavy sweep does after a topology change.
func (f *Fabric) Resweep() { f.computeRoutes() }

// HCAFatal fails the HCA (a catastrophic error, IBV_EVENT_DEVICE_FATAL): it stops sending
// and receiving, its handlers get DEVICE_FATAL, every QP on it moves to ERR and flushes its
// WRs with WR_FLUSH_ERR (and raises QP_FATAL), and after CMTiming.DeviceRemoval every CM id
// on it gets DEVICE_REMOVAL. Its ports stay cabled; peers see silence.
func (h *HCA) HCAFatal() {
	if h.fatal {
		return
	}
	f := h.f
	h.fatal = true
	h.setDead()
	f.invalidateMRs(h)
	f.async(AsyncEvent{Type: EventDeviceFatal, HCA: h})
	for _, qp := range f.qps {
		if qp != nil && qp.hca == h && qp.state != QPErr && qp.state != QPReset {
			qp.toErr()
			qp.raiseFatal()
		}
	}
	for _, id := range f.cmids {
		if id != nil && id.port != nil && id.port.hca == h {
			id.eventLater(f.cfg.CM.DeviceRemoval, CMDeviceRemoval, ENODEV)
		}
	}
}

// Recover brings a failed HCA back as a fresh device (the driver's reset and re-probe):
// each port that is up raises IBV_EVENT_PORT_ACTIVE. Old QPs stay in ERR and old memory
// regions stay invalid; consumers create new resources.
func (h *HCA) Recover() {
	if !h.fatal {
		return
	}
	h.fatal = false
	h.setDead()
	for _, p := range h.ports {
		if p.lane >= 0 && p.state == PortActive {
			h.f.async(AsyncEvent{Type: EventPortActive, HCA: h, Port: p.Num})
			h.f.tryStart(p.lane)
		}
	}
}

// CrashNode stops the node: its HCAs go silent (packets to them vanish, they send
// nothing, CM MADs to them get no answer), and all software state on it is lost: its QPs,
// CQs, CM ids and event handlers are discarded without any completion or event. Peers
// find out through timeouts.
func (n *Node) CrashNode() {
	if n.crashed {
		return
	}
	f := n.f
	n.crashed = true
	for _, h := range n.hcas {
		h.setDead()
	}
	for i, qp := range f.qps {
		if qp != nil && qp.hca.node == n {
			qp.reset()
			f.qps[i] = nil
		}
	}
	for _, id := range f.cmids {
		if id != nil && id.node == n {
			id.setState(cmDestroyed) // silently: a crashed node sends no DREQ or REJ
			id.Destroy()
		}
	}
	for _, cq := range f.cqs {
		if cq.hca.node == n {
			cq.dead = true
		}
	}
	for _, h := range n.hcas {
		f.invalidateMRs(h)
		h.handlers = nil
		for _, p := range h.ports {
			f.freeQueue(&p.ctrl)
			p.ring, p.ringHead = p.ring[:0], 0
			if p.lane >= 0 && f.lanes[p.lane].staged >= 0 {
				f.freeChunk(f.lanes[p.lane].staged)
				f.lanes[p.lane].staged = -1
			}
		}
	}
}

// Restart boots a crashed node: its HCAs work again (a fatal HCA is recovered too) with no
// resources; the layer above must register handlers and create CQs, QPs and CM ids anew.
func (n *Node) Restart() {
	if !n.crashed {
		return
	}
	n.crashed = false
	for _, h := range n.hcas {
		h.fatal = false
		h.setDead()
		for _, p := range h.ports {
			if p.lane >= 0 && p.state == PortActive {
				n.f.tryStart(p.lane)
			}
		}
	}
}

type cmFault struct {
	ip         netip.Addr
	count      int // requests still affected; -1 = all
	noResponse bool
	reason     RejectReason
	priv       []byte
}

// InjectCMReject makes the CM at ip reject the next count connection requests (-1: all,
// until ClearCMFaults) with reason and private data, before any listener sees them: the
// requester gets RDMA_CM_EVENT_REJECTED with Status = reason.
func (f *Fabric) InjectCMReject(ip netip.Addr, reason RejectReason, priv []byte, count int) {
	f.cmFaults = append(f.cmFaults, cmFault{ip: ip, count: count, reason: reason, priv: priv})
}

// InjectCMNoResponse makes the CM at ip ignore the next count connection requests (-1:
// all): the requester resends and finally gets RDMA_CM_EVENT_UNREACHABLE.
func (f *Fabric) InjectCMNoResponse(ip netip.Addr, count int) {
	f.cmFaults = append(f.cmFaults, cmFault{ip: ip, count: count, noResponse: true})
}

// ClearCMFaults removes every CM injection for ip.
func (f *Fabric) ClearCMFaults(ip netip.Addr) {
	out := f.cmFaults[:0]
	for _, cf := range f.cmFaults {
		if cf.ip != ip {
			out = append(out, cf)
		}
	}
	f.cmFaults = out
}

// MoveAddr moves IPoIB address a to port p (a bonding failover or re-addressing). CM ids
// bound or resolved to a on its old port get RDMA_CM_EVENT_ADDR_CHANGE.
func (f *Fabric) MoveAddr(a netip.Addr, p *Port) error {
	oi, ok := f.ips[a]
	if !ok {
		return fmt.Errorf("%w: %s is not assigned", ErrInvalid, a)
	}
	old := f.ports[oi]
	for i, x := range old.ips {
		if x == a {
			old.ips = append(old.ips[:i], old.ips[i+1:]...)
			break
		}
	}
	f.ips[a] = int32(p.idx)
	p.ips = append(p.ips, a)
	for _, id := range f.cmids {
		if id != nil && id.port == old && id.local.Addr() == a {
			id.eventLater(0, CMAddrChange, 0)
		}
	}
	return nil
}

// invalidateMRs forgets every memory region of h: a failed or rebooted device keeps no
// registrations.
func (f *Fabric) invalidateMRs(h *HCA) {
	for i := range f.mrs {
		if f.mrs[i].hca == int32(h.idx) {
			f.mrs[i].valid = false
		}
	}
}
