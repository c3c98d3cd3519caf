package lnet

import (
	"reflect"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestUDSPDescrMatch: the NID descriptor syntax and cfs_match_net / cfs_match_nid_net.
func TestUDSPDescrMatch(t *testing.T) {
	for _, c := range []struct {
		descr   string
		nid     string
		nidOK   bool // matchNID
		netOK   bool // matchNet of the NID's net
		netRule bool
	}{
		{"o2ib1", "10.1.0.2@o2ib1", false, true, true},
		{"o2ib", "10.0.0.2@o2ib", false, true, true},
		{"o2ib", "10.1.0.2@o2ib1", false, false, true}, // "o2ib" is net 0 only
		{"o2ib[1-3]", "10.2.0.2@o2ib2", false, true, true},
		{"o2ib[1-3/2]", "10.2.0.2@o2ib2", false, false, true},
		{"tcp1", "10.1.0.2@o2ib1", false, false, true},
		{"10.1.0.2@o2ib1", "10.1.0.2@o2ib1", true, true, false},
		{"10.1.0.2@o2ib1", "10.1.0.3@o2ib1", false, true, false},
		{"10.1.0.[2-5]@o2ib1", "10.1.0.5@o2ib1", true, true, false},
		{"10.1.0.[2-5]@o2ib1", "10.1.0.6@o2ib1", false, true, false},
		{"10.1.0.[1,3,7-9]@o2ib1", "10.1.0.8@o2ib1", true, true, false},
		{"10.1.*.*@o2ib1", "10.1.7.9@o2ib1", true, true, false},
		{"*.*.*.*@o2ib1", "10.9.9.9@o2ib1", true, true, false},
		{"*.*.*.*@o2ib1", "10.9.9.9@o2ib2", false, false, false},
		{"[0-4]@lo", "3@lo", true, true, false},
	} {
		d, err := ParseUDSPDescr(c.descr)
		if err != nil {
			t.Fatalf("%s: %v", c.descr, err)
		}
		n := nid(c.nid)
		if d.matchNID(n) != c.nidOK || d.matchNet(n.Net()) != c.netOK || d.isNetRule() != c.netRule {
			t.Errorf("%s vs %s: nid %v net %v netRule %v, want %v %v %v", c.descr, c.nid,
				d.matchNID(n), d.matchNet(n.Net()), d.isNetRule(), c.nidOK, c.netOK, c.netRule)
		}
	}
	for _, bad := range []string{"ib1", "o2ib[3-1]", "10.1.0@o2ib1", "10.1.0.[1-300]@o2ib1", "10.1.0.x@o2ib1", "o2ib[1-", "10.1.0.[1-3/0]@o2ib"} {
		if _, err := ParseUDSPDescr(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestUDSPSpecErrors: lnetctl's and the kernel's rule combinations.
func TestUDSPSpecErrors(t *testing.T) {
	for _, c := range []struct {
		spec UDSPSpec
		err  string // "" = accepted
	}{
		{UDSPSpec{Priority: -1}, "give src, dst or rte"},
		{UDSPSpec{Src: "o2ib", Rte: "10.0.0.3@o2ib", Priority: -1}, "cannot be combined"},
		{UDSPSpec{Src: "o2ib", Dst: "o2ib1", Rte: "10.0.0.3@o2ib", Priority: -1}, "cannot be combined"},
		{UDSPSpec{Rte: "10.0.0.3@o2ib", Priority: -1}, "rte needs dst"},
		{UDSPSpec{Dst: "o2ib1", Rte: "10.0.0.3@o2ib", Priority: 2}, "preferred-router"},
		{UDSPSpec{Dst: "o2ib1", Src: "o2ib", Priority: 2}, "preferred-NI"},
		{UDSPSpec{Dst: "bogus1", Priority: 2}, "udsp dst"},
		{UDSPSpec{Src: "o2ib", Priority: 1 << 33}, "out of range"},
		{UDSPSpec{Src: "o2ib", Priority: -1}, ""}, // priority 0 by default
		{UDSPSpec{Dst: "10.1.0.2@o2ib1", Rte: "10.0.0.3@o2ib", Priority: -1}, ""},
		{UDSPSpec{Dst: "10.1.0.2@o2ib1", Src: "10.0.0.1@o2ib", Priority: -1}, ""},
	} {
		u, err := parseUDSP(c.spec)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%+v: %v", c.spec, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%+v: got %v, want %q", c.spec, err, c.err)
		case c.err == "" && c.spec.Src != "" && c.spec.Dst == "" && (u.action != udspActionPriority || u.priority != 0):
			t.Errorf("%+v: src-only rule without priority must get priority 0", c.spec)
		}
	}
}

// udspNet is a client c (10.0.0.1@o2ib) and a server s (10.1.0.2@o2ib1) with two routers
// r1 (10.0.0.3/10.1.0.3) and r2 (10.0.0.4/10.1.0.4) on one ideal LND.
type udspNet struct {
	k            *sim.Kernel
	l            *IdealLND
	c, r1, r2, s *Node
	ev, sev      *evRec
	via          map[NID]int // PUTs to the test portal the client handed to each next hop
	dead         bool        // r1 drops everything
}

func newUDSPNet(t *testing.T, h1, p1, h2, p2 int) *udspNet {
	t.Helper()
	k := sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	tun := DefaultTunables()
	tun.AliveRouterCheckInt = 2
	tun.RouterPingTimeout = 1
	tun.TransactionTimeout = 4
	ns := mkNodes(t, k, l, tun, []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"},
		[]string{"10.0.0.4@o2ib", "10.1.0.4@o2ib1"}, []string{"10.1.0.2@o2ib1"})
	u := &udspNet{k: k, l: l, c: ns[0], r1: ns[1], r2: ns[2], s: ns[3], ev: &evRec{}, sev: &evRec{}}
	u.r1.SetRouting(true)
	u.r2.SetRouting(true)
	mustRoute(t, u.c, "o2ib1", "10.0.0.3@o2ib", h1, p1)
	mustRoute(t, u.c, "o2ib1", "10.0.0.4@o2ib", h2, p2)
	mustRoute(t, u.s, "o2ib", "10.1.0.3@o2ib1", -1, 0)
	mustRoute(t, u.s, "o2ib", "10.1.0.4@o2ib1", -1, 0)
	u.via = map[NID]int{}
	r1n := map[NID]bool{nid("10.0.0.3@o2ib"): true, nid("10.1.0.3@o2ib1"): true}
	l.Hook = func(m *Msg) IdealVerdict {
		if u.dead && (m.Node() == u.r1 || r1n[m.Target()]) {
			return IdealVerdict{Action: IdealDrop}
		}
		if m.Node() == u.c && m.Hdr.Type == MsgPUT && m.Hdr.Portal == testPortal {
			u.via[m.Target()]++
		}
		return IdealVerdict{}
	}
	startAll(t, ns...)
	sink(u.s, u.sev)
	runFor(t, k, 2*sim.Second)
	return u
}

// puts sends n PUTs from c to s, one per millisecond, and returns how many went to each
// router (as the LND saw c's sends).
func (u *udspNet) puts(t *testing.T, n int) (via1, via2 int) {
	t.Helper()
	b1, b2 := u.via[nid("10.0.0.3@o2ib")], u.via[nid("10.0.0.4@o2ib")]
	acks := u.ev.count(EventACK)
	for i := 0; i < n; i++ {
		putTo(t, u.c, "10.1.0.2@o2ib1", u.ev)
		runFor(t, u.k, sim.Millisecond)
	}
	runFor(t, u.k, 10*sim.Millisecond)
	if got := u.ev.count(EventACK) - acks; got != n {
		t.Fatalf("%d of %d PUTs acknowledged", got, n)
	}
	return u.via[nid("10.0.0.3@o2ib")] - b1, u.via[nid("10.0.0.4@o2ib")] - b2
}

// TestUDSPRouteChoice: lnet_find_route_locked's first criterion is the destination peer
// NI's preferred-router list (UDSP dst+rte), ahead of priority and hops.
func TestUDSPRouteChoice(t *testing.T) {
	for _, c := range []struct {
		name   string
		h1, p1 int // r1's route
		h2, p2 int // r2's route
		rules  []UDSPSpec
		after  bool // add the rules after the server's peer NI exists
		del    bool // delete rule 0 before sending
		want1  int  // PUTs (of 4) through r1
	}{
		{"no rule: priority", 1, 1, 1, 0, nil, false, false, 0},
		{"preferred beats priority", 1, 1, 1, 0, []UDSPSpec{{Dst: "10.1.0.2@o2ib1", Rte: "10.0.0.3@o2ib", Priority: -1}}, false, false, 4},
		{"preferred beats hops", 2, 0, 1, 0, []UDSPSpec{{Dst: "10.1.0.[1-9]@o2ib1", Rte: "10.0.0.3@o2ib", Priority: -1}}, false, false, 4},
		{"rule for another destination", 1, 1, 1, 0, []UDSPSpec{{Dst: "10.1.0.9@o2ib1", Rte: "10.0.0.3@o2ib", Priority: -1}}, false, false, 0},
		{"rte matches no gateway", 1, 1, 1, 0, []UDSPSpec{{Dst: "10.1.0.2@o2ib1", Rte: "10.0.0.9@o2ib", Priority: -1}}, false, false, 0},
		{"both preferred: priority decides", 1, 1, 1, 0, []UDSPSpec{{Dst: "10.1.0.2@o2ib1", Rte: "10.0.0.[3-4]@o2ib", Priority: -1}}, false, false, 0},
		{"net-only dst before the peer exists: not applied", 1, 1, 1, 0, []UDSPSpec{{Dst: "o2ib1", Rte: "10.0.0.3@o2ib", Priority: -1}}, false, false, 0},
		{"net-only dst after the peer exists: applied", 1, 1, 1, 0, []UDSPSpec{{Dst: "o2ib1", Rte: "10.0.0.3@o2ib", Priority: -1}}, true, false, 4},
		{"first rule wins", 1, 1, 1, 0, []UDSPSpec{{Dst: "10.1.0.2@o2ib1", Rte: "10.0.0.3@o2ib", Priority: -1}, {Dst: "10.1.0.*@o2ib1", Rte: "10.0.0.4@o2ib", Priority: -1}}, false, false, 4},
		{"deleted rule reverts", 1, 1, 1, 0, []UDSPSpec{{Dst: "10.1.0.2@o2ib1", Rte: "10.0.0.3@o2ib", Priority: -1}}, false, true, 0},
		{"equal: round robin", 1, 0, 1, 0, nil, false, false, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := newUDSPNet(t, c.h1, c.p1, c.h2, c.p2)
			add := func() {
				for _, r := range c.rules {
					if err := u.c.AddUDSP(r, -1); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !c.after {
				add()
			}
			putTo(t, u.c, "10.1.0.2@o2ib1", u.ev) // discovery of s, then the PUT
			runFor(t, u.k, sim.Second)
			if c.after {
				add()
			}
			if c.del {
				if err := u.c.DelUDSP(0); err != nil {
					t.Fatal(err)
				}
			}
			via1, via2 := u.puts(t, 4)
			if via1 != c.want1 || via1+via2 != 4 {
				t.Fatalf("r1 %d r2 %d of 4 PUTs, want %d through r1", via1, via2, c.want1)
			}
		})
	}
}

// TestUDSPPreferredRouterFailover: traffic takes the preferred router; when it dies the
// router checker takes its route down and traffic falls back to the other one, and returns
// when it comes back.
func TestUDSPPreferredRouterFailover(t *testing.T) {
	u := newUDSPNet(t, 1, 1, 1, 0)
	if err := u.c.AddUDSP(UDSPSpec{Dst: "10.1.0.2@o2ib1", Rte: "10.0.0.3@o2ib", Priority: -1}, -1); err != nil {
		t.Fatal(err)
	}
	putTo(t, u.c, "10.1.0.2@o2ib1", u.ev)
	runFor(t, u.k, sim.Second)
	if v1, _ := u.puts(t, 4); v1 != 4 {
		t.Fatalf("before: %d of 4 through the preferred r1", v1)
	}
	u.dead = true
	runFor(t, u.k, 8*sim.Second) // interval 2 + transaction timeout 4 + a check period
	if routeState(u.c, "10.0.0.3@o2ib") != "down" || routeState(u.s, "10.1.0.3@o2ib1") != "down" {
		t.Fatal("routes through the dead r1 still up")
	}
	if v1, v2 := u.puts(t, 4); v1 != 0 || v2 != 4 {
		t.Fatalf("during: r1 %d r2 %d", v1, v2)
	}
	u.dead = false
	runFor(t, u.k, 6*sim.Second)
	if routeState(u.c, "10.0.0.3@o2ib") != "up" {
		t.Fatal("route via r1 not back")
	}
	if v1, _ := u.puts(t, 4); v1 != 4 {
		t.Fatalf("after: %d of 4 through r1", v1)
	}
}

// TestUDSPPriorities: src rules set local net and NI priorities (lnet_get_best_ni), dst
// rules peer net and peer NI priorities (lnet_select_peer_ni), pair rules preferred NIs;
// `udsp info` shows them; deleting reverts to UINT_MAX (-1).
func TestUDSPPriorities(t *testing.T) {
	k := sim.New(1)
	l := NewIdealLND(k, sim.Microsecond)
	ns := mkNodes(t, k, l, DefaultTunables(), []string{"10.0.0.1@o2ib", "10.0.0.2@o2ib"}, []string{"10.0.0.5@o2ib", "10.0.0.6@o2ib"})
	a, b := ns[0], ns[1]
	if _, err := a.AddPeer(nid("10.0.0.5@o2ib"), []NID{nid("10.0.0.5@o2ib"), nid("10.0.0.6@o2ib")}, false); err != nil {
		t.Fatal(err)
	}
	startAll(t, a, b)
	net := a.netByID(nid("10.0.0.1@o2ib").Net())
	lpn := a.PeerNI(nid("10.0.0.5@o2ib")).pnet
	if got := a.bestNI(net).nid; got != nid("10.0.0.1@o2ib") {
		t.Fatalf("best NI %s before any rule", got)
	}
	for _, r := range []UDSPSpec{
		{Src: "10.0.0.2@o2ib", Priority: 0},
		{Dst: "10.0.0.6@o2ib", Priority: 0},
		{Src: "o2ib", Priority: 3},
		{Dst: "o2ib", Priority: 4},
		{Dst: "10.0.0.5@o2ib", Src: "10.0.0.1@o2ib", Priority: -1},
	} {
		if err := a.AddUDSP(r, -1); err != nil {
			t.Fatal(err)
		}
	}
	ni := a.bestNI(net)
	if ni.nid != nid("10.0.0.2@o2ib") {
		t.Fatalf("best NI %s, want the priority-0 10.0.0.2", ni.nid)
	}
	if got := a.selectPeerNI(ni, lpn).nid; got != nid("10.0.0.6@o2ib") {
		t.Fatalf("peer NI %s, want the priority-0 10.0.0.6", got)
	}
	info, _ := a.UDSPInfo(nid("10.0.0.5@o2ib"))
	want := UDSPInfo{NetPriority: 4, NIDPriority: -1, PreferredNID: []string{"10.0.0.1@o2ib"}}
	if !reflect.DeepEqual(info, want) {
		t.Fatalf("peer udsp info %+v, want %+v", info, want)
	}
	if info, _ := a.UDSPInfo(nid("10.0.0.2@o2ib")); info.NetPriority != 3 || info.NIDPriority != 0 {
		t.Fatalf("NI udsp info %+v", info)
	}
	if err := a.DelUDSP(-1); err != nil {
		t.Fatal(err)
	}
	for _, x := range []string{"10.0.0.2@o2ib", "10.0.0.5@o2ib", "10.0.0.6@o2ib"} {
		if info, _ := a.UDSPInfo(nid(x)); !reflect.DeepEqual(info, UDSPInfo{NetPriority: -1, NIDPriority: -1}) {
			t.Fatalf("%s after deleting every rule: %+v", x, info)
		}
	}
}

// TestUDSPAddShow: index insertion, an equal rule updating a priority or refused, and the
// `lnetctl udsp show` shape.
func TestUDSPAddShow(t *testing.T) {
	k := sim.New(1)
	ns := mkNodes(t, k, NewIdealLND(k, sim.Microsecond), DefaultTunables(), []string{"10.0.0.1@o2ib"})
	a := ns[0]
	must := func(s UDSPSpec, idx int) {
		t.Helper()
		if err := a.AddUDSP(s, idx); err != nil {
			t.Fatal(err)
		}
	}
	must(UDSPSpec{Src: "o2ib", Priority: 1}, -1)
	must(UDSPSpec{Dst: "o2ib1", Rte: "10.0.0.3@o2ib", Priority: -1}, -1)
	must(UDSPSpec{Dst: "10.1.0.[2-5]@o2ib1", Priority: 2}, 1)
	must(UDSPSpec{Src: "o2ib", Priority: 5}, -1) // equal match: updates the priority
	if err := a.AddUDSP(UDSPSpec{Dst: "o2ib1", Rte: "10.0.0.3@o2ib", Priority: -1}, -1); err == nil {
		t.Fatal("an equal preferred-router rule was accepted twice")
	}
	want := []UDSPShow{
		{Idx: 0, Src: "o2ib", Action: map[string]int{"priority": 5}},
		{Idx: 1, Dst: "10.1.0.[2-5]@o2ib1", Action: map[string]int{"priority": 2}},
		{Idx: 2, Dst: "o2ib1", Rte: "10.0.0.3@o2ib"},
	}
	if got := a.UDSPs(); !reflect.DeepEqual(got, want) {
		t.Fatalf("show %+v\nwant %+v", got, want)
	}
	if err := a.DelUDSP(1); err != nil {
		t.Fatal(err)
	}
	if err := a.DelUDSP(5); err == nil {
		t.Fatal("deleting a missing index succeeded")
	}
	if got := a.UDSPs(); len(got) != 2 || got[1].Idx != 1 || got[1].Rte != "10.0.0.3@o2ib" {
		t.Fatalf("after delete %+v", got)
	}
}
