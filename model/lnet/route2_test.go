package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// netOf is a named node's NIs; mkNodes builds them on one ideal LND (not started).
func mkNodes(t *testing.T, k *sim.Kernel, l *IdealLND, tun Tunables, specs ...[]string) []*Node {
	t.Helper()
	var out []*Node
	for i, s := range specs {
		n, err := NewNode(k, string(rune('a'+i)), tun)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range s {
			if _, err := n.AddNI(nid(x), l, NetTunables{}); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, n)
	}
	return out
}

func startAll(t *testing.T, ns ...*Node) {
	t.Helper()
	for _, n := range ns {
		if err := n.Startup(); err != nil {
			t.Fatal(err)
		}
	}
}

func mustRoute(t *testing.T, n *Node, net string, gw string, hops, prio int) {
	t.Helper()
	id, err := ParseNet(net)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.AddRoute(id, nid(gw), hops, prio); err != nil {
		t.Fatal(err)
	}
}

func sink(n *Node, ev *evRec) {
	n.MEAttach(MatchSpec{Portal: testPortal, Source: AnyNID, SourcePID: LNET_PID_ANY, IgnoreBits: ^uint64(0)},
		MDSpec{Length: 1 << 20, Threshold: ThresholdInf, Options: MD_OP_PUT | MD_OP_GET, Handler: ev})
}

