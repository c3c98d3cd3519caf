package scenarios

import (
	"github.com/lnetsim/lnetsim/sim"
)

// LNet holds the LNet configuration common to every node: global tunables (at the top level,
// under the kernel's names), per-net tunables, routes and peers.
type LNet struct {
	Globals `yaml:",inline"`
	// Nets maps a net name to its NI tunables (lnetctl net add --peer-credits ...). After
	// Load every net in use has an entry; unset values come from the net's o2ib parameters
	// as the kernel takes them.
	Nets map[string]*NetTunables `yaml:"nets" json:"nets"`
	// Routes configured on nodes (see Route.Nodes).
	Routes []Route `yaml:"routes" json:"routes,omitempty"`
	// Peers configured on nodes (see Peer.Nodes).
	Peers []Peer `yaml:"peers" json:"peers,omitempty"`
	// UDSP lists User Defined Selection Policies (lnetctl udsp add) configured on nodes,
	// in order (see UDSP.Nodes).
	UDSP []UDSP `yaml:"udsp" json:"udsp,omitempty"`
}

// UDSP is one User Defined Selection Policy (`lnetctl udsp add --src --dst --rte
// --priority --idx`). Src, Dst and Rte are UDSP NID descriptors (a net such as o2ib1 or
// o2ib[1-2], or an address range on a net such as 10.1.0.[2-5]@o2ib1 or *@o2ib1) or node
// references (node, node:index; for rte a router's name means its NI on a net the
// configured node has). Rules: src only or dst only set selection priorities; dst+src
// makes src's local NIs the preferred NIs of the dst peer NIs; dst+rte makes the matching
// gateways the dst peer NIs' preferred routers, ahead of route priority and hops.
type UDSP struct {
	Src string `yaml:"src" json:"src,omitempty"`
	Dst string `yaml:"dst" json:"dst,omitempty"`
	Rte string `yaml:"rte" json:"rte,omitempty"`
	// Priority of a src-only or dst-only rule (0 = highest; default -1: not given, which
	// such a rule takes as 0).
	Priority int64 `yaml:"priority" json:"priority"`
	// Idx is where the rule goes in the node's list (default -1: appended).
	Idx int `yaml:"idx" json:"idx"`
	// Nodes the rule is configured on (default: every node).
	Nodes NameList `yaml:"nodes" json:"nodes,omitempty"`
}

func (u *UDSP) setDefaults() { u.Priority, u.Idx = -1, -1 }

func (l *LNet) setDefaults() { l.Globals.setDefaults() }

