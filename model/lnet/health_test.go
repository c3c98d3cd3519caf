package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

func sumNIHealth(n *Node) int {
	s := 0
	for _, ni := range n.NIs() {
		s += ni.Health()
	}
	return s
}

func sumPeerHealth(n *Node, p *Peer) int {
	s := 0
	for _, lpni := range p.NIs() {
		s += lpni.Health()
	}
	return s
}

// For every hstatus, with retry_count=2 and every PUT failing: the health lost locally and
// remotely, the number of attempts and the resend counters (reference table b).
func TestHStatusTable(t *testing.T) {
	cases := []struct {
		hs             HStatus
		local, remote  int // health points lost in total
		attempts       int
		resends, fails uint64
	}{
		{LNET_MSG_STATUS_LOCAL_INTERRUPT, 300, 0, 3, 2, 1},
		{LNET_MSG_STATUS_LOCAL_DROPPED, 300, 0, 3, 2, 1},
		{LNET_MSG_STATUS_LOCAL_ABORTED, 300, 0, 3, 2, 1},
		{LNET_MSG_STATUS_LOCAL_NO_ROUTE, 300, 0, 3, 2, 1},
		{LNET_MSG_STATUS_LOCAL_ERROR, 100, 0, 1, 0, 0},
		{LNET_MSG_STATUS_LOCAL_TIMEOUT, 300, 0, 3, 2, 1},
		{LNET_MSG_STATUS_REMOTE_ERROR, 0, 100, 1, 0, 0},
		{LNET_MSG_STATUS_REMOTE_DROPPED, 0, 300, 3, 2, 1},
		{LNET_MSG_STATUS_REMOTE_TIMEOUT, 0, 100, 1, 0, 0},
		{LNET_MSG_STATUS_NETWORK_TIMEOUT, 100, 100, 1, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.hs.String(), func(t *testing.T) {
			p := newPair(t, 2, 2, DefaultTunables(), NetTunables{})
			p.put(t, 100) // discovery + warm-up
			p.run(t, sim.Millisecond)
			peer := p.a.PeerNI(nid("10.0.0.2@o2ib")).Peer()
			l0, r0, s0 := sumNIHealth(p.a), sumPeerHealth(p.a, peer), p.a.Stats()
			p.lnd.AddRule(IdealRule{Types: MaskPUT, Count: -1, Verdict: IdealVerdict{Action: IdealFail, HStatus: c.hs}})
			p.ta.attempts = nil
			p.src.evs = nil
			p.put(t, 100)
			p.run(t, 10*sim.Millisecond)
			l1, r1, s1 := sumNIHealth(p.a), sumPeerHealth(p.a, peer), p.a.Stats()
			if l0-l1 != c.local || r0-r1 != c.remote {
				t.Errorf("health lost local %d remote %d, want %d %d", l0-l1, r0-r1, c.local, c.remote)
			}
			if len(p.ta.attempts) != c.attempts {
				t.Errorf("attempts = %d, want %d", len(p.ta.attempts), c.attempts)
			}
			if d := s1.ResendCount - s0.ResendCount; d != c.resends {
				t.Errorf("resend_count delta %d, want %d", d, c.resends)
			}
			if d := s1.FailedResends - s0.FailedResends; d != c.fails {
				t.Errorf("failed_resends delta %d, want %d", d, c.fails)
			}
			if d := s1.SuccessfulResends - s0.SuccessfulResends; d != 0 {
				t.Errorf("successful_resends delta %d, want 0", d)
			}
			ev := p.src.last(EventSEND)
			if ev == nil || ev.Status == 0 || ev.Unlinked {
				t.Errorf("SEND event %+v, want a failure (MD still waiting for the ACK)", ev)
			}
			var cnt uint64
			switch c.hs {
			case LNET_MSG_STATUS_LOCAL_INTERRUPT:
				cnt = s1.LocalInterruptCount
			case LNET_MSG_STATUS_LOCAL_DROPPED:
				cnt = s1.LocalDroppedCount
			case LNET_MSG_STATUS_LOCAL_ABORTED:
				cnt = s1.LocalAbortedCount
			case LNET_MSG_STATUS_LOCAL_NO_ROUTE:
				cnt = s1.LocalNoRouteCount
			case LNET_MSG_STATUS_LOCAL_ERROR:
				cnt = s1.LocalErrorCount
			case LNET_MSG_STATUS_LOCAL_TIMEOUT:
				cnt = s1.LocalTimeoutCount
			case LNET_MSG_STATUS_REMOTE_ERROR:
				cnt = s1.RemoteErrorCount
			case LNET_MSG_STATUS_REMOTE_DROPPED:
				cnt = s1.RemoteDroppedCount
			case LNET_MSG_STATUS_REMOTE_TIMEOUT:
				cnt = s1.RemoteTimeoutCount
			case LNET_MSG_STATUS_NETWORK_TIMEOUT:
				cnt = s1.NetworkTimeoutCount
			}
			if cnt != uint64(c.attempts) {
				t.Errorf("%s_count = %d, want %d", c.hs, cnt, c.attempts)
			}
		})
	}
}

