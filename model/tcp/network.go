package tcp

import (
	"fmt"
	"net/netip"

	"github.com/lnetsim/lnetsim/sim"
)

// Config holds network-wide parameters. Zero fields take the defaults documented on each,
// which are Linux's (net.ipv4 sysctls and include/net/tcp.h constants) where Linux has one.
type Config struct {
	// ChunkSegments is how many MSS segments move through the network as one unit (default
	// 45: 64 KiB, the largest TSO/GSO burst Linux hands a NIC). See ARCHITECTURE.md.
	ChunkSegments int
	// SwitchLatency is a switch's forwarding latency once a frame has been received whole
	// (store-and-forward per frame; default 1us).
	SwitchLatency sim.Time
	// SynRetries is tcp_syn_retries (default 6: connect gives up after 127 s).
	SynRetries int
	// SynAckRetries is tcp_synack_retries (default 5).
	SynAckRetries int
	// Retries2 is tcp_retries2 (default 15: an established connection whose oldest data stays
	// unacknowledged gives up after 924.6 s of retransmissions at the minimum RTO).
	Retries2 int
	// InitialRTO is TCP_TIMEOUT_INIT (default 1 s): the RTO of SYNs and before an RTT sample.
	InitialRTO sim.Time
	// MinRTO and MaxRTO bound the retransmission timeout (TCP_RTO_MIN 200 ms, TCP_RTO_MAX
	// 120 s).
	MinRTO, MaxRTO sim.Time
	// InitCwnd is the initial congestion window in segments (TCP_INIT_CWND, default 10).
	InitCwnd int
	// SendBuffer and RecvBuffer are the per-socket buffer sizes in bytes used when
	// Options leave them 0 (default 4 MiB and 6 MiB: tcp_wmem's and tcp_rmem's maxima, what
	// autotuning reaches on a busy connection).
	SendBuffer, RecvBuffer int
	// TSQBytes bounds the bytes queued on a host's own link before a connection with data
	// in flight waits for its next ACK (TCP small queues, tcp_limit_output_bytes; default
	// 1 MiB).
	TSQBytes int64
	// HostJitter delays each chunk a host sends while its connection has data in flight by
	// a random time up to this (stream tcp.jitter; default 2us, negative for none): real
	// hosts' interrupt and scheduling noise (see ARCHITECTURE.md).
	HostJitter sim.Time
}

func (c *Config) fill() {
	if c.ChunkSegments <= 0 {
		c.ChunkSegments = 45
	}
	if c.SwitchLatency == 0 {
		c.SwitchLatency = sim.Microsecond
	}
	if c.SynRetries <= 0 {
		c.SynRetries = 6
	}
	if c.SynAckRetries <= 0 {
		c.SynAckRetries = 5
	}
	if c.Retries2 <= 0 {
		c.Retries2 = 15
	}
	if c.InitialRTO <= 0 {
		c.InitialRTO = sim.Second
	}
	if c.MinRTO <= 0 {
		c.MinRTO = 200 * sim.Millisecond
	}
	if c.MaxRTO <= 0 {
		c.MaxRTO = 120 * sim.Second
	}
	if c.InitCwnd <= 0 {
		c.InitCwnd = 10
	}
	if c.SendBuffer <= 0 {
		c.SendBuffer = 4 << 20
	}
	if c.RecvBuffer <= 0 {
		c.RecvBuffer = 6 << 20
	}
	if c.HostJitter == 0 {
		c.HostJitter = 2 * sim.Microsecond
	}
	if c.TSQBytes <= 0 {
		c.TSQBytes = 1 << 20
	}
}

// Network is one Ethernet/IPv4 network: hosts, switches and links, driven by one
// sim.Kernel. It is the single event handler of the TCP model; events name a packet or a
// connection by index in their argument.
type Network struct {
	k   *sim.Kernel
	hid sim.HandlerID
	cfg Config

	hosts    []*Host
	switches []*Switch
	links    []*Link
	lanes    []lane
	ifaces   []iface

	addrs  map[netip.Addr]int32 // IPv4 address -> interface index (lookups only, never iterated)
	dist   [][]int32            // by destination switch (nil until needed), then switch: trunk hops to it, -1 if none
	paths  map[pathKey][]int32  // flow direction -> lanes (lookups only)
	routed bool

	conns   []*Conn // by connection id; never reused
	pkts    []packet
	freePkt []int32

	ctr        Counters
	jitter     *sim.Stream
	inflows    []inflow // overflow's walk, reused
	recScratch []Record // records a chunk completes, reused from chunk to chunk
}