// Globals are LNet's global tunables: the lnet module parameters and `lnetctl set` keys,
// with the kernel's names, defaults and units. Durations given as plain integers are seconds,
// as the kernel counts them.
type Globals struct {
	// Release is the Lustre release every node runs unless it names its own (default
	// master): it selects the release's defaults of the tunables below that are not
	// written, and its behaviour rules (lnet.Profile).
	Release string `yaml:"release" json:"release,omitempty"`
	// TransactionTimeout is lnet_transaction_timeout (default 150 s); must exceed retry_count.
	TransactionTimeout sim.Time `yaml:"transaction_timeout" unit:"s" json:"transaction_timeout"`
	// RetryCount is lnet_retry_count (default 2).
	RetryCount int `yaml:"retry_count" json:"retry_count"`
	// HealthSensitivity is lnet_health_sensitivity, 0..1000 (default 100).
	HealthSensitivity int `yaml:"health_sensitivity" json:"health_sensitivity"`
	// RecoveryInterval is lnet_recovery_interval (default 1 s; deprecated, unused).
	RecoveryInterval sim.Time `yaml:"recovery_interval" unit:"s" json:"recovery_interval"`
	// RecoveryLimit is lnet_recovery_limit (default 0 = recover peer NIs forever).
	RecoveryLimit sim.Time `yaml:"recovery_limit" unit:"s" json:"recovery_limit"`
	// MaxRecoveryPingInterval is lnet_max_recovery_ping_interval (default 900 s).
	MaxRecoveryPingInterval sim.Time `yaml:"max_recovery_ping_interval" unit:"s" json:"max_recovery_ping_interval"`
	// ResponseTracking is lnet_response_tracking, 0..3 (default 3: GET and PUT).
	ResponseTracking int `yaml:"response_tracking" json:"response_tracking"`
	// DropAsymRoute is lnet_drop_asym_route (default false).
	DropAsymRoute bool `yaml:"drop_asym_route" json:"drop_asym_route"`
	// Discovery is the inverse of lnet_peer_discovery_disabled (default true).
	Discovery bool `yaml:"discovery" json:"discovery"`
	// NumaRange is lnet_numa_range (default 0).
	NumaRange int `yaml:"numa_range" json:"numa_range"`
	// MaxInterfaces is lnet_interfaces_max (default 4096; 200 on releases up to 2.17).
	MaxInterfaces int `yaml:"max_interfaces" alias:"max_intf" json:"max_interfaces"`
	// LockPrimNID is lock_prim_nid (default true).
	LockPrimNID bool `yaml:"lock_prim_nid" json:"lock_prim_nid"`
	// AliveRouterCheckInterval is alive_router_check_interval (default 60 s; 0 disables
	// router checker pings).
	AliveRouterCheckInterval sim.Time `yaml:"alive_router_check_interval" unit:"s" json:"alive_router_check_interval"`
	// RouterPingTimeout is router_ping_timeout (default 50 s): how long a router's net may go
	// without a router checker ping before it advertises its NIs down, and the routing
	// start/stop delay (with alive_router_check_interval). The checker's pings themselves
	// fail with their send or at transaction_timeout, as in the kernel.
	RouterPingTimeout sim.Time `yaml:"router_ping_timeout" unit:"s" json:"router_ping_timeout"`
	// RouterSensitivity is router_sensitivity_percentage (default 100; unused by selection).
	RouterSensitivity int `yaml:"router_sensitivity" alias:"router_sensitivity_percentage" json:"router_sensitivity"`
	// AvoidAsymRouterFailure is avoid_asym_router_failure (default true).
	AvoidAsymRouterFailure bool `yaml:"avoid_asym_router_failure" json:"avoid_asym_router_failure"`
	// CheckRoutersBeforeUse is check_routers_before_use (default false).
	CheckRoutersBeforeUse bool `yaml:"check_routers_before_use" json:"check_routers_before_use"`
	// AutoDown is auto_down (default true).
	AutoDown bool `yaml:"auto_down" json:"auto_down"`
	// TinyRouterBuffers is tiny_router_buffers, the total 0-page pool (default 2048).
	TinyRouterBuffers int `yaml:"tiny_router_buffers" json:"tiny_router_buffers"`
	// SmallRouterBuffers is small_router_buffers, the total 1-page pool (default 16384).
	SmallRouterBuffers int `yaml:"small_router_buffers" json:"small_router_buffers"`
	// LargeRouterBuffers is large_router_buffers, the total 1 MiB pool (default 1024).
	LargeRouterBuffers int `yaml:"large_router_buffers" json:"large_router_buffers"`
	// PeerBufferCredits is the peer_buffer_credits module parameter (default 0 = use the
	// net's).
	PeerBufferCredits int `yaml:"peer_buffer_credits" json:"peer_buffer_credits"`
	// CPTs is the number of CPU partitions (libcfs cpu_npartitions; default 1, written 0 or
	// 1): routers split each router buffer pool evenly over them and take a routed
	// message's buffer in the CPT of the NID it came from, as lnet_nid2cpt hashes it.
	CPTs int `yaml:"cpts" json:"cpts,omitempty"`
	// RouterMsgExpiry is an experimental policy the kernel does not have (see ARCHITECTURE.md): routers
	// drop messages that waited in their queues past the message deadline (default false:
	// the kernel's behaviour).
	RouterMsgExpiry bool `yaml:"router_msg_expiry" json:"router_msg_expiry"`
	// AcceptPort is lnet's accept_port, the port socklnd's control connections are made to
	// and the acceptor listens on (0, the default: 988). The same on every node.
	AcceptPort int `yaml:"accept_port" json:"accept_port,omitempty"`
	// AcceptPortBulk is lnet's accept_port_bulk (LU-19139, 2.17), the port of socklnd's bulk
	// connections (0, the default: 988); a node of 2.16 or older ignores it.
	AcceptPortBulk int `yaml:"accept_port_bulk" json:"accept_port_bulk,omitempty"`
}

