package lnet

import (
	"fmt"

	"github.com/lnetsim/lnetsim/internal/slab"
	"github.com/lnetsim/lnetsim/sim"
)

// PeerNIStats are a peer NI's traffic counters (`peer show -v`, statistics:).
type PeerNIStats struct {
	SendCount uint64 `yaml:"send_count"`
	RecvCount uint64 `yaml:"recv_count"`
	DropCount uint64 `yaml:"drop_count"`

	Sent     TypeCounts `yaml:"sent_stats"`
	Received TypeCounts `yaml:"received_stats"`
	Dropped  TypeCounts `yaml:"dropped_stats"`
}

// Add adds o's counts to s (summing peer NIs: counters.yaml's per-group aggregates).
func (s *PeerNIStats) Add(o *PeerNIStats) {
	s.SendCount += o.SendCount
	s.RecvCount += o.RecvCount
	s.DropCount += o.DropCount
	s.Sent.Add(&o.Sent)
	s.Received.Add(&o.Received)
	s.Dropped.Add(&o.Dropped)
}

// PeerNIHealthStats are a peer NI's health counters (`peer show -v`, health stats:).
type PeerNIHealthStats struct {
	Dropped        uint64 `yaml:"dropped"`
	Timeout        uint64 `yaml:"timeout"`
	Error          uint64 `yaml:"error"`
	NetworkTimeout uint64 `yaml:"network timeout"`
	PingCount      int    `yaml:"ping_count"`
	NextPing       int64  `yaml:"next_ping"`
}

// Add adds o's fields to s, every one (next_ping included, as a reflective sum of the struct
// would: counters.yaml's per-group aggregates).
func (s *PeerNIHealthStats) Add(o *PeerNIHealthStats) {
	s.Dropped += o.Dropped
	s.Timeout += o.Timeout
	s.Error += o.Error
	s.NetworkTimeout += o.NetworkTimeout
	s.PingCount += o.PingCount
	s.NextPing += o.NextPing
}

// Peer is a remote node as this node knows it (struct lnet_peer): multi-rail or not, with its
// peer nets and peer NIs.
type Peer struct {
	// What sending and route selection read, in the first cache line (a Peer is 256 bytes,
	// four whole lines: TestPeerLayout): lnet_peer_is_uptodate and lnet_peer_needs_push's
	// inputs are all here.
	primary     NID
	nets        []*PeerNet
	discPush    *MD    // the discovery push in flight (LNET_PEER_PUSH_SENT)
	sendSeq     uint32 // selection's round robin
	nodeSeq     uint32 // lp_node_seqno: the sequence of this node's ping buffer the peer ACKed
	mr          bool   // LNET_PEER_MULTI_RAIL
	config      bool   // configured by hand (lnetctl peer add)
	lockPrim    bool   // LNET_PEER_LOCK_PRIMARY: its primary NID stays (peer add --lock_prim)
	badConfig   bool   // LNET_PEER_BAD_CONFIG: a NID it was given is another locked peer's
	deleted     bool   // LNET_PEER_MARK_DELETED: deleted (lnet_peer_del), its NIDs gone
	rtrEnabled  bool   // LNET_PEER_ROUTER_ENABLED: its last merged ping buffer advertised routing
	noDiscovery bool   // LNET_PEER_NO_DISCOVERY: the peer's discovery is off, or ours was at its last reply
	discovered  bool   // LNET_PEER_DISCOVERED: a discovery has completed; kept while it is rediscovered
	discovering bool
	rediscover  bool // LNET_PEER_REDISCOVER: its last discovery failed, so the next send discovers it again
	forcePing   bool // LNET_PEER_FORCE_PING: a discovery ping failed, so the next discovery pings
	forcePush   bool // LNET_PEER_FORCE_PUSH
	isRouter    bool // a gateway of some route (lnet_peer_is_router)
	alive       bool // lp_alive: a gateway believed alive (read on every routed receive)

	node *Node
	gw   *gwState // gateway state, nil if the peer is no gateway
	nis  []*PeerNI

	// Discovery (lnet_peer_discovery's per-peer state; see discovery.go).
	discPing *MD         // the discovery ping in flight (LNET_PEER_PING_SENT)
	data     *PingBuffer // a received push or ping reply not merged yet (lp_data, LNET_PEER_DATA_PRESENT)
	// pingFailed and pushFailed are LNET_PEER_PING_FAILED and PUSH_FAILED: the ping's or
	// push's failure (lp_ping_error, lp_push_error: pingErr, pushErr) waits for the next
	// discovery step, which a peer not up to date takes at once.
	pingErr, pushErr int
	discSrc          NID    // lp_disc_src_nid: the local NI the last ping reply came to
	discDst          NID    // lp_disc_dst_nid: the peer NI it came from
	lockSeq          uint64 // lp_prim_lock_ts as an order: when its primary NID was locked
	mergePrim        NID    // lp_merge_primary_nid: the primary NID to take at its next merge (AddPeerNIDs)
	dataBytes        int    // lp_data_bytes: the size the peer's ping buffer needs, 0 until seen
	pushSeq          uint32 // the sequence of the buffer the push in flight carries
	// rtrDiscovered is LNET_PEER_RTR_DISCOVERED: a discovery of the peer completed, with or
	// without an error, while it was a gateway (routerDiscoveryComplete); never cleared.
	rtrDiscovered          bool
	dataReply              bool // data came in a ping reply (lnet_discovery_event_reply), not a push
	pingFailed, pushFailed bool
	checkerPush            bool // the push in flight is the router checker's (sendRouterPing's reply)
	uptodate               bool // LNET_PEER_NIDS_UPTODATE: the peer's NIDs were merged from its buffer
	dcQueued               bool // on the node's discovery queue (lp_dc_list)

	pending msgQueue // messages waiting for discovery (LNET_DC_WAIT)
	rtrq    msgQueue // routed messages waiting for a router credit of one of its NIs (lp_rtrq)
}

