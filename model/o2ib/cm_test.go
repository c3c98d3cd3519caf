package o2ib

import (
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// connLines keeps the connection steps and CONNREQ/CONNACK of a trace.
func connLines(log []string) []string {
	var out []string
	for _, l := range log {
		if strings.Contains(l, " conn ") || strings.Contains(l, "CONNREQ") || strings.Contains(l, "CONNACK") {
			out = append(out, l)
		}
	}
	return out
}

// The passive side speaks a smaller queue depth: it rejects MSG_QUEUE_SIZE with its own,
// the active side adopts it and reconnects, and the conn runs with the smaller depth.
func TestQueueDepthNegotiation(t *testing.T) {
	p := DefaultParams()
	p.PeerCredits = 16
	q := DefaultParams()
	q.PeerCredits = 8
	c2 := newClusterWith(t, clusterOpt{params: p}, map[lnet.NID]Params{nidOf(2, 0): q})
	c2.put(t, 1, 2, 1<<20)
	c2.run(t, sim.Second)
	if ack := c2.src[0].last(lnet.EventACK); ack == nil || ack.Status != 0 {
		t.Fatalf("ACK %+v", ack)
	}
	found := false
	for _, l := range c2.log {
		if strings.Contains(l, "why=msg_queue_size qd=8") {
			found = true
		}
	}
	if !found {
		t.Fatalf("no MSG_QUEUE_SIZE reject:\n%s", strings.Join(c2.log, "\n"))
	}
	for _, cn := range c2.lnd.conns {
		if cn.state == connEstablished && cn.queueDepth != 8 {
			t.Fatalf("conn queue depth %d, want 8", cn.queueDepth)
		}
	}
}

// Both sides connect at once: the higher NID's request wins, the lower NID's is rejected
// CONN_RACE and not retried (an accept is under way); both PUTs complete on one conn pair.
func TestConnRace(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 8)
	c.put(t, 2, 1, 8)
	c.run(t, sim.Second)
	for i := 0; i < 2; i++ {
		if ack := c.src[i].last(lnet.EventACK); ack == nil || ack.Status != 0 {
			t.Fatalf("node %d ACK %+v", i+1, ack)
		}
	}
	race := 0
	for _, l := range c.log {
		if strings.Contains(l, "10.0.0.2@o2ib conn 10.0.0.1@o2ib reject why=conn_race") {
			race++
		}
	}
	if race != 1 {
		t.Fatalf("conn_race rejects %d:\n%s", race, strings.Join(connLines(c.log), "\n"))
	}
	for _, n := range c.lnd.nets {
		for _, p := range n.peers {
			if len(p.conns) != 1 {
				t.Fatalf("%s has %d conns to %s", n.ni.NID(), len(p.conns), p.nid)
			}
		}
	}
}

// conns_per_peer 2: two connections per peer, used in turn.
func TestConnsPerPeer(t *testing.T) {
	p := DefaultParams()
	p.ConnsPerPeer = 2
	c := newCluster(t, clusterOpt{params: p})
	c.put(t, 1, 2, 1<<20)
	c.run(t, sim.Second)
	if ack := c.src[0].last(lnet.EventACK); ack == nil || ack.Status != 0 {
		t.Fatalf("ACK %+v", ack)
	}
	if p := c.lnd.nets[0].peers[nidOf(2, 0)]; p == nil || len(p.conns) != 2 {
		t.Fatalf("peer %+v", p)
	}
}

// A peer refusing for want of resources is not retried: the waiting txs fail
// -ECONNREFUSED, REMOTE_DROPPED.
func TestRejectNoResources(t *testing.T) {
	tun := lnet.DefaultTunables()
	tun.RetryCount = 0
	c := newCluster(t, clusterOpt{tun: tun})
	rej := rejMsg{version: MsgVersion, why: RejectNoResources, cp: connParams{queueDepth: 8, maxFrags: maxRDMAFrags, maxMsgSize: msgSize}}
	c.f.InjectCMReject(nidAddr(nidOf(2, 0)), ib.RejConsumerDefined, rej.pack(), 1)
	c.put(t, 1, 2, 8)
	c.run(t, sim.Second)
	r := c.done[0].first(lnet.MsgGET, nidOf(2, 0))
	if r == nil || r.Status != -eCONNREFUSED || r.HStatus != lnet.LNET_MSG_STATUS_REMOTE_DROPPED {
		t.Fatalf("ping record %+v", r)
	}
	if st := c.lnd.Stats(); st.Reconnects != 0 || st.NotifyDown != 1 {
		t.Fatalf("stats %+v", st)
	}
}

