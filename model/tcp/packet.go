package tcp

import (
	"math/bits"
	"slices"

	"github.com/lnetsim/lnetsim/sim"
)

// pktKind is what a packet carries.
type pktKind uint8

const (
	pkData   pktKind = iota // a chunk of data segments
	pkSyn                   // SYN
	pkSynAck                // SYN+ACK
	pkAck                   // pure ACK: cumulative, duplicate or window update
	pkFin                   // FIN (with ACK)
	pkRst                   // RST
	pkProbe                 // keepalive or zero-window probe: an old sequence number that elicits an ACK
)

var pktNames = [...]string{"data", "SYN", "SYN-ACK", "ACK", "FIN", "RST", "probe"}

func (k pktKind) String() string { return pktNames[k] }

// packet is a chunk of data segments or one control segment in flight.
type packet struct {
	kind         pktKind
	from, to     int32 // sending and receiving connection ids (to is -1 for a SYN)
	srcIf, dstIf int32
	srcPort      uint16
	dstPort      uint16
	seq, end     int64             // data: stream bytes [seq, end); FIN: seq is the FIN's position
	ack          int64             // ACK: next byte expected
	wnd          int64             // receive window advertised
	sacks        [maxSACK][2]int64 // ACK: SACK blocks, stream ranges received out of order
	nSack        uint8
	holes        [][2]int64 // data: stream ranges of the segments lost on the way, in order
	lostSegs     int32
	segs         int32
	wire         int64 // bytes on the wire, framing included
	recs         []Record
	recEnds      []int64  // stream offset just past each record in recs
	path         []int32  // lanes crossed, in order
	hop          int32    // index in path of the lane being crossed
	epoch        uint32   // data: epoch of the lane being crossed; control: sum over the path
	head, tail   sim.Time // data: when its first bit and its last bit reach the lane's far end
}

// Event kinds of the network's handler.
const (
	evSwitch    = iota + 1 // a data chunk's head reached a switch (arg: packet)
	evHost                 // a data chunk reached its host whole (arg: packet)
	evCtl                  // a control packet reached its host (arg: packet)
	evRTO                  // a connection's retransmission (or persist) timer (arg: conn id)
	evKeepalive            // a connection's keepalive timer (arg: conn id)
	evTLP                  // a connection's tail loss probe timer (arg: conn id)
)

func (n *Network) newPkt() int32 {
	if k := len(n.freePkt); k > 0 {
		i := n.freePkt[k-1]
		n.freePkt = n.freePkt[:k-1]
		return i
	}
	n.pkts = append(n.pkts, packet{})
	return int32(len(n.pkts) - 1)
}

func (n *Network) freePacket(i int32) {
	old := &n.pkts[i]
	n.pkts[i] = packet{recs: old.recs[:0], recEnds: old.recEnds[:0], holes: old.holes[:0]}
	n.freePkt = append(n.freePkt, i)
}

// Handle runs the network's events.
func (n *Network) Handle(kind int, arg uint64) {
	switch kind {
	case evSwitch:
		n.atSwitch(int32(arg))
	case evHost:
		n.atHost(int32(arg))
	case evCtl:
		n.ctlArrive(int32(arg))
	case evRTO:
		n.onRTO(n.conns[arg])
	case evKeepalive:
		n.onKeepalive(n.conns[arg])
	case evTLP:
		n.onTLP(n.conns[arg])
	}
}

// ser returns the time to serialise b bytes on ln, carrying the remainder so that long
// transfers run at exactly the link's rate.
func (ln *lane) ser(b int64) sim.Time {
	hi, lo := bits.Mul64(uint64(b), 8e9)
	lo, c := bits.Add64(lo, ln.rem, 0)
	hi += c
	q, r := bits.Div64(hi, lo, uint64(ln.rate))
	ln.rem = r
	return sim.Time(q)
}

