package ib

import (
	"fmt"
	"net/netip"

	"github.com/lnetsim/lnetsim/internal/slab"
	"github.com/lnetsim/lnetsim/sim"
)

// Config holds fabric-wide parameters. Zero fields take the defaults documented on each.
type Config struct {
	// ChunkPackets is how many MTU packets move through the fabric as one unit (default 16:
	// 64 KiB at MTU 4096; at most 1024). Smaller is finer-grained and slower to simulate.
	ChunkPackets int
	// Granularity chooses how chunk sizes are picked (default GranularityFixed: every chunk
	// is ChunkPackets packets). GranularityAdaptive sends a coarse chunk of up to
	// CoarsePackets packets when the HCA port takes it from a QP over an uncontended path
	// (see coarseSpan; the error it allows is bounded in ARCHITECTURE.md).
	Granularity Granularity
	// CoarsePackets caps an adaptive coarse chunk, in packets (default 64; rounded down to a
	// multiple of ChunkPackets; at most 1024).
	CoarsePackets int
	// Arbitration is how a switch output chooses among the chunks queued for it (default
	// ArbitrationFIFO). ArbitrationRoundRobin needs GranularityFixed (New panics on adaptive
	// with it: adaptive's split re-queues the rest of a coarse chunk in FIFO order).
	Arbitration Arbitration
	// BufferBytes sizes the receive buffer of each switch input port (default
	// DefaultBufferBytes whatever ChunkPackets is, so that the chunk size changes the model's
	// granularity and not the switch; raised to one full chunk if smaller). Link-level
	// credits count bytes of that buffer: a sender needs room for the whole chunk it starts,
	// and the room comes back when the chunk has left the switch.
	BufferBytes int64
	// BufferChunks, when BufferBytes is zero, sizes the buffer in full chunks of ChunkPackets
	// packets instead.
	BufferChunks int
	// SwitchLatency is the default per-hop forwarding latency of a switch (default 100ns).
	SwitchLatency sim.Time
	// HCALatency is the delay from ibv_post_send's doorbell to the first byte on the wire
	// (default 0: a latency measurement then equals the fabric's own latency sum).
	HCALatency sim.Time
	// AckTimeout is the default local_ack_timeout exponent (4.096us * 2^v; default 14, ~67ms)
	// for QPs connected through the CM.
	AckTimeout uint8
	// MinRNRTimer is the default min_rnr_timer code for QPs connected through the CM
	// (default 12: 0.64ms).
	MinRNRTimer uint8
	// LinkUpDelay is the time from Faults.LinkUp to PORT_ACTIVE (link training; default 0).
	LinkUpDelay sim.Time
	// SMSweepDelay, if positive, makes the subnet manager recompute every forwarding table
	// this long after each link goes down or up (a trap-triggered heavy sweep), so traffic
	// is routed around failed links. Zero (the default) keeps routes static until Resweep.
	SMSweepDelay sim.Time
	// CM holds the RDMA CM timings.
	CM CMTiming
}

// DefaultChunkPackets and MaxChunkPackets are Config.ChunkPackets' default and its limit.
const (
	DefaultChunkPackets = 16
	MaxChunkPackets     = 1024
)

func (c *Config) fill() {
	if c.ChunkPackets <= 0 {
		c.ChunkPackets = DefaultChunkPackets
	}
	if c.ChunkPackets > MaxChunkPackets {
		c.ChunkPackets = MaxChunkPackets
	}
	if c.CoarsePackets <= 0 {
		c.CoarsePackets = 64
	}
	c.CoarsePackets = min(c.CoarsePackets, 1024) / c.ChunkPackets * c.ChunkPackets
	if c.CoarsePackets < c.ChunkPackets {
		c.CoarsePackets = c.ChunkPackets
	}
	switch {
	case c.BufferBytes > 0:
	case c.BufferChunks > 0:
		c.BufferBytes = int64(c.BufferChunks) * FullChunkBytes(c.ChunkPackets)
	default:
		c.BufferBytes = DefaultBufferBytes
	}
	c.BufferBytes = max(c.BufferBytes, FullChunkBytes(c.ChunkPackets))
	if c.SwitchLatency == 0 {
		c.SwitchLatency = 100 * sim.Nanosecond
	}
	if c.AckTimeout == 0 {
		c.AckTimeout = 14
	}
	if c.MinRNRTimer == 0 {
		c.MinRNRTimer = 12
	}
	c.CM.fill()
}

// DefaultBufferBytes is Config.BufferBytes' default: four chunks of DefaultChunkPackets
// packets at MTU 4096 with their headers (263,888 bytes).
const DefaultBufferBytes = 4 * (DefaultChunkPackets*(4096+pktHeader) + rethBytes + aethBytes)

