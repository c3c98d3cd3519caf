package lnet

import (
	"fmt"

	"github.com/lnetsim/lnetsim/sim"
)

// Event kinds of a Node's sim handler.
const (
	evMonitor      = iota + 1 // one pass of lnet_monitor_thread
	evResendKick              // the monitor woken early (a message queued for resend, a ping target asked for)
	evDelayRelease            // a delay rule releases a message (arg: MsgRef)
	evDiscovery               // the discovery thread's turn: the peers a push queued (dcq)
)

// Node is one simulated node's LNet instance (the_lnet): its nets and NIs, peers, messages,
// MDs, queues and counters. All nodes of a run share one *sim.Kernel.
type Node struct {
	k    *sim.Kernel
	hid  sim.HandlerID
	name string
	tun  Tunables
	// routeRand is the node's "lnet/routes/<name>" stream (AddRoute's random place), looked
	// up once instead of per route.
	routeRand *sim.Stream
	// routeGen counts changes of what routeAlive reads (routesChanged): a route's memo of an
	// older generation is recomputed.
	routeGen uint64

	nets    []*Net
	netIDs  []NetID // nets[i].ID, so that netByID reads one short slice, not every Net
	nis     []*NI   // every local NI, in configuration order (not 0@lo)
	loNI    *NI     // 0@lo
	niByNID niTable // NID -> local NI, 0@lo included

	peers   []*Peer
	peerNIs nidTable // NID -> peer NI

	msgs      []*Msg
	freeMsgs  []*Msg
	nextMsgID uint64
	mds       []*MD
	freeMDs   []*MD
	portals   [][]*ME
	ev        Event

	stats  Counters
	tracer Tracer
	done   MsgRecord // handed to tracer.MsgDone, reused: tracers copy what they keep

	netSeq uint32

	resendQ      msgQueue
	kickArmed    bool
	pbUpdate     bool // an LND asked for a new ping target (ln_update_ping_buf)
	monitor      sim.Timer
	dcTimer      sim.Timer // evDiscovery, armed while dcq is not empty
	dcq          []*Peer   // peers queued for discovery by a received push (ln_dc_request)
	nextRspCheck sim.Time
	rspExpiring  bool
	rsp          rspList

	localRecov []*NI
	peerRecov  []*PeerNI

	dropRules  []*DropRule
	delayRules []*DelayRule
	ruleSeq    int
	fail       failInject // fail_loc, fail_val (failloc.go)

	pingBuf *PingBuffer
	pingMD  *MD
	// pingExtra and pingMeta are the metadata room and entries of the current ping target
	// (metadata.go), kept through the in-place edits of updatePingBuffer.
	pingExtra int
	pingMeta  []NID
	console   []ConsoleLine // the kernel log (Printk)
	pushMD    *MD
	sysH      sysHandler
	started   bool
	routing   bool // routing enabled (lnet_routing_enabled)
	seqNo     uint32
	shutdown  bool

	// stale are discovery pings and pushes in flight that no peer's ping or push in flight
	// names any more (discovery.go staleMD), in the order they became stale.
	stale []staleMD

	// Routing (route_table.go, forward.go, router_checker.go).
	remoteNets []*remoteNet // routes per remote net, in the order first added
	gateways   []*Peer      // gateway peers, in the order first used by a route
	rtrPools   []*rtrPool   // tiny, small, large (nil until routing is enabled)
	rtrState   uint8        // ln_routing: rtrDisabled, rtrEnabled, rtrStopping, rtrStarting
	rtrSince   sim.Time     // when the current starting/stopping began
	rstats     RouterStats
	rspLive    int // live response trackers: rst_alloc, which a stats reset does not clear

	udsps []*udsp // UDSP policies, in index order (udsp.go)

	discHook  func(peer NID, rc int) // told when a peer's discovery ends (config.go)
	primLocks uint64                 // primary NIDs locked so far (Peer.lockSeq)

	slabs *peerSlabs // its own, or shared with the other nodes of the run (SharePeerSlabs)
}

