package ib

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// cmLog renders a CM user's events as "time TYPE status" lines.
func cmLog(r *rec) string {
	var b strings.Builder
	for i, ev := range r.cm {
		fmt.Fprintf(&b, "%v %v %d\n", r.cmAt[i], ev.Type, ev.Status)
	}
	return b.String()
}

func wantCMLog(t *testing.T, who string, r *rec, want ...string) {
	t.Helper()
	if got := cmLog(r); got != strings.Join(want, "\n")+"\n" {
		t.Fatalf("%s events:\n%swant\n%s", who, got, strings.Join(want, "\n"))
	}
}

// The CM's defaults are the Linux RDMA stack's: a REQ waits 2 x 2^(18-8) + 2^(20-8) ms =
// 6144 ms for its REP (packet lifetime 18, CMA_CM_RESPONSE_TIMEOUT 20) and is resent 15
// times (CMA_MAX_CM_RETRIES); ARP sends 3 requests 1 s apart.
func TestCMDefaultTimers(t *testing.T) {
	c := DefaultCMTiming()
	if c.ResponseTimeout != 6144*sim.Millisecond || c.MaxRetries != 15 || c.ARPProbes != 3 || c.ARPRetrans != sim.Second {
		t.Fatalf("defaults %+v", c)
	}
}

// With every packet of the client's link lost, the three ARP requests (at 0, 1 s and 2 s)
// go unanswered and rdma_resolve_addr ends in ADDR_ERROR -ETIMEDOUT at its 5 s timeout.
func TestCMAddrLossTotal(t *testing.T) {
	k, f, a, _ := cmSetup(t, Config{CM: cmTest})
	f.Links()[0].SetLoss(1)
	a.id = a.n.CreateID(a.r)
	must(t, a.id.ResolveAddr(netip.Addr{}, netip.AddrPortFrom(ipB, svc), 5*sim.Second))
	run(t, k)
	wantCMLog(t, "active", a.r, "5s ADDR_ERROR -110")
	if f.MADsLost() != 3 {
		t.Fatalf("%d management packets lost, want 3", f.MADsLost())
	}
}

// An ARP request lost to a link that is down is answered once the link is back: the second
// request, 1 s later, resolves the address (the old model waited for the timeout).
func TestCMAddrRetriesAfterLinkUp(t *testing.T) {
	k, f, a, _ := cmSetup(t, Config{CM: cmTest})
	l := f.Links()[0]
	l.LinkDown()
	k.AfterFunc(500*sim.Millisecond, l.LinkUp)
	a.id = a.n.CreateID(a.r)
	must(t, a.id.ResolveAddr(netip.Addr{}, netip.AddrPortFrom(ipB, svc), 5*sim.Second))
	run(t, k)
	wantCMLog(t, "active", a.r, "1.00005s ADDR_RESOLVED 0", "1.00015s ROUTE_RESOLVED 0", "1.00017s ESTABLISHED 0")
}

// link_delay delays management traffic as it does data: 1 ms on the client's link adds
// 2 ms to the ARP exchange, the path record query and the REQ/REP round trip each.
func TestCMLinkDelay(t *testing.T) {
	k, f, a, b := cmSetup(t, Config{CM: cmTest})
	f.Links()[0].SetExtraDelay(sim.Millisecond)
	a.connect(t, ipB)
	run(t, k)
	wantCMLog(t, "active", a.r, "2.05ms ADDR_RESOLVED 0", "4.15ms ROUTE_RESOLVED 0", "6.17ms ESTABLISHED 0")
	wantCMLog(t, "passive", b.r, "5.16ms CONNECT_REQUEST 0", "7.18ms ESTABLISHED 0")
}

// The link dies between the REQ and the REP (the REP is on the wire at 165 us): the REP
// and every resent REQ and REP are lost, so the active side gets UNREACHABLE -ETIMEDOUT
// after 1 + 3 REQs 1 ms apart, the passive side CONNECT_ERROR after 1 + 3 REPs.
func TestCMLinkDiesBetweenREQAndREP(t *testing.T) {
	k, f, a, b := cmSetup(t, Config{CM: cmTest})
	k.AfterFunc(165*sim.Microsecond, f.Links()[0].LinkDown)
	a.connect(t, ipB)
	run(t, k)
	wantCMLog(t, "active", a.r, "50us ADDR_RESOLVED 0", "150us ROUTE_RESOLVED 0", "4.15ms UNREACHABLE -110")
	wantCMLog(t, "passive", b.r, "160us CONNECT_REQUEST 0", "4.16ms CONNECT_ERROR -110")
	if f.MADsLost() != 7 {
		t.Fatalf("%d MADs lost, want 7 (the REP in flight, 3 REQs, 3 REPs)", f.MADsLost())
	}
}