// New returns an empty network on kernel k.
func New(k *sim.Kernel, cfg Config) *Network {
	cfg.fill()
	n := &Network{k: k, cfg: cfg, addrs: make(map[netip.Addr]int32)}
	n.hid = k.Register(n)
	n.jitter = k.Rand("tcp.jitter")
	n.registerInvariants()
	return n
}

// Kernel returns the event kernel the network runs on.
func (n *Network) Kernel() *sim.Kernel { return n.k }

// Config returns the network's configuration with defaults filled in.
func (n *Network) Config() Config { return n.cfg }

// Hosts returns the hosts in the order they were added.
func (n *Network) Hosts() []*Host { return n.hosts }

// Links returns the links in the order they were added.
func (n *Network) Links() []*Link { return n.links }

// Counters are network-wide totals.
type Counters struct {
	Chunks          uint64 // data chunks put on a host's link (first sends and retransmissions)
	Segments        uint64 // data segments in those chunks
	Retransmits     uint64 // chunks sent again (RTO or fast retransmit)
	RTOs            uint64 // retransmission timeouts that fired with data or a SYN outstanding
	FastRetransmits uint64 // fast recoveries entered (SACK or RACK loss detection)
	LossProbes      uint64 // tail loss probes sent
	SYNs            uint64 // SYNs sent, retries included
	RSTs            uint64 // RSTs sent
	KeepaliveProbes uint64
	WindowProbes    uint64 // zero-window probes (persist timer)
	DropOverflow    uint64 // data segments a switch output dropped for want of buffer
	DropLoss        uint64 // data segments and control packets lost to a link's loss probability
	DropDown        uint64 // chunks and control packets lost to a link or host being down
	NoRoute         uint64 // chunks and control packets not sent: no path of up trunks to their destination
}

// Counters returns the network-wide counters.
func (n *Network) Counters() Counters { return n.ctr }

// AddHost adds a host with no interfaces.
func (n *Network) AddHost(name string) *Host {
	h := &Host{n: n, idx: len(n.hosts), name: name, nextPort: ephemeralLow}
	n.hosts = append(n.hosts, h)
	return h
}

// AddSwitch adds an Ethernet switch.
func (n *Network) AddSwitch(name string) *Switch {
	s := &Switch{n: n, idx: len(n.switches), name: name}
	n.switches = append(n.switches, s)
	n.routed = false
	return s
}

// Attach gives host h an interface with IPv4 address addr on a new link to switch sw. An
// address already in the network, or one that is not IPv4, is an error.
func (n *Network) Attach(h *Host, addr netip.Addr, sw *Switch, spec LinkSpec) (*Link, error) {
	if !addr.Is4() {
		return nil, fmt.Errorf("tcp: %s is not an IPv4 address", addr)
	}
	if _, dup := n.addrs[addr]; dup {
		return nil, fmt.Errorf("tcp: address %s is already on the network", addr)
	}
	if err := spec.fill(); err != nil {
		return nil, err
	}
	l := n.newLink(spec, endpoint{host: h}, endpoint{sw: sw})
	ii := int32(len(n.ifaces))
	n.ifaces = append(n.ifaces, iface{host: h, addr: addr, link: l})
	h.ifaces = append(h.ifaces, ii)
	n.addrs[addr] = ii
	l.iface = ii
	n.lanes[2*l.idx+1].toIf = ii
	n.routed = false
	return l, nil
}

// Trunk links two switches.
func (n *Network) Trunk(a, b *Switch, spec LinkSpec) (*Link, error) {
	if err := spec.fill(); err != nil {
		return nil, err
	}
	l := n.newLink(spec, endpoint{sw: a}, endpoint{sw: b})
	n.routed = false
	return l, nil
}

// SingleSwitch builds one switch and one host per name, each with one interface on its own
// link to the switch; the addresses count up from first.
func (n *Network) SingleSwitch(names []string, spec LinkSpec, first netip.Addr) ([]*Host, error) {
	sw := n.AddSwitch("sw0")
	hs := make([]*Host, 0, len(names))
	a := first
	for _, name := range names {
		h := n.AddHost(name)
		if _, err := n.Attach(h, a, sw, spec); err != nil {
			return nil, err
		}
		hs = append(hs, h)
		a = a.Next()
	}
	return hs, nil
}

// iface is a host's network interface: one address on one link.
type iface struct {
	host *Host
	addr netip.Addr
	link *Link
}

// Switch is an Ethernet switch: store-and-forward per frame, a FIFO output queue per port
// that drops what does not fit in the port's buffer.
type Switch struct {
	n    *Network
	idx  int
	name string
	out  []int32 // lanes leaving the switch, in link order
}

// Name returns the switch's name.
func (s *Switch) Name() string { return s.name }
