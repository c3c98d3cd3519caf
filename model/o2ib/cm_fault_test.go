package o2ib

import (
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// logWith returns the trace lines containing s, trimmed.
func logWith(log []string, s string) []string {
	var out []string
	for _, l := range log {
		if strings.Contains(l, s) {
			out = append(out, strings.TrimSpace(l))
		}
	}
	return out
}

// A client whose only link drops every packet from t=0: no CONNREQ ever crosses it. Its
// three ARP requests (0, 1 s, 2 s) go unanswered, rdma_resolve_addr ends in ADDR_ERROR at
// RDMA_RESOLVE_TIMEOUT (5 s), and kiblnd_cm_callback fails the peer with -EHOSTUNREACH,
// which kiblnd_peer_connect_failed maps to NETWORK_TIMEOUT: the discovery GET fails at
// exactly 5 s with -113/network_timeout, and the PUT waiting for discovery with it.
func TestDeadLinkFromStart(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.f.Links()[0].SetLoss(1)
	c.put(t, 1, 2, 8)
	c.run(t, 200*sim.Second)
	if l := logWith(c.log, "10.0.0.2@o2ib established"); len(l) != 0 {
		t.Fatalf("a connection was established: %v", l)
	}
	if l := logWith(c.log, "CONNREQ"); len(l) != 0 {
		t.Fatalf("CONNREQ sent: %v", l)
	}
	g := c.done[0].first(lnet.MsgGET, nidOf(2, 0))
	if g == nil || g.End != 5*sim.Second || g.Status != -lnet.EHOSTUNREACH || g.HStatus != lnet.LNET_MSG_STATUS_NETWORK_TIMEOUT {
		t.Fatalf("discovery GET %+v, want -113/network_timeout at 5s", g)
	}
	p := c.done[0].last(lnet.MsgPUT)
	if p == nil || p.End != 5*sim.Second || p.Status != -lnet.EHOSTUNREACH {
		t.Fatalf("PUT %+v, want -113 at 5s", p)
	}
	if got := logWith(c.log, "conn 10.0.0.2@o2ib failed"); len(got) != 1 || got[0] != "5s 10.0.0.1@o2ib conn 10.0.0.2@o2ib failed status=-113" {
		t.Fatalf("connection failures %v", got)
	}
}

// 30% loss on the client's link (seed 1): the first ARP request is answered, two path
// record queries are lost (resent every 500 ms, 1/10 of RDMA_RESOLVE_TIMEOUT) and the third
// answered at 1.00015 s; the REP is lost and the CM's resend 6.144 s later (below connd's
// 12.5 s connreq_timeout, so the CM's resend wins) establishes both sides at 7.14417 s; the
// discovery GET and the PUT succeed.
func TestLoss30Connects(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.f.Links()[0].SetLoss(0.3)
	c.put(t, 1, 2, 8)
	c.run(t, 20*sim.Second)
	want := []string{
		"7.14417s 10.0.0.1@o2ib conn 10.0.0.2@o2ib established qd=8",
		"7.144170311s 10.0.0.2@o2ib conn 10.0.0.1@o2ib established qd=8",
	}
	if got := logWith(c.log, " established"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("established:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if n := c.f.MADsLost(); n != 3 {
		t.Fatalf("%d management packets lost, want 3", n)
	}
	p := c.done[0].last(lnet.MsgPUT)
	if p == nil || p.Status != 0 {
		t.Fatalf("PUT %+v, want success", p)
	}
}

// The client's port fails (link down, PORT_ERR) at 100 us, while the path record query sent
// when the address resolved (50 us) is out: its answer is lost, the resends every 500 ms
// leave a port that is down, and ROUTE_ERROR at RDMA_RESOLVE_TIMEOUT (5.00005 s) fails the
// peer -EHOSTUNREACH: the discovery GET ends -113/network_timeout then, no CONNREQ sent.
func TestPortErrorDuringRouteResolution(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.k.AfterFunc(100*sim.Microsecond, c.f.Links()[0].LinkDown)
	c.put(t, 1, 2, 8)
	c.run(t, 5500*sim.Millisecond) // before LNet's recovery pings of its own NI
	if l := logWith(c.log, "CONNREQ"); len(l) != 0 {
		t.Fatalf("CONNREQ sent: %v", l)
	}
	g := c.done[0].first(lnet.MsgGET, nidOf(2, 0))
	if g == nil || g.End != 5*sim.Second+50*sim.Microsecond || g.Status != -lnet.EHOSTUNREACH ||
		g.HStatus != lnet.LNET_MSG_STATUS_NETWORK_TIMEOUT {
		t.Fatalf("discovery GET %+v, want -113/network_timeout at 5.00005s", g)
	}
	if n := c.f.MADsLost(); n != 10 {
		t.Fatalf("%d management packets lost, want 10 (the 9 resent queries and the first answer)", n)
	}
}

// The client's link dies at 165 us, between the REQ (sent at 150 us, at the server at
// 160 us) and the REP (sent at 160 us, due at 170 us): the REP is lost, and so are the CM's
// resent REQs (6.14415 s, 12.28815 s) and the server's resent REPs (6.14416 s, 12.28816 s).
// connd aborts the request
// at its first check of the peer's bucket past connreq_timeout (12.5 s after rdma_connect
// at 150 us): 15 s, -ENETDOWN, which kiblnd_peer_connect_failed maps to LOCAL_DROPPED; the
// discovery GET and the PUT waiting for it fail then (-100), long before their 22.5 s
// wait-for-connection deadline and before the CM's own 16 x 6.144 s run out. The DREQ the
// abort's rdma_disconnect sends is lost too: 6 MADs.
func TestLinkDiesBetweenREQAndREP(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.k.AfterFunc(165*sim.Microsecond, c.f.Links()[0].LinkDown)
	c.put(t, 1, 2, 8)
	c.run(t, 15500*sim.Millisecond) // before LNet's recovery pings of its own NI connect
	want := []string{
		"150us 10.0.0.1@o2ib -> 10.0.0.2@o2ib CONNREQ nob=56 credits=0 qd=8 frags=256 msgsize=4096",
		"160us 10.0.0.2@o2ib -> 10.0.0.1@o2ib CONNACK nob=56 credits=0 qd=8 frags=256 msgsize=4096",
		"15s 10.0.0.1@o2ib conn 10.0.0.2@o2ib failed status=-100",
	}
	got := append(logWith(c.log, "CONN"), logWith(c.log, " failed")...)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("log:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if l := logWith(c.log, "established"); len(l) != 0 {
		t.Fatalf("a connection was established: %v", l)
	}
	g := c.done[0].first(lnet.MsgGET, nidOf(2, 0))
	if g == nil || g.End != 15*sim.Second || g.Status != -lnet.ENETDOWN || g.HStatus != lnet.LNET_MSG_STATUS_LOCAL_DROPPED {
		t.Fatalf("discovery GET %+v, want -100/local_dropped at 15s", g)
	}
	if p := c.done[0].last(lnet.MsgPUT); p == nil || p.End != 15*sim.Second || p.Status != -lnet.ENETDOWN {
		t.Fatalf("PUT %+v, want -100 at 15s", p)
	}
	if n := c.f.MADsLost(); n != 6 {
		t.Fatalf("%d MADs lost, want 6 (the REP, 2 resent REQs and REPs, the abort's DREQ)", n)
	}
}