// Primary returns the peer's primary NID.
func (p *Peer) Primary() NID { return p.primary }

// MultiRail reports whether the peer is handled as multi-rail.
func (p *Peer) MultiRail() bool { return p.mr }

// Discovered reports whether a discovery has completed for the peer (LNET_PEER_DISCOVERED:
// it stays set while the peer is discovered again and after that discovery fails).
func (p *Peer) Discovered() bool { return p.discovered }

// upToDate models lnet_peer_is_uptodate, what a message to p asks before it goes without
// discovery: p is discovered, not being discovered, its last discovery did not fail
// (LNET_PEER_REDISCOVER), no ping or push is forced (FORCE_PING, FORCE_PUSH: the router
// checker's forced push waits here while another push is in flight), and it needs no push
// (lnet_peer_needs_push).
func (n *Node) upToDate(p *Peer) bool {
	return p.discovered && !p.discovering && !p.rediscover && !p.forcePing && !p.forcePush && !n.needsPush(p)
}

// NIs returns the peer's NIs in the order they were learnt.
func (p *Peer) NIs() []*PeerNI { return p.nis }

// WalkNIs returns the peer's NIs in the order the kernel walks them
// (lnet_get_next_peer_ni_locked), as lnetctl prints them: see kernelOrder.
func (p *Peer) WalkNIs() []*PeerNI { return p.kernelOrder() }

// Nets returns the peer's nets.
func (p *Peer) Nets() []*PeerNet { return p.nets }

// PeerNet is a peer's presence on one net (struct lnet_peer_net).
type PeerNet struct {
	peer        *Peer
	id          NetID // the net of every one of its peer NIs' NIDs (selection reads lpni.nid.Net())
	nis         []*PeerNI
	health      int
	seq         uint32
	SelPriority uint32 // lpn_sel_priority (UDSP dst net rule)

	_ [8]byte // to 64 bytes: a peer net of a slab chunk is one whole cache line
}

// ID returns the net.
func (pn *PeerNet) ID() NetID { return pn.id }

// Health returns lpn_healthv, the best health of its peer NIs.
func (pn *PeerNet) Health() int { return pn.health }

