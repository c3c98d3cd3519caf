// The routing stories (routes, router checker, router buffers, gateway rules) are the
// datadriven scripts testdata/route*.txt and testdata/router*.txt; this file holds the
// helpers that build routed topologies for the Go tests that look inside the model.
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

// mkNodes builds nodes a, b, c, ... with the given NIDs on one ideal LND (not started).
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