// AcceptPorts returns accept_port and accept_port_bulk with their defaults (988).
func (g *Globals) AcceptPorts() (port, bulk uint16) {
	port, bulk = 988, 988
	if g.AcceptPort > 0 {
		port = uint16(g.AcceptPort)
	}
	if g.AcceptPortBulk > 0 {
		bulk = uint16(g.AcceptPortBulk)
	}
	return port, bulk
}

func (g *Globals) setDefaults() {
	*g = Globals{
		TransactionTimeout: 150 * sim.Second, RetryCount: 2, HealthSensitivity: 100,
		RecoveryInterval: sim.Second, MaxRecoveryPingInterval: 900 * sim.Second,
		ResponseTracking: 3, Discovery: true, MaxInterfaces: 4096, LockPrimNID: true,
		AliveRouterCheckInterval: 60 * sim.Second, RouterPingTimeout: 50 * sim.Second,
		RouterSensitivity: 100, AvoidAsymRouterFailure: true, AutoDown: true,
		TinyRouterBuffers: 2048, SmallRouterBuffers: 16384, LargeRouterBuffers: 1024,
	}
}

// LNDTimeout is the kernel's derived lnet_lnd_timeout:
// max((transaction_timeout - 1 s) / (retry_count + 1), 1 s), in whole seconds.
func (g *Globals) LNDTimeout() sim.Time {
	ltt := g.TransactionTimeout.WholeSeconds()
	v := (ltt - 1) / int64(g.RetryCount+1)
	return sim.Time(max(v, 1)) * sim.Second
}

// NetTunables are an LNet NI's common tunables (lnetctl `tunables:`), kernel defaults.
type NetTunables struct {
	// PeerTimeout is peer_timeout (default 180 s).
	PeerTimeout sim.Time `yaml:"peer_timeout" unit:"s" json:"peer_timeout"`
	// PeerCredits is peer_credits (default 8).
	PeerCredits int `yaml:"peer_credits" json:"peer_credits"`
	// PeerBufferCredits is peer_buffer_credits (default 0).
	PeerBufferCredits int `yaml:"peer_buffer_credits" json:"peer_buffer_credits"`
	// Credits is credits, the NI's tx credits (default 256).
	Credits int `yaml:"credits" json:"credits"`
}

func (t *NetTunables) setDefaults() {
	*t = NetTunables{PeerTimeout: 180 * sim.Second, PeerCredits: 8, Credits: 256}
}