func (pn *PeerNet) updateHealth() {
	best := 0
	for _, lpni := range pn.nis {
		if lpni.health > best {
			best = lpni.health
		}
	}
	pn.health = best
}

// PeerNI is one NID of a peer (struct lnet_peer_ni). What sending, receiving, selecting
// and finalizing touch comes first, by cache line (448 bytes, a line-aligned size class):
// the first holds what choosing among a gateway's peer NIs compares for each route on every
// routed send (health, priority, credits, queued bytes, sequence, status) and the flags a
// receive sets; the second the credit low-water mark, the time last heard from and the
// recovery state (a successful receive clears its ping count); the third what a send
// counts, the fourth what a receive counts and the router credits; then the preference
// lists, the drops, the queue and the rest. At tens of thousands of peer NIs they do not stay
// in cache, and a message's hop touches each line it reads.
type PeerNI struct {
	peer *Peer
	pnet *PeerNet
	nid  NID

	health      int
	txCredits   int
	txqnob      int
	seq         uint32
	status      NIStatus
	SelPriority uint32 // lpni_sel_priority (UDSP dst rule)
	heardFrom   bool   // lpni_last_alive != 0
	nonMRPref   bool   // prefNIDs was set by the non-MR rule (cleared when the peer turns MR)
	notified    bool   // lpni_notified: an lnet_notify report was applied

	minTxCredits  int
	lastAlive     sim.Time
	recoveryState // peer NI recovery (ln_mt_peerNIRecovq); a success clears its ping count
	maxTxCredits  int
	maxRtrCredits int

	// The traffic counters (PeerNIStats, made by Stats), each direction's in its own line:
	// a send counts in sent, a receive in received (beside the router credits it takes).
	sent        typedCount
	notifyStamp sim.Time   // lpni_timestamp: time of the last lnet_notify report
	lat         *opLatency // lpni_latency (master), allocated on the first sample; received starts a line
	received    typedCount
	// Router credits (lpni_rtrcredits), used when this node forwards.
	rtrCredits, minRtrCredits int

	prefNIDs []NID // preferred local NIDs
	rtrPref  []NID // lpni_rtr_pref_nids: preferred gateways' primary NIDs (UDSP rte rule)
	dropped  typedCount

	txq    msgQueue
	hstats PeerNIHealthStats

	// LNDData is free for the LND's per-peer-NI state.
	LNDData any
}

// typedCount is one direction's message count with its per-type counts (48 bytes).
type typedCount struct {
	count uint64
	types TypeCounts
}

// inc counts one message of statistics type t.
func (c *typedCount) inc(t MsgType) {
	c.count++
	c.types.inc(t)
}

// NID returns the peer NI's NID.
func (lpni *PeerNI) NID() NID { return lpni.nid }

// Peer returns the peer the NI belongs to.
func (lpni *PeerNI) Peer() *Peer { return lpni.peer }

// Health returns lpni_healthv.
func (lpni *PeerNI) Health() int { return lpni.health }

// Status returns the cached advertised status (from discovery, received messages, notify).
func (lpni *PeerNI) Status() NIStatus { return lpni.status }

// TxCredits returns the available, maximum and minimum-seen tx credits.
func (lpni *PeerNI) TxCredits() (avail, max, min int) {
	return lpni.txCredits, lpni.maxTxCredits, lpni.minTxCredits
}

// RtrCredits returns the available, maximum and minimum-seen router credits.
func (lpni *PeerNI) RtrCredits() (avail, max, min int) {
	return lpni.rtrCredits, lpni.maxRtrCredits, lpni.minRtrCredits
}

// TxQueued returns how many messages wait for a credit (tx_q_num_of_buf).
func (lpni *PeerNI) TxQueued() int { return lpni.txq.Len() }

// Stats returns the peer NI's traffic counters.
func (lpni *PeerNI) Stats() PeerNIStats {
	return PeerNIStats{SendCount: lpni.sent.count, RecvCount: lpni.received.count, DropCount: lpni.dropped.count,
		Sent: lpni.sent.types, Received: lpni.received.types, Dropped: lpni.dropped.types}
}