// FullChunkBytes is the wire size of the largest chunk of n packets (MTU 4096): the least
// a switch input buffer can be when chunks are n packets.
func FullChunkBytes(n int) int64 {
	return int64(n*(4096+pktHeader) + rethBytes + aethBytes)
}

// bufBytes is a switch input buffer's size (Config.BufferBytes).
func (f *Fabric) bufBytes() int64 { return f.cfg.BufferBytes }

// fineMax is the wire size of the largest fine chunk (ChunkPackets packets at MTU 4096).
func (f *Fabric) fineMax() int64 { return FullChunkBytes(f.cfg.ChunkPackets) }

// Fabric is one InfiniBand subnet: nodes with HCAs and ports, switches and links, driven by
// one sim.Kernel. It is the single event handler of the whole IB model; events encode the
// object (lane, chunk, QP, CQ, CM id) in their argument.
type Fabric struct {
	k   *sim.Kernel
	hid sim.HandlerID
	cfg Config

	nodes    []*Node
	hcas     []*HCA
	ports    []*Port
	switches []*Switch
	links    []*Link
	lanes    []lane

	chunks      []chunk
	freeChunks  []int32
	rrJoins     rrJoins          // round-robin arbitration: chunks joining switch output queues
	rrLast      map[uint64]int32 // round-robin arbitration: by rrKey(output, input), the input's last chunk queued at the output
	fast        []fastRec        // cutThrough chunks, in sending order, that may not have reached their switch
	fastKeep    int              // f.fast's length at which newFast forgets spent records
	ahead       []aheadList      // by lane: chunks sent ahead on a switch output (ahead.go)
	aheadLanes  []int32          // lanes whose ahead list may hold chunks
	sendSeq     uint64           // counts cutThroughs and sends ahead (their order for takeBack)
	aheadUndone [2]uint64        // sends ahead takeBack undid: chunks put back in their queue, chunks sent back on their way
	undo        []undoItem       // takeBack's scratch lists
	requeue     []undoItem
	arriveEv    sim.EventID // the arrival event send scheduled last (zero: the chunk is quiet)
	quiet       bool        // middle chunks may arrive quietly (quiet.go); off after the run's first fault
	quietLanes  []int32     // lanes whose quiet list may hold chunks

	qps              []*QP // by QPN-1
	cqs              []*CQ
	freeCQs          []int // slots of destroyed CQs, reused by CreateCQ
	cmBadTransitions int   // illegal CM id state changes refused (CMID.setState)
	mrs              []mr  // by rkey-1
	cmids            []*CMID
	pend             pendPool // deferred upcalls and CM MADs (events.go)

	ips      map[netip.Addr]int32 // IPoIB address -> port index (lookups only, never iterated)
	routed   bool
	passive  []int32 // by active CM id: 1 + the passive id its REQ created, 0 for none
	cmFaults []cmFault
	mgmt     mgmtState // management traffic: the SM's reachability, MAD loss draws and counts
	tree3    bool      // AddFatTree3 built the switches: computeRoutes may route by arithmetic

	// The connection storm creates a QP, a CQ and two CM ids per connection by the ten
	// thousand; they come from chunks (internal/slab) instead of one allocation each.
	qpSlab   slab.Slab[QP]
	cqSlab   slab.Slab[CQ]
	cmidSlab slab.Slab[CMID]
	privData slab.Bytes // the private data of CM ids' REQs, REPs and REJs
	// The first rings of a QP's send queue (two entries) and receive queue (two runs) and
	// of a CQ (one completion); larger ones are allocated as they grow.
	sqSlab slab.Slab[[2]sendWQE]
	rqSlab slab.Slab[[2]rqRun]
	wcSlab slab.Slab[[1]WC]
}

// New returns an empty fabric on kernel k.
func New(k *sim.Kernel, cfg Config) *Fabric {
	cfg.fill()
	if cfg.Arbitration == ArbitrationRoundRobin && cfg.Granularity == GranularityAdaptive {
		panic("ib: round-robin switch arbitration needs fixed granularity")
	}
	f := &Fabric{k: k, cfg: cfg, ips: make(map[netip.Addr]int32), quiet: !perHopEvents && !noQuiet}
	if cfg.Arbitration == ArbitrationRoundRobin {
		f.rrLast = make(map[uint64]int32)
	}
	f.hid = k.Register(f)
	f.registerInvariants()
	return f
}

// Kernel returns the event kernel the fabric runs on.
func (f *Fabric) Kernel() *sim.Kernel { return f.k }

