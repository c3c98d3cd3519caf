package o2ib

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// hookObs calls fn on every posted message after recording it.
type hookObs struct {
	*traceObs
	fn   func(ev *MsgEvent)
	rdma func(ev *RDMAEvent)
}

func (h *hookObs) MsgPosted(ev *MsgEvent) {
	h.traceObs.MsgPosted(ev)
	if h.fn != nil {
		h.fn(ev)
	}
}

func (h *hookObs) RDMAPosted(ev *RDMAEvent) {
	h.traceObs.RDMAPosted(ev)
	if h.rdma != nil {
		h.rdma(ev)
	}
}

// The peer's HCA dies after the PUT_REQ was delivered and before its PUT_ACK leaves: the tx
// only waits, times out (detected by the connection check within 1.25 x timeout + 1 s),
// the conn closes and the PUT finalizes REMOTE_TIMEOUT.
func TestPeerHCADiesWaitingForPutAck(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 8) // connect and discover first: no discovery message is in flight when the HCA dies
	c.run(t, sim.Second)
	var died sim.Time
	h := &hookObs{traceObs: c.obs}
	h.fn = func(ev *MsgEvent) {
		if ev.Type == MsgPUT_ACK && died == 0 {
			died = ev.Time
			c.ibn[1].HCAs()[0].HCAFatal()
		}
	}
	c.lnd.SetObserver(h)
	c.put(t, 1, 2, 1<<20)
	c.run(t, 200*sim.Second)
	r := c.done[0].last(lnet.MsgPUT)
	if died == 0 || r == nil {
		t.Fatalf("died %v record %+v", died, r)
	}
	if r.HStatus != lnet.LNET_MSG_STATUS_REMOTE_TIMEOUT || r.Status == 0 {
		t.Fatalf("PUT finalized %d/%s, want REMOTE_TIMEOUT", r.Status, r.HStatus)
	}
	to := 50 * sim.Second
	if d := r.End - died; d < to || d > to*5/4+sim.Second {
		t.Fatalf("timed out after %v, want within [%v, %v]", d, to, to*5/4+sim.Second)
	}
	if c.lnd.Stats().ConnsClosed == 0 {
		t.Fatal("conn not closed")
	}
	if c.lnd.Stats().NotifyDown == 0 {
		t.Fatal("LNet not told the peer is down")
	}
	if !c.nodes[1].NIs()[0].Fatal() || c.nodes[1].NIs()[0].Status() != lnet.NIStatusDown {
		t.Fatal("DEVICE_FATAL did not make the dead node's NI fatal")
	}
}

// A receive-side drop rule at the target: LNet discards the PUT_REQ and the LND answers
// PUT_NAK(0), so the sender's PUT completes (nothing was placed, no ACK comes).
func TestReceiveDropRuleNaks(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 8)
	c.run(t, sim.Second)
	if _, err := c.nodes[1].AddDropRule(lnet.DropRuleSpec{FaultAttr: lnet.FaultAttr{MsgMask: lnet.MaskPUT}, Rate: 1}); err != nil {
		t.Fatal(err)
	}
	c.put(t, 1, 2, 1<<20)
	c.run(t, sim.Second)
	if c.obs.posts[MsgPUT_NAK] != 1 {
		t.Fatalf("posts %v", c.obs.posts)
	}
	r := c.done[0].last(lnet.MsgPUT)
	if r == nil || r.Size != 1<<20 || r.Status != 0 {
		t.Fatalf("PUT record %+v", r)
	}
}

// Shutting a node down closes its conns and fails nothing twice.
func TestShutdown(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 1<<20)
	c.run(t, sim.Second)
	c.nodes[0].Shutdown()
	c.run(t, 10*sim.Second)
	if st := c.lnd.Stats(); st.ConnsClosed < 2 {
		t.Fatalf("stats %+v", st)
	}
	if p := c.lnd.nets[0].peers[nidOf(1, 0)]; p != nil || len(c.lnd.nets) != 1 {
		t.Fatalf("peer on the surviving node still there: %+v", p)
	}
}

