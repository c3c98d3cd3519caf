package o2ib

import (
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