// A resend that succeeds counts successful_resends.
func TestSuccessfulResend(t *testing.T) {
	p := newPair(t, 2, 2, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	p.lnd.AddRule(IdealRule{Types: MaskPUT, Count: 1, Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_LOCAL_DROPPED}})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	s := p.a.Stats()
	if s.ResendCount != 1 || s.SuccessfulResends != 1 || s.FailedResends != 0 {
		t.Fatalf("counters %+v", s)
	}
	if ev := p.src.last(EventACK); ev == nil || ev.Status != 0 {
		t.Fatalf("no successful ACK after the resend")
	}
}

// Single-interface rules: a node with one NI does not resend local failures; a peer with one
// NI is neither resent to nor charged for remote failures.
func TestSingleInterfaceRules(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	peer := p.a.PeerNI(nid("10.0.0.2@o2ib")).Peer()
	p.lnd.AddRule(IdealRule{Types: MaskPUT, Count: 2, Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_LOCAL_DROPPED}})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	p.lnd.ClearRules()
	p.lnd.AddRule(IdealRule{Types: MaskPUT, Count: 2, Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_REMOTE_DROPPED}})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	s := p.a.Stats()
	if s.ResendCount != 0 {
		t.Fatalf("resend_count %d, want 0 on single interfaces", s.ResendCount)
	}
	if got := sumNIHealth(p.a); got != 900 {
		t.Fatalf("local health %d, want 900 (master decrements single-NI health)", got)
	}
	if got := sumPeerHealth(p.a, peer); got != 1000 {
		t.Fatalf("peer health %d, want 1000 (single-NI peer untouched)", got)
	}
}

// A message whose failure is reported after its deadline changes nothing.
func TestLateMessageChangesNothing(t *testing.T) {
	p := newPair(t, 2, 2, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	ni := p.a.NIs()[0]
	late := ni.LNDTimeout()*3 + 2*sim.Second // past now + LNDT*(retry_count+1) + 1 s
	p.lnd.AddRule(IdealRule{Types: MaskPUT, Count: -1, Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_LOCAL_DROPPED, Delay: late}})
	peer := p.a.PeerNI(nid("10.0.0.2@o2ib")).Peer()
	p.put(t, 100)
	p.run(t, late+sim.Second)
	s := p.a.Stats()
	if sumNIHealth(p.a) != 2000 || sumPeerHealth(p.a, peer) != 2000 || s.ResendCount != 0 || s.LateMsgCount != 1 {
		t.Fatalf("late failure changed state: health %d/%d stats %+v", sumNIHealth(p.a), sumPeerHealth(p.a, peer), s)
	}
	if len(p.a.LocalRecoveryQueue()) != 0 {
		t.Fatalf("late failure queued recovery")
	}
}