// Config returns the fabric's configuration with defaults filled in.
func (f *Fabric) Config() Config { return f.cfg }

// Node is a host: one or more HCAs. A crashed node's HCAs are silent.
type Node struct {
	f         *Fabric
	idx       int
	Name      string
	hcas      []*HCA
	crashed   bool
	listeners []*CMID
}

// HCA is a host channel adapter (an ibv_context / ib_device) with one or more ports.
type HCA struct {
	f        *Fabric
	idx      int
	node     *Node
	Name     string
	ports    []*Port
	handlers []AsyncHandler
	fatal    bool
	dead     bool // fatal or its node crashed (setDead): what alive reads on every QP step
	attr     DeviceAttr
}

// PortState is a port's logical state as ibv_query_port reports it (simplified to the two
// states the model distinguishes).
type PortState uint8

// Port states.
const (
	PortDown PortState = iota
	PortActive
)

// String returns the name the verbs and CM documentation use.
func (s PortState) String() string {
	if s == PortActive {
		return "ACTIVE"
	}
	return "DOWN"
}

// Port is an HCA port: one end of a link, with a LID and IPoIB addresses.
//
// What pull reads on every transmission (the round robin, the control queue, the lane)
// comes first, in the first cache line of a 192-byte object (TestHotObjectSizes).
type Port struct {
	ring     []*QP // round-robin of QPs with data to send
	ringHead int
	ctrl     chunkQueue // control packets (ACK/NAK/READ request), served first
	lane     int32
	state    PortState
	f        *Fabric
	hca      *HCA

	idx        int
	Num        int // 1-based port number on its HCA
	ips        []netip.Addr
	unattached PortCounters
	_          [16]byte // to 192 bytes, a size class whose objects start a cache line
}

// Switch forwards chunks by destination LID.
type Switch struct {
	f       *Fabric
	idx     int
	Name    string
	Latency sim.Time // per-hop forwarding latency
	route   []int32  // by destination port index: out lane, -1 if unreachable
	out     []int32  // lanes leaving this switch

	ft        *ftPos   // place in a three-level fat tree (AddFatTree3), or nil
	minInProp sim.Time // smallest propagation delay of the links into the switch
	slowIn    int32    // chunks on their way to the switch through an arrival event
}

// Link is a full-duplex cable between two endpoints, modelled as two lanes.
type Link struct {
	f    *Fabric
	idx  int
	Spec LinkSpec
	A, B Endpoint
}

// LinkSpec is a link's rate, one-way propagation latency and MTU.
type LinkSpec struct {
	Rate    Rate
	Latency sim.Time
	MTU     int // 256..4096; default 4096
}

// Endpoint is either end of a link: a *Port or a *Switch.
type Endpoint interface{ ref() epRef }

type epKind uint8

const (
	epNone epKind = iota
	epPort
	epSwitch
)

type epRef struct {
	kind epKind
	idx  int32
}

func (p *Port) ref() epRef   { return epRef{epPort, int32(p.idx)} }
func (s *Switch) ref() epRef { return epRef{epSwitch, int32(s.idx)} }

// AddNode adds a host called name.
func (f *Fabric) AddNode(name string) *Node {
	n := &Node{f: f, idx: len(f.nodes), Name: name}
	f.nodes = append(f.nodes, n)
	return n
}

// AddHCA adds an HCA with nports ports to the node.
func (n *Node) AddHCA(name string, nports int) *HCA {
	f := n.f
	h := &HCA{f: f, idx: len(f.hcas), node: n, Name: name, attr: DefaultDeviceAttr}
	for i := 0; i < nports; i++ {
		p := &Port{f: f, idx: len(f.ports), hca: h, Num: i + 1, lane: -1, ctrl: emptyQueue}
		f.ports = append(f.ports, p)
		h.ports = append(h.ports, p)
	}
	f.hcas = append(f.hcas, h)
	n.hcas = append(n.hcas, h)
	return h
}

// AddSwitch adds a switch with the fabric's default hop latency.
func (f *Fabric) AddSwitch(name string) *Switch {
	f.settle()
	s := &Switch{f: f, idx: len(f.switches), Name: name, Latency: f.cfg.SwitchLatency, minInProp: sim.MaxTime}
	f.switches = append(f.switches, s)
	f.routed = false
	return s
}