// With the peer's rxs held by LNet (a delay rule), no credit comes back: the ninth small PUT
// waits on the conn's queue without a credit until its deadline, and finalizes LOCAL_TIMEOUT.
func TestQueuedBehindCreditsLocalTimeout(t *testing.T) {
	tun := lnet.DefaultTunables()
	tun.RetryCount = 0
	c := newCluster(t, clusterOpt{tun: tun})
	c.put(t, 1, 2, 8) // connect and discover first
	c.run(t, sim.Second)
	if _, err := c.nodes[1].AddDelayRule(lnet.DelayRuleSpec{FaultAttr: lnet.FaultAttr{MsgMask: lnet.MaskPUT}, Rate: 1, Latency: 1000}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 9; i++ {
		n := c.nodes[0]
		md := n.MDBind(lnet.MDSpec{Length: 64, Threshold: 1, Handler: c.src[0]})
		if err := n.Put(lnet.AnyNID, md, lnet.AckReqNone, nidOf(2, 0), testPortal, 7, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	c.run(t, 100*sim.Second)
	var ok, lt int
	for _, r := range c.done[0].recs {
		if r.Type != lnet.MsgPUT || r.Received || r.Size != 64 {
			continue
		}
		switch {
		case r.Status == 0:
			ok++
		case r.HStatus == lnet.LNET_MSG_STATUS_LOCAL_TIMEOUT:
			lt++
		}
	}
	// Discovery's messages left two credits the peer still owes (below the high-water mark),
	// so 6 PUTs get a credit and the other three wait.
	if ok != 6 || lt != 3 {
		t.Fatalf("ok=%d local_timeout=%d, want 6 and 3 (%+v)", ok, lt, c.done[0].recs)
	}
}

// A link going down in the middle of the RDMA WRITE: the QP's retries run out, the SEND
// behind the WRITE flushes, the tx fails REMOTE_DROPPED and the conn closes (-EIO).
func TestLinkDownMidRDMA(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	h := &hookObs{traceObs: c.obs}
	h.rdma = func(ev *RDMAEvent) {
		c.k.AfterFunc(20*sim.Microsecond, func() { c.f.Links()[0].LinkDown() })
	}
	c.lnd.SetObserver(h)
	c.put(t, 1, 2, 1<<20)
	c.run(t, 10*sim.Second)
	r := c.done[0].last(lnet.MsgPUT)
	if r == nil || r.HStatus != lnet.LNET_MSG_STATUS_REMOTE_DROPPED || r.Status != -lnet.EIO {
		t.Fatalf("PUT record %+v", r)
	}
	if c.lnd.Stats().ConnsClosed == 0 {
		t.Fatal("conn not closed")
	}
	if !c.nodes[0].NIs()[0].Fatal() {
		t.Fatal("NI not fatal after PORT_ERR")
	}
}

// A multi-rail client loses its first rail's port mid-PUT: PORT_ERR makes that NI fatal, the
// send fails REMOTE_DROPPED, LNet resends on the second rail and the PUT completes.
func TestMultiRailFailover(t *testing.T) {
	c := newCluster(t, clusterOpt{rails: 2})
	c.put(t, 1, 2, 8) // connect and discover
	c.run(t, sim.Second)
	h := &hookObs{traceObs: c.obs}
	var downAt sim.Time
	rail := -1
	h.rdma = func(ev *RDMAEvent) {
		if downAt == 0 && ev.Src.Addr()&0xff == 1 {
			downAt = ev.Time
			rail = int(ev.Src.Addr() >> 8 & 0xff) // node 1's links come first, one per rail
			c.k.AfterFunc(10*sim.Microsecond, func() { c.f.Links()[rail].LinkDown() })
		}
	}
	c.lnd.SetObserver(h)
	n := c.nodes[0]
	md := n.MDBind(lnet.MDSpec{Length: 1 << 20, Threshold: 2, Handler: c.src[0]})
	if err := n.Put(lnet.AnyNID, md, lnet.AckReqAck, nidOf(2, 0), testPortal, 7, 0, 0); err != nil {
		t.Fatal(err)
	}
	c.run(t, 10*sim.Second)
	if downAt == 0 {
		t.Fatal("no RDMA on rail 0")
	}
	ack := c.src[0].last(lnet.EventACK)
	if ack == nil || ack.Status != 0 || ack.MLength != 1<<20 {
		t.Fatalf("ACK = %+v", ack)
	}
	r := c.done[0].last(lnet.MsgPUT)
	if r == nil || r.Status != 0 || r.Resends == 0 || r.Size != 1<<20 {
		t.Fatalf("PUT record %+v", r)
	}
	if !n.NIs()[rail].Fatal() || n.NIs()[1-rail].Fatal() {
		t.Fatal("fatal state of NIs wrong")
	}
	c.f.Links()[rail].LinkUp()
	c.run(t, sim.Second)
	if n.NIs()[rail].Fatal() {
		t.Fatal("PORT_ACTIVE did not clear the fatal state")
	}
}

// A peer that rejects every connection as stale: reconnects follow at once up to
// KIB_RECONN_HIGH_RACE in a row, then one per second, until the waiting tx's deadline
// (connreq_timeout + 2 x 5 s) fails it NETWORK_TIMEOUT.
func TestCMRejectStormBacksOff(t *testing.T) {
	tun := lnet.DefaultTunables()
	tun.RetryCount = 0
	c := newCluster(t, clusterOpt{tun: tun})
	c.f.InjectCMReject(nidAddr(nidOf(2, 0)), ib.RejStaleConn, nil, -1)
	c.put(t, 1, 2, 8)
	c.run(t, 60*sim.Second)
	st := c.lnd.Stats()
	r := c.done[0].first(lnet.MsgGET, nidOf(2, 0)) // discovery's ping goes first
	if r == nil || r.HStatus != lnet.LNET_MSG_STATUS_NETWORK_TIMEOUT {
		t.Fatalf("ping record %+v", r)
	}
	// Waiting txs are checked with their peer's bucket: detection within 22.5 s + 12.8 s.
	if d := r.End; d < 22500*sim.Millisecond || d > 36*sim.Second {
		t.Fatalf("failed at %v, want within [22.5 s, 36 s]", d)
	}
	if max := uint64(reconnHighRace) + uint64(r.End/sim.Second) + 1; st.Reconnects < reconnHighRace || st.Reconnects > max {
		t.Fatalf("reconnects %d: no back-off", st.Reconnects)
	}
}

// No listener on the peer (INVALID_SERVICE_ID): kiblnd_rejected fails the attempt at once
// with -EHOSTUNREACH (no retry since LU-14536), so the waiting tx fails NETWORK_TIMEOUT
// after one CM round trip and LNet is told the peer is down.
func TestNoListener(t *testing.T) {
	tun := lnet.DefaultTunables()
	tun.RetryCount = 0
	c := newCluster(t, clusterOpt{tun: tun})
	c.f.InjectCMReject(nidAddr(nidOf(2, 0)), ib.RejInvalidServiceID, nil, -1)
	c.put(t, 1, 2, 8)
	c.run(t, 10*sim.Second)
	r := c.done[0].first(lnet.MsgGET, nidOf(2, 0))
	if r == nil || r.HStatus != lnet.LNET_MSG_STATUS_NETWORK_TIMEOUT || r.Status != -lnet.EHOSTUNREACH || r.End != 170*sim.Microsecond {
		t.Fatalf("ping record %+v", r)
	}
	if st := c.lnd.Stats(); st.Reconnects != 0 || st.Rejected != 1 || st.NotifyDown != 1 {
		t.Fatalf("stats %+v, want 1 reject, no reconnect, 1 notify", st)
	}
}

// A drop rule with a health mask fails the send at post time with the rule's hstatus and,
// as in the kernel, closes the connection.
func TestHealthDropRuleAtPost(t *testing.T) {
	tun := lnet.DefaultTunables()
	tun.RetryCount = 0
	c := newCluster(t, clusterOpt{tun: tun})
	c.put(t, 1, 2, 8) // connect and discover
	c.run(t, sim.Second)
	_, err := c.nodes[0].AddDropRule(lnet.DropRuleSpec{FaultAttr: lnet.FaultAttr{MsgMask: lnet.MaskPUT}, Rate: 1,
		HealthMask: 1 << lnet.LNET_MSG_STATUS_LOCAL_TIMEOUT})
	if err != nil {
		t.Fatal(err)
	}
	closed := c.lnd.Stats().ConnsClosed
	c.put(t, 1, 2, 1<<20)
	c.run(t, sim.Second)
	r := c.done[0].last(lnet.MsgPUT)
	if r == nil || r.Size != 1<<20 || r.HStatus != lnet.LNET_MSG_STATUS_LOCAL_TIMEOUT || r.Status != -lnet.EINVAL {
		t.Fatalf("PUT record %+v", r)
	}
	if c.lnd.Stats().ConnsClosed == closed {
		t.Fatal("conn not closed")
	}
}

// A peer whose CM never answers: connd's check of the peer's bucket aborts the connection
// request at 15 s, its first pass after connreq_timeout (max(5 s, timeout/4) = 12.5 s) and
// before the waiting tx's own deadline (22.5 s) or the CM's 16 x 4.3 s retries: the
// discovery GET fails -ENETDOWN with LOCAL_DROPPED.
func TestConnreqTimeout(t *testing.T) {
	tun := lnet.DefaultTunables()
	tun.RetryCount = 0
	c := newCluster(t, clusterOpt{tun: tun})
	c.f.InjectCMNoResponse(nidAddr(nidOf(2, 0)), -1)
	c.put(t, 1, 2, 8)
	c.run(t, 60*sim.Second)
	r := c.done[0].first(lnet.MsgGET, nidOf(2, 0))
	if r == nil {
		t.Fatal("no GET record to the silent peer")
	}
	if r.End != 15*sim.Second || r.Status != -lnet.ENETDOWN || r.HStatus != lnet.LNET_MSG_STATUS_LOCAL_DROPPED {
		t.Fatalf("GET failed at %v with %d/%s, want 15s with %d/%s", r.End, r.Status, r.HStatus,
			-lnet.ENETDOWN, lnet.LNET_MSG_STATUS_LOCAL_DROPPED)
	}
}

// The peer node crashes and reboots. The rebooted node connects first: the survivor still
// has a conn of the old incarnation, closes it (-ESTALE) and rejects CONN_STALE; the
// rebooted node reconnects and its PUT completes. The survivor's next PUT goes on a fresh
// conn.
func TestPeerRestartStale(t *testing.T) {
	tun := lnet.DefaultTunables()
	tun.RetryCount = 0
	c := newCluster(t, clusterOpt{tun: tun})
	c.put(t, 1, 2, 1<<20)
	c.run(t, sim.Second)
	c.ibn[1].CrashNode()
	c.lnd.NodeCrashed(c.ibn[1])
	c.ibn[1].Restart()
	nb, err := lnet.NewNode(c.k, "n2b", tun)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nb.AddNI(nidOf(2, 0), c.lnd, lnet.NetTunables{}); err != nil {
		t.Fatal(err)
	}
	if err := nb.Startup(); err != nil {
		t.Fatal(err)
	}
	src := &evRec{k: c.k}
	md := nb.MDBind(lnet.MDSpec{Length: 1 << 20, Threshold: 2, Handler: src})
	if err := nb.Put(lnet.AnyNID, md, lnet.AckReqAck, nidOf(1, 0), testPortal, 7, 0, 0); err != nil {
		t.Fatal(err)
	}
	c.run(t, 5*sim.Second)
	if ack := src.last(lnet.EventACK); ack == nil || ack.Status != 0 {
		t.Fatalf("ACK at the rebooted node %+v", src.evs)
	}
	stale := 0
	for _, l := range c.log {
		if containsAll(l, "10.0.0.2@o2ib conn 10.0.0.1@o2ib rejected", "why=conn_stale") ||
			containsAll(l, "10.0.0.1@o2ib conn 10.0.0.2@o2ib closed status=-116") {
			stale++
		}
	}
	if stale != 2 {
		t.Fatalf("stale handling missing:\n%s", strings.Join(connLines(c.log), "\n"))
	}
	nb.MEAttach(lnet.MatchSpec{Portal: testPortal, Source: lnet.AnyNID, SourcePID: lnet.LNET_PID_ANY, IgnoreBits: ^uint64(0)},
		lnet.MDSpec{Length: 1 << 20, Threshold: lnet.ThresholdInf, Options: lnet.MD_OP_PUT, Handler: &evRec{k: c.k}})
	c.put(t, 1, 2, 1<<20)
	c.run(t, 5*sim.Second)
	if ack := c.src[0].last(lnet.EventACK); ack == nil || ack.Status != 0 || ack.Time < 2*sim.Second {
		t.Fatalf("ACK %+v", ack)
	}
}

// The target's HCA dies as it starts the RDMA of a GET's reply: the GET_REQ tx waits for a
// GET_DONE that never comes, times out, and the GET finalizes REMOTE_TIMEOUT with its REPLY
// failed.
func TestPeerHCADiesBeforeGetDone(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 8) // connect and discover first: no discovery message is in flight when the HCA dies
	c.run(t, sim.Second)
	var died sim.Time
	h := &hookObs{traceObs: c.obs}
	h.rdma = func(ev *RDMAEvent) {
		if ev.Src == nidOf(2, 0) && died == 0 {
			died = ev.Time
			c.ibn[1].HCAs()[0].HCAFatal()
		}
	}
	c.lnd.SetObserver(h)
	c.get(t, 1, 2, 1<<20)
	c.run(t, 200*sim.Second)
	r := c.done[0].last(lnet.MsgGET)
	if died == 0 || r == nil || r.HStatus != lnet.LNET_MSG_STATUS_REMOTE_TIMEOUT {
		t.Fatalf("died %v GET %+v", died, r)
	}
	if d := r.End - died; d < 50*sim.Second || d > 50*sim.Second*5/4+sim.Second {
		t.Fatalf("timed out after %v", d)
	}
	if rep := c.src[0].last(lnet.EventREPLY); rep == nil || rep.Status == 0 {
		t.Fatalf("REPLY event %+v", rep)
	}
}

// An idle conn to a peer that crashed is found out by the keepalive NOOP: its send fails
// when the QP's retries run out, the conn closes and LNet is told the peer is down.
func TestKeepaliveFindsDeadPeer(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 8)
	c.run(t, sim.Second)
	c.ibn[1].CrashNode()
	c.lnd.NodeCrashed(c.ibn[1])
	down := c.lnd.Stats().NotifyDown
	c.run(t, 90*sim.Second)
	if c.lnd.Stats().NotifyDown != down {
		t.Fatal("peer reported down before the keepalive")
	}
	c.run(t, 30*sim.Second)
	if c.lnd.Stats().NotifyDown == down || c.lnd.nets[0].peers[nidOf(2, 0)] != nil {
		t.Fatalf("dead peer not found by keepalive: %+v", c.lnd.Stats())
	}
}

// An HCA that had IB_EVENT_DEVICE_FATAL comes back only through a device reset: while it is
// fatal, a link cycle on its port (LinkDown, LinkUp) raises no PORT_ACTIVE and the NI stays
// fatal (DOWN); HCA.Recover (the driver's reset and re-probe) raises PORT_ACTIVE, o2iblnd
// rebuilds the device's listener and memory region and clears the fatal flag, and PUTs in
// both directions work again (the peer connects to the rebuilt listener and RDMA-writes
// into the new region).
func TestFatalHCAPortCycleThenRecover(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 1<<20)
	c.run(t, sim.Second)
	ni := c.nodes[1].NIs()[0]
	h := c.ibn[1].HCAs()[0]
	h.HCAFatal()
	c.run(t, sim.Second)
	if !ni.Fatal() || ni.Status() != lnet.NIStatusDown {
		t.Fatal("DEVICE_FATAL did not make the NI fatal")
	}
	link := c.f.Links()[1] // node 2's cable
	link.LinkDown()
	c.run(t, sim.Second)
	link.LinkUp()
	c.run(t, sim.Second)
	if !ni.Fatal() {
		t.Fatal("a link cycle on a fatal HCA's port cleared the fatal state")
	}
	h.Recover()
	c.run(t, sim.Millisecond)
	if ni.Fatal() || ni.Status() != lnet.NIStatusUp {
		t.Fatal("the NI is still fatal after the HCA's recovery")
	}
	c.run(t, 70*sim.Second) // the survivor's conn times out meanwhile
	start := c.k.Now()
	c.put(t, 1, 2, 1<<20)
	c.put(t, 2, 1, 1<<20)
	c.run(t, 60*sim.Second)
	for i := 0; i < 2; i++ {
		if ack := c.src[i].last(lnet.EventACK); ack == nil || ack.Status != 0 || ack.Time < start {
			t.Fatalf("node %d ACK %+v", i+1, ack)
		}
	}
}

