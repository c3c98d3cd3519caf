package o2ib

import (
	"fmt"
	"testing"

	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// ruleCluster is a two-node cluster (three with nodes 3) whose o2iblnd follows rules, with
// LNet's retry_count 0 so that each failure reaches the test unresent.
func ruleCluster(t *testing.T, rules Profile, nodes int) *cluster {
	t.Helper()
	tun := lnet.DefaultTunables()
	tun.RetryCount = 0
	p := DefaultParams()
	p.Profile = rules
	return newCluster(t, clusterOpt{tun: tun, params: p, nodes: nodes})
}

// connFailure is how the first GET (discovery's ping) to node 2 ended, with the LND's
// reject, reconnect and timed-out tx counts.
type connFailure struct {
	end                             sim.Time
	status                          int
	hs                              lnet.HStatus
	rejected, reconnects, timedOuts uint64
}

func firstGETFailure(t *testing.T, c *cluster) connFailure {
	t.Helper()
	r := c.done[0].first(lnet.MsgGET, nidOf(2, 0))
	if r == nil {
		t.Fatal("no GET record to node 2")
	}
	st := c.lnd.Stats()
	return connFailure{r.End, r.Status, r.HStatus, st.Rejected, st.Reconnects, st.TimedOutTxs}
}

// No listener on the peer (IB_CM_REJ_INVALID_SERVICE_ID), by release rule:
//   - up to 2.12.6 (NoListenerReconnect, NoListenerUnlimited) o2iblnd reconnects as long as
//     the tx waits: 10 reconnects at once (KIB_RECONN_HIGH_RACE), then one a second, until
//     connd finds the tx past its stale deadline at its first look (2 s: -ETIMEDOUT,
//     LOCAL_TIMEOUT); 12 reconnects, 13 rejects in all;
//   - 2.12.7 and 2.12.8 (LU-13972) stop after retry_count (5) reconnects: the sixth reject
//     fails the tx at 1.02 ms with -ECONNREFUSED, LOCAL_DROPPED;
//   - 2.12.9 (LU-14536) fails at the first reject with -EHOSTUNREACH, still LOCAL_DROPPED
//     (LU-13571 is not in 2.12);
//   - from 2.15 the same -EHOSTUNREACH is NETWORK_TIMEOUT.
func TestProfileNoListener(t *testing.T) {
	rel212 := Profile{LocalConnFailureStatus: true, RefusedLocalDropped: true, NoConnreqTimeout: true,
		WaitingTxStaleDeadline: true, CreditsHighwaterMin: true}
	rel2127 := rel212
	rel2127.NoListenerReconnect = true
	rel2126 := rel2127
	rel2126.NoListenerUnlimited = true
	for _, c := range []struct {
		name  string
		rules Profile
		want  connFailure
	}{
		{"2.12.6", rel2126, connFailure{2 * sim.Second, -lnet.ETIMEDOUT, lnet.LNET_MSG_STATUS_LOCAL_TIMEOUT, 13, 12, 1}},
		{"2.12.7", rel2127, connFailure{1020 * sim.Microsecond, -eCONNREFUSED, lnet.LNET_MSG_STATUS_LOCAL_DROPPED, 6, 5, 0}},
		{"2.12.9", rel212, connFailure{170 * sim.Microsecond, -lnet.EHOSTUNREACH, lnet.LNET_MSG_STATUS_LOCAL_DROPPED, 1, 0, 0}},
		{"master", Profile{}, connFailure{170 * sim.Microsecond, -lnet.EHOSTUNREACH, lnet.LNET_MSG_STATUS_NETWORK_TIMEOUT, 1, 0, 0}},
	} {
		cl := ruleCluster(t, c.rules, 2)
		cl.f.InjectCMReject(nidAddr(nidOf(2, 0)), ib.RejInvalidServiceID, nil, -1)
		cl.put(t, 1, 2, 8)
		cl.run(t, 60*sim.Second)
		if got := firstGETFailure(t, cl); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

// The no-listener retry limit counts rejects per peer (ibp_retries) against ko2iblnd's
// retry_count: with retry_count 2 the third reject ends the attempt (2 reconnects).
func TestProfileNoListenerRetryCount(t *testing.T) {
	tun := lnet.DefaultTunables()
	tun.RetryCount = 0
	p := DefaultParams()
	p.RetryCount = 2
	p.Profile = Profile{NoListenerReconnect: true}
	cl := newCluster(t, clusterOpt{tun: tun, params: p})
	cl.f.InjectCMReject(nidAddr(nidOf(2, 0)), ib.RejInvalidServiceID, nil, -1)
	cl.put(t, 1, 2, 8)
	cl.run(t, 10*sim.Second)
	want := connFailure{510 * sim.Microsecond, -eCONNREFUSED, lnet.LNET_MSG_STATUS_REMOTE_DROPPED, 3, 2, 0}
	if got := firstGETFailure(t, cl); got != want {
		t.Errorf("%+v, want %+v", got, want)
	}
}

// A refused connection (-ECONNREFUSED: a fatal consumer-defined reject) fails its txs
// REMOTE_DROPPED from 2.15 (LU-14540) and LOCAL_DROPPED before, under either rule.
func TestProfileConnRefused(t *testing.T) {
	for _, c := range []struct {
		name  string
		rules Profile
		hs    lnet.HStatus
	}{
		{"master", Profile{}, lnet.LNET_MSG_STATUS_REMOTE_DROPPED},
		{"LU-14540 not applied", Profile{RefusedLocalDropped: true}, lnet.LNET_MSG_STATUS_LOCAL_DROPPED},
		{"LU-13571 not applied", Profile{LocalConnFailureStatus: true}, lnet.LNET_MSG_STATUS_LOCAL_DROPPED},
	} {
		cl := ruleCluster(t, c.rules, 2)
		cl.f.InjectCMReject(nidAddr(nidOf(2, 0)), ib.RejConsumerDefined, (&rejMsg{version: MsgVersion, why: RejectFatal}).pack(), -1)
		cl.put(t, 1, 2, 8)
		cl.run(t, 10*sim.Second)
		want := connFailure{170 * sim.Microsecond, -eCONNREFUSED, c.hs, 1, 0, 0}
		if got := firstGETFailure(t, cl); got != want {
			t.Errorf("%s: %+v, want %+v", c.name, got, want)
		}
	}
}

// A tx that waited for its connection past its deadline fails NETWORK_TIMEOUT from 2.15
// and LOCAL_TIMEOUT in 2.12 (LU-13571): a peer rejecting every connection as stale, the
// tx found at 27 s, connd's first look at its peer after connreq_timeout + 10 s (22.5 s).
func TestProfileWaitingTxTimeoutStatus(t *testing.T) {
	for _, c := range []struct {
		name  string
		rules Profile
		hs    lnet.HStatus
	}{
		{"master", Profile{}, lnet.LNET_MSG_STATUS_NETWORK_TIMEOUT},
		{"LU-13571 not applied", Profile{LocalConnFailureStatus: true}, lnet.LNET_MSG_STATUS_LOCAL_TIMEOUT},
	} {
		cl := ruleCluster(t, c.rules, 2)
		cl.f.InjectCMReject(nidAddr(nidOf(2, 0)), ib.RejStaleConn, nil, -1)
		cl.put(t, 1, 2, 8)
		cl.run(t, 60*sim.Second)
		want := connFailure{27 * sim.Second, -lnet.ETIMEDOUT, c.hs, 38, 37, 1}
		if got := firstGETFailure(t, cl); got != want {
			t.Errorf("%s: %+v, want %+v", c.name, got, want)
		}
	}
}

// A peer whose CM never answers. From 2.16 (LU-17480) connd aborts the request at 15 s,
// its first look after connreq_timeout (12.5 s): -ENETDOWN, LOCAL_DROPPED. Before, nothing
// aborts it: the waiting tx fails at its deadline (with only that rule: connreq_timeout +
// 10 s, found at 27 s; with 2.15's stale deadline: at connd's first look, 2 s) and the
// request lives until the CM gives up at 98.3 s. Under the stale deadline alone the
// request is still aborted at 15 s.
func TestProfileConnreqTimeout(t *testing.T) {
	for _, c := range []struct {
		name   string
		rules  Profile
		want   connFailure
		failed string // the connection's failure
	}{
		{"master", Profile{}, connFailure{15 * sim.Second, -lnet.ENETDOWN, lnet.LNET_MSG_STATUS_LOCAL_DROPPED, 0, 0, 0},
			"15s 10.0.0.1@o2ib conn 10.0.0.2@o2ib failed status=-100"},
		{"LU-17480 not applied", Profile{NoConnreqTimeout: true}, connFailure{27 * sim.Second, -lnet.ETIMEDOUT, lnet.LNET_MSG_STATUS_NETWORK_TIMEOUT, 0, 0, 1},
			"98.30415s 10.0.0.1@o2ib conn 10.0.0.2@o2ib failed status=-100"},
		{"2.15", Profile{NoConnreqTimeout: true, WaitingTxStaleDeadline: true}, connFailure{2 * sim.Second, -lnet.ETIMEDOUT, lnet.LNET_MSG_STATUS_NETWORK_TIMEOUT, 0, 0, 1},
			"98.30415s 10.0.0.1@o2ib conn 10.0.0.2@o2ib failed status=-100"},
		{"LU-16184 not applied", Profile{WaitingTxStaleDeadline: true}, connFailure{2 * sim.Second, -lnet.ETIMEDOUT, lnet.LNET_MSG_STATUS_NETWORK_TIMEOUT, 0, 0, 1},
			"15s 10.0.0.1@o2ib conn 10.0.0.2@o2ib failed status=-100"},
	} {
		cl := ruleCluster(t, c.rules, 2)
		cl.f.InjectCMNoResponse(nidAddr(nidOf(2, 0)), -1)
		cl.put(t, 1, 2, 8)
		cl.run(t, 200*sim.Second)
		got := firstGETFailure(t, cl)
		fails := logWith(cl.log, "failed")
		if got != c.want || len(fails) != 1 || fails[0] != c.failed {
			t.Errorf("%s: %+v, connection failures %q; want %+v, %q", c.name, got, fails, c.want, c.failed)
		}
	}
}

// Address resolution waits RDMA_RESOLVE_TIMEOUT (5 s) from 2.16 (LU-17480), the tx timeout
// (50 s) before: a client whose link drops everything sees ADDR_ERROR at 5 s or 50 s.
func TestProfileResolveTimeout(t *testing.T) {
	for _, c := range []struct {
		name  string
		rules Profile
		want  string
	}{
		{"master", Profile{}, "5s 10.0.0.1@o2ib conn 10.0.0.2@o2ib failed status=-113"},
		{"LU-17480 not applied", Profile{NoConnreqTimeout: true}, "50s 10.0.0.1@o2ib conn 10.0.0.2@o2ib failed status=-113"},
	} {
		cl := ruleCluster(t, c.rules, 2)
		cl.f.Links()[0].SetLoss(1)
		cl.put(t, 1, 2, 8)
		cl.run(t, 60*sim.Second)
		if got := logWith(cl.log, "conn 10.0.0.2@o2ib failed"); len(got) != 1 || got[0] != c.want {
			t.Errorf("%s: connection failures %q, want %q", c.name, got, c.want)
		}
	}
}

// Before LU-16184 (2.16) a tx waiting for a connection keeps its descriptor's deadline from
// its last use. Node 1 talks to node 2 first (its last tx queued on the conn at about
// 1 ms, deadline 50 s later), then at 1 s to node 3, whose CM never answers (and with
// LU-17480's connreq timeout off, as in 2.15, so that only the tx's deadline ends the
// wait): the discovery GET reuses that descriptor and connd fails it at its first look at
// node 3's peer after that deadline (58 s; connd looks at a bucket every 12.8 s), not
// after connreq_timeout + 10 s from its queueing (23.5 s: found at 32 s).
func TestProfileWaitingTxStaleDeadline(t *testing.T) {
	for _, c := range []struct {
		name  string
		rules Profile
		end   sim.Time
	}{
		{"LU-16184 applied", Profile{NoConnreqTimeout: true}, 32 * sim.Second},
		{"LU-16184 not applied", Profile{NoConnreqTimeout: true, WaitingTxStaleDeadline: true}, 58 * sim.Second},
	} {
		cl := ruleCluster(t, c.rules, 3)
		cl.f.InjectCMNoResponse(nidAddr(nidOf(3, 0)), -1)
		cl.put(t, 1, 2, 8)
		cl.run(t, sim.Second)
		cl.put(t, 1, 3, 8)
		cl.run(t, 100*sim.Second)
		r := cl.done[0].first(lnet.MsgGET, nidOf(3, 0))
		if r == nil || r.End != c.end || r.Status != -lnet.ETIMEDOUT {
			t.Errorf("%s: GET to node 3 %+v, want -ETIMEDOUT at %v", c.name, r, c.end)
		}
	}
}

// Before LU-15828 (2.16) credits are returned at min(peer_credits_hiw, queue depth - 1):
// the receiver of TestNoopHighwaterScalesWithQueueDepth (peer_credits 32, hiw 16, conn
// negotiated down to depth 8) returns them 7 at a time instead of 4.
func TestProfileCreditsHighwater(t *testing.T) {
	big := DefaultParams()
	big.PeerCredits = 32
	big.Profile = Profile{CreditsHighwaterMin: true}
	c := newClusterWith(t, clusterOpt{}, map[lnet.NID]Params{nidOf(2, 0): big})
	streamSmallPuts(t, c)
	if hw := c.lnd.conns[1].creditsHighwater(); hw != 7 {
		t.Fatalf("receiver's high-water %d, want 7", hw)
	}
	got := noopCredits(c.log)
	if len(got) != 1 || got["credits=7"] != 71 {
		t.Fatalf("receiver's NOOPs by credits returned %v, want 71 x credits=7", got)
	}
}

// Up to 2.12.2 (before LU-12569) the high-water is peer_credits_hiw whatever the conn's
// depth: that receiver (hiw 16, depth 8) never owes 16 credits, so it returns none. Of 32
// PUTs without ACK the sender posts 8 (its o2ib credits) at once, the next 8 (LNet's peer
// credits) wait for o2ib credits until connd finds them past their deadline (tx timeout
// 50 s, at 53 s), closes the conn and fails them -ECONNABORTED; 8 more go on a new conn
// and the last 8 wait again.
func TestProfileCreditsHighwaterFixed(t *testing.T) {
	big := DefaultParams()
	big.PeerCredits = 32
	big.Profile = Profile{CreditsHighwaterFixed: true, CreditsHighwaterMin: true}
	c := newClusterWith(t, clusterOpt{noTrace: true}, map[lnet.NID]Params{nidOf(2, 0): big})
	rec := &evRec{k: c.k}
	n := c.nodes[0]
	for i := 0; i < 32; i++ {
		md := n.MDBind(lnet.MDSpec{Length: 512, Threshold: 1, Handler: rec})
		if err := n.Put(lnet.AnyNID, md, lnet.AckReqNone, nidOf(2, 0), testPortal, 7, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	c.run(t, 60*sim.Second)
	sent := map[string]int{}
	for _, ev := range rec.evs {
		sent[fmt.Sprintf("%ds %d", ev.Time/sim.Second, ev.Status)]++
	}
	want := map[string]int{"0s 0": 8, "53s -103": 8, "53s 0": 8}
	if hw := c.lnd.conns[1].creditsHighwater(); hw != 16 || fmt.Sprint(sent) != fmt.Sprint(want) {
		t.Fatalf("receiver's high-water %d, SEND events by second and status %v; want 16, %v", hw, sent, want)
	}
}