// HealthStats returns the peer NI's health counters.
func (lpni *PeerNI) HealthStats() PeerNIHealthStats {
	h := lpni.hstats
	h.PingCount, h.NextPing = lpni.pingStats()
	return h
}

// InRecovery reports whether the peer NI is on the peer recovery queue.
func (lpni *PeerNI) InRecovery() bool { return lpni.inRecovery }

// isPreferred reports whether nid is one of the lpni's preferred local NIDs.
func (lpni *PeerNI) isPreferred(nid NID) bool {
	for _, p := range lpni.prefNIDs {
		if p == nid {
			return true
		}
	}
	return false
}

// peerCreditsFor is the initial peer NI tx credits: the local net's peer_credits, or the
// default when the NI is on no local net.
func (n *Node) peerCreditsFor(net NetID) int {
	if nt := n.netByID(net); nt != nil {
		return nt.Tunables.PeerCredits
	}
	return DefaultNetTunables().PeerCredits
}

// peerBufferCreditsFor models lnet_peer_buffer_credits: the net's peer_buffer_credits if set,
// else the module's peer_buffer_credits if set, else the net's peer_credits.
func (n *Node) peerBufferCreditsFor(net NetID) int {
	nt := n.netByID(net)
	switch {
	case nt != nil && nt.Tunables.PeerBufferCredits > 0:
		return nt.Tunables.PeerBufferCredits
	case n.tun.PeerBufferCredits > 0:
		return n.tun.PeerBufferCredits
	}
	return n.peerCreditsFor(net)
}

// findPeerNI returns the peer NI for nid, or nil.
func (n *Node) findPeerNI(nid NID) *PeerNI { return n.peerNIs.get(nid) }

// PeerNI returns the peer NI for nid, or nil if the node does not know it.
func (n *Node) PeerNI(nid NID) *PeerNI { return n.findPeerNI(nid) }

// Peers returns the node's peers in creation order.
func (n *Node) Peers() []*Peer { return n.peers }

// nid2peerni finds or creates the peer NI for nid (models lnet_nid2peerni_locked): a NID seen
// for the first time creates a non-MR peer with that NID as primary.
func (n *Node) nid2peerni(nid NID) *PeerNI {
	if lpni := n.peerNIs.get(nid); lpni != nil {
		return lpni
	}
	p := n.newPeer(nid)
	n.peers = append(n.peers, p)
	return n.addPeerNI(p, nid)
}

// peerSlabs allocate peers, peer nets and peer NIs, and the first array of each of their
// lists, in chunks (internal/slab): discovery and the first messages create tens of
// thousands of them in the first millisecond of a large cluster, and they live until the
// node is shut down. The nodes of a run share one (SharePeerSlabs), so that a thousand nodes
// do not each leave a last chunk partly empty.
type peerSlabs struct {
	peers   slab.Slab[Peer]
	nets    slab.Slab[PeerNet]
	nis     slab.Slab[PeerNI]
	netRefs slab.Slab[[2]*PeerNet]
	niRefs  slab.Slab[[2]*PeerNI]
}

// SharePeerSlabs makes n allocate its peers from the slabs o allocates from. Both must run on
// the same kernel (one goroutine); on different kernels n keeps its own.
func (n *Node) SharePeerSlabs(o *Node) {
	if o.k == n.k {
		n.slabs = o.slabs
	}
}

// newPeer returns a new peer with primary NID nid and no NIs (lnet_peer_alloc): the peer of
// 0@lo has no discovery (LNET_PEER_NO_DISCOVERY) until a ping reply says otherwise.
func (n *Node) newPeer(nid NID) *Peer {
	p := n.slabs.peers.New()
	p.node, p.primary, p.noDiscovery = n, nid, nid == LoNID
	return p
}

// addPeerNI attaches a new peer NI for nid to p (models lnet_peer_attach_peer_ni).
func (n *Node) addPeerNI(p *Peer, nid NID) *PeerNI {
	c := n.peerCreditsFor(nid.Net())
	rc := n.peerBufferCreditsFor(nid.Net())
	lpni := n.slabs.nis.New()
	lpni.nid, lpni.health, lpni.status = nid, MaxHealth, n.peerNIStartStatus()
	lpni.SelPriority = ^uint32(0)
	lpni.txCredits, lpni.maxTxCredits, lpni.minTxCredits = c, c, c
	lpni.rtrCredits, lpni.maxRtrCredits, lpni.minRtrCredits = rc, rc, rc
	n.attachPeerNI(p, lpni)
	n.peerNIs.set(nid, lpni)
	return lpni
}

