package scenarios

import (
	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/scenarios/units"
	"github.com/lnetsim/lnetsim/sim"
)

// Scenario is one scenario file: a cluster, its tunables, a workload, a timeline of faults and
// what is expected. After Load every default is filled in, so the wiring code reads plain
// values. Durations are sim.Time (nanoseconds), sizes units.Size (bytes), rates units.Rate
// (bits per second).
type Scenario struct {
	Name        string `yaml:"name" json:"name,omitempty"`
	Description string `yaml:"description" json:"description,omitempty"`
	// Seed feeds every named random stream of the run (default 1).
	Seed uint64 `yaml:"seed" json:"seed"`
	// Duration is the virtual time the run lasts (required).
	Duration sim.Time `yaml:"duration" json:"duration"`
	Fabric   Fabric   `yaml:"fabric" json:"fabric"`
	// Nodes maps a node or group name to its description. A group with count n has members
	// named <name>0 .. <name>n-1; a count of 1 keeps the bare name.
	Nodes map[string]*NodeGroup `yaml:"nodes" json:"nodes"`
	LNet  LNet                  `yaml:"lnet" json:"lnet"`
	// O2IB maps a net name (o2ib0, o2ib1, ...) to the ko2iblnd module parameters used on it.
	// After Load every net in use has an entry.
	O2IB map[string]*O2IBParams `yaml:"o2ib" json:"o2ib"`
	// Ethernet is the Ethernet network of the tcp NIs (filled when a tcp net is in use).
	Ethernet *Ethernet `yaml:"ethernet" json:"ethernet,omitempty"`
	// SockLND maps a tcp net name (tcp0, ...) to the ksocklnd module parameters used on it.
	// After Load every tcp net in use has an entry.
	SockLND  map[string]*SockLNDParams `yaml:"socklnd" json:"socklnd,omitempty"`
	Workload []Workload                `yaml:"workload" json:"workload"`
	Faults   []Fault                   `yaml:"faults" json:"faults"`
	Expect   []Expectation             `yaml:"expect" json:"expect"`

	// Members lists every node after groups are expanded, NIDs assigned and lnetctl
	// configuration applied (filled by Load).
	Members []Member `yaml:"-" json:"members"`
	// Hash is the sha256 of the canonical form (filled by Load; see Canonical).
	Hash string `yaml:"-" json:"-"`
	// Ignored lists, per lnetctl section, the keys of a pasted export the model has no use
	// for (accepted, not applied), each once (filled by Load).
	Ignored []string `yaml:"-" json:"-"`

	memberIndex map[string]int // name -> index in Members, built by Member
}

func (s *Scenario) setDefaults() {
	s.Seed = 1
	s.Fabric.setDefaults()
	s.LNet.setDefaults()
}

// Fabric describes the InfiniBand fabric every HCA port is cabled to.
type Fabric struct {
	// Topology is single-switch (default: every port on one switch), fat-tree (two levels:
	// leaves and spines) or fat-tree-3 (three levels: leaves, aggregation and core switches).
	Topology string `yaml:"topology" json:"topology"`
	// Radix is the number of ports of each switch in a fat tree (default 36).
	Radix int `yaml:"radix" json:"radix"`
	// Oversubscription of the fat tree's leaf switches, down:up ("2:1"; default 1:1).
	Oversubscription Ratio `yaml:"oversubscription" json:"oversubscription"`
	// LinkRate is every link's data rate ("100Gbps" or an IB speed name; default EDR).
	LinkRate units.Rate `yaml:"link_rate" json:"link_rate"`
	// LinkLatency is each cable's propagation delay (default 100ns).
	LinkLatency sim.Time `yaml:"link_latency" json:"link_latency"`
	// SwitchLatency is each switch's forwarding latency (default 100ns).
	SwitchLatency sim.Time `yaml:"switch_latency" json:"switch_latency"`
	// MTU is the IB path MTU in bytes: 256, 512, 1024, 2048 or 4096 (default 4096).
	MTU int `yaml:"mtu" json:"mtu"`
	// Granularity is how the IB model sizes the chunks it moves: fixed (the default: 16
	// packets) or adaptive (up to 64 packets where a path is uncontended). Load writes
	// fixed as empty, so a scenario's canonical form is the same with or without it.
	Granularity string `yaml:"granularity" json:"granularity,omitempty"`
	// ChunkPackets is how many MTU packets the IB model moves as one unit, 1 (packet level:
	// the most exact, the slowest) to 1024 (default 16; ARCHITECTURE.md "Granularity" gives
	// the error each size allows). Load writes the default as 0, so a scenario's canonical
	// form is the same with or without it.
	ChunkPackets int `yaml:"chunk_packets" json:"chunk_packets,omitempty"`
	// SwitchBuffer is the receive buffer of each switch input port, whose bytes link-level
	// credits count (default 263,888 bytes: four 16-packet chunks with their headers, at any
	// chunk size; at least one chunk of chunk_packets). Load writes the default as 0.
	SwitchBuffer units.Size `yaml:"switch_buffer" json:"switch_buffer,omitempty"`
	// SwitchArbitration is how a switch output chooses among the chunks queued for it: fifo
	// (the default: arrival order) or round-robin (its inputs in turn, packet by packet, as a
	// switch arbitrates; fixed granularity only). Load writes fifo as empty.
	SwitchArbitration string `yaml:"switch_arbitration" json:"switch_arbitration,omitempty"`
}

