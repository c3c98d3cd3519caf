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
