package scenarios

import (
	"fmt"

	"github.com/lnetsim/lnetsim/scenarios/units"
	"github.com/lnetsim/lnetsim/sim"
)

// Ethernet describes the Ethernet network every tcp NI is attached to: one switch, or a
// leaf-spine fabric, each NI's interface on its own link. Load fills it with defaults when a
// tcp net is in use and leaves it nil otherwise (scenarios without tcp nets hash as before).
// The leaf-spine fields are empty for a single switch, which Load stores as an empty
// topology, so single-switch scenarios hash as they did before topologies existed.
type Ethernet struct {
	// Topology is single-switch (default) or leaf-spine: hosts (members with a tcp NI, in
	// member order) fill leaves HostsPerLeaf at a time, every leaf trunked to every spine.
	Topology string `yaml:"topology" json:"topology,omitempty"`
	// HostsPerLeaf is how many hosts each leaf switch holds (leaf-spine; required).
	HostsPerLeaf int `yaml:"hosts_per_leaf" json:"hosts_per_leaf,omitempty"`
	// Spines is the number of spine switches, each with one uplink from every leaf
	// (leaf-spine; default 2).
	Spines int `yaml:"spines" json:"spines,omitempty"`
	// UplinkRate is each leaf-spine trunk's data rate (leaf-spine; default link_rate).
	UplinkRate units.Rate `yaml:"uplink_rate" json:"uplink_rate,omitempty"`
	// UplinkLatency is each trunk's one-way propagation delay (leaf-spine; default
	// link_latency).
	UplinkLatency sim.Time `yaml:"uplink_latency" json:"uplink_latency,omitempty"`
	// LinkRate is every Ethernet link's data rate (default 25Gbps).
	LinkRate units.Rate `yaml:"link_rate" json:"link_rate"`
	// LinkLatency is each cable's one-way propagation delay (default 500ns).
	LinkLatency sim.Time `yaml:"link_latency" json:"link_latency"`
	// SwitchLatency is the switch's forwarding latency (default 1us).
	SwitchLatency sim.Time `yaml:"switch_latency" json:"switch_latency"`
	// MTU is the IP MTU in bytes, 576 to 9216 (default 1500; 9000 for jumbo frames).
	MTU int `yaml:"mtu" json:"mtu"`
	// PortBuffer is each switch output port's buffer; a frame that does not fit is dropped
	// (default 1MiB).
	PortBuffer units.Size `yaml:"port_buffer" json:"port_buffer"`
}

func (e *Ethernet) setDefaults() {
	*e = Ethernet{LinkRate: 25 * units.Gbps, LinkLatency: 500 * sim.Nanosecond,
		SwitchLatency: sim.Microsecond, MTU: 1500, PortBuffer: 1 << 20}
}

// SockLNDParams are the ksocklnd module parameters, with the kernel's names and defaults
// (socklnd_modparams.c on master). conns_per_peer 0 takes the kernel's value for the link
// speed (3 at 25 Gb/s, 4 at 100 Gb/s).
type SockLNDParams struct {
	SockTimeout       sim.Time   `yaml:"sock_timeout" unit:"s" json:"sock_timeout"`       // default 50 s (0: lnd_timeout)
	Credits           int        `yaml:"credits" json:"credits"`                          // default 256
	PeerCredits       int        `yaml:"peer_credits" json:"peer_credits"`                // default 8
	PeerBufferCredits int        `yaml:"peer_buffer_credits" json:"peer_buffer_credits"`  // default 0
	PeerTimeout       sim.Time   `yaml:"peer_timeout" unit:"s" json:"peer_timeout"`       // default 180 s
	NConnds           int        `yaml:"nconnds" json:"nconnds"`                          // default 4
	MinReconnectms    int        `yaml:"min_reconnectms" json:"min_reconnectms"`          // default 1000
	MaxReconnectms    int        `yaml:"max_reconnectms" json:"max_reconnectms"`          // default 60000
	TypedConns        int        `yaml:"typed_conns" json:"typed_conns"`                  // default 1
	MinBulk           units.Size `yaml:"min_bulk" json:"min_bulk"`                        // default 1KiB
	TxBufferSize      units.Size `yaml:"tx_buffer_size" json:"tx_buffer_size"`            // default 0 (system)
	RxBufferSize      units.Size `yaml:"rx_buffer_size" json:"rx_buffer_size"`            // default 0 (system)
	Nagle             int        `yaml:"nagle" json:"nagle"`                              // default 0
	RoundRobin        int        `yaml:"round_robin" json:"round_robin"`                  // default 1
	Keepalive         sim.Time   `yaml:"keepalive" unit:"s" json:"keepalive"`             // default 30 s
	KeepaliveIdle     sim.Time   `yaml:"keepalive_idle" unit:"s" json:"keepalive_idle"`   // default 30 s
	KeepaliveCount    int        `yaml:"keepalive_count" json:"keepalive_count"`          // default 5
	KeepaliveIntvl    sim.Time   `yaml:"keepalive_intvl" unit:"s" json:"keepalive_intvl"` // default 5 s
	NonblkZcack       int        `yaml:"nonblk_zcack" json:"nonblk_zcack"`                // default 1
	ZcMinPayload      units.Size `yaml:"zc_min_payload" json:"zc_min_payload"`            // default 16KiB
	ConnsPerPeer      int        `yaml:"conns_per_peer" json:"conns_per_peer"`            // default 0 (from link speed)
	TOS               int        `yaml:"tos" json:"tos"`                                  // default -1
}

