package runner

import (
	"fmt"
	"math"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/model/o2ib"
	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/sim"
)

// node is one member of the cluster: its LNet instance and NIs in scenario order.
type node struct {
	name string
	idx  int
	ln   *lnet.Node
	nids []lnet.NID
	down bool // crashed (o2ib backend): its LNet is gone until it restarts
	// unconfigured: lnetctl lnet unconfigure stopped its LNet (the node and HCA are up)
	unconfigured bool
	// stopped: lustre_stop released the workload's hold on LNet (its targets unmounted, its
	// streams paused) until lustre_start
	stopped bool
	// targets are the MDs the node's workload targets posted on its current LNet
	targets []lnet.MDHandle
	// uuids are Lustre's UUIDs and their NIDs (lctl add_uuid; obdclass's g_uuid_list),
	// lookups only
	uuids map[string][]lnet.NID
	// o2ibTimeout and sockTimeout are the LNDs' timeout module parameters as `lnetctl net set
	// --lnd-timeout` last wrote them (nil: the scenario's): kept while the node is up, also
	// across lnet unconfigure and configure (the LND modules stay loaded), cleared by a crash
	o2ibTimeout, sockTimeout *int
	// lndGone holds a bit (1 << LND type) per LND whose module lnd_unload removed: LNet
	// cannot load it again (lnet_load_lnd fails) until the node restarts
	lndGone uint32
}

// cluster is the simulated system of one run.
type cluster struct {
	scenario  *scenarios.Scenario
	k         *sim.Kernel
	nodes     []*node
	byName    map[string]*node    // lookups only
	owner     map[lnet.NID]*node  // NID -> node (lookups only)
	lnds      map[string]lnet.LND // net name -> LND (lookups only)
	ideal     *lnet.IdealLND
	fab       *fabric   // o2ib backend; nil on the ideal backend
	eth       *ethernet // o2ib backend with tcp NIs: the Ethernet model and socklnd; else nil
	tracer    *tracerSet
	workloads *workloads // set once the workloads exist (node restarts re-post their buffers)
	// Ideal backend state: per NI, its port (lookups only).
	ports map[lnet.NID]*idealPort
	rate  float64 // link data rate, bytes per nanosecond
}

// idealPort is one NI's port and link on the ideal backend: its fault state and when it is
// free to send and to receive next. One record per NI, so a message looks its two ports up
// once each.
type idealPort struct {
	down           int      // faults holding it down
	delay          sim.Time // extra delay of every message through it
	txFree, rxFree sim.Time
}

// port returns nid's port, made at its first use.
func (c *cluster) port(nid lnet.NID) *idealPort {
	p := c.ports[nid]
	if p == nil {
		p = &idealPort{}
		c.ports[nid] = p
	}
	return p
}

// wireOverhead approximates the bytes o2iblnd puts on the wire besides the payload: the
// kib_msg and LNet headers of an IMMEDIATE.
const wireOverhead = o2ib.MsgHdrSize + o2ib.LNetHdrSize

// idealVerdict decides each message's fate on the ideal backend. A message from or to a
// downed NI fails with REMOTE_DROPPED (o2iblnd's status for a send completion error): at once
// from it (its work requests are flushed), after the RC retry exhaustion time to it. Otherwise
// it is serialized at the link rate on its sender's and receiver's ports, one message after
// another on each (store-and-forward per message, a deliberate simplification of the packet-level
// InfiniBand model), plus any link_delay.
func (c *cluster) idealVerdict(m *lnet.Msg) lnet.IdealVerdict {
	tx, rx := c.port(m.TxNI().NID()), c.port(m.Target())
	switch {
	case tx.down > 0:
		return lnet.IdealVerdict{Action: lnet.IdealFail, HStatus: lnet.LNET_MSG_STATUS_REMOTE_DROPPED, Delay: 1}
	case rx.down > 0:
		return lnet.IdealVerdict{Action: lnet.IdealFail, HStatus: lnet.LNET_MSG_STATUS_REMOTE_DROPPED, Delay: retryExhaustion}
	}
	now := c.k.Now()
	ser := sim.Time(math.Ceil(float64(m.Len()+wireOverhead) / c.rate))
	start := max(now, tx.txFree)
	tx.txFree = start + ser
	done := max(start+ser, rx.rxFree+ser)
	rx.rxFree = done
	return lnet.IdealVerdict{Action: lnet.IdealDeliver, Delay: done - now + tx.delay + rx.delay}
}

// idealLatency is the one-way latency of the ideal backend: the fabric's cable and switch
// latencies of a single-switch hop.
func idealLatency(s *scenarios.Scenario) sim.Time {
	return 2*s.Fabric.LinkLatency + s.Fabric.SwitchLatency
}

