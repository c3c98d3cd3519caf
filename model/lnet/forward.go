package lnet

import (
	"github.com/lnetsim/lnetsim/sim"
)

// RouterPoolShow is one router buffer pool as `lnetctl routing show` prints it (per CPT).
type RouterPoolShow struct {
	NPages     int `yaml:"npages"`
	NBuffers   int `yaml:"nbuffers"`
	Credits    int `yaml:"credits"`
	MinCredits int `yaml:"mincredits"`
	Queued     int `yaml:"-"` // messages waiting on rbp_msgs (lnetctl does not print it)
}

// RouterStats are counters of this node's routing that lnetctl does not show under one name.
type RouterStats struct {
	Forwarded   uint64 // messages received for another node and forwarded (route_count)
	Expired     uint64 // routed messages dropped past their deadline (opt-in expiry policy)
	Dropped     uint64 // routed messages dropped otherwise (routing off, asymmetric route, not forwardable)
	RtrPings    uint64 // router checker pings sent
	RtrPingFail uint64 // router checker pings that failed or timed out
}

// rtrPool is one router buffer pool (struct lnet_rtrbufpool) of one CPT; a node has
// numRtrPools per CPT (the_lnet.ln_rtrpools[cpt][i]).
type rtrPool struct {
	npages     int
	nbuffers   int
	reqBuffers int // rbp_req_nbuffers: buffers beyond it are freed as they come back
	credits    int
	minCredits int
	msgs       msgQueue // rbp_msgs
}

// Router buffer pool indices and sizes (LNET_TINY_BUF_IDX..LNET_LARGE_BUF_IDX).
const (
	pageSize    = 4096
	numRtrPools = 3
	largeNPages = LNET_MTU / pageSize
)

// Routing reports whether the node forwards messages (lnet_routing_enabled: true while
// starting and stopping too).
func (n *Node) Routing() bool { return n.routing }

// Routing states (LNET_ROUTING_DISABLED/ENABLED/STOPPING/STARTING).
const (
	rtrDisabled = iota
	rtrEnabled
	rtrStopping
	rtrStarting
)

var rtrStateNames = [...]string{"disabled", "enabled", "stopping", "starting"}

// RoutingState returns "disabled", "enabled", "starting" or "stopping".
func (n *Node) RoutingState() string { return rtrStateNames[n.rtrState] }

// rtrSettle is the minimum time routing spends starting or stopping:
// alive_router_check_interval + router_ping_timeout.
func (n *Node) rtrSettle() sim.Time {
	return sim.Time(max(n.tun.AliveRouterCheckInt, 0)+n.tun.RouterPingTimeout) * sim.Second
}

// routingStateCheck is the monitor's handling of the routing transitions
// (lnet_check_routers): a starting router advertises routing once it has been starting for
// rtrSettle; a stopping one stops forwarding after rtrSettle once no router buffer is in
// use, or after 3 x rtrSettle regardless (dropping what still waits).
func (n *Node) routingStateCheck() {
	now := n.k.Now()
	switch n.rtrState {
	case rtrStarting:
		if now >= n.rtrSince+n.rtrSettle() {
			n.rtrState = rtrEnabled
			n.advertiseRouting()
		}
	case rtrStopping:
		busy := false
		for _, p := range n.rtrPools {
			busy = busy || p.credits != p.nbuffers
		}
		if now >= n.rtrSince+3*n.rtrSettle() || !busy && now >= n.rtrSince+n.rtrSettle() {
			n.rtrState = rtrDisabled
			n.routing = false
			n.dropAllRouted()
		}
	}
}

// advertiseRouting publishes a change of the routing feature bit (LNET_PING_FEAT_RTE_DISABLED)
// in the ping buffer. Like lnet_rtrpools_disable and lnet_enable_routing, which edit the bit
// in place, it pushes nothing: peers see it at their next ping (a gateway's users at their
// next router check).
func (n *Node) advertiseRouting() {
	if n.started {
		n.updatePingBuffer()
	}
}

// RouterPools returns the router buffer pools (tiny, small, large), each summed over the
// CPTs (nbuffers, credits, mincredits and queued added up; with one CPT, `lnetctl routing
// show`'s cpt[0]); nil when routing has never been enabled. RouterPoolsCPT has them per CPT.
func (n *Node) RouterPools() []RouterPoolShow {
	if n.rtrPools == nil {
		return nil
	}
	out := make([]RouterPoolShow, numRtrPools)
	for _, c := range n.RouterPoolsCPT() {
		for i, p := range c {
			o := &out[i]
			o.NPages = p.NPages
			o.NBuffers += p.NBuffers
			o.Credits += p.Credits
			o.MinCredits += p.MinCredits
			o.Queued += p.Queued
		}
	}
	return out
}