func (f *Fabric) setDefaults() {
	*f = Fabric{Topology: "single-switch", Radix: 36, Oversubscription: Ratio{1, 1},
		LinkRate: units.Rate(ib.EDR.Mbps) * units.Mbps, LinkLatency: 100 * sim.Nanosecond,
		SwitchLatency: 100 * sim.Nanosecond, MTU: 4096}
}

// NodeGroup is one node, or a group of identical nodes.
type NodeGroup struct {
	// Count of nodes in the group (default 1).
	Count int `yaml:"count" json:"count"`
	// Routing enables LNet routing on these nodes (lnetctl set routing 1): they are routers.
	Routing bool `yaml:"routing" json:"routing"`
	// Release is the Lustre release these nodes run (default: lnet.release).
	Release string `yaml:"release" json:"release,omitempty"`
	// NIs are the node's network interfaces, in order. Shorthand: a net name ("o2ib0").
	NIs []NISpec `yaml:"nis" json:"nis"`
	// Routes of this node, added to lnet.routes that apply to it.
	Routes []Route `yaml:"routes" json:"routes,omitempty"`
	// Peers configured on this node (lnetctl peer add).
	Peers []Peer `yaml:"peers" json:"peers,omitempty"`
	// Lnetctl is this node's configuration as `lnetctl export` prints it (net, route, peer,
	// routing, buffers, numa, global sections). Its nets become NIs (when nis is not given),
	// its tunables apply to those NIs, routes and peers are added, global keys override
	// lnet's for this node.
	Lnetctl *LnetctlExport `yaml:"lnetctl" json:"-"`
	// Module is the lnet module's options (`options lnet networks=... routes=...` in
	// lnet.conf), which LNet reads when it starts from them (lctl net up, lnetctl lnet
	// configure --all): they give the node's NIs, routes and forwarding, read as the
	// kernel reads them (scenarios/modparam), in place of nis.
	Module *ModuleParams `yaml:"module" json:"-"`
	// Interfaces gives interfaces of the node's NIs what the NIs do not: each key an
	// interface an NI is on (ib0, eth1), its value that interface's IPv6 addresses, which
	// lnetctl's ip2nets rules match (from 2.17). The members of a group count their
	// addresses up by their index, as their NIDs.
	Interfaces map[string]*InterfaceSpec `yaml:"interfaces" json:"interfaces,omitempty"`
	// Global holds the lnet global tunables in force on this node: lnet's, with the
	// lnetctl global section applied. Filled in by Load.
	Global *Globals `yaml:"-" json:"global,omitempty"`
}

func (g *NodeGroup) setDefaults() { g.Count = 1 }

// InterfaceSpec is what an interface of a node has beside the IPv4 address its NIs' NIDs
// give it.
type InterfaceSpec struct {
	// IPv6 are the interface's IPv6 addresses, each an address with an optional prefix
	// length as `ip -6 addr add` takes it (2001:db8::5/64; without one /128).
	IPv6 []string `yaml:"ipv6" json:"ipv6,omitempty"`
}