// globalsToTunables maps a scenario's LNet globals onto model/lnet's (whole seconds).
func globalsToTunables(g *scenarios.Globals) lnet.Tunables {
	t := lnet.DefaultTunables()
	t.TransactionTimeout = int(g.TransactionTimeout.WholeSeconds())
	t.RetryCount = g.RetryCount
	t.HealthSensitivity = g.HealthSensitivity
	t.RecoveryInterval = int(g.RecoveryInterval.WholeSeconds())
	t.RecoveryLimit = int(g.RecoveryLimit.WholeSeconds())
	t.MaxRecoveryPingInterval = int(g.MaxRecoveryPingInterval.WholeSeconds())
	t.ResponseTracking = g.ResponseTracking
	t.DropAsymRoute = g.DropAsymRoute
	t.Discovery = g.Discovery
	t.NUMARange = g.NumaRange
	t.MaxInterfaces = g.MaxInterfaces
	t.LockPrimNID = g.LockPrimNID
	t.AutoDown = g.AutoDown
	t.RouterSensitivity = g.RouterSensitivity
	t.AliveRouterCheckInt = int(g.AliveRouterCheckInterval.WholeSeconds())
	t.RouterPingTimeout = int(g.RouterPingTimeout.WholeSeconds())
	t.AvoidAsymRouterFailure = g.AvoidAsymRouterFailure
	t.CheckRoutersBeforeUse = g.CheckRoutersBeforeUse
	t.PeerBufferCredits = g.PeerBufferCredits
	t.TinyRouterBuffers = g.TinyRouterBuffers
	t.SmallRouterBuffers = g.SmallRouterBuffers
	t.LargeRouterBuffers = g.LargeRouterBuffers
	t.RouterMsgExpiry = g.RouterMsgExpiry
	t.CPTs = g.CPTs
	if rel, err := lnet.LookupRelease(g.Release); err == nil {
		t.Profile = rel.Profile // an empty Release (master) keeps the zero Profile
	}
	return t
}

func netTunables(t *scenarios.NetTunables) lnet.NetTunables {
	return lnet.NetTunables{
		PeerTimeout:       int(t.PeerTimeout.WholeSeconds()),
		PeerCredits:       t.PeerCredits,
		PeerBufferCredits: t.PeerBufferCredits,
		Credits:           t.Credits,
	}
}

// toNID converts a scenario NID to model/lnet's.
//
// An IPv4 NID of an o2ib or tcp net is converted directly (set-up converts every route's
// gateway of every node: 1.6 M at 100,000 clients); anything else goes through its text.
func toNID(n scenarios.NID) (lnet.NID, error) {
	if n.Addr.Is4() {
		if net, err := lnet.ParseNet(n.Net); err == nil && (net.Type() == lnet.O2IBLND || net.Type() == lnet.SOCKLND) {
			a := n.Addr.As4()
			return lnet.MakeNID(net, uint32(a[0])<<24|uint32(a[1])<<16|uint32(a[2])<<8|uint32(a[3])), nil
		}
	}
	return lnet.ParseNID(n.String())
}

// sharedPorts refuses, on the ideal backend, NIs of different nets sharing one port: that
// backend keys its ports and their faults by NI, so they would not share the link.
func sharedPorts(s *scenarios.Scenario) error {
	for _, m := range s.Members {
		for i, a := range m.NIs {
			for j, b := range m.NIs[:i] {
				if a.HCA == b.HCA && a.Port == b.Port {
					return fmt.Errorf("%w: %s:%d and %s:%d share HCA %d port %d, which only the o2ib backend models", ErrUnsupported, m.Name, j, m.Name, i, a.HCA, a.Port)
				}
			}
		}
	}
	return nil
}

