package ib

// PortCounters are a link end's counters under the names perfquery prints. Data counters
// are in 4-byte words, as on real ports; packets count MTU packets (a chunk adds its packet
// count). PortXmitWait is in nanoseconds of having data to send but no link credit (real
// ports count in implementation-defined ticks).
type PortCounters struct {
	PortXmitData       uint64
	PortRcvData        uint64
	PortXmitPkts       uint64
	PortRcvPkts        uint64
	PortXmitWait       uint64
	PortXmitDiscards   uint64 // packets a switch dropped because their output link was down
	PortRcvErrors      uint64 // packets dropped for a bad CRC (corruption faults)
	SymbolErrorCounter uint64 // one per corrupted packet
	LinkDownedCounter  uint64
}

// A link end's PortCounters are kept in two halves, each on the lane whose steps count
// them: txCounters on the lane leaving the end (a transmission writes the lane it starts
// on), rxCounters on the lane arriving at it (an arrival writes the lane it ends). An
// arrival thus counts without loading the opposite lane. The counters every chunk adds to
// sit on the cache line of the step that adds (see lane); the rest, in rareCounters, on a
// line of their own.
type txCounters struct {
	data, pkts uint64 // PortXmitData, PortXmitPkts
}

type rxCounters struct {
	data, pkts uint64 // PortRcvData, PortRcvPkts
}

// rareCounters are a lane's counters that only stalls, drops and faults add to: the first
// three of the port at its from end, the other two of the port at its to end.
type rareCounters struct {
	xmitWait, xmitDiscards, linkDowned uint64 // PortXmitWait, PortXmitDiscards, LinkDownedCounter
	rcvErrors, symbolErrors            uint64 // PortRcvErrors, SymbolErrorCounter
}

// endCounters returns the counters of the link end lane li leaves: li's send side and the
// receive side of the lane arriving there (li^1).
func (f *Fabric) endCounters(li int32) PortCounters {
	out, in := &f.lanes[li], &f.lanes[li^1]
	if in.quietHead != 0 { // quiet chunks that have arrived count
		f.catchUp(in)
	}
	return PortCounters{
		PortXmitData: out.tx.data, PortXmitPkts: out.tx.pkts, PortXmitWait: out.rare.xmitWait,
		PortXmitDiscards: out.rare.xmitDiscards, LinkDownedCounter: out.rare.linkDowned,
		PortRcvData: in.rx.data, PortRcvPkts: in.rx.pkts, PortRcvErrors: in.rare.rcvErrors, SymbolErrorCounter: in.rare.symbolErrors,
	}
}

// Counters returns the port's counters (perfquery on the port's LID).
func (p *Port) Counters() PortCounters {
	if p.lane < 0 {
		return p.unattached
	}
	return p.f.endCounters(p.lane)
}

// Counters returns the counters of the link's A end (end 0) or B end (end 1), which for a
// switch end are that switch port's counters.
func (l *Link) Counters(end int) PortCounters {
	f := l.f
	li := int32(2*l.idx + end)
	c := f.endCounters(li)
	// A chunk cutThrough sent on counts at the switch from when it was sent; until its
	// head reaches the switch, it is not counted yet.
	now := f.k.Now()
	for _, r := range f.fast {
		if r.at < now || (r.out != li && r.in^1 != li) {
			continue
		}
		ch := &f.chunks[r.c]
		if r.out == li && !r.queued {
			c.PortXmitData -= uint64(ch.wire) / 4
			c.PortXmitPkts -= uint64(ch.npkt)
		}
		if r.in^1 == li {
			c.PortRcvData -= uint64(ch.wire) / 4
			c.PortRcvPkts -= uint64(ch.npkt)
		}
	}
	f.aheadCounters(li, &c)
	return c
}

// ResetCounters zeroes every counter of the fabric (perfquery -R on every port).
func (f *Fabric) ResetCounters() {
	f.catchUpAll() // quiet chunks that have arrived count before the reset
	f.takeBack()
	for i := range f.lanes {
		f.lanes[i].tx, f.lanes[i].rx, f.lanes[i].rare = txCounters{}, rxCounters{}, rareCounters{}
	}
}