// attachPeerNI links lpni into p's net and NI lists (lnet_peer_attach_peer_ni): the primary
// NID's NI goes first in its net, and a new net of it first in the peer (from 2.14.53,
// LU-13806); selection and lnetctl walk these lists in order.
func (n *Node) attachPeerNI(p *Peer, lpni *PeerNI) {
	nid := lpni.nid
	var pn *PeerNet
	for _, x := range p.nets {
		if x.id == nid.Net() {
			pn = x
		}
	}
	newNet := pn == nil
	if pn == nil {
		pn = n.slabs.nets.New()
		pn.peer, pn.id, pn.SelPriority = p, nid.Net(), ^uint32(0)
		p.nets = slab.Append(p.nets, pn, &n.slabs.netRefs)
	}
	lpni.peer, lpni.pnet = p, pn
	pn.nis = slab.Append(pn.nis, lpni, &n.slabs.niRefs)
	if nid == p.primary && !n.tun.Profile.PeerNIsInAttachOrder {
		copy(pn.nis[1:], pn.nis[:len(pn.nis)-1])
		pn.nis[0] = lpni
		if newNet {
			copy(p.nets[1:], p.nets[:len(p.nets)-1])
			p.nets[0] = pn
		}
	}
	pn.updateHealth()
	p.nis = slab.Append(p.nis, lpni, &n.slabs.niRefs)
	n.routesChanged()
	n.udspOnNewPeerNI(lpni, newNet)
}

// unlinkPeerNI takes lpni out of its peer's net and NI lists (lnet_peer_detach_peer_ni_locked),
// leaving it findable by its NID.
func unlinkPeerNI(lpni *PeerNI) {
	p, pn := lpni.peer, lpni.pnet
	p.nis = removePtr(p.nis, lpni)
	pn.nis = removePtr(pn.nis, lpni)
	if len(pn.nis) == 0 {
		p.nets = removePtr(p.nets, pn)
	} else {
		pn.updateHealth()
	}
}

// movePeerNI models lnet_peer_attach_peer_ni for a peer NI of another peer: it leaves that
// peer (lnet_peer_detach_peer_ni_locked), which is queued for discovery if it was discovered,
// and joins p with its credits, health and counters.
func (n *Node) movePeerNI(lpni *PeerNI, p *Peer) {
	old := lpni.peer
	unlinkPeerNI(lpni)
	if old.discovered && n.tun.Discovery {
		n.queueDiscovery(old)
	}
	n.attachPeerNI(p, lpni)
}

// primaryFirst models the end of lnet_peer_merge_data (from 2.14.53, LU-13806): the net of the
// buffer's primary NID comes first among the peer's nets and its NI first in that net.
func (n *Node) primaryFirst(p *Peer, prim NID) {
	lpni := n.peerNIs.get(prim)
	if lpni == nil || lpni.peer != p || n.tun.Profile.PeerNIsInAttachOrder {
		return
	}
	pn := lpni.pnet
	pn.nis = removePtr(pn.nis, lpni)
	pn.nis = append(pn.nis[:1], pn.nis...)
	pn.nis[0] = lpni
	p.nets = removePtr(p.nets, pn)
	p.nets = append(p.nets[:1], p.nets...)
	p.nets[0] = pn
}