// kiblnd_destroy_conn destroys the conn's CQ with its QP: across 15 rejected attempts
// (CONN_STALE, each reconnecting; the last five a second apart, KIB_RECONN_HIGH_RACE) the
// fabric's CQ table holds no more than the two conns finally established, where it kept
// one CQ per conn ever created (17).
func TestCQsDestroyedWithConns(t *testing.T) {
	c := newCluster(t, clusterOpt{noTrace: true})
	c.f.InjectCMReject(nidAddr(nidOf(2, 0)), ib.RejStaleConn, nil, 15)
	c.put(t, 1, 2, 8)
	c.run(t, 10*sim.Second)
	if ack := c.src[0].last(lnet.EventACK); ack == nil || ack.Status != 0 {
		t.Fatalf("ACK %+v", ack)
	}
	if st := c.lnd.Stats(); st.Reconnects != 15 || st.ConnsCreated != 17 {
		t.Fatalf("stats %+v, want 15 reconnects and 17 conns", st)
	}
	if n := c.f.CQSlots(); n != 2 {
		t.Fatalf("CQ table holds %d slots, want 2", n)
	}
}

// TestConnTransitions checks legalConnTransition against ibc_state's moves written out pair
// by pair.
func TestConnTransitions(t *testing.T) {
	legal := map[[2]connState]bool{
		{connInit, connActiveConnect}: true, {connInit, connPassiveWait}: true,
		{connActiveConnect, connEstablished}: true, {connPassiveWait, connEstablished}: true,
		{connActiveConnect, connDisconnected}: true, {connPassiveWait, connDisconnected}: true,
		{connEstablished, connClosing}: true, {connClosing, connDisconnected}: true,
	}
	for from := connInit; from <= connDisconnected; from++ {
		for to := connInit; to <= connDisconnected; to++ {
			if got, want := legalConnTransition(from, to), legal[[2]connState{from, to}]; got != want {
				t.Errorf("%v -> %v: legal=%v, want %v", from, to, got, want)
			}
		}
	}
}

// TestConnStateWalk follows an active conn from creation to its end and checks that an
// illegal change is refused, leaves the state as it was and is counted.
func TestConnStateWalk(t *testing.T) {
	c := newCluster(t, clusterOpt{noTrace: true})
	c.put(t, 1, 2, 8)
	c.run(t, sim.Second)
	cn := c.lnd.conns[0]
	if cn.state != connEstablished {
		t.Fatalf("connected: %v", cn.state)
	}
	if cn.setState(connPassiveWait) || cn.state != connEstablished || c.lnd.stats.BadConnStates != 1 {
		t.Fatalf("ESTABLISHED -> PASSIVE_WAIT: state %v, refused %d", cn.state, c.lnd.stats.BadConnStates)
	}
	c.lnd.stats.BadConnStates = 0
	c.lnd.closeConn(cn, -lnet.EIO)
	if cn.state != connClosing {
		t.Fatalf("closed: %v", cn.state)
	}
	c.run(t, sim.Millisecond)
	if cn.state != connDisconnected || !cn.destroyed {
		t.Fatalf("after connd: %v, destroyed %v", cn.state, cn.destroyed)
	}
}

// SetConnsPerPeer (lnetctl net set --conns-per-peer) takes effect for peers created after it:
// with 2 set on node 1's NI before its first send, its peer gets two connections.
func TestSetConnsPerPeer(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	if !c.lnd.SetConnsPerPeer(c.lnd.nets[0].ni, 2) {
		t.Fatal("refused")
	}
	c.put(t, 1, 2, 1<<20)
	c.run(t, sim.Second)
	if p := c.lnd.nets[0].peers[nidOf(2, 0)]; p == nil || len(p.conns) != 2 {
		t.Fatalf("peer %+v", p)
	}
}