// serOnce is ser without the carried remainder (a frame's head start).
func (ln *lane) serOnce(b int64) sim.Time {
	return sim.Time(uint64(b) * 8e9 / uint64(ln.rate))
}

// prop is the lane's one-way delay for a frame starting now.
func (ln *lane) prop() sim.Time { return ln.link.spec.Latency + ln.link.extra }

// ctlLost draws the loss of a control packet (one frame) on ln.
func (ln *lane) ctlLost() bool {
	l := ln.link
	return l.loss > 0 && l.rngC.Bernoulli(l.loss)
}

// segment returns the stream range of chunk p's segment i.
func (p *packet) segment(i int32, mss int64) (int64, int64) {
	s := p.seq + int64(i)*mss
	return s, min(s+mss, p.end)
}

// segLost reports whether segment [s, e) of p was lost on an earlier lane.
func (p *packet) segLost(s int64) bool {
	for _, h := range p.holes {
		if s >= h[0] && s < h[1] {
			return true
		}
	}
	return false
}

// lose marks segment [s, e) of p lost, keeping holes sorted and merged, and reports
// whether any segment of p is left.
func (p *packet) lose(s, e int64) bool {
	i := 0
	for i < len(p.holes) && p.holes[i][0] < s {
		i++
	}
	p.holes = slices.Insert(p.holes, i, [2]int64{s, e})
	if i+1 < len(p.holes) && p.holes[i+1][0] == e {
		p.holes[i][1] = p.holes[i+1][1]
		p.holes = slices.Delete(p.holes, i+1, i+2)
	}
	if i > 0 && p.holes[i-1][1] == s {
		p.holes[i-1][1] = p.holes[i][1]
		p.holes = slices.Delete(p.holes, i, i+1)
	}
	p.lostSegs++
	p.wire -= e - s + ipTCPHeader + ethOverhead
	return p.lostSegs < p.segs
}

// mssOfPkt is the segment size a chunk was cut with.
func (n *Network) mssOfPkt(p *packet) int64 { return n.conns[p.from].mss }

// drawLoss loses each live segment of p with the lane's loss probability (draws on the
// link's data stream) and reports whether any segment is left.
func (n *Network) drawLoss(ln *lane, p *packet) bool {
	l := ln.link
	if l.loss <= 0 {
		return true
	}
	mss := n.mssOfPkt(p)
	for i := int32(0); i < p.segs; i++ {
		s, e := p.segment(i, mss)
		if p.segLost(s) || !l.rng.Bernoulli(l.loss) {
			continue
		}
		ln.ctr.DropLoss++
		n.ctr.DropLoss++
		if !p.lose(s, e) {
			return false
		}
	}
	return true
}

// sendData puts data chunk p on the first lane of its path, after the host's jitter when
// its connection has other data in flight (a lone message goes at once).
func (n *Network) sendData(pi int32) {
	p := &n.pkts[pi]
	n.ctr.Chunks++
	n.ctr.Segments += uint64(p.segs)
	li := p.path[0]
	ln := &n.lanes[li]
	if ln.link.down {
		ln.ctr.DropDown++
		n.ctr.DropDown++
		n.freePacket(pi)
		return
	}
	now := n.k.Now()
	if n.cfg.HostJitter > 0 && n.conns[p.from].pipe > 0 {
		now += sim.Time(n.jitter.Int64N(int64(n.cfg.HostJitter) + 1))
	}
	start := max(now, ln.busy)
	end := start + ln.ser(p.wire)
	ln.busy = end
	n.cross(pi, li, start, end)
}