// NewNode creates the LNet instance of node name on kernel k with global tunables tun (which
// must pass Validate). Add nets and NIs with AddNI, then call Startup.
func NewNode(k *sim.Kernel, name string, tun Tunables) (*Node, error) {
	if err := tun.Validate(); err != nil {
		return nil, fmt.Errorf("node %s: %w", name, err)
	}
	n := &Node{k: k, name: name, tun: tun, slabs: new(peerSlabs)}
	n.hid = k.Register(n)
	n.monitor = sim.Timer{H: n.hid, Kind: evMonitor}
	n.dcTimer = sim.Timer{H: n.hid, Kind: evDiscovery}
	n.sysH = sysHandler{n}
	n.registerInvariants()
	return n, nil
}

// Name returns the node's name.
func (n *Node) Name() string { return n.name }

// Kernel returns the simulation kernel.
func (n *Node) Kernel() *sim.Kernel { return n.k }

// Tunables returns the node's global tunables.
func (n *Node) Tunables() Tunables { return n.tun }

// SetTunables replaces the global tunables (as `lnetctl set`), after validation. Setting
// health_sensitivity to 0 forces retry_count to 0, as the kernel does.
func (n *Node) SetTunables(t Tunables) error {
	t.Normalize()
	if err := t.Validate(); err != nil {
		return err
	}
	n.tun = t
	n.routesChanged()
	return nil
}

// SetTracer installs a tracer (nil removes it).
func (n *Node) SetTracer(t Tracer) { n.tracer = t }

// Nets returns the local nets in configuration order.
func (n *Node) Nets() []*Net { return n.nets }

// NIs returns the local NIs in configuration order.
func (n *Node) NIs() []*NI { return n.nis }

// NI returns the local NI with nid, or nil.
func (n *Node) NI(nid NID) *NI { return n.niByNID.get(nid) }

func (n *Node) netByID(id NetID) *Net {
	for i, x := range n.netIDs {
		if x == id {
			return n.nets[i]
		}
	}
	return nil
}

// AddNI configures a local NI (`lnetctl net add`): nid on its net, run by lnd. The first NI
// of a net fixes the net's tunables (zero tunables mean the defaults) and its LND.
func (n *Node) AddNI(nid NID, lnd LND, tun NetTunables) (*NI, error) {
	if n.started {
		return nil, fmt.Errorf("node %s: add NIs before Startup", n.name)
	}
	return n.addNI(nid, lnd, tun)
}

// addNI creates a local NI (AddNI, ConfigNI).
func (n *Node) addNI(nid NID, lnd LND, tun NetTunables) (*NI, error) {
	if nid.Net().Type() == LOLND {
		return nil, fmt.Errorf("node %s: 0@lo is implicit", n.name)
	}
	if n.niByNID.get(nid) != nil {
		return nil, fmt.Errorf("node %s: duplicate NI %s", n.name, nid)
	}
	if lnd == nil {
		return nil, fmt.Errorf("node %s: NI %s has no LND", n.name, nid)
	}
	nt := n.netByID(nid.Net())
	newNet := nt == nil
	if nt == nil {
		if tun == (NetTunables{}) {
			tun = DefaultNetTunables()
		}
		if err := tun.Validate(); err != nil {
			return nil, fmt.Errorf("node %s net %s: %w", n.name, nid.Net(), err)
		}
		nt = &Net{ID: nid.Net(), Tunables: tun, SelPriority: ^uint32(0), lnd: lnd}
		nt.timeoutLND, _ = lnd.(TimeoutLND)
		n.nets = append(n.nets, nt)
		n.netIDs = append(n.netIDs, nt.ID)
	}
	tq := newTxQueues(nt.Tunables, n.ncpts())
	ni := &NI{node: n, nid: nid, net: nt, health: MaxHealth, status: NIStatusUp,
		SelPriority: ^uint32(0), tq: tq, txCredits: tq[0].credits * len(tq)}
	nt.nis = append(nt.nis, ni)
	n.nis = append(n.nis, ni)
	if newNet {
		n.routesChanged() // a new local net changes the gateways' peer NIs findRoute may use
	}
	n.niByNID.set(nid, ni)
	n.udspOnNewNI(ni, newNet)
	return ni, nil
}