// ModuleParams are the lnet module's string options a node's LNet starts from.
type ModuleParams struct {
	// Networks is networks= (default tcp): the NIs, `net` or `net(iface,...)` separated by
	// commas (lnet_parse_networks).
	Networks string `yaml:"networks"`
	// Routes is routes=: entries `net [hops] gateway[:priority] ...` separated by ';' or
	// newlines, nets and gateways with [a-b/c,d] ranges (lnet_parse_routes).
	Routes string `yaml:"routes"`
	// IP2Nets is ip2nets=: entries `networks pattern ...` separated by ';' or newlines; the
	// nets of the entries a pattern of which matches one of the node's addresses are its
	// networks (lnet_parse_ip2nets). Not with networks.
	IP2Nets string `yaml:"ip2nets"`
	// Forwarding is forwarding= (empty: the node routes when routes= names one of its NIDs
	// as a gateway; enabled; disabled).
	Forwarding string `yaml:"forwarding"`
}

// NISpec is one network interface of a node: an LNet NI on a net, bound to an HCA port.
type NISpec struct {
	// Net is the LNet network (o2ib0, o2ib1, ...; "o2ib" means o2ib0).
	Net string `yaml:"net" json:"net"`
	// NID is given, or assigned by Load: 10.<net number>.<n/256>.<n%256>@<net>, n counting
	// up from 1 over the net's NIs in sorted node name order. For a group it is the first
	// member's address; the others count up from it.
	NID NID `yaml:"nid" json:"nid"`
	// Interface is the IPoIB interface name (default ib<i> for the i-th NI). NIs of
	// different nets may share one: same interface name or same address (10.0.0.1@o2ib and
	// 10.0.0.1@o2ib1) puts them on the same HCA port, with that interface's address.
	Interface string `yaml:"interface" json:"interface"`
	// HCA is the index of the HCA on the node (default: the i-th NI uses HCA i).
	HCA int `yaml:"hca" json:"hca"`
	// Port is the HCA port, 1-based (default 1).
	Port int `yaml:"port" json:"port"`
	// Tunables overrides this NI's LNet tunables (lnetctl net add --peer-credits ...):
	// unset values come from lnet.nets. After Load it holds the NI's full set.
	Tunables *NetTunables `yaml:"tunables" json:"tunables,omitempty"`
	// LND overrides this NI's o2iblnd tunables (lnetctl `lnd tunables:`): unset values
	// come from the net's o2ib parameters. After Load it holds the NI's full set.
	LND *O2IBParams `yaml:"lnd_tunables" json:"lnd_tunables,omitempty"`
	// CPT is the CPU partition list as lnetctl shows it ("[0,1]"); informational.
	CPT string `yaml:"cpt" json:"cpt,omitempty"`

	// srcPath is where the NI was written (nis[i], or the lnetctl local NI it came from);
	// tunablesPath and lndPath locate its tunables, for overlaying only what was written.
	srcPath, tunablesPath, lndPath string
	// shares is 1 + the index of an earlier NI of the node whose interface this NI also
	// uses (same address or same interface name: another net on that port), 0 none.
	shares int
}

func (n *NISpec) setDefaults() { n.HCA, n.Port = -1, 1 }

// Route is an LNet route: reach Net through Gateway (lnetctl route add).
type Route struct {
	// Net is the remote net.
	Net string `yaml:"net" json:"net"`
	// Gateway is the router's NID, or a node reference (router, router:0).
	Gateway string `yaml:"gateway" json:"gateway"`
	// Hop count (-1 = undefined, the default).
	Hop int `yaml:"hop" json:"hop"`
	// Priority (0 = best, the default).
	Priority int `yaml:"priority" json:"priority"`
	// Nodes the route is configured on (lnet.routes only; default: every node that is not
	// a router and has no NI on Net).
	Nodes NameList `yaml:"nodes" json:"nodes,omitempty"`
}

func (r *Route) setDefaults() { r.Hop = -1 }

// Peer is a statically configured peer (lnetctl peer add).
type Peer struct {
	// PrimaryNID is the peer's primary NID or a node reference.
	PrimaryNID string `yaml:"primary_nid" json:"primary_nid"`
	// MultiRail marks the peer multi-rail (default true).
	MultiRail bool `yaml:"multi_rail" json:"multi_rail"`
	// NIDs of the peer's NIs (default: all of the referenced node's NIDs).
	NIDs []string `yaml:"nids" json:"nids,omitempty"`
	// Nodes the peer is configured on (lnet.peers only; default every node).
	Nodes NameList `yaml:"nodes" json:"nodes,omitempty"`
	// LockPrimary is lnetctl's --lock_prim.
	LockPrimary bool `yaml:"lock_prim" json:"lock_prim"`
}

func (p *Peer) setDefaults() { p.MultiRail = true }