func (p *SockLNDParams) setDefaults() {
	*p = SockLNDParams{SockTimeout: 50 * sim.Second, Credits: 256, PeerCredits: 8, PeerTimeout: 180 * sim.Second,
		NConnds: 4, MinReconnectms: 1000, MaxReconnectms: 60000, TypedConns: 1, MinBulk: 1 << 10, RoundRobin: 1,
		Keepalive: 30 * sim.Second, KeepaliveIdle: 30 * sim.Second, KeepaliveCount: 5, KeepaliveIntvl: 5 * sim.Second,
		NonblkZcack: 1, ZcMinPayload: 16 << 10, TOS: -1}
}

// ethernet checks the Ethernet section: given only with tcp nets, filled with defaults when
// a tcp net is in use.
func (r *resolver) ethernet() {
	s := r.s
	tcp := false
	for net := range r.nets {
		tcp = tcp || IsTCPNet(net)
	}
	if !tcp {
		if s.Ethernet != nil {
			r.errorAt("ethernet", "add a tcp NI (nis: [tcp0]) or remove the section", "ethernet is set but no node has a tcp NI")
		}
		if len(s.SockLND) > 0 {
			r.errorAt("socklnd", "add a tcp NI (nis: [tcp0]) or remove the section", "socklnd is set but no node has a tcp NI")
		}
		return
	}
	if s.Ethernet == nil {
		s.Ethernet = &Ethernet{}
		s.Ethernet.setDefaults()
	}
	e := s.Ethernet
	if e.LinkRate <= 0 {
		r.errorAt("ethernet.link_rate", "e.g. 10Gbps, 25Gbps, 100Gbps", "must be positive")
	}
	if e.LinkLatency < 0 || e.SwitchLatency < 0 {
		r.errorAt("ethernet", "", "link_latency and switch_latency must not be negative")
	}
	if e.MTU < 576 || e.MTU > 9216 {
		r.errorAt("ethernet.mtu", "1500 is standard, 9000 jumbo", "must be from 576 to 9216 bytes, got %d", e.MTU)
	}
	if e.PortBuffer < 1 {
		r.errorAt("ethernet.port_buffer", "e.g. 1MiB", "must be positive")
	}
	r.ethernetTopology(e)
}

// MaxSpines bounds ethernet.spines (a leaf's uplink ports) and MaxLeaves the leaves (a
// spine's ports; routes are searched per destination leaf).
const (
	MaxSpines = 64
	MaxLeaves = 512
)