// A failing peer NI is avoided while another is healthy.
func TestFailingPeerNIAvoided(t *testing.T) {
	p := newPair(t, 1, 2, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	bad := nid("10.0.1.2@o2ib")
	p.lnd.AddRule(IdealRule{To: NIDPattern{NID: bad}, Count: -1, Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_REMOTE_DROPPED}})
	p.ta.attempts = nil
	p.src.evs = nil
	for i := 0; i < 20; i++ {
		p.put(t, 100)
		p.run(t, sim.Millisecond)
	}
	toBad := 0
	for _, a := range p.ta.attempts {
		if a.dst == bad {
			toBad++
		}
	}
	if toBad != 1 {
		t.Fatalf("%d attempts to the failing peer NI, want 1", toBad)
	}
	if n := p.src.count(EventACK); n != 20 {
		t.Fatalf("%d ACKs, want 20 (the failed attempt is resent to the healthy NI)", n)
	}
	if h := p.a.PeerNI(bad).Health(); h != 900 {
		t.Fatalf("bad peer NI health %d, want 900", h)
	}
}

// When every peer NI is unhealthy the least unhealthy one is used.
func TestLeastUnhealthy(t *testing.T) {
	p := newPair(t, 1, 3, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	for i, h := range []int{300, 500, 200} {
		if err := p.a.SetPeerHealth(nid([]string{"10.0.0.2@o2ib", "10.0.1.2@o2ib", "10.0.2.2@o2ib"}[i]), h); err != nil {
			t.Fatal(err)
		}
	}
	p.ta.attempts = nil
	for i := 0; i < 3; i++ {
		p.put(t, 100)
		p.run(t, 10*sim.Microsecond)
	}
	for _, a := range p.ta.attempts {
		if a.dst != nid("10.0.1.2@o2ib") {
			t.Fatalf("sent to %s, want the least unhealthy 10.0.1.2@o2ib", a.dst)
		}
	}
	// Each ACK received from it raises its health by the sensitivity.
	if h := p.a.PeerNI(nid("10.0.1.2@o2ib")).Health(); h != 800 {
		t.Fatalf("health after 3 ACKs = %d, want 800", h)
	}
}

// health_sensitivity 0: nothing changes and retry_count is forced to 0.
func TestSensitivityZero(t *testing.T) {
	tun := DefaultTunables()
	tun.HealthSensitivity = 0
	tun.RetryCount = 0
	p := newPair(t, 2, 2, tun, NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	p.lnd.AddRule(IdealRule{Types: MaskPUT, Count: -1, Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_NETWORK_TIMEOUT}})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	if sumNIHealth(p.a) != 2000 || p.a.Stats().ResendCount != 0 {
		t.Fatalf("sensitivity 0 changed health %d", sumNIHealth(p.a))
	}
	t2 := DefaultTunables()
	t2.HealthSensitivity = 0
	if err := p.a.SetTunables(t2); err != nil || p.a.Tunables().RetryCount != 0 {
		t.Fatalf("SetTunables(sensitivity 0) = %v, retry_count %d", err, p.a.Tunables().RetryCount)
	}
}

// NI status follows the health edges: DOWN at 0, UP again at 1000; a fatal NI reports DOWN.
func TestNIStatusEdges(t *testing.T) {
	p := newPair(t, 2, 1, DefaultTunables(), NetTunables{})
	ni := p.a.NIs()[1]
	for i := 0; i < 10; i++ {
		p.a.handleLocalFailure(ni)
	}
	if ni.Health() != 0 || ni.Status() != NIStatusDown {
		t.Fatalf("health %d status %s", ni.Health(), ni.Status())
	}
	if err := p.a.SetNIHealth(ni.NID(), 1000); err != nil || ni.Status() != NIStatusUp {
		t.Fatalf("status after set 1000: %s", ni.Status())
	}
	p.a.SetNIFatal(ni, true)
	if ni.Status() != NIStatusDown || p.a.PingBuffer().NIs[2].Status != NIStatusDown {
		t.Fatalf("fatal NI not advertised DOWN")
	}
}