// O2IBParams are the ko2iblnd module parameters, with the kernel's names and defaults
// (lnet-reference section f). A value of 0 where the kernel derives one (peer_credits_hiw,
// concurrent_sends) is kept as 0; Effective* methods compute the derived value.
type O2IBParams struct {
	Service           int      `yaml:"service" json:"service"`                                           // default 987
	Timeout           sim.Time `yaml:"timeout" unit:"s" json:"timeout"`                                  // default 50 s
	Keepalive         sim.Time `yaml:"keepalive" unit:"s" json:"keepalive"`                              // default 100 s
	PeerCredits       int      `yaml:"peer_credits" json:"peer_credits"`                                 // default 8
	Credits           int      `yaml:"credits" json:"credits"`                                           // default 256
	PeerCreditsHiw    int      `yaml:"peer_credits_hiw" alias:"peercredits_hiw" json:"peer_credits_hiw"` // default 0 (-> peer_credits/2)
	ConcurrentSends   int      `yaml:"concurrent_sends" json:"concurrent_sends"`                         // default 0 (-> peer_credits)
	PeerBufferCredits int      `yaml:"peer_buffer_credits" json:"peer_buffer_credits"`                   // default 0
	PeerTimeout       sim.Time `yaml:"peer_timeout" unit:"s" json:"peer_timeout"`                        // default 180 s
	ConnsPerPeer      int      `yaml:"conns_per_peer" json:"conns_per_peer"`                             // default 1
	NTX               int      `yaml:"ntx" json:"ntx"`                                                   // default 512
	RetryCount        int      `yaml:"retry_count" json:"retry_count"`                                   // default 5 (IB RC retries)
	RNRRetryCount     int      `yaml:"rnr_retry_count" json:"rnr_retry_count"`                           // default 6
	MapOnDemand       int      `yaml:"map_on_demand" json:"map_on_demand"`                               // default 1
	FMRPoolSize       int      `yaml:"fmr_pool_size" json:"fmr_pool_size"`                               // default 512
	FMRFlushTrigger   int      `yaml:"fmr_flush_trigger" json:"fmr_flush_trigger"`                       // default 384
	FMRCache          int      `yaml:"fmr_cache" json:"fmr_cache"`                                       // default 1
	DevFailover       int      `yaml:"dev_failover" json:"dev_failover"`                                 // default 0
	IBMTU             int      `yaml:"ib_mtu" json:"ib_mtu"`                                             // default 0 (auto)
	WRQSGE            int      `yaml:"wrq_sge" json:"wrq_sge"`                                           // default 2
	TOS               int      `yaml:"tos" json:"tos"`                                                   // default -1
	Cksum             int      `yaml:"cksum" json:"cksum"`                                               // default 0
	UsePrivilegedPort int      `yaml:"use_privileged_port" json:"use_privileged_port"`                   // default 1
	// Bulk and ReadDepth are the RDMA READ bulk variant (not kernel parameters): bulk
	// "read" makes the receiver of a large PUT/REPLY pull it; "" is write, the kernel's
	// path (resolution turns "write" into ""), so scenarios without it hash as before.
	Bulk      string `yaml:"bulk" json:"bulk,omitempty"`             // default write
	ReadDepth int    `yaml:"read_depth" json:"read_depth,omitempty"` // default 0 (-> queue depth)
}

func (p *O2IBParams) setDefaults() {
	*p = O2IBParams{Service: 987, Timeout: 50 * sim.Second, Keepalive: 100 * sim.Second,
		PeerCredits: 8, Credits: 256, PeerTimeout: 180 * sim.Second, ConnsPerPeer: 1,
		NTX: 512, RetryCount: 5, RNRRetryCount: 6, MapOnDemand: 1, FMRPoolSize: 512,
		FMRFlushTrigger: 384, FMRCache: 1, WRQSGE: 2, TOS: -1, UsePrivilegedPort: 1}
}

// EffectiveConcurrentSends is concurrent_sends as o2iblnd uses it: peer_credits when 0,
// clamped to [peer_credits/2, 2*peer_credits].
func (p *O2IBParams) EffectiveConcurrentSends() int {
	cs := p.ConcurrentSends
	if cs == 0 {
		cs = p.PeerCredits
	}
	return min(max(cs, p.PeerCredits/2), 2*p.PeerCredits)
}

// EffectivePeerCreditsHiw is peer_credits_hiw as o2iblnd uses it: clamped to
// [peer_credits/2, peer_credits-1] (0 becomes peer_credits/2).
func (p *O2IBParams) EffectivePeerCreditsHiw() int {
	return max(min(p.PeerCreditsHiw, p.PeerCredits-1), p.PeerCredits/2)
}
