package tcp

import (
	"fmt"

	"github.com/lnetsim/lnetsim/sim"
)

// Link rates in bits per second.
const (
	Mbps int64 = 1_000_000
	Gbps int64 = 1000 * Mbps
)

// LinkSpec is an Ethernet link's data rate, one-way propagation latency, MTU and the
// output buffer of each switch port on it.
type LinkSpec struct {
	Rate    int64    // bits per second (required)
	Latency sim.Time // one-way propagation delay
	MTU     int      // IP MTU in bytes, 576..9216 (default 1500)
	// BufferBytes is the buffer of a switch output port onto this link (default 1 MiB).
	// Frames that arrive while it is full are dropped (queue.go). A host's own output is
	// not bounded: the sender's congestion window bounds it.
	BufferBytes int64
}

func (s *LinkSpec) fill() error {
	if s.Rate <= 0 {
		return fmt.Errorf("tcp: link rate %d b/s: give a positive rate, e.g. 10 * tcp.Gbps", s.Rate)
	}
	if s.Latency < 0 {
		return fmt.Errorf("tcp: link latency %s is negative", s.Latency)
	}
	if s.MTU == 0 {
		s.MTU = 1500
	}
	if s.MTU < 576 || s.MTU > 9216 {
		return fmt.Errorf("tcp: MTU %d: give a value from 576 to 9216 (1500 is standard, 9000 jumbo)", s.MTU)
	}
	if s.BufferBytes <= 0 {
		s.BufferBytes = 1 << 20
	}
	return nil
}

// Per-frame overheads in bytes.
const (
	ipTCPHeader = 52 // IPv4 20 + TCP 20 + timestamps option 12 (Linux sends it on every segment)
	ethOverhead = 38 // Ethernet header 14 + FCS 4 + preamble 8 + inter-frame gap 12
	ctlFrame    = ipTCPHeader + ethOverhead + 6
)

// endpoint is one end of a link: a host interface or a switch.
type endpoint struct {
	host *Host
	sw   *Switch
}

// Link is a full-duplex Ethernet cable, modelled as two lanes: lane 2i from end A to end B
// and lane 2i+1 back.
type Link struct {
	n     *Network
	idx   int
	spec  LinkSpec
	a, b  endpoint
	iface int32 // the host interface at end A, or -1 for a trunk
	down  bool
	loss  float64
	extra sim.Time
	rng   *sim.Stream // loss draws for data chunks
	rngC  *sim.Stream // loss draws for control packets (so data draws do not shift)
}

// LinkCounters are one direction's counters.
type LinkCounters struct {
	TxBytes      uint64 // wire bytes put on the lane (framing included)
	TxChunks     uint64
	TxSegments   uint64
	DropOverflow uint64 // data segments dropped at the switch output for want of buffer
	DropLoss     uint64 // data segments and control packets lost to the loss probability
	DropDown     uint64 // chunks and control packets lost while the link was down
}

// lane is one direction of a link: a FIFO serialiser at the link's rate.
type lane struct {
	link  *Link
	rate  int64    // bits per second
	busy  sim.Time // when the lane finishes what it has been given
	rem   uint64   // remainder of the last serialisation time division, carried
	epoch uint32   // bumped when the link goes down: chunks in flight on an older epoch are lost
	toSw  *Switch  // the switch at the far end, or nil for a host
	toIf  int32    // the host interface at the far end, or -1
	bufB  int64    // output buffer in bytes (switch outputs only; 0 = unbounded)
	// arriving are the chunks a switch output has accepted whose frames are still coming
	// in (queue.go).
	arriving []arrival
	ctr      LinkCounters
}

func (n *Network) newLink(spec LinkSpec, a, b endpoint) *Link {
	l := &Link{n: n, idx: len(n.links), spec: spec, a: a, b: b, iface: -1}
	l.rng = n.k.Rand(fmt.Sprintf("tcp.link.%d", l.idx))
	l.rngC = n.k.Rand(fmt.Sprintf("tcp.link.%d.ctl", l.idx))
	n.links = append(n.links, l)
	ab := lane{link: l, rate: spec.Rate, toIf: -1}
	ba := lane{link: l, rate: spec.Rate, toIf: -1}
	if b.sw != nil {
		ab.toSw = b.sw
		b.sw.out = append(b.sw.out, int32(2*l.idx+1))
	}
	if a.sw != nil {
		ba.toSw = a.sw
		a.sw.out = append(a.sw.out, int32(2*l.idx))
		ab.bufB = spec.BufferBytes
	}
	if b.sw != nil {
		ba.bufB = spec.BufferBytes
	}
	n.lanes = append(n.lanes, ab, ba)
	return l
}

// Spec returns the link's parameters with defaults filled in.
func (l *Link) Spec() LinkSpec { return l.spec }

// Index returns the link's position in Network.Links.
func (l *Link) Index() int { return l.idx }

// IsDown reports whether the link is down.
func (l *Link) IsDown() bool { return l.down }

// Down takes the link down: everything on the wire or queued for it is lost, and so is
// everything sent on it until Up. TCP sees only silence (the carrier change is not
// reported to sockets). A trunk's switches route around it at once where another path of
// as few hops or more exists (see routing.go); a host's own link has no detour.
func (l *Link) Down() {
	if l.down {
		return
	}
	l.down = true
	if l.iface < 0 {
		l.n.routed = false // a trunk: routes avoid it from now
	}
	for i := 2 * l.idx; i <= 2*l.idx+1; i++ {
		ln := &l.n.lanes[i]
		ln.epoch++
		ln.arriving = ln.arriving[:0]
		if now := l.n.k.Now(); ln.busy > now {
			ln.busy = now
		}
	}
}

// Up brings the link back; a trunk carries new paths again at once.
func (l *Link) Up() {
	if l.down && l.iface < 0 {
		l.n.routed = false
	}
	l.down = false
}

// SetLoss sets the probability that each frame crossing the link (either way) is lost.
func (l *Link) SetLoss(p float64) {
	l.loss = min(max(p, 0), 1)
}

// SetExtraDelay adds d to the link's propagation delay (both ways) for frames sent from now.
func (l *Link) SetExtraDelay(d sim.Time) { l.extra = max(d, 0) }

// Counters returns the counters of the direction from end A to end B (end 0) or back (end
// 1). For an Attach link end A is the host.
func (l *Link) Counters(end int) LinkCounters { return l.n.lanes[2*l.idx+end&1].ctr }