// deletePeer models lnet_peer_del, a peer merged into another by discovery: its discovery is
// cancelled (the ping and push in flight unlinked, a router check's ping too), it is marked
// deleted and every one of its NIs leaves it and the NID table (lnet_peer_del_locked); a
// peer being discovered is queued,
// so that the discovery thread completes it (lnet_peer_deletion) and its waiting messages are
// sent again, to whichever peer their NID belongs to then.
func (n *Node) deletePeer(p *Peer) {
	ping, push := p.discPing, p.discPush
	p.discPing, p.discPush = nil, nil
	if g := p.gw; g != nil && g.ping != nil {
		// A router check is the gateway's discovery ping (LNET_PEER_RTR_DISCOVERY):
		// cancelled with it, and forgotten (its routes have moved to another peer).
		md := g.ping
		g.ping = nil
		n.mdUnlink(md, 0)
	}
	p.deleted = true
	for len(p.nis) > 0 {
		x := p.nis[0]
		n.dropPeerRecovery(x)
		n.detachPeerNI(x)
	}
	n.removePeer(p)
	if ping != nil {
		n.mdUnlink(ping, 0)
	}
	if push != nil {
		n.mdUnlink(push, 0)
	}
	if p.discovering {
		n.queueDiscovery(p)
	}
}

// Peer state bits as the kernel numbers them (lp_state, LNET_PEER_* in lib-types.h), those the
// model keeps.
const (
	peerStateMultiRail     = 1 << 0
	peerStateNoDiscovery   = 1 << 1
	peerStateRouterEnabled = 1 << 2
	peerStateConfigured    = 1 << 3
	peerStateDiscovered    = 1 << 4
	peerStateRediscover    = 1 << 5
	peerStateDiscovering   = 1 << 6
	peerStateDataPresent   = 1 << 7
	peerStateNIDsUptodate  = 1 << 8
	peerStatePingSent      = 1 << 9
	peerStatePushSent      = 1 << 10
	peerStatePingFailed    = 1 << 11
	peerStatePushFailed    = 1 << 12
	peerStateForcePing     = 1 << 13
	peerStateForcePush     = 1 << 14
	peerStateRtrDiscovery  = 1 << 16
	peerStateRtrDiscovered = 1 << 17
	peerStateMarkDeleted   = 1 << 19
	peerStateLockPrimary   = 1 << 20
	peerStateBadConfig     = 1 << 21
)

// state is the peer's lp_state as `lnetctl peer show -v 3` prints it (`peer state`), from the
// flags the model keeps. Deliberately 0: RTR_NI_FORCE_DEL and MARK_DELETION (no state the
// model keeps matches them).
func (p *Peer) state() uint32 {
	var s uint32
	for _, b := range []struct {
		on  bool
		bit uint32
	}{
		{p.mr, peerStateMultiRail}, {p.noDiscovery, peerStateNoDiscovery},
		{p.rtrEnabled, peerStateRouterEnabled}, {p.config, peerStateConfigured},
		{p.discovered, peerStateDiscovered}, {p.discovering, peerStateDiscovering},
		{p.data != nil, peerStateDataPresent}, {p.uptodate, peerStateNIDsUptodate},
		{p.discPing != nil, peerStatePingSent}, {p.discPush != nil, peerStatePushSent},
		{p.pingFailed, peerStatePingFailed}, {p.pushFailed, peerStatePushFailed},
		{p.rediscover, peerStateRediscover}, {p.forcePing, peerStateForcePing}, {p.forcePush, peerStateForcePush}, {p.gw != nil && p.gw.ping != nil, peerStateRtrDiscovery},
		{p.rtrDiscovered, peerStateRtrDiscovered},
		{p.lockPrim, peerStateLockPrimary}, {p.deleted, peerStateMarkDeleted}, {p.badConfig, peerStateBadConfig},
	} {
		if b.on {
			s |= b.bit
		}
	}
	return s
}

// peerState is p's lp_state in the bit layout of the node's release: up to 2.12 (before
// LU-11300's router discovery, RouterCheckerPing) there is no ROUTER_ENABLED bit, so every
// flag above NO_DISCOVERY sits one bit lower, and the router discovery and later flags
// (RTR_DISCOVERY, RTR_DISCOVERED, LOCK_PRIMARY) do not exist.
func (n *Node) peerState(p *Peer) uint32 {
	s := p.state()
	if !n.tun.Profile.RouterCheckerPing {
		return s
	}
	const low = peerStateMultiRail | peerStateNoDiscovery
	s &^= peerStateRouterEnabled | peerStateRtrDiscovery | peerStateRtrDiscovered | peerStateMarkDeleted |
		peerStateLockPrimary | peerStateBadConfig
	return s&low | (s&^low)>>1
}