// Startup starts every NI's LND, publishes the ping buffer, attaches the ping/push MDs and
// starts the monitor (models LNetNIInit).
func (n *Node) Startup() error {
	if n.started {
		return nil
	}
	for _, ni := range n.nis {
		if err := ni.net.lnd.Startup(ni); err != nil {
			return fmt.Errorf("node %s: NI %s: %w", n.name, ni.nid, err)
		}
		ni.active = true
	}
	n.started = true
	for _, nt := range n.nets {
		nt.lastAlive = wholeSecond(n.k.Now())
		for _, ni := range nt.nis {
			ni.lastAlive = nt.lastAlive
		}
	}
	n.startLo()
	n.newPingTarget()
	n.pingMD = n.allocMD(MDSpec{Length: n.pingTargetBytes(), Threshold: ThresholdInf, Options: MD_OP_GET | MD_TRUNCATE})
	n.attachSystemME(n.pingMD)
	n.pushMD = n.allocMD(MDSpec{Length: pingInfoMinSize, Threshold: ThresholdInf, Options: MD_OP_PUT | MD_TRUNCATE, Handler: &n.sysH, User: sysPush << 56})
	n.attachSystemME(n.pushMD)
	n.k.Arm(&n.monitor, n.k.Now())
	return nil
}

func (n *Node) attachSystemME(md *MD) {
	me := &ME{match: MatchSpec{Portal: ReservedPortal, Source: AnyNID, SourcePID: LNET_PID_ANY, MatchBits: PingMatchBits}, md: md}
	md.me = me
	for len(n.portals) <= ReservedPortal {
		n.portals = append(n.portals, nil)
	}
	n.portals[ReservedPortal] = append(n.portals[ReservedPortal], me)
}

// Shutdown stops the monitor and the LNDs (models LNetNIFini, simplified: queued messages are
// left unfinished).
func (n *Node) Shutdown() {
	if !n.started || n.shutdown {
		return
	}
	n.shutdown = true
	n.k.Disarm(&n.monitor)
	n.k.Disarm(&n.dcTimer)
	for _, ni := range n.nis {
		ni.net.lnd.Shutdown(ni)
	}
}

// Handle runs the node's events.
func (n *Node) Handle(kind int, arg uint64) {
	switch kind {
	case evMonitor:
		n.monitorPass()
	case evResendKick:
		n.kickArmed = false
		n.monitorPass()
	case evDelayRelease:
		n.releaseDelayed(MsgRef(arg))
	case evDiscovery:
		n.runDiscoveryQueue()
	}
}

// monitorPass is one pass of lnet_monitor_thread: check routers, resend queued messages, expire response
// trackers (at the first pass and then every transaction_timeout/2 whole seconds), recover
// local NIs, recover peer NIs, build the new ping target an LND asked for (SetNIFatal); then
// sleep 1 s. A message queued for resend or an LND's request wakes the monitor early
// (evResendKick, wakeMonitor), which runs a full pass and restarts the 1 s sleep, as the
// kernel's completion does.
func (n *Node) monitorPass() {
	if n.shutdown {
		return
	}
	now := n.k.Now()
	if n.routing {
		n.routingStateCheck()
		n.updateNIStatus()
	}
	if len(n.gateways) > 0 {
		n.checkRouters()
	}
	n.resendPending()
	if sec := n.nowSeconds(); sec >= n.nextRspCheck {
		n.nextRspCheck = sec + sim.Time(n.tun.TransactionTimeout/2)*sim.Second
		n.expireResponses()
	}
	n.recoverLocalNIs()
	n.recoverPeerNIs()
	if n.pbUpdate {
		// lnet_queue_ping_buffer_update: the LND asked for a new ping target.
		n.pbUpdate = false
		n.newPingTarget()
		n.pushUpdateToPeers(false)
	}
	n.k.Arm(&n.monitor, now+sim.Second)
}