// cross moves chunk p over lane li, on which it is serialised from start to end: it is
// lost to the lane's loss probability, or its arrival at the far end is scheduled (the
// head at a switch, which forwards it frame by frame; the whole chunk at a host).
func (n *Network) cross(pi, li int32, start, end sim.Time) {
	p := &n.pkts[pi]
	ln := &n.lanes[li]
	ln.ctr.TxBytes += uint64(p.wire)
	ln.ctr.TxChunks++
	ln.ctr.TxSegments += uint64(p.segs)
	if !n.drawLoss(ln, p) {
		n.freePacket(pi)
		return
	}
	p.epoch = ln.epoch
	d := ln.prop()
	p.head, p.tail = start+d, end+d
	if ln.toSw != nil {
		frame := min(p.end-p.seq, int64(n.mssOf(ln)))
		head := start + ln.serOnce(frame+ipTCPHeader+ethOverhead) + d + n.cfg.SwitchLatency
		n.k.Schedule(min(head, p.tail+n.cfg.SwitchLatency), n.hid, evSwitch, uint64(pi))
		return
	}
	n.k.Schedule(p.tail, n.hid, evHost, uint64(pi))
}

// mssOf is the largest segment payload a lane's MTU allows.
func (n *Network) mssOf(ln *lane) int { return ln.link.spec.MTU - ipTCPHeader }

// atSwitch forwards a chunk whose head has reached a switch onto its next lane, or drops it
// (link down, output buffer full, loss).
func (n *Network) atSwitch(pi int32) {
	p := &n.pkts[pi]
	in := &n.lanes[p.path[p.hop]]
	if in.epoch != p.epoch {
		in.ctr.DropDown++
		n.ctr.DropDown++
		n.freePacket(pi)
		return
	}
	p.hop++
	li := p.path[p.hop]
	ln := &n.lanes[li]
	if ln.link.down {
		ln.ctr.DropDown++
		n.ctr.DropDown++
		n.freePacket(pi)
		return
	}
	now := n.k.Now()
	if ln.bufB > 0 {
		if p.wire > ln.bufB-ln.backlog(now) {
			if !n.overflow(ln, pi, now) {
				n.freePacket(pi)
				return
			}
		} else {
			sl := n.cfg.SwitchLatency
			n.admit(ln, now, pi, p.head+sl, p.tail+sl, p.wire)
		}
	}
	start := max(now, ln.busy)
	end := max(start+ln.ser(p.wire), p.tail+n.cfg.SwitchLatency)
	ln.busy = end
	n.cross(pi, li, start, end)
}

// atHost hands a chunk that has arrived whole to its host.
func (n *Network) atHost(pi int32) {
	p := &n.pkts[pi]
	ln := &n.lanes[p.path[p.hop]]
	if ln.epoch != p.epoch {
		ln.ctr.DropDown++
		n.ctr.DropDown++
		n.freePacket(pi)
		return
	}
	n.deliver(pi)
	n.freePacket(pi)
}

// sendCtl sends control packet p: it takes no bandwidth and does not queue behind data (see
// ARCHITECTURE.md); it crosses its path's links with their latency, loss and state, and
// arrives in one event.
func (n *Network) sendCtl(pi int32) {
	p := &n.pkts[pi]
	var d sim.Time
	var ep uint32
	for i, li := range p.path {
		ln := &n.lanes[li]
		if ln.link.down {
			ln.ctr.DropDown++
			n.ctr.DropDown++
			n.freePacket(pi)
			return
		}
		if ln.ctlLost() {
			ln.ctr.DropLoss++
			n.ctr.DropLoss++
			n.freePacket(pi)
			return
		}
		ep += ln.epoch
		d += ln.serOnce(ctlFrame) + ln.prop()
		if i > 0 {
			d += n.cfg.SwitchLatency
		}
	}
	p.epoch = ep
	n.k.After(d, n.hid, evCtl, uint64(pi))
}

// ctlArrive delivers a control packet unless a link on its path went down meanwhile.
func (n *Network) ctlArrive(pi int32) {
	p := &n.pkts[pi]
	var ep uint32
	for _, li := range p.path {
		ep += n.lanes[li].epoch
	}
	if ep != p.epoch {
		n.ctr.DropDown++
		n.freePacket(pi)
		return
	}
	n.deliver(pi)
	n.freePacket(pi)
}

func simTime(v int64) sim.Time { return sim.Time(v) }
