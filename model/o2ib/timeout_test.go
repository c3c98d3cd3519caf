package o2ib

import (
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// sentPutDeadline sends a PUT from node 1 to node 2 over an established conn and returns
// its deadline relative to the send (get_msg_deadline runs at commit, in the same event).
func sentPutDeadline(t *testing.T, c *cluster) sim.Time {
	t.Helper()
	c.put(t, 1, 2, 8) // connect and discover first
	c.run(t, sim.Second)
	c.put(t, 1, 2, 1<<20)
	for _, x := range c.lnd.txs {
		if m := x.lnt[0]; x.net != nil && m != nil && m.Type() == lnet.MsgPUT {
			return m.Deadline() - c.k.Now()
		}
	}
	t.Fatal("no PUT tx in flight")
	return 0
}

// o2iblnd gives LNet its timeout (lnd_get_timeout = kiblnd_timeout), so a message's
// deadline is timeout x (retry_count + 1) + 1 s (get_msg_deadline): 50 x 3 + 1 = 151 s with
// the defaults, 65 x 3 + 1 = 196 s with timeout 65; with timeout 0 o2iblnd's timeout is
// lnet_lnd_timeout, (150 - 1) / 3 = 49 s, and the deadline 49 x 3 + 1 = 148 s.
func TestMsgDeadlineFromLNDTimeout(t *testing.T) {
	for _, tc := range []struct {
		timeout int
		want    sim.Time
	}{{50, 151 * sim.Second}, {65, 196 * sim.Second}, {0, 148 * sim.Second}} {
		p := DefaultParams()
		p.Timeout = tc.timeout
		c := newCluster(t, clusterOpt{params: p, noTrace: true})
		if got := sentPutDeadline(t, c); got != tc.want {
			t.Errorf("timeout %d: deadline now+%v, want now+%v", tc.timeout, got, tc.want)
		}
	}
}

// kiblnd_check_conns times out only active connection requests (ibp_connreqs): the passive
// side's wait for the RTU is the CM's business. Node 1's cable goes down as node 2 accepts,
// so the REP never arrives: node 1's request is aborted by its connd (-ENETDOWN = -100) at
// 15 s, the first check of its bucket more than connreq_timeout (12.5 s) after rdma_connect, while
// node 2's conn stays PASSIVE_WAIT until its CM gives up resending the REP (16 x 6.144 s
// after the REP at 160 us: CONNECT_ERROR, -ENOTCONN = -107). Meanwhile node 1's LNet pings
// its own NI (recovery), and with its port down the path record query of each loopback
// connect gets no answer: ROUTE_ERROR 5 s later, -EHOSTUNREACH = -113. Node 1's monitor runs
// in the phase of the PORT_ERR (160 us): its LND's request for a new ping target woke it then
// and restarted its 1 s sleep.
func TestConnreqTimeoutActiveOnly(t *testing.T) {
	tun := lnet.DefaultTunables()
	tun.RetryCount = 0
	c := newCluster(t, clusterOpt{tun: tun})
	h := &hookObs{traceObs: c.obs}
	h.fn = func(ev *MsgEvent) {
		if ev.Type == MsgCONNACK {
			c.f.Links()[0].LinkDown()
		}
	}
	c.lnd.SetObserver(h)
	c.put(t, 1, 2, 8)
	c.run(t, 100*sim.Second)
	var fails []string
	for _, l := range connLines(c.log) {
		if strings.Contains(l, " failed ") {
			fails = append(fails, strings.TrimSpace(l))
		}
	}
	want := []string{
		"15s 10.0.0.1@o2ib conn 10.0.0.2@o2ib failed status=-100",
		"21.00021s 10.0.0.1@o2ib conn 10.0.0.1@o2ib failed status=-113",
		"27.00021s 10.0.0.1@o2ib conn 10.0.0.1@o2ib failed status=-113",
		"33.00021s 10.0.0.1@o2ib conn 10.0.0.1@o2ib failed status=-113",
		"41.00021s 10.0.0.1@o2ib conn 10.0.0.1@o2ib failed status=-113",
		"57.00021s 10.0.0.1@o2ib conn 10.0.0.1@o2ib failed status=-113",
		"89.00021s 10.0.0.1@o2ib conn 10.0.0.1@o2ib failed status=-113",
		"98.30416s 10.0.0.2@o2ib conn 10.0.0.1@o2ib failed status=-107",
	}
	if strings.Join(fails, "\n") != strings.Join(want, "\n") {
		t.Fatalf("connection failures:\n%s\nwant\n%s", strings.Join(fails, "\n"), strings.Join(want, "\n"))
	}
}

// The connection check aborts a request strictly after connreq_timeout (d <= timeout
// continues in kiblnd_check_conns): exactly connreq_timeout old, it is kept.
func TestConnreqTimeoutStrictlyAfter(t *testing.T) {
	c := newCluster(t, clusterOpt{noTrace: true})
	c.f.InjectCMNoResponse(nidAddr(nidOf(2, 0)), -1)
	c.put(t, 1, 2, 8)
	c.run(t, 500*sim.Millisecond)
	cn := c.lnd.conns[0]
	if cn.state != connActiveConnect {
		t.Fatalf("conn state %d, want ACTIVE_CONNECT", cn.state)
	}
	to := cn.peer.net.tun.connreqTimeout
	cn.started = c.k.Now() - to
	c.lnd.checkConns(cn.peer.bucket)
	if cn.state != connActiveConnect {
		t.Fatalf("aborted at exactly connreq_timeout (%v)", to)
	}
	cn.started--
	c.lnd.checkConns(cn.peer.bucket)
	if cn.state != connDisconnected {
		t.Fatalf("conn state %d past connreq_timeout, want DISCONNECTED", cn.state)
	}
}

// kiblnd_tx_done hands LNet the tx's health status as it is, even with a status of 0; LNet
// then skips the health check (lnet_is_health_check: inconsistent pair): no resend, no
// health change, and the record keeps the pair.
func TestTxDoneKeepsHealthStatus(t *testing.T) {
	c := newCluster(t, clusterOpt{noTrace: true})
	c.put(t, 1, 2, 8)
	c.run(t, sim.Second)
	c.put(t, 1, 2, 1<<20)
	var x *tx
	for _, y := range c.lnd.txs {
		if y.net != nil && y.lnt[0] != nil && y.lnt[0].Type() == lnet.MsgPUT {
			x = y
		}
	}
	if x == nil {
		t.Fatal("no PUT tx in flight")
	}
	x.hstatus = lnet.LNET_MSG_STATUS_LOCAL_TIMEOUT
	c.run(t, sim.Second)
	r := c.done[0].last(lnet.MsgPUT)
	if r == nil || r.Status != 0 || r.HStatus != lnet.LNET_MSG_STATUS_LOCAL_TIMEOUT || r.Resends != 0 {
		t.Fatalf("PUT record %+v, want status 0 with local_timeout, no resend", r)
	}
	if h := c.nodes[0].NIs()[0].Health(); h != 1000 {
		t.Fatalf("NI health %d, want 1000 (no health check)", h)
	}
}

// SetTimeout (lnetctl net set --lnd-timeout, LU-18566) changes the timeout at run time as
// ko2iblnd's writable module parameter does: the next message's deadline follows it (65 x 3
// + 1 = 196 s; 0 falls back to lnet_lnd_timeout, 49 x 3 + 1 = 148 s), and so does the
// connect request timeout (a quarter of it, at least 5 s).
func TestSetTimeout(t *testing.T) {
	for _, tc := range []struct {
		timeout int
		want    sim.Time
		connreq sim.Time
	}{{65, 196 * sim.Second, 16250 * sim.Millisecond}, {0, 148 * sim.Second, 12250 * sim.Millisecond}, {8, 25 * sim.Second, 5 * sim.Second}} {
		c := newCluster(t, clusterOpt{noTrace: true})
		for _, n := range c.lnd.nets {
			if !c.lnd.SetTimeout(n.ni, tc.timeout) {
				t.Fatalf("timeout %d: refused", tc.timeout)
			}
		}
		if got := sentPutDeadline(t, c); got != tc.want {
			t.Errorf("timeout %d: deadline now+%v, want now+%v", tc.timeout, got, tc.want)
		}
		if got := c.lnd.nets[0].tun.connreqTimeout; got != tc.connreq {
			t.Errorf("timeout %d: connreq timeout %v, want %v", tc.timeout, got, tc.connreq)
		}
	}
}