func putTo(t *testing.T, n *Node, dst string, ev *evRec) {
	t.Helper()
	md := n.MDBind(MDSpec{Length: 1000, Threshold: 2, Handler: ev})
	if err := n.Put(AnyNID, md, AckReqAck, nid(dst), testPortal, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
}

func runFor(t *testing.T, k *sim.Kernel, d sim.Time) {
	t.Helper()
	if err := k.RunUntil(k.Now() + d); err != nil {
		t.Fatal(err)
	}
}

// TestAddRouteErrors: lnet_add_route's argument checks.
func TestAddRouteErrors(t *testing.T) {
	k := sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	n := mkNodes(t, k, l, DefaultTunables(), []string{"10.0.0.1@o2ib"})[0]
	o2ib1, _ := ParseNet("o2ib1")
	o2ib, _ := ParseNet("o2ib")
	for _, c := range []struct {
		net  NetID
		gw   string
		hops int
		prio int
	}{
		{o2ib, "10.0.0.2@o2ib", 1, 0},   // local net
		{o2ib1, "10.2.0.2@o2ib2", 1, 0}, // gateway not on a local net
		{o2ib1, "10.0.0.1@o2ib", 1, 0},  // gateway is me
		{o2ib1, "10.0.0.2@o2ib", 0, 0},  // hops
		{o2ib1, "10.0.0.2@o2ib", 256, 0},
		{o2ib1, "10.0.0.2@o2ib", 1, -1}, // priority
	} {
		if err := n.AddRoute(c.net, nid(c.gw), c.hops, c.prio); err == nil {
			t.Fatalf("AddRoute(%s, %s, %d, %d) accepted", c.net, c.gw, c.hops, c.prio)
		}
	}
	if err := n.AddRoute(o2ib1, nid("10.0.0.2@o2ib"), -1, 0); err != nil {
		t.Fatal(err)
	}
	if err := n.AddRoute(o2ib1, nid("10.0.0.2@o2ib"), 1, 0); err == nil {
		t.Fatal("duplicate route accepted")
	}
	if rs := n.Routes(); len(rs) != 1 || rs[0].Hop != -1 || rs[0].Gateway != "10.0.0.2@o2ib" {
		t.Fatalf("routes %+v", rs)
	}
}

// TestRouteChoice: lower priority wins; at equal priority fewer hops; at full equality the
// routes alternate (lr_seq round robin).
func TestRouteChoice(t *testing.T) {
	for _, c := range []struct {
		name       string
		h1, p1     int
		h2, p2     int
		want1      int // PUTs (of 4) expected through r1
		wantEither bool
	}{
		{"priority", 1, 1, 1, 0, 0, false},
		{"hops", 2, 0, 1, 0, 0, false},
		{"round-robin", 1, 0, -1, 0, 2, false},
	} {
		k := sim.New(1)
		l := NewIdealLND(k, sim.Microsecond)
		tun := DefaultTunables()
		tun.AvoidAsymRouterFailure = false // the 2-hop route is really single-hop here
		ns := mkNodes(t, k, l, tun, []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"},
			[]string{"10.0.0.4@o2ib", "10.1.0.4@o2ib1"}, []string{"10.1.0.2@o2ib1"})
		c0, r1, r2, s := ns[0], ns[1], ns[2], ns[3]
		r1.SetRouting(true)
		r2.SetRouting(true)
		mustRoute(t, c0, "o2ib1", "10.0.0.3@o2ib", c.h1, c.p1)
		mustRoute(t, c0, "o2ib1", "10.0.0.4@o2ib", c.h2, c.p2)
		mustRoute(t, s, "o2ib", "10.1.0.3@o2ib1", -1, 0)
		startAll(t, ns...)
		ev, sev := &evRec{}, &evRec{}
		sink(s, sev)
		runFor(t, k, 2*sim.Second)
		putTo(t, c0, "10.1.0.2@o2ib1", ev) // discovery of s, then the PUT
		runFor(t, k, sim.Second)
		base := r1.RouterStats().Forwarded
		for i := 0; i < 4; i++ {
			putTo(t, c0, "10.1.0.2@o2ib1", ev)
			runFor(t, k, sim.Millisecond)
		}
		if ev.count(EventACK) != 5 {
			t.Fatalf("%s: %d ACKs", c.name, ev.count(EventACK))
		}
		// r1 forwards the PUTs through it and, as the server's only gateway, every ACK.
		via1 := int(r1.RouterStats().Forwarded-base) - 4
		if via1 != c.want1 {
			t.Fatalf("%s: %d of 4 PUTs through r1, want %d", c.name, via1, c.want1)
		}
	}
}

// TestMultiHop: client o2ib -> r1 -> o2ib1 -> r2 -> o2ib2 server; the client's route is
// 2 hops (not dropped by avoid_asym_router_failure though r1 has no o2ib2 NI).
func TestMultiHop(t *testing.T) {
	k := sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	ns := mkNodes(t, k, l, DefaultTunables(), []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"},
		[]string{"10.1.0.4@o2ib1", "10.2.0.4@o2ib2"}, []string{"10.2.0.2@o2ib2"})
	c0, r1, r2, s := ns[0], ns[1], ns[2], ns[3]
	r1.SetRouting(true)
	r2.SetRouting(true)
	mustRoute(t, c0, "o2ib1", "10.0.0.3@o2ib", 1, 0)
	mustRoute(t, c0, "o2ib2", "10.0.0.3@o2ib", 2, 0)
	mustRoute(t, r1, "o2ib2", "10.1.0.4@o2ib1", 1, 0)
	mustRoute(t, r2, "o2ib", "10.1.0.3@o2ib1", 1, 0)
	mustRoute(t, s, "o2ib1", "10.2.0.4@o2ib2", 1, 0)
	mustRoute(t, s, "o2ib", "10.2.0.4@o2ib2", 2, 0)
	startAll(t, ns...)
	ev, sev := &evRec{}, &evRec{}
	sink(s, sev)
	runFor(t, k, 2*sim.Second)
	for _, n := range []*Node{c0, r1, r2, s} {
		for _, rt := range n.Routes() {
			if rt.State != "up" {
				t.Fatalf("%s route %+v", n.Name(), rt)
			}
		}
	}
	putTo(t, c0, "10.2.0.2@o2ib2", ev)
	runFor(t, k, sim.Second)
	if ev.count(EventACK) != 1 || sev.count(EventPUT) != 1 || sev.last(EventPUT).Initiator != nid("10.0.0.1@o2ib") {
		t.Fatalf("ACKs %d PUTs %d", ev.count(EventACK), sev.count(EventPUT))
	}
	if r1.RouterStats().Forwarded == 0 || r2.RouterStats().Forwarded == 0 {
		t.Fatal("not forwarded by both routers")
	}
}

// TestDropAsymRoute: the server's only route back is through r2, the client's through r1:
// with drop_asym_route the server drops what arrives through r1; without it accepts it.
func TestDropAsymRoute(t *testing.T) {
	for _, drop := range []bool{false, true} {
		k := sim.New(1)
		l := NewIdealLND(k, sim.Microsecond)
		tun := DefaultTunables()
		tun.DropAsymRoute = drop
		tun.Discovery = false
		ns := mkNodes(t, k, l, tun, []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"},
			[]string{"10.0.0.4@o2ib", "10.1.0.4@o2ib1"}, []string{"10.1.0.2@o2ib1"})
		c0, r1, r2, s := ns[0], ns[1], ns[2], ns[3]
		r1.SetRouting(true)
		r2.SetRouting(true)
		mustRoute(t, c0, "o2ib1", "10.0.0.3@o2ib", 1, 0)
		mustRoute(t, s, "o2ib", "10.1.0.4@o2ib1", 1, 0)
		startAll(t, ns...)
		ev, sev := &evRec{}, &evRec{}
		sink(s, sev)
		runFor(t, k, 2*sim.Second)
		putTo(t, c0, "10.1.0.2@o2ib1", ev)
		runFor(t, k, sim.Second)
		got := sev.count(EventPUT)
		if drop && (got != 0 || s.Stats().DropCount == 0) || !drop && got != 1 {
			t.Fatalf("drop_asym_route=%v: server got %d PUTs (drops %d)", drop, got, s.Stats().DropCount)
		}
	}
}

// TestCheckRoutersBeforeUse: with check_routers_before_use the gateway starts dead and its
// route is down until the first router check answers; without it and with
// avoid_asym_router_failure off the route is usable at once.
func TestCheckRoutersBeforeUse(t *testing.T) {
	for _, check := range []bool{false, true} {
		k := sim.New(1)
		l := NewIdealLND(k, sim.Microsecond)
		tun := DefaultTunables()
		tun.CheckRoutersBeforeUse = check
		tun.AvoidAsymRouterFailure = false
		ns := mkNodes(t, k, l, tun, []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"})
		c0, r := ns[0], ns[1]
		r.SetRouting(true)
		mustRoute(t, c0, "o2ib1", "10.0.0.3@o2ib", 1, 0)
		want := "up"
		if check {
			want = "down"
		}
		if st := c0.Routes()[0].State; st != want {
			t.Fatalf("check_routers_before_use=%v: route %s before the check, want %s", check, st, want)
		}
		startAll(t, ns...)
		runFor(t, k, sim.Second)
		if st := c0.Routes()[0].State; st != "up" || !c0.GatewayAlive(nid("10.0.0.3@o2ib")) {
			t.Fatalf("route %s after the check", st)
		}
	}
}

// TestGatewayRoutingDisabled: a gateway that stops routing advertises it (push and next
// check): its routes go down; turning routing back on brings them up.
func TestGatewayRoutingDisabled(t *testing.T) {
	k := sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	tun := DefaultTunables()
	tun.AliveRouterCheckInt = 5
	ns := mkNodes(t, k, l, tun, []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"})
	c0, r := ns[0], ns[1]
	r.SetRouting(true)
	mustRoute(t, c0, "o2ib1", "10.0.0.3@o2ib", 1, 0)
	startAll(t, ns...)
	runFor(t, k, sim.Second)
	if st := c0.Routes()[0].State; st != "up" {
		t.Fatalf("route %s", st)
	}
	r.SetRouting(false)
	runFor(t, k, 6*sim.Second)
	if st := c0.Routes()[0].State; st != "down" {
		t.Fatalf("route %s with routing disabled on the gateway", st)
	}
	r.SetRouting(true)
	runFor(t, k, 6*sim.Second)
	if st := c0.Routes()[0].State; st != "up" {
		t.Fatalf("route %s after routing re-enabled", st)
	}
}

// TestRouterResetsSenderHealth: a router receiving from a peer NI sets its health to the
// maximum (a non-router only increments it).
func TestRouterResetsSenderHealth(t *testing.T) {
	r := newRouted(t, 1, DefaultTunables(), DefaultTunables())
	rt := r.rs[0]
	lpni := rt.PeerNI(r.cNID)
	if lpni == nil {
		t.Fatal("router does not know the client")
	}
	rt.setPeerHealth(lpni, 500, CauseManual)
	r.put(t, 100, 0)
	r.run(t, sim.Second)
	if h := lpni.Health(); h != MaxHealth {
		t.Fatalf("client's health on the router %d after a receive, want %d", h, MaxHealth)
	}
}

// TestRouterNIStatus: a router's net that no router checker ping reaches for
// alive_router_check_interval + router_ping_timeout is advertised DOWN (sanity-lnet 222), so
// a client's single-hop route to that net goes down (avoid_asym_router_failure); the
// gateway's statistics show the pings.
func TestRouterNIStatus(t *testing.T) {
	k := sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	tun := DefaultTunables()
	tun.AliveRouterCheckInt = 5
	tun.RouterPingTimeout = 2
	ns := mkNodes(t, k, l, tun, []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"})
	c0, r := ns[0], ns[1]
	r.SetRouting(true)
	mustRoute(t, c0, "o2ib1", "10.0.0.3@o2ib", 1, 0)
	startAll(t, ns...)
	runFor(t, k, sim.Second)
	if st := c0.Routes()[0].State; st != "up" {
		t.Fatalf("route %s", st)
	}
	runFor(t, k, 12*sim.Second)
	if s := r.NI(nid("10.1.0.3@o2ib1")).Status(); s != NIStatusDown {
		t.Fatalf("unpinged router NI %s", s)
	}
	if s := r.NI(nid("10.0.0.3@o2ib")).Status(); s != NIStatusUp {
		t.Fatalf("pinged router NI %s", s)
	}
	if st := c0.Routes()[0].State; st != "down" {
		t.Fatalf("route %s with the gateway's remote NI advertised down", st)
	}
	gs := c0.Gateways()
	if len(gs) != 1 || !gs[0].Alive || gs[0].Pings < 3 || gs[0].PingFails != 0 || gs[0].RoutesUp != 0 || gs[0].SendCount < 3 {
		t.Fatalf("gateways %+v", gs)
	}
}

// TestRouterDropsToDeadPeer follows lnet_post_send_locked (do_send = 0) and
// lnet_complete_msg_locked: a router does not forward to a peer NI it was told is down
// (lnet_check_message_drop: counted as a drop on the router); on this first post the error
// goes back up through lnet_send without a health check (no remote_dropped, no resend, the
// server's health untouched) and the message is decommitted with the receive's status, so
// the kernel counts it in route_count too; router_dropped_count counts it, not forwarded.
func TestRouterDropsToDeadPeer(t *testing.T) {
	r := newRouted(t, 1, DefaultTunables(), DefaultTunables())
	rt := r.rs[0]
	if err := rt.Notify(rt.NI(nid("10.1.0.3@o2ib1")), r.sNID, false, false, r.k.Now()); err != nil {
		t.Fatal(err)
	}
	r.put(t, 100, 0)
	r.run(t, sim.Second)
	st, rs := rt.Stats(), rt.RouterStats()
	got := []uint64{uint64(r.sEv.count(EventPUT)), st.DropCount, st.RemoteDroppedCount, st.ResendCount,
		st.RouteCount, rs.Dropped, rs.Forwarded, uint64(rt.PeerNI(r.sNID).Health())}
	want := []uint64{0, 1, 0, 0, 1, 1, 0, MaxHealth}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("server PUTs, router drop_count, remote_dropped, resends, route_count, router_dropped, forwarded, server health = %v, want %v", got, want)
		}
	}
}

// TestRoutedDeterminism: the two-router failover run twice gives the same trace.
func TestRoutedDeterminism(t *testing.T) {
	var runs [2][]string
	for i := range runs {
		tun := DefaultTunables()
		tun.AliveRouterCheckInt = 10
		tun.RouterPingTimeout = 5
		r := newRouted(t, 2, tun, tun)
		tr := &traceRec{}
		for _, n := range append([]*Node{r.c, r.s}, r.rs...) {
			n.SetTracer(tr)
		}
		for j := 0; j < 8; j++ {
			r.put(t, 1<<20, uint64(j))
			r.get(t, 5000)
		}
		r.run(t, sim.Second)
		r1 := r.rs[0]
		r.lnd.Hook = func(m *Msg) IdealVerdict {
			if m.Node() == r1 || m.Target().Net() == r.cNID.Net() && m.Target() == nid("10.0.0.3@o2ib") {
				return IdealVerdict{Action: IdealDrop}
			}
			return IdealVerdict{}
		}
		r.run(t, 20*sim.Second)
		for j := 0; j < 8; j++ {
			r.put(t, 4096, uint64(j))
		}
		r.run(t, 5*sim.Second)
		runs[i] = tr.lines
	}
	if len(runs[0]) < 100 || len(runs[0]) != len(runs[1]) {
		t.Fatalf("trace lengths %d and %d", len(runs[0]), len(runs[1]))
	}
	for j := range runs[0] {
		if runs[0][j] != runs[1][j] {
			t.Fatalf("line %d differs:\n%s\n%s", j, runs[0][j], runs[1][j])
		}
	}
}

// TestNoRouterChecker: with alive_router_check_interval = 0 a gateway is discovered once, so
// its routes come up (avoid_asym_router_failure needs its remote NI) and are not checked
// again.
func TestNoRouterChecker(t *testing.T) {
	tun := DefaultTunables()
	tun.AliveRouterCheckInt = 0
	r := newRouted(t, 1, tun, tun)
	if st := r.c.Routes()[0].State; st != "up" {
		t.Fatalf("route %s", st)
	}
	r.run(t, 100*sim.Second)
	if g := r.c.Gateways()[0]; g.Pings != 1 {
		t.Fatalf("%d router pings, want 1", g.Pings)
	}
	r.put(t, 100, 0)
	r.run(t, sim.Second)
	if r.cEv.count(EventACK) != 1 {
		t.Fatal("no ACK")
	}
}

// TestRoutedMRDestination: a multi-rail server on two remote nets, each behind its own
// router: once discovered, the client's sends alternate between the server's nets (peer-net
// round robin in lnet_handle_find_routed_path) and both routers carry traffic.
func TestRoutedMRDestination(t *testing.T) {
	k := sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	ns := mkNodes(t, k, l, DefaultTunables(), []string{"10.0.0.1@o2ib"},
		[]string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"}, []string{"10.0.0.4@o2ib", "10.2.0.4@o2ib2"},
		[]string{"10.1.0.2@o2ib1", "10.2.0.2@o2ib2"})
	c0, r1, r2, s := ns[0], ns[1], ns[2], ns[3]
	r1.SetRouting(true)
	r2.SetRouting(true)
	mustRoute(t, c0, "o2ib1", "10.0.0.3@o2ib", 1, 0)
	mustRoute(t, c0, "o2ib2", "10.0.0.4@o2ib", 1, 0)
	mustRoute(t, s, "o2ib", "10.1.0.3@o2ib1", 1, 0)
	mustRoute(t, s, "o2ib", "10.2.0.4@o2ib2", 1, 0)
	startAll(t, ns...)
	ev, sev := &evRec{}, &evRec{}
	sink(s, sev)
	runFor(t, k, 2*sim.Second)
	putTo(t, c0, "10.1.0.2@o2ib1", ev) // discovers the server: MR, two nets
	runFor(t, k, sim.Second)
	if p := c0.PeerNI(nid("10.1.0.2@o2ib1")).Peer(); !p.MultiRail() || len(p.Nets()) != 2 {
		t.Fatalf("server peer MR %v nets %d", p.MultiRail(), len(p.Nets()))
	}
	b1, b2 := r1.RouterStats().Forwarded, r2.RouterStats().Forwarded
	for i := 0; i < 4; i++ {
		putTo(t, c0, "10.1.0.2@o2ib1", ev)
		runFor(t, k, sim.Millisecond)
	}
	if ev.count(EventACK) != 5 {
		t.Fatalf("%d ACKs", ev.count(EventACK))
	}
	d1, d2 := r1.RouterStats().Forwarded-b1, r2.RouterStats().Forwarded-b2
	if d1 == 0 || d2 == 0 || d1+d2 != 8 {
		t.Fatalf("forwarded r1 %d r2 %d, want both used, 8 in all", d1, d2)
	}
}

// TestRouterPoolSizes: pool sizes follow the tunables, 0 meaning the kernel default.
func TestRouterPoolSizes(t *testing.T) {
	k := sim.New(1)
	tun := DefaultTunables()
	tun.TinyRouterBuffers, tun.SmallRouterBuffers, tun.LargeRouterBuffers = 0, 100, 4
	n, err := NewNode(k, "r", tun)
	if err != nil {
		t.Fatal(err)
	}
	if n.RouterPools() != nil {
		t.Fatal("pools before routing is enabled")
	}
	n.SetRouting(true)
	want := []RouterPoolShow{{0, 2048, 2048, 2048, 0}, {1, 100, 100, 100, 0}, {256, 4, 4, 4, 0}}
	for i, p := range n.RouterPools() {
		if p != want[i] {
			t.Fatalf("pool %d %+v, want %+v", i, p, want[i])
		}
	}
}

// TestRouteByGatewayHealth: between two equal routes the gateway whose peer NI is healthier
// wins (lnet_find_route_locked's health key), so a failing gateway is avoided before the
// router checker declares it dead.
func TestRouteByGatewayHealth(t *testing.T) {
	k := sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	ns := mkNodes(t, k, l, DefaultTunables(), []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"},
		[]string{"10.0.0.4@o2ib", "10.1.0.4@o2ib1"}, []string{"10.1.0.2@o2ib1"})
	c0, r1, r2, s := ns[0], ns[1], ns[2], ns[3]
	r1.SetRouting(true)
	r2.SetRouting(true)
	mustRoute(t, c0, "o2ib1", "10.0.0.3@o2ib", 1, 0)
	mustRoute(t, c0, "o2ib1", "10.0.0.4@o2ib", 1, 0)
	mustRoute(t, s, "o2ib", "10.1.0.3@o2ib1", 1, 0)
	startAll(t, ns...)
	ev, sev := &evRec{}, &evRec{}
	sink(s, sev)
	runFor(t, k, 2*sim.Second)
	putTo(t, c0, "10.1.0.2@o2ib1", ev)
	runFor(t, k, sim.Second)
	if err := c0.SetPeerHealth(nid("10.0.0.4@o2ib"), 900); err != nil {
		t.Fatal(err)
	}
	b1, b2 := r1.RouterStats().Forwarded, r2.RouterStats().Forwarded
	for i := 0; i < 4; i++ {
		putTo(t, c0, "10.1.0.2@o2ib1", ev)
		runFor(t, k, sim.Millisecond)
	}
	// r1 (also the server's gateway) carries the 4 PUTs and their ACKs, r2 nothing. (A
	// message received through r2 would have reset its health: routers' rule.)
	if d1, d2 := r1.RouterStats().Forwarded-b1, r2.RouterStats().Forwarded-b2; d1 != 8 || d2 != 0 {
		t.Fatalf("forwarded r1 %d r2 %d, want 8 and 0", d1, d2)
	}
}

// TestRoutingStartStop: on a running router, disabling enters STOPPING (routing disabled
// advertised at once, forwarding still on) and stops after interval + timeout once idle;
// enabling enters STARTING (forwarding on, advertised only after interval + timeout).
func TestRoutingStartStop(t *testing.T) {
	k := sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	tun := DefaultTunables()
	tun.AliveRouterCheckInt = 5
	tun.RouterPingTimeout = 2 // settle time 7 s
	// Nobody pings the router's o2ib1 NI, which it therefore advertises DOWN after 7 s.
	tun.AvoidAsymRouterFailure = false
	ns := mkNodes(t, k, l, tun, []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"})
	c0, r := ns[0], ns[1]
	r.SetRouting(true)
	if r.RoutingState() != "enabled" {
		t.Fatalf("before startup: %s", r.RoutingState())
	}
	mustRoute(t, c0, "o2ib1", "10.0.0.3@o2ib", 1, 0)
	startAll(t, ns...)
	runFor(t, k, sim.Second)
	r.SetRouting(false)
	if r.RoutingState() != "stopping" || !r.Routing() || !r.PingBuffer().RoutingDisabled {
		t.Fatalf("after disable: %s routing %v advertised disabled %v", r.RoutingState(), r.Routing(), r.PingBuffer().RoutingDisabled)
	}
	runFor(t, k, 6*sim.Second)
	if r.RoutingState() != "stopping" || c0.Routes()[0].State != "down" {
		t.Fatalf("6 s later: %s, route %s", r.RoutingState(), c0.Routes()[0].State)
	}
	runFor(t, k, 2*sim.Second)
	if r.RoutingState() != "disabled" || r.Routing() {
		t.Fatalf("8 s later: %s", r.RoutingState())
	}
	r.SetRouting(true)
	if r.RoutingState() != "starting" || !r.Routing() || !r.PingBuffer().RoutingDisabled {
		t.Fatalf("after enable: %s", r.RoutingState())
	}
	runFor(t, k, 6*sim.Second)
	if c0.Routes()[0].State != "down" {
		t.Fatal("route up while the router is starting")
	}
	runFor(t, k, 7*sim.Second)
	if r.RoutingState() != "enabled" || c0.Routes()[0].State != "up" {
		t.Fatalf("13 s later: %s, route %s", r.RoutingState(), c0.Routes()[0].State)
	}
}

// TestRouterCheckerWalksNets: a gateway reached over two local nets is pinged over each in
// turn (lnet_check_routers' walk of its peer nets from lp_disc_net_id, each net every
// alive_router_check_interval), the remote net is never pinged, and a ping that fails on one
// net takes the gateway down until a ping on the other net answers.
func TestRouterCheckerWalksNets(t *testing.T) {
	k := sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	tun := DefaultTunables()
	tun.AliveRouterCheckInt = 4
	tun.TransactionTimeout = 3
	ns := mkNodes(t, k, l, tun, []string{"10.0.0.1@o2ib", "10.2.0.1@o2ib2"},
		[]string{"10.0.0.3@o2ib", "10.2.0.3@o2ib2", "10.1.0.3@o2ib1"}, []string{"10.1.0.2@o2ib1"})
	c, r, s := ns[0], ns[1], ns[2]
	r.SetRouting(true)
	mustRoute(t, c, "o2ib1", "10.0.0.3@o2ib", -1, 0)
	mustRoute(t, s, "o2ib", "10.1.0.3@o2ib1", -1, 0)
	type ping struct {
		at       sim.Time
		src, dst NID
	}
	var pings []ping
	cut := false // the o2ib2 path between c and r loses everything
	l.Hook = func(m *Msg) IdealVerdict {
		if m.Node() == c && m.Hdr.Type == MsgGET && m.Hdr.Portal == ReservedPortal {
			pings = append(pings, ping{k.Now(), m.TxNI().NID(), m.Target()})
		}
		if cut && (m.TxNI().NID().Net() == nid("10.2.0.1@o2ib2").Net()) {
			return IdealVerdict{Action: IdealDrop}
		}
		return IdealVerdict{}
	}
	startAll(t, ns...)
	runFor(t, k, 10*sim.Second+sim.Millisecond)
	want := []struct {
		at       sim.Time
		src, dst string
	}{
		{0, "10.0.0.1@o2ib", "10.0.0.3@o2ib"},   // first ping: the only net known
		{1, "10.2.0.1@o2ib2", "10.2.0.3@o2ib2"}, // o2ib2 learnt from the reply, due at once
		{4, "10.0.0.1@o2ib", "10.0.0.3@o2ib"},   // each net every 4 s
		{5, "10.2.0.1@o2ib2", "10.2.0.3@o2ib2"},
		{8, "10.0.0.1@o2ib", "10.0.0.3@o2ib"},
		{9, "10.2.0.1@o2ib2", "10.2.0.3@o2ib2"},
	}
	if len(pings) != len(want) {
		t.Fatalf("%d pings %+v, want %d", len(pings), pings, len(want))
	}
	for i, w := range want {
		p := pings[i]
		if p.at != w.at*sim.Second || p.src != nid(w.src) || p.dst != nid(w.dst) {
			t.Fatalf("ping %d: %v %s->%s, want %ds %s->%s", i, p.at, p.src, p.dst, w.at, w.src, w.dst)
		}
	}
	if routeState(c, "10.0.0.3@o2ib") != "up" {
		t.Fatal("route not up")
	}
	// Cut o2ib2: the ping at 13 s over o2ib2 is lost and fails when its response tracker
	// expires at 16 s (the monitor pass runs the router checker before the expiry, so no
	// other ping leaves while it is outstanding): the gateway is down, all its NIs DOWN, until
	// the next ping, over o2ib at 17 s, answers.
	cut = true
	n0 := len(pings)
	runFor(t, k, 6*sim.Second+500*sim.Millisecond) // to 16.5 s
	if routeState(c, "10.0.0.3@o2ib") != "down" || c.GatewayAlive(nid("10.0.0.3@o2ib")) {
		t.Fatal("a failed ping on o2ib2 did not take the gateway down")
	}
	runFor(t, k, sim.Second) // to 17.5 s
	if routeState(c, "10.0.0.3@o2ib") != "up" {
		t.Fatal("the o2ib ping did not bring the gateway back")
	}
	if got := pings[n0:]; len(got) < 3 || got[0].at != 12*sim.Second || got[1].at != 13*sim.Second || got[1].src.Net() != nid("10.2.0.1@o2ib2").Net() ||
		got[2].at != 17*sim.Second || got[2].src != nid("10.0.0.1@o2ib") {
		t.Fatalf("pings after the cut %+v", got)
	}
}

// TestRouteGatewayAnyLocalNet: lnet_find_route_locked looks for the gateway's best peer NI on
// any local net when no source NI is fixed (lnet_find_best_lpni with LNET_NET_ANY): a
// gateway reached over o2ib and o2ib2 whose o2ib peer NI is unhealthy is used over o2ib2,
// though the route was added through its o2ib NID; with the source fixed on o2ib, its o2ib
// peer NI is used.
func TestRouteGatewayAnyLocalNet(t *testing.T) {
	k := sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	ns := mkNodes(t, k, l, DefaultTunables(), []string{"10.0.0.1@o2ib", "10.2.0.1@o2ib2"},
		[]string{"10.0.0.3@o2ib", "10.2.0.3@o2ib2", "10.1.0.3@o2ib1"}, []string{"10.1.0.2@o2ib1"})
	c, r, s := ns[0], ns[1], ns[2]
	r.SetRouting(true)
	mustRoute(t, c, "o2ib1", "10.0.0.3@o2ib", -1, 0)
	mustRoute(t, s, "o2ib", "10.1.0.3@o2ib1", -1, 0)
	var hops []NID
	l.Hook = func(m *Msg) IdealVerdict {
		if m.Node() == c && m.Hdr.Type == MsgPUT && m.Hdr.Portal == testPortal {
			hops = append(hops, m.Target())
		}
		return IdealVerdict{}
	}
	startAll(t, ns...)
	ev, sev := &evRec{}, &evRec{}
	sink(s, sev)
	runFor(t, k, 2*sim.Second) // the gateway is discovered: both its local nets are known
	if err := c.SetPeerHealth(nid("10.0.0.3@o2ib"), 500); err != nil {
		t.Fatal(err)
	}
	putTo(t, c, "10.1.0.2@o2ib1", ev)
	runFor(t, k, 10*sim.Millisecond)
	md := c.MDBind(MDSpec{Length: 1000, Threshold: 2, Handler: ev})
	if err := c.Put(nid("10.0.0.1@o2ib"), md, AckReqAck, nid("10.1.0.2@o2ib1"), testPortal, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	runFor(t, k, 10*sim.Millisecond)
	if ev.count(EventACK) != 2 {
		t.Fatalf("%d ACKs", ev.count(EventACK))
	}
	want := []NID{nid("10.2.0.3@o2ib2"), nid("10.0.0.3@o2ib")}
	if len(hops) != 2 || hops[0] != want[0] || hops[1] != want[1] {
		t.Fatalf("PUTs went to %v, want %v", hops, want)
	}
}
