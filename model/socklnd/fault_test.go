package socklnd

import (
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// TestPeerCrashedIdle: n2 crashes with the conns up; n1's next PUT is written to the socket
// (a small message completes its send there) but never acknowledged: the reaper finds the
// conn past sock_timeout and closes it and its siblings, and LNet hears the peer is down.
func TestPeerCrashedIdle(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 1024)
	c.run(t, sim.Second)
	c.hosts[1].Crash()
	c.lnd.HostCrashed(c.hosts[1])
	c.log = nil
	c.put(t, 1, 2, 1024)
	c.run(t, 120*sim.Second)
	golden(t, "peer_crashed", c.log)
}

// TestConnectToDeadHost: the first PUT to a host that is down waits on the peer for a
// connection; the reaper fails it after sock_timeout (NETWORK_TIMEOUT); the SYN retries end
// later with ETIMEDOUT and the peer is reported down.
func TestConnectToDeadHost(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.hosts[1].Crash()
	c.lnd.HostCrashed(c.hosts[1])
	c.put(t, 1, 2, 1024)
	c.run(t, 200*sim.Second)
	golden(t, "dead_host", c.log)
}

// TestConnRace: both nodes send at once; each dials the other; the passive side with the
// higher NID refuses the lower NID's connection while it is connecting itself (CONN_NONE),
// the lower retries min_reconnectms later and finds the higher's conns.
func TestConnRace(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 1024)
	c.put(t, 2, 1, 1024)
	c.run(t, 3*sim.Second)
	for i := range 2 {
		if ack := c.src[i].last(lnet.EventACK); ack == nil || ack.Status != 0 {
			t.Fatalf("n%d ACK %+v", i+1, ack)
		}
	}
	golden(t, "conn_race", c.log)
}

// TestPeerRebooted: n2 crashes and restarts with the conns up on n1; n1's next PUT meets
// RST (ECONNRESET), the conns close, and LNet's resend connects anew to the new incarnation.
func TestPeerRebooted(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 1024)
	c.run(t, sim.Second)
	c.hosts[1].Crash()
	c.lnd.HostCrashed(c.hosts[1])
	c.hosts[1].Restart()
	c.log = nil
	c.restartNode(t, 2)
	c.put(t, 1, 2, 1024)
	c.run(t, 10*sim.Second)
	golden(t, "peer_rebooted", c.log)
}

// TestSendErrorSimulation: a drop rule with a health mask fails n1's PUT where
// ksocknal_process_transmit would write it (lnet_send_error_simulation): the send
// completes with -EIO and the rule's hstatus, nothing reaches n2, and the connections stay
// up, unless fail_loc CFS_FAIL_SOCK_CONN (0x8000e020: once) closes the conn and its
// siblings first; a 2.17 node has no such check point.
func TestSendErrorSimulation(t *testing.T) {
	rel217, err := lnet.LookupRelease("2.17")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		profile lnet.Profile
		failLoc uint32
		closed  uint64 // conns closed after the second PUT's failure, on both nodes
	}{
		{"no fail_loc", lnet.Profile{}, 0, 0},
		// n1 closes its seven conns to n2 (control, and bulk_in and bulk_out per
		// conns_per_peer), n2 its seven on the resets.
		{"fail_loc 0x8000e020", lnet.Profile{}, 0x8000e020, 14},
		{"fail_loc 0x8000e020 on 2.17", rel217.Profile, 0x8000e020, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			tun := lnet.DefaultTunables()
			tun.RetryCount = 0
			tun.Profile = c.profile
			cl := newCluster(t, clusterOpt{tun: tun, noTrace: true})
			cl.put(t, 1, 2, 1024)
			cl.run(t, sim.Second)
			n1 := cl.nodes[0]
			if _, err := n1.AddDropRule(lnet.DropRuleSpec{FaultAttr: lnet.FaultAttr{MsgMask: lnet.MaskPUT}, Rate: 1,
				HealthMask: 1 << lnet.LNET_MSG_STATUS_LOCAL_ERROR}); err != nil {
				t.Fatal(err)
			}
			n1.SetFailLoc(c.failLoc, 0)
			before, puts := cl.lnd.Stats().ConnsClosed, len(cl.sink[1].evs)
			cl.put(t, 1, 2, 1024)
			cl.run(t, sim.Second)
			sent := cl.src[0].last(lnet.EventSEND)
			if sent == nil || sent.Status != -EIO {
				t.Fatalf("SEND event %+v, want status %d", sent, -EIO)
			}
			if got := len(cl.sink[1].evs); got != puts {
				t.Errorf("n2 got %d more events, want none", got-puts)
			}
			if got := cl.lnd.Stats().ConnsClosed - before; got != c.closed {
				t.Errorf("conns closed %d, want %d", got, c.closed)
			}
			if loc, _ := n1.FailLoc(); c.closed != 0 && loc != c.failLoc|0x40000000 {
				t.Errorf("fail_loc %#x after the check, want %#x", loc, c.failLoc|0x40000000)
			}
		})
	}
}