// Connect cables a to b. A port takes at most one link; it becomes ACTIVE at once (the
// subnet manager's bring-up is not modelled).
func (f *Fabric) Connect(a, b Endpoint, spec LinkSpec) *Link {
	if spec.MTU == 0 {
		spec.MTU = 4096
	}
	if !ValidMTU(spec.MTU) {
		panic(fmt.Sprintf("ib: invalid MTU %d", spec.MTU))
	}
	if spec.Rate.Mbps <= 0 {
		panic("ib: link without a rate")
	}
	f.settle()
	l := &Link{f: f, idx: len(f.links), Spec: spec, A: a, B: b}
	f.links = append(f.links, l)
	ra, rb := a.ref(), b.ref()
	for dir := 0; dir < 2; dir++ {
		from, to := ra, rb
		if dir == 1 {
			from, to = rb, ra
		}
		ln := lane{from: from, to: to, link: int32(l.idx), up: true, credits: -1, q: emptyQueue, curIn: -1, staged: -1,
			mbps: spec.Rate.Mbps, prop: spec.Latency, delay: spec.Latency, waitFrom: -1, last: laneFlow{src: -1}, train: train{c: -1}}
		if to.kind == epSwitch {
			ln.credits = f.bufBytes()
			if s := f.switches[to.idx]; spec.Latency < s.minInProp {
				s.minInProp = spec.Latency
			}
		}
		li := int32(len(f.lanes))
		f.lanes = append(f.lanes, ln)
		switch from.kind {
		case epPort:
			p := f.ports[from.idx]
			if p.lane >= 0 {
				panic(fmt.Sprintf("ib: port %s already cabled", p))
			}
			p.lane = li
			p.state = PortActive
			f.lanes[li].src = p
		case epSwitch:
			s := f.switches[from.idx]
			s.out = append(s.out, li)
		}
	}
	for _, r := range [2]epRef{ra, rb} {
		if r.kind == epPort {
			f.syncPort(f.ports[r.idx])
		}
	}
	f.routed = false
	return l
}