// Txs queued behind credits on a conn that closes: kiblnd_check_sends_locked on the CLOSING
// conn fails a tx only when its post finds a credit (-ECONNABORTED, health as the tx has
// it); here none does, so kiblnd_finalise_conn's kiblnd_abort_txs aborts them with
// LOCAL_ERROR (the close was -EIO), charging the sender's own NI. Node 1 (peer_credits 16)
// talks to node 2 (8): LNet hands o2ib 16 PUTs for a conn of depth 8; node 1's cable goes
// down with them posted or queued. The posted ones fail REMOTE_DROPPED when the QP's
// retries run out, the queued ones LOCAL_ERROR.
func TestQueuedOnClosingConnAbortedLocalError(t *testing.T) {
	tun := lnet.DefaultTunables()
	tun.RetryCount = 0
	p := DefaultParams()
	p.PeerCredits = 16
	q := DefaultParams()
	q.PeerCredits = 8
	c := newClusterWith(t, clusterOpt{tun: tun, params: p}, map[lnet.NID]Params{nidOf(2, 0): q})
	c.put(t, 1, 2, 8) // connect (depth negotiated to 8) and discover
	c.run(t, sim.Second)
	n := c.nodes[0]
	for i := 0; i < 16; i++ {
		md := n.MDBind(lnet.MDSpec{Length: 1024, Threshold: 1, Handler: c.src[0]})
		if err := n.Put(lnet.AnyNID, md, lnet.AckReqNone, nidOf(2, 0), testPortal, 7, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	c.f.Links()[0].LinkDown()
	c.run(t, 10*sim.Second)
	got := map[string]int{}
	for _, r := range c.done[0].recs {
		if r.Type == lnet.MsgPUT && !r.Received && r.Size == 1024 {
			got[fmt.Sprintf("%d/%s", r.Status, r.HStatus)]++
		}
	}
	// Discovery left two credits owed by the peer: 6 PUTs are posted, 10 queued.
	want := map[string]int{"-5/remote_dropped": 6, "-103/local_error": 10}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("PUTs by status %v, want %v", got, want)
	}
	if hs := n.NIs()[0].HealthStats(); hs.Error != 10 {
		t.Fatalf("node 1's NI local errors %d, want 10 (%+v)", hs.Error, hs)
	}
}

// One tx per send check on a CLOSING conn: the first post that can be made fails
// -ECONNABORTED (kiblnd_post_tx_locked on a conn not ESTABLISHED) and ends the check
// (kiblnd_check_sends_locked); the others stay queued until kiblnd_finalise_conn aborts them.
func TestClosingConnFailsOnePostPerCheck(t *testing.T) {
	c := newCluster(t, clusterOpt{noTrace: true})
	c.put(t, 1, 2, 8)
	c.run(t, sim.Second)
	cn := c.lnd.conns[0]
	n := cn.peer.net
	c.lnd.closeConn(cn, -lnet.EIO)
	for i := 0; i < 3; i++ {
		x := c.lnd.getIdleTx(n)
		x.initMsg(MsgPUT_NAK, 0)
		c.lnd.queueTxLocked(x, cn)
	}
	inUse := n.ntx
	c.lnd.checkSends(cn)
	if cn.txNocred.Len() != 2 || n.ntx != inUse-1 {
		t.Fatalf("after one check: %d queued, %d txs in use, want 2 and %d", cn.txNocred.Len(), n.ntx, inUse-1)
	}
	c.lnd.checkSends(cn)
	if cn.txNocred.Len() != 1 {
		t.Fatalf("after two checks: %d queued, want 1", cn.txNocred.Len())
	}
	c.run(t, sim.Millisecond) // connd finalises the conn
	if cn.state != connDisconnected || cn.txNocred.Len() != 0 || n.ntx != inUse-3 {
		t.Fatalf("after finalise: state %d, %d queued, %d txs in use", cn.state, cn.txNocred.Len(), n.ntx)
	}
}
