package socklnd

import (
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// A PUT to a host that is down waits on the peer for a connection until the reaper fails it
// at sock_timeout (ksocknal_flush_stale_txs): NETWORK_TIMEOUT on master, charging the local
// NI and the peer NI; LOCAL_TIMEOUT up to 2.15 (Profile.TimeoutLocalStatus, before
// LU-17505), charging the local NI only.
func TestProfileTimeoutLocalStatus(t *testing.T) {
	for _, tc := range []struct {
		name           string
		p              Profile
		local, network uint64
	}{
		{"master", Profile{}, 0, 1},
		{"2.15", Profile{TimeoutLocalStatus: true}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClusterWith(t, clusterOpt{noTrace: true}, func(l *LND) { l.SetProfile(nidOf(1), tc.p) })
			c.hosts[1].Crash()
			c.lnd.HostCrashed(c.hosts[1])
			c.put(t, 1, 2, 1024)
			c.run(t, 60*sim.Second)
			s := c.nodes[0].Stats()
			if s.LocalTimeoutCount != tc.local || s.NetworkTimeoutCount != tc.network {
				t.Fatalf("local_timeout %d, network_timeout %d; want %d, %d", s.LocalTimeoutCount, s.NetworkTimeoutCount, tc.local, tc.network)
			}
			if ev := c.src[0].last(lnet.EventSEND); ev == nil || ev.Status != -ETIMEDOUT {
				t.Fatalf("SEND event %+v, want -ETIMEDOUT", ev)
			}
		})
	}
	if got := (Profile{TimeoutLocalStatus: true}).txListStatus(lnet.LNET_MSG_STATUS_OK, -ETIMEDOUT); got != lnet.LNET_MSG_STATUS_LOCAL_TIMEOUT {
		t.Fatalf("2.15 txlist status for -ETIMEDOUT %v", got)
	}
	if got := (Profile{}).txListStatus(lnet.LNET_MSG_STATUS_OK, -ECONNRESET); got != lnet.LNET_MSG_STATUS_REMOTE_DROPPED {
		t.Fatalf("master txlist status for -ECONNRESET %v", got)
	}
}

// An NI whose link is already down when it starts: from 2.16 ksocknal_startup finds the
// device down and sets the NI fatal (LU-16836); 2.15's startup does not look, so the NI is
// usable (and advertised UP) until a link event.
func TestProfileStartupLinkState(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     Profile
		fatal bool
	}{
		{"master", Profile{}, true},
		{"2.15", Profile{NoStartupLinkState: true}, false},
	} {
		c := newClusterWith(t, clusterOpt{noTrace: true, downAtStart: []int{1}}, func(l *LND) { l.SetProfile(nidOf(1), tc.p) })
		ni := c.nodes[0].NIs()[0]
		if ni.Fatal() != tc.fatal || c.nodes[1].NIs()[0].Fatal() {
			t.Errorf("%s: NI fatal %v, want %v (the other node's %v)", tc.name, ni.Fatal(), tc.fatal, c.nodes[1].NIs()[0].Fatal())
		}
	}
}