// RouterPoolsCPT returns the router buffer pools of each CPT (tiny, small, large), as
// `lnetctl routing show` prints them under cpt[i]; nil when routing has never been enabled.
func (n *Node) RouterPoolsCPT() [][]RouterPoolShow {
	if n.rtrPools == nil {
		return nil
	}
	out := make([][]RouterPoolShow, 0, n.ncpts())
	for c := 0; c < len(n.rtrPools); c += numRtrPools {
		var cp []RouterPoolShow
		for _, p := range n.rtrPools[c : c+numRtrPools] {
			cp = append(cp, RouterPoolShow{NPages: p.npages, NBuffers: p.nbuffers, Credits: p.credits,
				MinCredits: p.minCredits, Queued: p.msgs.Len()})
		}
		out = append(out, cp)
	}
	return out
}

// RouterStats returns the node's routing counters.
func (n *Node) RouterStats() RouterStats { return n.rstats }

// SetRouting enables or disables forwarding (`lnetctl set routing 1|0`,
// lnet_rtrpools_enable/disable). Enabling allocates the router buffer pools from
// tiny/small/large_router_buffers, in every CPT (lnet_rtrpools_alloc): the total divided by
// the number of CPTs, at least 1 (a size of 0 means the kernel's default,
// lnet_nrb_tiny/small/large_calculate). Before Startup (the module
// loaded as a router) routing is enabled at once. On a running node enabling enters
// STARTING: messages are forwarded, but routing is advertised only after
// alive_router_check_interval + router_ping_timeout; disabling enters STOPPING: routing
// disabled is advertised at once, forwarding goes on until the monitor stops it (see
// routingStateCheck), and then the messages waiting for buffers or credits are dropped.
// Under ImmediateRoutingSwitch (up to 2.16) both take effect at once: disabling drops the
// messages waiting for router buffers (lnet_rtrpools_free; those waiting for a peer's router
// credits hold a buffer and go on), and neither pushes the ping buffer: peers learn of the
// change at their next router check.
func (n *Node) SetRouting(on bool) {
	switch {
	case on && (n.rtrState == rtrEnabled || n.rtrState == rtrStarting):
		return
	case !on && (n.rtrState == rtrDisabled || n.rtrState == rtrStopping):
		return
	}
	if !on {
		if !n.started {
			n.rtrState = rtrDisabled
			n.routing = false
			n.dropAllRouted()
			return
		}
		if n.tun.Profile.ImmediateRoutingSwitch {
			n.rtrState, n.routing = rtrDisabled, false
			n.dropPoolWaiters()
			n.updatePingBuffer()
			return
		}
		n.rtrState, n.rtrSince = rtrStopping, n.k.Now()
		n.advertiseRouting()
		return
	}
	wasStopping := n.rtrState == rtrStopping
	n.routing = true
	n.rtrState, n.rtrSince = rtrStarting, n.k.Now()
	if !n.started || wasStopping || n.tun.Profile.ImmediateRoutingSwitch {
		n.rtrState = rtrEnabled
	}
	if n.rtrPools == nil {
		pages := [numRtrPools]int{0, 1, largeNPages}
		k := n.ncpts()
		n.rtrPools = make([]*rtrPool, k*numRtrPools)
		for c := 0; c < k; c++ {
			for i := 0; i < numRtrPools; i++ {
				nb := n.rtrBuffersPerCPT(i)
				n.rtrPools[c*numRtrPools+i] = &rtrPool{npages: pages[i], nbuffers: nb, reqBuffers: nb, credits: nb, minCredits: nb}
			}
		}
	}
	switch {
	case n.rtrState != rtrEnabled:
	case n.tun.Profile.ImmediateRoutingSwitch && n.started:
		n.updatePingBuffer()
	default:
		n.advertiseRouting()
	}
}

// rtrBuffersPerCPT models lnet_nrb_tiny/small/large_calculate: the pool's tunable (0: the
// kernel's default, LNET_NRB_TINY, _SMALL, _LARGE) divided by the number of CPTs, at least 1.
func (n *Node) rtrBuffersPerCPT(pool int) int {
	total := [numRtrPools]int{n.tun.TinyRouterBuffers, n.tun.SmallRouterBuffers, n.tun.LargeRouterBuffers}[pool]
	if total <= 0 {
		total = [numRtrPools]int{2048, 16384, 1024}[pool]
	}
	return max(total/n.ncpts(), 1)
}

// rtrBufferNames are lnetctl set's names of the three pools' sizes (tiny, small, large).
var rtrBufferNames = [numRtrPools]string{"tiny_buffers", "small_buffers", "large_buffers"}