// isLocalNID reports whether nid is one of this node's NIs.
func (n *Node) isLocalNID(nid NID) bool { return n.niByNID.get(nid) != nil }

// SetNIHealth models lnet_ni_set_healthv, a local NI's health set by hand (`lnetctl net set
// --nid X --health V`): values below 1000 put the NI on the recovery queue without touching
// its next ping time; 0 and 1000 set the NI's word DOWN and UP (niStatusFromHealth: in place,
// no push), even when the health was that already.
func (n *Node) SetNIHealth(nid NID, v int) error {
	ni := n.niByNID.get(nid)
	if ni == nil {
		return fmt.Errorf("no local NI %s", nid)
	}
	if v < 0 || v > MaxHealth {
		return fmt.Errorf("health %d out of range 0..%d", v, MaxHealth)
	}
	n.setNIHealth(ni, v, CauseManual)
	n.niStatusFromHealth(ni) // lnet_ni_set_healthv sets the word at 0 or 1000 even if unchanged
	if v < MaxHealth && !ni.inRecovery {
		ni.inRecovery = true
		n.localRecov = append(n.localRecov, ni)
	}
	return nil
}

// SetNIFatal sets or clears an NI's fatal state as an LND does on a port, device or link
// event: lnet_set_link_fatal_state (ni_fatal_error_on), then the LND's request for a new ping
// target (kiblnd_set_ni_fatal_on, ksocknal_handle_link_state_change:
// lnet_mark_ping_buffer_for_update, which a router ignores). The request wakes the monitor,
// which builds the new target with the NI's status DOWN (or, once cleared, its word) and
// pushes it (lnet_queue_ping_buffer_update). A router advertises the fatal NI at its next
// monitor pass instead (updateNIStatus). Clearing the state leaves the ping buffer word as
// it is, but from master (LU-20093) a fully healthy NI's word goes UP at once and is pushed.
// An NI not yet active (its LND starting it up) requests nothing: the first ping target
// takes its state.
//
// Release rules: NoLinkFatalState (2.12) makes this a no-op, as no 2.12 LND sets the state
// on these events; FatalNotAdvertised (up to 2.15) requests no new target;
// FatalClearLeavesStatus (up to 2.17) leaves the word alone on clearing.
func (n *Node) SetNIFatal(ni *NI, fatal bool) {
	if ni.fatal == fatal || n.tun.Profile.NoLinkFatalState {
		return
	}
	old := ni.Status()
	ni.fatal = fatal
	n.traceNIStatus(ni, old)
	if !n.started || !ni.active {
		return
	}
	if !fatal && !n.tun.Profile.FatalClearLeavesStatus && ni.health == MaxHealth {
		n.setNIStatus(ni, NIStatusUp)
	}
	if !n.tun.Profile.FatalNotAdvertised && !n.routing {
		n.pbUpdate = true
		n.wakeMonitor()
	}
}

// wakeMonitor wakes the monitor now for a full pass (complete(&ln_mt_wait_complete)), once
// however many ask before it runs.
func (n *Node) wakeMonitor() {
	if !n.kickArmed {
		n.kickArmed = true
		n.k.After(0, n.hid, evResendKick, 0)
	}
}

// LocalRecoveryQueue lists the NIDs on the local NI recovery queue (`lnetctl debug recovery -l`).
func (n *Node) LocalRecoveryQueue() []NID {
	out := make([]NID, 0, len(n.localRecov))
	for _, ni := range n.localRecov {
		out = append(out, ni.nid)
	}
	return out
}

// PeerRecoveryQueue lists the NIDs on the peer NI recovery queue (`lnetctl debug recovery -p`).
func (n *Node) PeerRecoveryQueue() []NID {
	out := make([]NID, 0, len(n.peerRecov))
	for _, lpni := range n.peerRecov {
		out = append(out, lpni.nid)
	}
	return out
}

// nonLoNIs is the number of this node's non-loopback interfaces (the ping buffer minus lo).
func (n *Node) nonLoNIs() int { return len(n.nis) }
