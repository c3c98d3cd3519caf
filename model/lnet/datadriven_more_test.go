package lnet

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/cockroachdb/datadriven"
)

// ddShows are what `show` prints, in the order its error lists them.
var ddShows = []struct {
	what string
	f    func(*ddWorld, *Node) string
}{
	{"routes", func(_ *ddWorld, n *Node) string { return ddRoutes(n) }},
	{"health", func(_ *ddWorld, n *Node) string { return ddHealth(n) }},
	{"stats", (*ddWorld).ddStats},
	{"peers", func(_ *ddWorld, n *Node) string { return ddPeers(n) }},
	{"discovery", func(_ *ddWorld, n *Node) string { return ddDiscovery(n) }},
	{"pools", func(_ *ddWorld, n *Node) string { return ddPools(n) }},
	{"gateways", func(_ *ddWorld, n *Node) string { return ddGateways(n) }},
	{"routing", func(_ *ddWorld, n *Node) string { return ddRouting(n) }},
	{"counters", func(_ *ddWorld, n *Node) string { return ddCounters(n) }},
	{"recovery", func(_ *ddWorld, n *Node) string { return ddRecovery(n) }},
	{"events", (*ddWorld).ddEvents},
	{"router", func(_ *ddWorld, n *Node) string { return ddRouterStats(n) }},
	{"latency", func(_ *ddWorld, n *Node) string { return ddLatency(n) }},
	{"pingbuf", func(_ *ddWorld, n *Node) string { return ddPingBuf(n) }},
	{"state", func(_ *ddWorld, n *Node) string { return ddState(n) }},
}

// ddPingBuf prints the node's ping buffer (its sequence number and each NI's advertised
// status) and each NI's fatal state and status as net show prints them.
func ddPingBuf(n *Node) string {
	var b strings.Builder
	if pb := n.PingBuffer(); pb != nil {
		fmt.Fprintf(&b, "seq %d", pb.Seq)
		for _, e := range pb.NIs[1:] {
			fmt.Fprintf(&b, " %s %s", e.NID, e.Status)
		}
		b.WriteString("\n")
	}
	for _, ni := range n.NIs() {
		fmt.Fprintf(&b, "ni %s fatal %v show %s\n", ni.NID(), ni.Fatal(), ni.Status())
	}
	return b.String()
}