// LockPrimary locks the peer's primary NID (LNET_PEER_LOCK_PRIMARY, as lnetctl peer add
// --lock_prim or an imported peer's lock_prim sets it): deleting the peer without force only
// removes its other NIDs (DelPeer).
func (p *Peer) LockPrimary() { p.node.lockPrimary(p) }

// lockPrimary sets LNET_PEER_LOCK_PRIMARY on p and records when (lp_prim_lock_ts, as an
// order: of two locked peers merged by discovery the one locked first keeps its primary NID).
func (n *Node) lockPrimary(p *Peer) {
	n.primLocks++
	p.lockPrim, p.lockSeq = true, n.primLocks
}

// AddPeer configures a peer by hand (`lnetctl peer add --prim_nid P --nid N1,N2 [--non_mr]`):
// the peer gets the given NIs and is multi-rail unless nonMR. A NID already known as another
// peer's primary-only peer is merged into this one; that peer's routes, if it is a gateway,
// go to this one first and it is deleted (lnet_peer_add_nid: LNET_PEER_RTR_NI_FORCE_DEL,
// lnet_rtr_transfer_to_peer, lnet_peer_del; transferRoutes).
func (n *Node) AddPeer(primary NID, nids []NID, nonMR bool) (*Peer, error) {
	var p *Peer
	if lpni := n.peerNIs.get(primary); lpni != nil {
		p = lpni.peer
	} else {
		p = n.newPeer(primary)
		n.peers = append(n.peers, p)
		n.addPeerNI(p, primary)
	}
	p.setMultiRail(!nonMR)
	p.config = true
	for _, nid := range nids {
		if nid == primary {
			continue
		}
		if old := n.peerNIs.get(nid); old != nil {
			if old.peer == p {
				continue
			}
			if len(old.peer.nis) > 1 {
				return nil, fmt.Errorf("NID %s already belongs to peer %s", nid, old.peer.primary)
			}
			if old.peer.rtrRefcount() > 0 {
				n.transferRoutes(old.peer, p)
				n.deletePeer(old.peer)
			} else {
				n.removePeer(old.peer)
			}
		}
		n.addPeerNI(p, nid)
	}
	return p, nil
}

// removePeer forgets an idle single-NI peer (used when merging peers).
func (n *Node) removePeer(p *Peer) {
	for _, lpni := range p.nis {
		n.peerNIs.del(lpni.nid)
	}
	for i, x := range n.peers {
		if x == p {
			n.peers = append(n.peers[:i], n.peers[i+1:]...)
			break
		}
	}
}

// SetPreferredNIDs sets the preferred local NIDs of a peer NI (`lnetctl udsp` / NMR pref).
func (lpni *PeerNI) SetPreferredNIDs(nids ...NID) {
	lpni.prefNIDs = append([]NID(nil), nids...)
	lpni.nonMRPref = false
}

// setMultiRail models the peer turning multi-rail: the non-MR preferred NIDs are cleared
// (lnet_peer_clr_non_mr_pref_nids).
func (p *Peer) setMultiRail(mr bool) {
	if mr && !p.mr {
		for _, lpni := range p.nis {
			if lpni.nonMRPref {
				lpni.prefNIDs = nil
				lpni.nonMRPref = false
			}
		}
	}
	p.mr = mr
	p.node.routesChanged()
}

// SetPeerHealth sets a peer NI's health by hand (`lnetctl peer set --nid X --health V`).
func (n *Node) SetPeerHealth(nid NID, v int) error {
	lpni := n.findPeerNI(nid)
	if lpni == nil {
		return fmt.Errorf("no peer NI %s", nid)
	}
	if v < 0 || v > MaxHealth {
		return fmt.Errorf("health %d out of range 0..%d", v, MaxHealth)
	}
	n.setPeerHealth(lpni, v, CauseManual)
	if v < MaxHealth {
		n.peerNIAddToRecovery(lpni)
	}
	return nil
}