// Node returns the node called name, or nil.
func (f *Fabric) Node(name string) *Node {
	for _, n := range f.nodes {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// Switch returns the switch called name, or nil.
func (f *Fabric) Switch(name string) *Switch {
	for _, s := range f.switches {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Nodes returns the fabric's nodes in creation order.
func (f *Fabric) Nodes() []*Node { return f.nodes }

// Switches returns the fabric's switches in creation order.
func (f *Fabric) Switches() []*Switch { return f.switches }

// Links returns the fabric's links in creation order.
func (f *Fabric) Links() []*Link { return f.links }

// String returns the node's name.
func (n *Node) String() string { return n.Name }

// HCAs returns the node's HCAs.
func (n *Node) HCAs() []*HCA { return n.hcas }

// Crashed reports whether the node is down (see Faults.CrashNode).
func (n *Node) Crashed() bool { return n.crashed }

// Node returns the HCA's host.
func (h *HCA) Node() *Node { return h.node }

// Ports returns the HCA's ports.
func (h *HCA) Ports() []*Port { return h.ports }

// Port returns port number num (1-based), as ibv_query_port names ports.
func (h *HCA) Port(num int) *Port { return h.ports[num-1] }

// Fatal reports whether the HCA has had a fatal error (see Faults.HCAFatal).
func (h *HCA) Fatal() bool { return h.fatal }

// alive reports whether the HCA works: not fatal and its node not crashed. It reads the one
// flag setDead keeps, so the QP scheduler's every step needs no load of the node.
func (h *HCA) alive() bool { return !h.dead }

// setDead recomputes dead after fatal or the node's crashed state changed.
// The lanes at its ports learn it too (syncPort).
func (h *HCA) setDead() {
	h.dead = h.fatal || h.node.crashed
	for _, p := range h.ports {
		h.f.syncPort(p)
	}
}

// setPortState sets port p's state and tells the lanes at it (syncPort).
func (f *Fabric) setPortState(p *Port, s PortState) {
	p.state = s
	f.syncPort(p)
}

// syncPort copies port p's liveness (its HCA's dead flag, its state) into the lane leaving
// it and the lane arriving at it, where the fabric's per-chunk steps read it.
func (f *Fabric) syncPort(p *Port) {
	if p.lane < 0 {
		return
	}
	out, in := &f.lanes[p.lane], &f.lanes[p.lane^1]
	ok := !p.hca.dead && p.state == PortActive
	if ok != in.dstOK || out.srcDead != p.hca.dead {
		f.endQuiet() // a port or HCA failing or coming back is a fault (quiet.go)
	}
	out.srcDead, out.srcDown = p.hca.dead, p.state != PortActive
	in.dstOK = ok
}

// String returns the HCA's name.
func (h *HCA) String() string { return h.node.Name + "/" + h.Name }

// HCA returns the port's adapter.
func (p *Port) HCA() *HCA { return p.hca }

// LID is the port's local identifier (assigned in creation order from 1). It is not held to
// the 16 bits of IB's unicast LID space (at most 49,151 ports in a real subnet), so a model
// larger than that (a 100,000-host fat tree) still addresses every port; captures carry its
// low 16 bits.
func (p *Port) LID() uint32 { return uint32(p.idx + 1) }

// State returns the port's state (ibv_query_port's state: ACTIVE or DOWN).
func (p *Port) State() PortState { return p.state }

// Link returns the port's link, or nil if it is not cabled.
func (p *Port) Link() *Link {
	if p.lane < 0 {
		return nil
	}
	return p.f.links[p.f.lanes[p.lane].link]
}

// AddIP assigns an IPoIB address to the port (what ib0's inet address is to o2iblnd).
// Assigning it again to the same port does nothing: several NIs (of different LNet nets)
// share one interface and its address, o2iblnd telling them apart by the NIDs in its
// messages. An address belongs to one port; giving it to another is a caller's bug.
func (p *Port) AddIP(a netip.Addr) {
	if i, dup := p.f.ips[a]; dup {
		if int(i) == p.idx {
			return
		}
		panic(fmt.Sprintf("ib: address %s assigned to %s and %s", a, p.f.ports[i], p))
	}
	p.f.ips[a] = int32(p.idx)
	p.ips = append(p.ips, a)
}

// IPs returns the port's IPoIB addresses.
func (p *Port) IPs() []netip.Addr { return p.ips }

// String returns the Port's name.
func (p *Port) String() string { return fmt.Sprintf("%s:%d", p.hca, p.Num) }

// PortByIP returns the port an IPoIB address is assigned to, or nil.
func (f *Fabric) PortByIP(a netip.Addr) *Port {
	if i, ok := f.ips[a]; ok {
		return f.ports[i]
	}
	return nil
}

// SingleSwitch builds a star: one switch and nodes named names, each with one HCA
// ("mlx5_0") of one port cabled to the switch with spec. Port i gets IPoIB address
// base+i when base is valid.
func (f *Fabric) SingleSwitch(names []string, spec LinkSpec, base netip.Addr) []*Node {
	sw := f.AddSwitch("sw0")
	nodes := make([]*Node, len(names))
	ip := base
	for i, name := range names {
		n := f.AddNode(name)
		p := n.AddHCA("mlx5_0", 1).Port(1)
		f.Connect(p, sw, spec)
		if base.IsValid() {
			p.AddIP(ip)
			ip = ip.Next()
		}
		nodes[i] = n
	}
	return nodes
}

// FatTree describes a two-level leaf/spine fat tree built of switches of one radix.
type FatTree struct {
	Radix int // ports per switch
	// Oversubscription is the down:up port ratio of a leaf (1 = non-blocking, 2 = 2:1).
	Oversubscription int
	Leaves           int
	Host, Spine      LinkSpec // host-leaf and leaf-spine cables
}

// BuildFatTree builds t with one single-port HCA per host and as many hosts as the leaves'
// down ports hold (Leaves * down), named prefix0, prefix1, ... Each leaf has
// up = Radix/(Oversubscription+1) uplinks, one to each of up spines; every spine thus has
// Leaves ports (Leaves must not exceed Radix). Host i gets IPoIB address base+i when base is
// valid.
func (f *Fabric) BuildFatTree(t FatTree, prefix string, base netip.Addr) ([]*Node, error) {
	if t.Oversubscription <= 0 {
		t.Oversubscription = 1
	}
	up := t.Radix / (t.Oversubscription + 1)
	down := t.Radix - up
	if up < 1 || down < 1 || t.Leaves < 1 || t.Leaves > t.Radix {
		return nil, fmt.Errorf("ib: fat tree radix %d oversubscription %d leaves %d does not fit", t.Radix, t.Oversubscription, t.Leaves)
	}
	spines := make([]*Switch, up)
	for i := range spines {
		spines[i] = f.AddSwitch(fmt.Sprintf("spine%d", i))
	}
	var nodes []*Node
	ip := base
	for l := 0; l < t.Leaves; l++ {
		leaf := f.AddSwitch(fmt.Sprintf("leaf%d", l))
		for _, s := range spines {
			f.Connect(leaf, s, t.Spine)
		}
		for h := 0; h < down; h++ {
			n := f.AddNode(fmt.Sprintf("%s%d", prefix, len(nodes)))
			p := n.AddHCA("mlx5_0", 1).Port(1)
			f.Connect(p, leaf, t.Host)
			if base.IsValid() {
				p.AddIP(ip)
				ip = ip.Next()
			}
			nodes = append(nodes, n)
		}
	}
	return nodes, nil
}
