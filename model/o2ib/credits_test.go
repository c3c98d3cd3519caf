package o2ib

import (
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// pumper keeps `inflight` PUTs of size bytes going from node 1 to node 2, issuing the next
// one on each ACK (or on each SEND event when ack is false).
type pumper struct {
	c         *cluster
	size      int
	ack       bool
	remaining int
	done      int
	tb        testing.TB
}

func (u *pumper) OnEvent(ev *lnet.Event) {
	if (u.ack && ev.Type != lnet.EventACK) || (!u.ack && ev.Type != lnet.EventSEND) {
		return
	}
	if ev.Status != 0 {
		u.tb.Fatalf("event %+v", ev)
	}
	u.done++
	u.next()
}

func (u *pumper) next() {
	if u.remaining == 0 {
		return
	}
	u.remaining--
	n := u.c.nodes[0]
	th, ack := 1, lnet.AckReqNone
	if u.ack {
		th, ack = 2, lnet.AckReqAck
	}
	md := n.MDBind(lnet.MDSpec{Length: u.size, Threshold: th, Handler: u})
	if err := n.Put(lnet.AnyNID, md, ack, nidOf(2, 0), testPortal, 7, 0, 0); err != nil {
		u.tb.Fatal(err)
	}
}

// streamSmallPuts sends 500 PUTs of 512 bytes without ACK from node 1 to node 2, 32 at a
// time, and checks that all were sent within a second.
func streamSmallPuts(t *testing.T, c *cluster) {
	t.Helper()
	u := &pumper{c: c, size: 512, remaining: 500, tb: t}
	for i := 0; i < 32; i++ {
		u.next()
	}
	c.run(t, sim.Second)
	if u.done != 500 {
		t.Fatalf("done %d of 500", u.done)
	}
}

// A stream of small PUTs never has more than concurrent_sends posted on a conn, and with
// the reverse path idle (no ACKs) the receiver returns credits by NOOP at the high-water mark.
func TestCreditsStream(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	maxPosted := 0
	h := &hookObs{traceObs: c.obs}
	h.fn = func(*MsgEvent) {
		for _, cn := range c.lnd.conns {
			if cn.nsendsPosted > maxPosted {
				maxPosted = cn.nsendsPosted
			}
			if cn.credits < 0 || cn.credits > cn.queueDepth {
				t.Fatalf("credits %d out of [0, %d]", cn.credits, cn.queueDepth)
			}
		}
	}
	c.lnd.SetObserver(h)
	streamSmallPuts(t, c)
	cs := c.lnd.nets[0].tun.concurrentSends
	if maxPosted > cs || maxPosted < 2 {
		t.Fatalf("max posted sends %d, concurrent_sends %d", maxPosted, cs)
	}
	noops := 0
	for _, l := range c.log {
		if containsAll(l, "10.0.0.2@o2ib -> 10.0.0.1@o2ib NOOP", "credits=4") {
			noops++
		}
	}
	if noops < 100 {
		t.Fatalf("%d NOOPs returning 4 credits from the idle side, want ~125", noops)
	}
}

// An idle conn sends a keepalive NOOP after `keepalive` seconds without sending.
func TestKeepalive(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 8)
	c.run(t, 250*sim.Second)
	n := 0
	for _, l := range c.log {
		if containsAll(l, " NOOP ") {
			n++
		}
	}
	// Each side is checked every 12.8 s; keepalive 100 s: ~2 per side in 250 s.
	if n < 2 || n > 6 {
		t.Fatalf("%d keepalive NOOPs in 250 s", n)
	}
}

func containsAll(s string, subs ...string) bool {
	for _, x := range subs {
		found := false
		for i := 0; i+len(x) <= len(s); i++ {
			if s[i:i+len(x)] == x {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// A stream of 1 MiB PUTs over one EDR (100 Gb/s) link reaches >= 95% of the link's rate.
func TestBandwidth(t *testing.T) {
	c := newCluster(t, clusterOpt{noTrace: true})
	u := &pumper{c: c, size: 1 << 20, ack: true, remaining: 1 << 30, tb: t}
	for i := 0; i < 16; i++ {
		u.next()
	}
	c.run(t, 10*sim.Millisecond) // connect, discover, fill the pipe
	d0, t0 := u.done, c.k.Now()
	c.run(t, 50*sim.Millisecond)
	bytes := float64(u.done-d0) * (1 << 20)
	rate := bytes * 8 / (c.k.Now() - t0).Seconds() / 1e9
	t.Logf("%d PUTs in %v: %.2f Gb/s", u.done-d0, c.k.Now()-t0, rate)
	if rate < 95 {
		t.Fatalf("%.2f Gb/s < 95%% of 100 Gb/s", rate)
	}
}

// Same seed, same run: identical event checksum and identical trace.
func TestDeterminism(t *testing.T) {
	run := func() (uint64, []string) {
		c := newCluster(t, clusterOpt{rails: 2})
		ck := sim.NewChecksum()
		c.k.SetObserver(ck.Observe)
		u := &pumper{c: c, size: 1 << 20, ack: true, remaining: 200, tb: t}
		for i := 0; i < 8; i++ {
			u.next()
		}
		c.get(t, 1, 2, 1<<19)
		c.run(t, 2*sim.Second)
		return ck.Sum(), c.log
	}
	s1, l1 := run()
	s2, l2 := run()
	if s1 != s2 || len(l1) != len(l2) {
		t.Fatalf("checksums %x %x, trace lines %d %d", s1, s2, len(l1), len(l2))
	}
	for i := range l1 {
		if l1[i] != l2[i] {
			t.Fatalf("trace differs at line %d:\n%s\n%s", i, l1[i], l2[i])
		}
	}
}

// noopCredits counts the NOOPs from node 2 to node 1 in a trace by the credits they return.
func noopCredits(log []string) map[string]int {
	n := map[string]int{}
	for _, l := range log {
		if i := strings.Index(l, "10.0.0.2@o2ib -> 10.0.0.1@o2ib NOOP"); i >= 0 {
			n[l[strings.Index(l, "credits="):]]++
		}
	}
	return n
}

// kiblnd_credits_highwater since LU-15828: a conn negotiated down to a smaller queue depth
// returns credits at peercredits_hiw x depth / peer_credits. The receiver has peer_credits
// 32 (hiw 16), the sender 8: the conn runs at depth 8 and the receiver's NOOPs return
// 8 x 16 / 32 = 4 credits each (min(hiw, depth - 1) = 7 before).
func TestNoopHighwaterScalesWithQueueDepth(t *testing.T) {
	big := DefaultParams()
	big.PeerCredits = 32
	c := newClusterWith(t, clusterOpt{}, map[lnet.NID]Params{nidOf(2, 0): big})
	streamSmallPuts(t, c)
	if hw := c.lnd.conns[1].creditsHighwater(); hw != 4 {
		t.Fatalf("receiver's high-water %d, want 4", hw)
	}
	got := noopCredits(c.log)
	if len(got) != 1 || got["credits=4"] != 125 {
		t.Fatalf("receiver's NOOPs by credits returned %v, want 125 x credits=4", got)
	}
}