// ddState prints each peer's `peer state` as `lnetctl peer show -v 3` prints it (lp_state in
// the bit layout of the node's release), with whether it is RTR_DISCOVERED and, for a
// gateway, whether it is alive (lp_alive).
func ddState(n *Node) string {
	var b strings.Builder
	for _, p := range n.Peers() {
		fmt.Fprintf(&b, "peer %s state %#x rtr_discovered %v", p.primary, n.peerState(p), p.rtrDiscovered && !n.tun.Profile.RouterCheckerPing)
		if p.rtrRefcount() > 0 {
			fmt.Fprintf(&b, " gateway alive %v", p.alive)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// ddLatency prints each local NI's, then each peer NI's, per-operation latency (master's
// statistics in net show -v and peer show -v), one operation with samples a line.
func ddLatency(n *Node) string {
	var b strings.Builder
	line := func(kind, nid string, l Latency) {
		for op, s := range l {
			if s.Samples > 0 {
				fmt.Fprintf(&b, "%s %s %s samples %d min %d max %d avg %d\n", kind, nid, LatencyOp(op), s.Samples, s.MinNs, s.MaxNs, s.AvgNs)
			}
		}
	}
	for _, ni := range n.NIs() {
		line("local", ni.NID().String(), ni.Latency())
	}
	for _, p := range n.ShowPeers() {
		for _, pn := range p.PeerNIs {
			line("peer", pn.NID, pn.Latency)
		}
	}
	return b.String()
}

func ddShowNames() string {
	var s []string
	for _, x := range ddShows {
		s = append(s, x.what)
	}
	return strings.Join(s, ", ")
}

// ddPeers prints `lnetctl peer show -v` one peer NI a line: aliveness (lnet_is_peer_ni_alive,
// which lnetctl prints only for a gateway's NI or on a router, NA otherwise), health, router
// credits (available and low-water mark) and whether its peer is multi-rail.
func ddPeers(n *Node) string {
	var b strings.Builder
	for _, p := range n.ShowPeers() {
		for _, pn := range p.PeerNIs {
			state := NIStatusDown
			if nid, err := ParseNID(pn.NID); err == nil && n.gwNIAlive(n.findPeerNI(nid)) {
				state = NIStatusUp
			}
			fmt.Fprintf(&b, "peer %s ni %s %s health %d rtr credits %d min %d mr %v\n", p.PrimaryNID, pn.NID, state,
				pn.HealthStats.HealthValue, pn.AvailRtr, pn.MinRtr, p.MultiRail)
		}
	}
	return b.String()
}

// ddDiscovery prints each peer's discovery state (lnet_peer's lp_state bits and sequences):
// discovered, being discovered, NIDs up to date, a ping or push in flight, the sequence of
// this node's ping buffer the peer ACKed (lp_node_seqno) against this node's own, NIDs,
// and, when REDISCOVER, FORCE_PING, FORCE_PUSH or BAD_CONFIG is set, those flags and lp_state
// (peer show -v 3's peer state).
func ddDiscovery(n *Node) string {
	var b strings.Builder
	for _, p := range n.Peers() {
		var nids []string
		for _, lpni := range p.nis {
			nids = append(nids, lpni.nid.String())
		}
		fmt.Fprintf(&b, "peer %s mr %v discovered %v discovering %v uptodate %v ping %v push %v node_seq %d/%d nids %s",
			p.primary, p.mr, p.discovered, p.discovering, p.uptodate, p.discPing != nil, p.discPush != nil, p.nodeSeq, n.seqNo,
			strings.Join(nids, ","))
		if p.rediscover || p.forcePing || p.forcePush || p.badConfig { // only when set, so that most lines read as before
			fmt.Fprintf(&b, " rediscover %v force_ping %v force_push %v state %#x", p.rediscover, p.forcePing, p.forcePush, n.peerState(p))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// ddPools prints the router buffer pools (`lnetctl routing show`) and the messages waiting.
func ddPools(n *Node) string {
	var b strings.Builder
	for _, p := range n.RouterPools() {
		fmt.Fprintf(&b, "pages %d buffers %d credits %d min %d queued %d\n", p.NPages, p.NBuffers, p.Credits, p.MinCredits, p.Queued)
	}
	return b.String()
}

// ddGateways prints the router checker's view of each gateway.
func ddGateways(n *Node) string {
	var b strings.Builder
	for _, g := range n.Gateways() {
		fmt.Fprintf(&b, "gw %s alive %v routing %v routes %d up %d pings %d failed %d send %d recv %d\n", g.NID, g.Alive, g.Routing,
			g.Routes, g.RoutesUp, g.Pings, g.PingFails, g.SendCount, g.RecvCount)
	}
	return b.String()
}

// ddRouting prints a node's routing state, whether it forwards, what its ping buffer
// advertises, and its NIs' status.
func ddRouting(n *Node) string {
	var b strings.Builder
	fmt.Fprintf(&b, "routing %s forwarding %v", n.RoutingState(), n.Routing())
	if pb := n.PingBuffer(); pb != nil {
		fmt.Fprintf(&b, " advertised-disabled %v", pb.RoutingDisabled)
	}
	b.WriteString("\n")
	for _, ni := range n.NIs() {
		fmt.Fprintf(&b, "ni %s %s\n", ni.NID(), ni.Status())
	}
	return b.String()
}

// ddCounters prints the node's non-zero counters (`lnetctl stats show`), by their yaml names.
func ddCounters(n *Node) string {
	var b strings.Builder
	c := n.Stats()
	v, t := reflect.ValueOf(c), reflect.TypeOf(c)
	for i := 0; i < t.NumField(); i++ {
		if x := v.Field(i).Uint(); x != 0 {
			fmt.Fprintf(&b, "%s %d\n", t.Field(i).Tag.Get("yaml"), x)
		}
	}
	return b.String()
}

// ddRouterStats prints what the node forwarded and what it dropped as a router: past the
// deadline of the opt-in expiry policy, or otherwise (routing off, asymmetric route, a peer
// it was told is down).
func ddRouterStats(n *Node) string {
	rs := n.RouterStats()
	return fmt.Sprintf("forwarded %d expired %d dropped %d\n", rs.Forwarded, rs.Expired, rs.Dropped)
}

// ddRecovery prints the local and peer NIs queued for recovery pings.
func ddRecovery(n *Node) string {
	return fmt.Sprintf("local %v peer %v\n", n.LocalRecoveryQueue(), n.PeerRecoveryQueue())
}

// ddEvents prints the events the node's MDs saw (its own operations and what its portal
// received) and forgets them: type, initiator, match bits, length, status.
func (w *ddWorld) ddEvents(n *Node) string {
	var b strings.Builder
	ev := w.ev[n.Name()]
	for _, e := range ev.evs {
		fmt.Fprintf(&b, "%s %s from %s bits %d mlength %d status %d", ddTime(e.Time), e.Type, e.Initiator, e.MatchBits, e.MLength, e.Status)
		if e.Unlinked {
			b.WriteString(" unlinked")
		}
		b.WriteString("\n")
	}
	ev.evs = nil
	return b.String()
}

// cmdGet is `get from=c to=NID [size=4096]`: a GET from portal 4, printing its send attempts.
func (w *ddWorld) cmdGet(d *datadriven.TestData) (string, error) {
	if err := w.start(); err != nil {
		return "", err
	}
	a := newArgs(w, d)
	n, dst, size := a.node("from"), a.nid("to"), a.int("size", 4096)
	if a.err != nil {
		return "", a.err
	}
	w.tr.attempts = n.Name()
	defer func() { w.tr.attempts = "" }()
	md := n.MDBind(MDSpec{Length: size, Threshold: 2, Handler: w.ev[n.Name()]})
	if err := n.Get(AnyNID, md, dst, testPortal, 1, 0); err != nil {
		return "", err
	}
	return w.flush(), nil
}

// cmdRouting is `routing node=r on|off` (`lnetctl set routing`).
func (w *ddWorld) cmdRouting(d *datadriven.TestData) error {
	a := newArgs(w, d)
	n := a.node("node")
	if a.err == nil && a.has("on") == a.has("off") {
		return fmt.Errorf("routing: say on or off")
	}
	if a.err == nil {
		n.SetRouting(a.has("on"))
	}
	return a.err
}

// cmdSet is `set node=r NAME=V ...` (`lnetctl set NAME V`, e.g. large_buffers).
func (w *ddWorld) cmdSet(d *datadriven.TestData) error {
	a := newArgs(w, d)
	n := a.node("node")
	for _, c := range d.CmdArgs {
		if c.Key == "node" || a.err != nil {
			continue
		}
		if err := n.SetGlobal(c.Key, a.int(c.Key, 0)); err != nil {
			a.fail(c.Key, err)
		}
	}
	return a.err
}

// cmdPeerHealth is `peer-health node=c nid=NID value=V` (`lnetctl peer set --health`).
func (w *ddWorld) cmdPeerHealth(d *datadriven.TestData) error {
	a := newArgs(w, d)
	n, id, v := a.node("node"), a.nid("nid"), a.int("value", 0)
	if a.err != nil {
		return a.err
	}
	return n.SetPeerHealth(id, v)
}

// cmdLND is `lnd optimized-get=on|off` (GETs use o2ib's RDMA-style GET_REQ),
// `lnd lnd-timeout=1s node=r` (that node's nets time out LND sends after that long) and
// `lnd clear-rules` (forget the fail and delay rules).
func (w *ddWorld) cmdLND(d *datadriven.TestData) error {
	a := newArgs(w, d)
	if a.has("clear-rules") {
		w.lnd.ClearRules()
	}
	if a.has("optimized-get") {
		w.lnd.OptimizedGET = a.m["optimized-get"] == "on"
	}
	if a.has("lnd-timeout") {
		n, to := a.node("node"), a.dur("lnd-timeout")
		if a.err != nil {
			return a.err
		}
		for _, nt := range n.Nets() {
			nt.LNDTimeout = to
		}
	}
	if reflect.DeepEqual(a.m, map[string]string{}) {
		return fmt.Errorf("lnd: want optimized-get=on|off, lnd-timeout=D node=n or clear-rules")
	}
	return a.err
}
