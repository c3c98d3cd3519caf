package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// routed is a client C on o2ib, a server S on o2ib1 and routers R1 (and R2) between them, on
// one ideal LND. C and S have routes to each other's net through every router (R1 with
// priority 0, R2 with priority 1).
type routed struct {
	k          *sim.Kernel
	lnd        *IdealLND
	c, s       *Node
	rs         []*Node
	cEv, sEv   *evRec
	sent       []Header // every header an LND send carried from a router
	cNID, sNID NID
}

func newRouted(t testing.TB, routers int, tun, rtun Tunables) *routed {
	t.Helper()
	k := sim.New(1)
	r := &routed{k: k, lnd: NewIdealLND(k, sim.Microsecond), cEv: &evRec{}, sEv: &evRec{},
		cNID: nid("10.0.0.1@o2ib"), sNID: nid("10.1.0.2@o2ib1")}
	mk := func(name string, tu Tunables, nids ...string) *Node {
		n, err := NewNode(k, name, tu)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range nids {
			if _, err := n.AddNI(nid(s), r.lnd, NetTunables{}); err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	r.c = mk("c", tun, "10.0.0.1@o2ib")
	r.s = mk("s", tun, "10.1.0.2@o2ib1")
	o2ib, o2ib1 := r.cNID.Net(), r.sNID.Net()
	for i := 0; i < routers; i++ {
		h := 3 + i
		rn := mk("r", rtun, nidf("10.0.0.%d@o2ib", h), nidf("10.1.0.%d@o2ib1", h))
		rn.SetRouting(true)
		r.rs = append(r.rs, rn)
		if err := r.c.AddRoute(o2ib1, nid(nidf("10.0.0.%d@o2ib", h)), -1, i); err != nil {
			t.Fatal(err)
		}
		if err := r.s.AddRoute(o2ib, nid(nidf("10.1.0.%d@o2ib1", h)), -1, i); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range append([]*Node{r.c, r.s}, r.rs...) {
		if err := n.Startup(); err != nil {
			t.Fatal(err)
		}
	}
	r.s.MEAttach(MatchSpec{Portal: testPortal, Source: AnyNID, SourcePID: LNET_PID_ANY, IgnoreBits: ^uint64(0)},
		MDSpec{Length: 1 << 20, Threshold: ThresholdInf, Options: MD_OP_PUT | MD_OP_GET, Handler: r.sEv})
	r.lnd.Hook = func(m *Msg) IdealVerdict {
		if m.Node() != r.c && m.Node() != r.s {
			r.sent = append(r.sent, m.Hdr)
		}
		return IdealVerdict{}
	}
	r.run(t, 2*sim.Second) // router checker: first pings bring the routes up
	return r
}

func nidf(f string, h int) string {
	b := []byte(f)
	out := make([]byte, 0, len(b)+2)
	for i := 0; i < len(b); i++ {
		if b[i] == '%' && i+1 < len(b) && b[i+1] == 'd' {
			if h >= 10 {
				out = append(out, byte('0'+h/10))
			}
			out = append(out, byte('0'+h%10))
			i++
			continue
		}
		out = append(out, b[i])
	}
	return string(out)
}

func (r *routed) run(t testing.TB, d sim.Time) {
	t.Helper()
	if err := r.k.RunUntil(r.k.Now() + d); err != nil {
		t.Fatal(err)
	}
	for _, n := range append([]*Node{r.c, r.s}, r.rs...) {
		checkInvariants(t, n)
	}
}

func (r *routed) put(t testing.TB, size int, bits uint64) {
	t.Helper()
	md := r.c.MDBind(MDSpec{Length: size, Threshold: 2, Handler: r.cEv})
	if err := r.c.Put(AnyNID, md, AckReqAck, r.sNID, testPortal, bits, 0, 0); err != nil {
		t.Fatal(err)
	}
}

func (r *routed) get(t testing.TB, size int) {
	t.Helper()
	md := r.c.MDBind(MDSpec{Length: size, Threshold: 2, Handler: r.cEv})
	if err := r.c.Get(AnyNID, md, r.sNID, testPortal, 1, 0); err != nil {
		t.Fatal(err)
	}
}

func routeState(n *Node, gw string) string {
	for _, rt := range n.Routes() {
		if rt.Gateway == gw {
			return rt.State
		}
	}
	return "?"
}

// TestRoutedPutGet: PUT and GET, small and bulk, through one router (plain and
// optimized-GET LND): all complete; ACK and REPLY originate at the server (header source and
// event initiator); the router forwards each message once and never resends.
func TestRoutedPutGet(t *testing.T) {
	for _, opt := range []bool{false, true} {
		r := newRouted(t, 1, DefaultTunables(), DefaultTunables())
		r.lnd.OptimizedGET = opt
		if st := routeState(r.c, "10.0.0.3@o2ib"); st != "up" {
			t.Fatalf("route state %s after the first router check", st)
		}
		for i, size := range []int{100, 1 << 20} {
			r.put(t, size, uint64(i))
			r.get(t, size)
		}
		r.run(t, sim.Second)
		if a, g := r.cEv.count(EventACK), r.cEv.count(EventREPLY); a != 2 || g != 2 {
			t.Fatalf("opt %v: %d ACKs %d REPLYs, want 2 and 2", opt, a, g)
		}
		for _, ev := range r.cEv.evs {
			if (ev.Type == EventACK || ev.Type == EventREPLY) && (ev.Initiator != r.sNID || ev.Status != 0) {
				t.Fatalf("opt %v: %s from %s status %d, want from the server", opt, ev.Type, ev.Initiator, ev.Status)
			}
			if ev.Type == EventREPLY && ev.MLength != 100 && ev.MLength != 1<<20 {
				t.Fatalf("REPLY length %d", ev.MLength)
			}
		}
		if p, g := r.sEv.count(EventPUT), r.sEv.count(EventGET); p != 2 || g != 2 {
			t.Fatalf("server got %d PUTs %d GETs", p, g)
		}
		nACK := 0
		for _, h := range r.sent {
			if h.Type == MsgACK || h.Type == MsgREPLY {
				if _, ping := h.Data.(*PingBuffer); ping {
					continue
				}
				if h.Src != r.sNID || h.Dst != r.cNID {
					t.Fatalf("router sent %s %s->%s, want from the server", h.Type, h.Src, h.Dst)
				}
				nACK++
			}
		}
		if nACK != 4 {
			t.Fatalf("router forwarded %d ACK/REPLY, want 4", nACK)
		}
		rs := r.rs[0].Stats()
		if rs.ResendCount != 0 {
			t.Fatalf("router resent %d", rs.ResendCount)
		}
		if f := r.rs[0].RouterStats().Forwarded; f < 8 {
			t.Fatalf("router forwarded %d messages, want >= 8 (4 requests + 4 responses)", f)
		}
		if rs.RouteCount != r.rs[0].RouterStats().Forwarded {
			t.Fatalf("route_count %d", rs.RouteCount)
		}
		for _, p := range r.rs[0].RouterPools() {
			if p.Credits != p.NBuffers {
				t.Fatalf("pool %+v not all free", p)
			}
		}
	}
}

// TestRouterFailover: the preferred router dies (its messages are lost without an error);
// the router checker marks its routes down within alive_router_check_interval +
// transaction_timeout (+ one check period): the next ping after the death is due within the
// interval and, never answered, fails when its response tracker expires (master's router
// checker pings are discovery pings; router_ping_timeout is no ping timeout there). Traffic
// moves to the other router, and comes back when it returns (within two check periods).
func TestRouterFailover(t *testing.T) {
	tun := DefaultTunables()
	tun.AliveRouterCheckInt = 10
	tun.RouterPingTimeout = 5
	tun.TransactionTimeout = 12
	r := newRouted(t, 2, tun, tun)
	r1, r2 := r.rs[0], r.rs[1]
	r.put(t, 4096, 0)
	r.run(t, sim.Second)
	if r1.RouterStats().Forwarded == 0 || r2.RouterStats().Forwarded != 0 {
		t.Fatalf("before: r1 %d r2 %d forwarded", r1.RouterStats().Forwarded, r2.RouterStats().Forwarded)
	}
	dead := true
	r1n := map[NID]bool{nid("10.0.0.3@o2ib"): true, nid("10.1.0.3@o2ib1"): true}
	r.lnd.Hook = func(m *Msg) IdealVerdict {
		if dead && (m.Node() == r1 || r1n[m.Target()]) {
			return IdealVerdict{Action: IdealDrop}
		}
		return IdealVerdict{}
	}
	t0 := r.k.Now()
	limit := t0 + sim.Time(tun.AliveRouterCheckInt+tun.TransactionTimeout+1)*sim.Second
	for routeState(r.c, "10.0.0.3@o2ib") == "up" {
		if r.k.Now() > limit {
			t.Fatalf("route via r1 still up %v after its death", r.k.Now()-t0)
		}
		r.run(t, sim.Second)
	}
	for routeState(r.s, "10.1.0.3@o2ib1") == "up" {
		if r.k.Now() > limit+sim.Second {
			t.Fatal("server's route via r1 still up")
		}
		r.run(t, sim.Second)
	}
	f1, f2 := r1.RouterStats().Forwarded, r2.RouterStats().Forwarded
	r.put(t, 4096, 1)
	r.run(t, sim.Second)
	if r.cEv.count(EventACK) != 2 || r1.RouterStats().Forwarded != f1 || r2.RouterStats().Forwarded < f2+2 {
		t.Fatalf("during: %d ACKs, r1 %d->%d r2 %d->%d", r.cEv.count(EventACK), f1, r1.RouterStats().Forwarded, f2, r2.RouterStats().Forwarded)
	}
	dead = false
	t1 := r.k.Now()
	for routeState(r.c, "10.0.0.3@o2ib") != "up" || routeState(r.s, "10.1.0.3@o2ib1") != "up" {
		// Up to two check periods: r1, unpinged while cut off, advertises both its NIs DOWN
		// (lnet_update_ni_status_locked) until each side's next ping reaches it.
		if r.k.Now() > t1+sim.Time(2*tun.AliveRouterCheckInt+2)*sim.Second {
			t.Fatal("route via r1 not back up")
		}
		r.run(t, sim.Second)
	}
	f1 = r1.RouterStats().Forwarded
	r.put(t, 4096, 2)
	r.run(t, sim.Second)
	if r.cEv.count(EventACK) != 3 || r1.RouterStats().Forwarded < f1+2 {
		t.Fatalf("after: %d ACKs, r1 forwarded %d -> %d", r.cEv.count(EventACK), f1, r1.RouterStats().Forwarded)
	}
}

// TestAvoidAsymRouterFailure: the router's NI on the remote net goes down; the client's
// single-hop route through it goes down with avoid_asym_router_failure, stays up without.
func TestAvoidAsymRouterFailure(t *testing.T) {
	for _, avoid := range []bool{true, false} {
		tun := DefaultTunables()
		tun.AliveRouterCheckInt = 10
		tun.AvoidAsymRouterFailure = avoid
		r := newRouted(t, 1, tun, tun)
		rt := r.rs[0]
		rt.SetNIFatal(rt.NI(nid("10.1.0.3@o2ib1")), true)
		r.run(t, sim.Time(tun.AliveRouterCheckInt+1)*sim.Second)
		want := "up"
		if avoid {
			want = "down"
		}
		if st := routeState(r.c, "10.0.0.3@o2ib"); st != want {
			t.Fatalf("avoid_asym_router_failure=%v: route %s, want %s", avoid, st, want)
		}
	}
}

// TestRouterBufferStarvation: large_router_buffers=4 and 16 concurrent 1 MiB PUTs: messages
// queue on the large pool (min credits negative), all complete, in order per peer.
func TestRouterBufferStarvation(t *testing.T) {
	rtun := DefaultTunables()
	rtun.LargeRouterBuffers = 4
	r := newRouted(t, 1, DefaultTunables(), rtun)
	for i := 0; i < 16; i++ {
		r.put(t, 1<<20, uint64(i))
	}
	r.run(t, sim.Second)
	if a := r.cEv.count(EventACK); a != 16 {
		t.Fatalf("%d ACKs, want 16", a)
	}
	assertPutsInOrder(t, r.sEv)
	large := r.rs[0].RouterPools()[2]
	if large.NBuffers != 4 || large.Credits != 4 || large.MinCredits >= 0 {
		t.Fatalf("large pool %+v: want 4 buffers, all free, min credits negative", large)
	}
	t.Logf("large pool %+v", large)
}

// TestRouterExpiryPolicy: a congested router (one large buffer, 2 s to forward each 1 MiB
// message, a 2 s message deadline): with the opt-in expiry policy the messages that waited
// past their deadline are dropped and counted; without it every message is forwarded.
func TestRouterExpiryPolicy(t *testing.T) {
	for _, on := range []bool{false, true} {
		rtun := DefaultTunables()
		rtun.LargeRouterBuffers = 1
		rtun.RetryCount = 0
		rtun.RouterMsgExpiry = on
		r := newRouted(t, 1, DefaultTunables(), rtun)
		for _, nt := range r.rs[0].Nets() {
			nt.LNDTimeout = sim.Second // deadline = arrival + 1 s * (0 + 1) + 1 s
		}
		r.lnd.AddRule(IdealRule{From: pat(t, "10.1.0.3@o2ib1"), To: pat(t, "10.1.0.2@o2ib1"),
			Types: 1 << MsgPUT, Count: -1, Verdict: IdealVerdict{Delay: 2 * sim.Second}})
		for i := 0; i < 6; i++ {
			r.put(t, 1<<20, uint64(i))
		}
		r.run(t, 20*sim.Second)
		exp := r.rs[0].RouterStats().Expired
		puts := r.sEv.count(EventPUT)
		if on && (exp == 0 || puts+int(exp) != 6) {
			t.Fatalf("policy on: %d expired, %d delivered", exp, puts)
		}
		if !on && (exp != 0 || puts != 6) {
			t.Fatalf("policy off: %d expired, %d delivered", exp, puts)
		}
		t.Logf("policy %v: expired %d delivered %d", on, exp, puts)
	}
}

func pat(t testing.TB, s string) NIDPattern {
	p, err := ParseNIDPattern(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// assertPutsInOrder fails unless the PUT events rec saw carry match bits 0, 1, 2, ... in order
// (the PUTs of one peer keep their order through router queues).
func assertPutsInOrder(t *testing.T, rec *evRec) {
	t.Helper()
	var got []uint64
	for _, ev := range rec.evs {
		if ev.Type == EventPUT {
			got = append(got, ev.MatchBits)
		}
	}
	for i, b := range got {
		if b != uint64(i) {
			t.Fatalf("server got PUTs in order %v", got)
		}
	}
}

// TestSetRouterBuffers follows lnet_rtrpools_adjust / lnet_rtrpool_adjust_bufs (`lnetctl set
// large_buffers N` on a router): growing the pool adds free buffers at once, which go to the
// messages waiting on it, and resets the low-water mark; shrinking only lowers the requested
// count, and buffers beyond it are freed as they come back (lnet_return_rx_credits_locked).
func TestSetRouterBuffers(t *testing.T) {
	rtun := DefaultTunables()
	rtun.LargeRouterBuffers = 1
	r := newRouted(t, 1, DefaultTunables(), rtun)
	r.lnd.AddRule(IdealRule{From: pat(t, "10.1.0.3@o2ib1"), To: pat(t, "10.1.0.2@o2ib1"),
		Types: 1 << MsgPUT, Count: -1, Verdict: IdealVerdict{Delay: 2 * sim.Second}})
	for i := 0; i < 6; i++ {
		r.put(t, 1<<20, uint64(i))
	}
	rtr := r.rs[0]
	r.run(t, 500*sim.Millisecond)
	if got, want := rtr.RouterPools()[2], (RouterPoolShow{256, 1, -5, -5, 5}); got != want {
		t.Fatalf("before: large pool %+v, want %+v (one buffer, five messages waiting)", got, want)
	}
	if err := rtr.SetGlobal("large_buffers", 4); err != nil {
		t.Fatal(err)
	}
	if got, want := rtr.RouterPools()[2], (RouterPoolShow{256, 4, -2, -2, 2}); got != want {
		t.Fatalf("grown: large pool %+v, want %+v (three more buffers, three messages served)", got, want)
	}
	if err := rtr.SetGlobal("large_buffers", 2); err != nil {
		t.Fatal(err)
	}
	if v, _ := rtr.Global("large_buffers"); v != 2 {
		t.Fatalf("large_buffers reads %d, want 2", v)
	}
	r.run(t, 20*sim.Second)
	if got, want := rtr.RouterPools()[2], (RouterPoolShow{256, 2, 2, -2, 0}); got != want {
		t.Fatalf("shrunk: large pool %+v, want %+v (two buffers freed as they came back)", got, want)
	}
	if puts := r.sEv.count(EventPUT); puts != 6 {
		t.Fatalf("%d PUTs delivered, want 6", puts)
	}
	assertPutsInOrder(t, r.sEv)
}