// ethernetTopology checks and defaults the topology fields: none of them for a single
// switch (stored as an empty topology); for leaf-spine, hosts_per_leaf, and spines, uplink
// rate and latency defaulted.
func (r *resolver) ethernetTopology(e *Ethernet) {
	ls := []string{"hosts_per_leaf", "spines", "uplink_rate", "uplink_latency"}
	switch e.Topology {
	case "", "single-switch":
		e.Topology = ""
		for _, f := range ls {
			if r.d.has("ethernet." + f) {
				r.errorAt("ethernet."+f, "set topology: leaf-spine, or remove "+f, "%s applies to a leaf-spine topology only", f)
			}
		}
		return
	case "leaf-spine":
	default:
		r.errorAt("ethernet.topology", "use single-switch or leaf-spine", "unknown topology %q", e.Topology)
		return
	}
	if !r.d.has("ethernet.hosts_per_leaf") {
		r.errorAt("ethernet.topology", "e.g. hosts_per_leaf: 4", "leaf-spine needs hosts_per_leaf")
	} else if e.HostsPerLeaf < 1 || e.HostsPerLeaf > 1024 {
		r.errorAt("ethernet.hosts_per_leaf", "", "must be from 1 to 1024, got %d", e.HostsPerLeaf)
	} else if hosts, leaves := EthernetHosts(r.s), EthernetLeaves(r.s); leaves > MaxLeaves {
		r.errorAt("ethernet.hosts_per_leaf", fmt.Sprintf("give hosts_per_leaf %d or more", (hosts+MaxLeaves-1)/MaxLeaves),
			"%d hosts at %d a leaf need %d leaves, more than %d (a spine's ports)", hosts, e.HostsPerLeaf, leaves, MaxLeaves)
	}
	if !r.d.has("ethernet.spines") {
		e.Spines = 2
	} else if e.Spines < 1 || e.Spines > MaxSpines {
		r.errorAt("ethernet.spines", "", "must be from 1 to %d, got %d", MaxSpines, e.Spines)
	}
	if !r.d.has("ethernet.uplink_rate") {
		e.UplinkRate = e.LinkRate
	} else if e.UplinkRate <= 0 {
		r.errorAt("ethernet.uplink_rate", "e.g. 100Gbps", "must be positive")
	}
	if !r.d.has("ethernet.uplink_latency") {
		e.UplinkLatency = e.LinkLatency
	} else if e.UplinkLatency < 0 {
		r.errorAt("ethernet.uplink_latency", "", "must not be negative")
	}
}

func (r *resolver) checkSockLND(p string, o *SockLNDParams) {
	rng := func(f string, v, lo, hi int) {
		if v < lo || v > hi {
			r.errorAt(p+"."+f, "", "must be from %d to %d, got %d", lo, hi, v)
		}
	}
	if o.SockTimeout < 0 {
		r.errorAt(p+".sock_timeout", "0 means the global LND timeout (lnd_timeout)", "must not be negative")
	}
	rng("credits", o.Credits, 1, 1<<20)
	rng("peer_credits", o.PeerCredits, 1, 255)
	rng("peer_buffer_credits", o.PeerBufferCredits, 0, 1<<20)
	rng("nconnds", o.NConnds, 1, 64)
	rng("min_reconnectms", o.MinReconnectms, 1000, 3_600_000)
	rng("max_reconnectms", o.MaxReconnectms, o.MinReconnectms, 3_600_000)
	rng("typed_conns", o.TypedConns, 0, 1)
	rng("nagle", o.Nagle, 0, 1)
	rng("round_robin", o.RoundRobin, 0, 1)
	rng("keepalive_count", o.KeepaliveCount, 0, 1000)
	rng("nonblk_zcack", o.NonblkZcack, 0, 1)
	rng("conns_per_peer", o.ConnsPerPeer, 0, 255)
	rng("tos", o.TOS, -1, 255)
	for _, f := range []struct {
		name string
		v    units.Size
	}{{"min_bulk", o.MinBulk}, {"tx_buffer_size", o.TxBufferSize}, {"rx_buffer_size", o.RxBufferSize}, {"zc_min_payload", o.ZcMinPayload}} {
		if f.v < 0 || f.v > 1<<30 {
			r.errorAt(p+"."+f.name, "", "must be from 0 to 1GiB, got %s", f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    sim.Time
	}{{"keepalive", o.Keepalive}, {"keepalive_idle", o.KeepaliveIdle}, {"keepalive_intvl", o.KeepaliveIntvl}} {
		if f.v < 0 {
			r.errorAt(p+"."+f.name, "0 turns it off", "must not be negative")
		}
	}
}