// buildCluster creates the kernel and one LNet node per member, with its NIs, configured
// peers and the run's tracer, and starts every node.
func buildCluster(s *scenarios.Scenario, seed uint64, tr *tracerSet, backend string) (*cluster, error) {
	c := &cluster{scenario: s, k: sim.New(seed), byName: map[string]*node{}, owner: map[lnet.NID]*node{}, lnds: map[string]lnet.LND{},
		ports: map[lnet.NID]*idealPort{},
		rate:  float64(s.Fabric.LinkRate.BytesPerSecond()) / 1e9}
	switch backend {
	case BackendIdeal:
		if err := sharedPorts(s); err != nil {
			return nil, err
		}
		c.ideal = lnet.NewIdealLND(c.k, idealLatency(s))
		c.ideal.Hook = c.idealVerdict
	case BackendO2IB, "":
		fb, err := buildFabric(c.k, s)
		if err != nil {
			return nil, err
		}
		c.fab = fb
		eth, err := buildEthernet(c.k, s)
		if err != nil {
			return nil, err
		}
		c.eth = eth
	default:
		return nil, fmt.Errorf("unknown backend %q (use o2ib or ideal)", backend)
	}
	c.tracer = tr
	for i := range s.Members {
		m := &s.Members[i]
		n := &node{name: m.Name, idx: i}
		for j, ni := range m.NIs {
			nid, err := toNID(ni.NID)
			if err != nil {
				return nil, fmt.Errorf("node %s NI %d: %w", m.Name, j, err)
			}
			n.nids = append(n.nids, nid)
			c.owner[nid] = n
		}
		ln, err := c.newLNet(i, false)
		if err != nil {
			return nil, err
		}
		n.ln = ln
		c.nodes = append(c.nodes, n)
		c.byName[m.Name] = n
	}
	for _, n := range c.nodes {
		if err := c.start(n); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// newLNet creates member idx's LNet instance: its NIs on their LNDs, routing and routes, the
// run's tracer. start configures its peers and starts it. A bare instance has no NI but lo,
// no route and no routing: what `lnetctl lnet configure` starts when it does not read the
// module's options.
func (c *cluster) newLNet(idx int, bare bool) (*lnet.Node, error) {
	m := &c.scenario.Members[idx]
	ln, err := lnet.NewNode(c.k, m.Name, globalsToTunables(m.Global))
	if err != nil {
		return nil, fmt.Errorf("node %s: %w", m.Name, err)
	}
	if len(c.nodes) > 0 {
		ln.SharePeerSlabs(c.nodes[0].ln)
	}
	ln.SetTracer(c.tracer.forNode(idx))
	if c.scenario.LNet.AcceptPortBulk != 0 && scenarios.SockLNDProfile(m.Global.Release).NoAcceptPortBulk {
		ln.Printk("lnet: unknown parameter 'accept_port_bulk' ignored") // the kernel's module loader
	}
	if bare {
		return ln, nil
	}
	for _, ni := range m.NIs {
		nid, err := toNID(ni.NID)
		if err != nil {
			return nil, err
		}
		if _, err := ln.AddNI(nid, c.lndFor(ni.Net), netTunables(ni.Tunables)); err != nil {
			return nil, fmt.Errorf("node %s NI %s: %w", m.Name, nid, err)
		}
	}
	if m.Routing {
		ln.SetRouting(true)
	}
	for _, r := range m.Routes {
		net, err := lnet.ParseNet(r.Net)
		if err != nil {
			return nil, fmt.Errorf("node %s: route: %w", m.Name, err)
		}
		gw, err := toNID(r.Gateway)
		if err != nil {
			return nil, fmt.Errorf("node %s: route gateway: %w", m.Name, err)
		}
		if err := ln.AddRoute(net, gw, r.Hop, r.Priority); err != nil {
			return nil, fmt.Errorf("node %s: %w", m.Name, err)
		}
	}
	return ln, nil
}

// start adds a node's configured peers, then its selection policies (the order of an lnetctl
// import: router rules see the routes, peer rules the configured peers), and starts its LNet.
func (c *cluster) start(n *node) error {
	m := &c.scenario.Members[n.idx]
	for _, p := range m.Peers {
		primary, err := toNID(p.PrimaryNID)
		if err != nil {
			return err
		}
		var nids []lnet.NID
		for _, x := range p.NIDs {
			nid, err := toNID(x)
			if err != nil {
				return err
			}
			nids = append(nids, nid)
		}
		peer, err := n.ln.AddPeer(primary, nids, !p.MultiRail)
		if err != nil {
			return fmt.Errorf("node %s: peer %s: %w", n.name, primary, err)
		}
		if p.LockPrimary {
			peer.LockPrimary()
		}
	}
	for i, u := range m.UDSP {
		spec := lnet.UDSPSpec{Src: u.Src, Dst: u.Dst, Rte: u.Rte, Priority: u.Priority}
		if err := n.ln.AddUDSP(spec, u.Idx); err != nil {
			return fmt.Errorf("node %s: udsp %d: %w", n.name, i, err)
		}
	}
	if err := n.ln.Startup(); err != nil {
		return fmt.Errorf("node %s: %w", n.name, err)
	}
	return nil
}

// lndFor returns the LND serving a net.
func (c *cluster) lndFor(net string) lnet.LND {
	if l, ok := c.lnds[net]; ok {
		return l
	}
	var l lnet.LND = c.ideal
	switch {
	case c.eth != nil && scenarios.IsTCPNet(net):
		l = c.eth.lnd
	case c.fab != nil:
		l = c.fab.lnd
	}
	c.lnds[net] = l
	return l
}

// niRef resolves an NI reference (member:index, member, or a NID) checked by Load.
func (c *cluster) niRef(ref string) (*node, lnet.NID, error) {
	m, i, err := c.scenario.ResolveNI(ref)
	if err != nil {
		return nil, 0, err
	}
	n := c.byName[m.Name]
	return n, n.nids[i], nil
}

// members expands a name list (member or group names) into nodes, in scenario order.
func (c *cluster) members(names []string) []*node {
	want := map[string]bool{}
	for _, nm := range names {
		want[nm] = true
	}
	var out []*node
	for _, n := range c.nodes {
		if want[n.name] || want[c.scenario.Members[n.idx].Group] {
			out = append(out, n)
		}
	}
	return out
}