// setRouterBuffers models lnet_rtrpools_adjust (`lnetctl set tiny_buffers|small_buffers|
// large_buffers N`): the tunable takes the value and, with routing enabled, each CPT's pool
// is resized to its share (lnet_rtrpool_adjust_bufs). Growing past the buffers the pool has
// adds the difference at once, as free buffers and credits, resets the low-water mark and
// hands them to the messages waiting on the pool; otherwise only the requested count drops,
// and buffers beyond it are freed as they come back (returnRxCredits).
func (n *Node) setRouterBuffers(pool, v int) {
	p := [numRtrPools]*int{&n.tun.TinyRouterBuffers, &n.tun.SmallRouterBuffers, &n.tun.LargeRouterBuffers}[pool]
	*p = v
	if !n.routing || n.rtrPools == nil {
		return
	}
	nb := n.rtrBuffersPerCPT(pool)
	for c := 0; c < n.ncpts(); c++ {
		rp := n.rtrPools[c*numRtrPools+pool]
		add := nb - rp.nbuffers
		if nb <= rp.reqBuffers || add <= 0 {
			rp.reqBuffers = nb
			continue
		}
		rp.reqBuffers = nb
		rp.nbuffers += add
		rp.credits += add
		rp.minCredits = rp.credits
		// A message was waiting only while no buffer was free: each new buffer serves one
		// (lnet_schedule_blocked_locked; its credit was taken when it queued).
		for i := 0; i < add && rp.msgs.Len() > 0; i++ {
			n.repostRouted(rp.msgs.Pop())
		}
	}
}

// dropAllRouted drops every routed message waiting for a router buffer or a router credit
// (lnet_rtrpools_disable's lnet_rtrpool_free_bufs and the peers' rtrq flush).
func (n *Node) dropAllRouted() {
	n.dropPoolWaiters()
	for _, p := range n.peers {
		for m := p.rtrq.Pop(); m != nil; m = p.rtrq.Pop() {
			m.rtrQueued = false
			n.dropRoutedRx(m, LNET_MSG_STATUS_REMOTE_ERROR, -ECANCELED, false)
		}
	}
}

// dropPoolWaiters drops the routed messages waiting for a router buffer (the rbp_msgs that
// lnet_rtrpool_free_bufs drops).
func (n *Node) dropPoolWaiters() {
	for _, pool := range n.rtrPools {
		for m := pool.msgs.Pop(); m != nil; m = pool.msgs.Pop() {
			m.rtrQueued = false
			n.dropRoutedRx(m, LNET_MSG_STATUS_REMOTE_ERROR, -ECANCELED, false)
		}
	}
}

// msg2pool models lnet_msg2bufpool: in the pools of the message's receive CPT (msg_rx_cpt,
// which lnet_parse takes from lnet_nid2cpt of the previous hop's NID), the smallest pool
// whose buffers hold the payload. It returns the index in n.rtrPools (CPT-major).
func (n *Node) msg2pool(m *Msg) int {
	base := n.cptOfNID(m.from) * numRtrPools
	np := (m.Hdr.PayloadLength + pageSize - 1) / pageSize
	for i, p := range n.rtrPools[base : base+numRtrPools] {
		if np <= p.npages {
			return base + i
		}
	}
	return base + numRtrPools - 1
}

// parseForward models lnet_parse_forward_locked: a message for another node on a router.
// When a router credit or a buffer is short the LND is asked to let go of its receive
// resources (lnd_eager_recv); then lnet_post_routed_recv_locked takes the credits and, if
// both were available, the payload is received into the router buffer at once.
func (n *Node) parseForward(m *Msg) {
	m.rtrDeadline = m.deadline
	if !n.routing {
		// Routing was turned off while a delay rule held the message (-ECANCELED).
		n.dropRoutedRx(m, LNET_MSG_STATUS_OK, -ECANCELED, false)
		return
	}
	pool := n.rtrPools[n.msg2pool(m)]
	if m.rxPeerNI.rtrCredits <= 0 || pool.credits <= 0 {
		ni := m.rxNI
		if p, err := ni.net.lnd.EagerRecv(ni, m.private, m); err == nil {
			m.private = p
		} else {
			n.dropRoutedRx(m, LNET_MSG_STATUS_OK, -ENOMEM, false)
			return
		}
	}
	n.postRoutedRecv(m, false)
}