// Route resolution fails with ROUTE_ERROR -ETIMEDOUT at its timeout when the subnet
// manager is down, or when the port fails while the path record query is out (a port
// error at 100 us, between ADDR_RESOLVED and the answer); with the SM back, it succeeds.
func TestCMRouteFaults(t *testing.T) {
	k, f, a, _ := cmSetup(t, Config{CM: cmTest})
	f.SMDown()
	a.connect(t, ipB)
	run(t, k)
	wantCMLog(t, "sm down", a.r, "50us ADDR_RESOLVED 0", "1.00005s ROUTE_ERROR -110")
	f.SMUp()
	a.id.Destroy()
	*a.r = rec{k: k, onCM: a.on}
	t0 := k.Now()
	k.AfterFunc(100*sim.Microsecond, f.Links()[0].LinkDown)
	a.connect(t, ipB)
	run(t, k)
	if got, want := a.r.cmAt, []sim.Time{t0 + 50*sim.Microsecond, t0 + 50*sim.Microsecond + sim.Second}; !slices.Equal(got, want) ||
		!slices.Equal(a.r.cmTypes(), []CMEventType{CMAddrResolved, CMRouteError}) {
		t.Fatalf("port error: events %v at %v, want ADDR_RESOLVED, ROUTE_ERROR at %v", a.r.cmTypes(), got, want)
	}
}

// At 30% loss on the client's link (seed 1) the connection is made after lost management
// packets: the first ARP request is answered; two path record queries are lost, the third
// (resent every 100 ms, 1/10 of the 1 s timeout) is answered; the REQ gets through but the
// REP is lost, and the passive side's REP resent 6.144 s later establishes both sides.
func TestCMLoss30(t *testing.T) {
	k, f, a, b := cmSetup(t, Config{})
	f.Links()[0].SetLoss(0.3)
	a.id = a.n.CreateID(a.r)
	must(t, a.id.ResolveAddr(netip.Addr{}, netip.AddrPortFrom(ipB, svc), 5*sim.Second))
	run(t, k)
	wantCMLog(t, "active", a.r, "50us ADDR_RESOLVED 0", "200.15ms ROUTE_RESOLVED 0", "6.34417s ESTABLISHED 0")
	wantCMLog(t, "passive", b.r, "200.16ms CONNECT_REQUEST 0", "6.34418s ESTABLISHED 0")
	if f.MADsLost() != 3 {
		t.Fatalf("%d management packets lost, want 3", f.MADsLost())
	}
}

// congestionRun connects c to b's listener (resolution started at 0) while, if send, a
// sends a 1 MiB SEND to b that starts at 0. a and c are on EDR links, b on QDR (32 Gb/s), and
// the switch's input buffers hold 32 chunks (2 MiB), so the whole message queues on the
// switch's output to b. It returns b's CONNECT_REQUEST time and, with send, the time b
// received the message.
func congestionRun(t *testing.T, send bool) (req, recvd sim.Time) {
	k := sim.New(1)
	f := New(k, Config{BufferChunks: 32})
	sw := f.AddSwitch("sw0")
	var sides []*side
	for i, name := range []string{"a", "b", "c"} {
		n := f.AddNode(name)
		p := n.AddHCA("mlx5_0", 1).Port(1)
		rate := EDR
		if name == "b" {
			rate = QDR
		}
		f.Connect(p, sw, LinkSpec{Rate: rate, Latency: 50 * sim.Nanosecond})
		p.AddIP(netip.AddrFrom4([4]byte{10, 0, 0, byte(i + 1)}))
		r := &rec{k: k}
		cq, err := n.HCAs()[0].CreateCQ(64, r)
		must(t, err)
		cq.ReqNotify()
		sides = append(sides, &side{n: n, p: p, cq: cq, r: r})
	}
	a, b := sides[0], sides[1]
	if send {
		rcPair(t, a, b, defRTS, 4)
		must(t, b.qp.PostRecv(RecvWR{ID: 1, Len: 1 << 20}))
		must(t, a.qp.PostSend(SendWR{ID: 2, Op: OpSend, Len: 1 << 20, Signaled: true}))
	}
	pb := newCMPeer(k, b.n)
	lis := b.n.CreateID(pb.r)
	must(t, lis.BindAddr(netip.AddrPortFrom(ipB, svc)))
	must(t, lis.Listen(16))
	pc := newCMPeer(k, sides[2].n)
	pc.connect(t, ipB)
	run(t, k)
	for i, ev := range pb.r.cm {
		if ev.Type == CMConnectRequest {
			req = pb.r.cmAt[i]
		}
	}
	for _, w := range b.r.wcs {
		if w.WRID == 1 && w.Status == WCSuccess {
			recvd = w.at
		}
	}
	return req, recvd
}

// A CM REQ waits behind the data queued on the switch output it crosses. The REQ leaves c
// at 150 us (ARP 50 us, path record query 100 us, neither crossing a busy output); the 1 MiB
// SEND from a, arriving at 100 Gb/s, queues on the switch's 32 Gb/s output to b, which sends
// it from 150 ns (a's 50 ns link and the switch's 100 ns) for 256 x (4096 + 26) wire bytes
// x 8 / 32 Gb/s = 263.808 us: its last byte leaves at 263.958 us (b holds the message 50 ns
// later). The REQ, joining that output at 150 us, waits exactly the 113.958 us of drain and
// reaches b at 273.958 us instead of 160 us (150 us + CMTiming.MAD).
func TestCMMADWaitsBehindQueuedData(t *testing.T) {
	idle, _ := congestionRun(t, false)
	req, recvd := congestionRun(t, true)
	if idle != 160*sim.Microsecond {
		t.Fatalf("REQ on an idle fabric at %v, want 160us", idle)
	}
	drain := recvd - 50*sim.Nanosecond - 150*sim.Microsecond
	if drain != 113958*sim.Nanosecond || req != idle+drain {
		t.Fatalf("REQ at %v with the message received at %v: delayed %v, want the drain %v", req, recvd, req-idle, drain)
	}
}