// postRoutedRecv models lnet_post_routed_recv_locked: take a router credit of the sending
// peer NI (lpni_rtrcredits; when none is left, queueing on its peer's lp_rtrq, shared by
// all the peer's NIs), then a credit of the buffer pool
// (queueing on rbp_msgs), then receive the payload into the buffer (the LND's Recv, with
// delayed set when the message had to wait; its Finalize forwards the message). Minimum
// credits are tracked.
func (n *Node) postRoutedRecv(m *Msg, delayed bool) {
	lpni := m.rxPeerNI
	if !m.peerRtrCredit {
		m.peerRtrCredit = true
		lpni.rtrCredits--
		if lpni.rtrCredits < lpni.minRtrCredits {
			lpni.minRtrCredits = lpni.rtrCredits
		}
		if lpni.rtrCredits < 0 {
			m.rtrQueued = true
			lpni.peer.rtrq.Push(m)
			return
		}
	}
	if m.rtrPool == 0 {
		i := n.msg2pool(m)
		m.rtrPool = int8(i + 1)
		pool := n.rtrPools[i]
		pool.credits--
		if pool.credits < pool.minCredits {
			pool.minCredits = pool.credits
		}
		if pool.credits < 0 {
			m.rtrQueued = true
			pool.msgs.Push(m)
			return
		}
	}
	ni := m.rxNI
	ln := m.Hdr.PayloadLength
	m.rxLen = ln
	if err := ni.net.lnd.Recv(ni, m.private, m, delayed, 0, ln, ln); err != nil {
		n.finalize(m, errnoOf(err, -EIO)) // lnet_ni_recv
	}
}

// routedExpired reports whether the opt-in expiry policy drops m (a routed message past the
// deadline it got when it arrived on this router). The kernel has no such policy.
func (n *Node) routedExpired(m *Msg) bool {
	return m.routing && n.tun.RouterMsgExpiry && n.k.Now() > m.rtrDeadline
}

// repostRouted posts a routed message taken off rbp_msgs or an rtrq, unless routing was
// disabled meanwhile (dropped, REMOTE_ERROR) or the expiry policy drops it.
func (n *Node) repostRouted(m *Msg) {
	m.rtrQueued = false
	switch {
	case !n.routing:
		n.dropRoutedRx(m, LNET_MSG_STATUS_REMOTE_ERROR, -ECANCELED, false)
	case n.routedExpired(m):
		n.dropRoutedRx(m, LNET_MSG_STATUS_OK, -ETIMEDOUT, true)
	default:
		n.postRoutedRecv(m, true)
	}
}

// dropRoutedRx drops a routed message whose payload was not received: the LND releases its
// private (lnet_drop_message), the message is finalized with rc and no resend (hstatus hs;
// OK with rc != 0 leaves health alone), returning the credits it holds.
func (n *Node) dropRoutedRx(m *Msg, hs HStatus, rc int, expired bool) {
	ni, priv := m.rxNI, m.private
	m.private = nil
	if expired {
		n.rstats.Expired++
	} else {
		n.rstats.Dropped++
	}
	m.noResend = true
	m.HStatus = hs
	ln, t := m.Hdr.PayloadLength, m.Hdr.Type
	n.finalize(m, rc)
	n.dropMessage(ni, priv, ln, t)
}

// returnRxCredits models lnet_return_rx_credits_locked: free the router buffer (the first
// message waiting on the pool gets it) and the peer NI's router credit; then the first
// message on the peer's lp_rtrq, whichever of the peer's NIs it came from (it already holds
// its own NI's credit), goes on.
func (n *Node) returnRxCredits(m *Msg) {
	if m.rtrPool != 0 {
		pool := n.rtrPools[m.rtrPool-1]
		m.rtrPool = 0
		if pool.credits >= pool.reqBuffers {
			pool.nbuffers-- // lowered by lnetctl set *_buffers: this buffer is freed
		} else {
			pool.credits++
			if pool.credits <= 0 {
				if m2 := pool.msgs.Pop(); m2 != nil {
					n.repostRouted(m2)
				}
			}
		}
	}
	if m.peerRtrCredit {
		m.peerRtrCredit = false
		lpni := m.rxPeerNI
		lpni.rtrCredits++
		if m2 := lpni.peer.rtrq.Pop(); m2 != nil {
			n.repostRouted(m2)
		}
	}
}

// forwardFailed ends a routed message that could not be forwarded: lnet_send failed in
// lnet_complete_msg_locked (no route, no NI, or the first post refused by
// lnet_check_message_drop because the next hop is believed dead). There is no health check
// and no resend: the kernel's lnet_finalize loop decommits the message with the receive's
// status, 0, so it counts as received and, if it was committed for sending, as routed
// (route_count and the send statistics of the NI and peer NI it was to use, besides the
// drop counted by postSend). The model's router statistics count it as dropped
// (router_dropped_count), not forwarded. The caller completes it, counted as status 0.
func (n *Node) forwardFailed(m *Msg, rc int) {
	m.noResend = true
	m.status = int32(rc)
	n.rstats.Dropped++
}
