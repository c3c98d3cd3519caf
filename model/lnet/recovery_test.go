package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// attemptTimes returns the times of attempts to dst after index from, relative to the first.
func attemptTimes(tr *traceRec, dst NID) []sim.Time {
	var out []sim.Time
	for _, a := range tr.attempts {
		if a.dst == dst {
			out = append(out, a.t)
		}
	}
	for i := len(out) - 1; i >= 0; i-- {
		out[i] -= out[0]
	}
	return out
}

func wantSeconds(t *testing.T, got []sim.Time, want []int) {
	t.Helper()
	if len(got) < len(want) {
		t.Fatalf("pings at %v, want at least %d", got, len(want))
	}
	for i, w := range want {
		if got[i] != sim.Time(w)*sim.Second {
			t.Fatalf("ping %d at %v, want %ds (all %v)", i, got[i], w, got)
		}
	}
}

// A peer NI that keeps failing is pinged at 0, 2, 6, 14, 30, 62 s after its first recovery
// ping (2^n backoff), and capped at max_recovery_ping_interval.
func TestPeerRecoveryBackoff(t *testing.T) {
	for _, c := range []struct {
		max  int
		want []int
	}{
		{900, []int{0, 2, 6, 14, 30, 62, 126}},
		{4, []int{0, 2, 6, 10, 14, 18}},
	} {
		tun := DefaultTunables()
		tun.MaxRecoveryPingInterval = c.max
		p := newPair(t, 1, 2, tun, NetTunables{})
		for i := 0; i < 2; i++ { // hear from both of B's NIs
			p.put(t, 100)
			p.run(t, sim.Millisecond)
		}
		bad := nid("10.0.1.2@o2ib")
		p.lnd.AddRule(IdealRule{To: NIDPattern{NID: bad}, Count: -1, Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_REMOTE_DROPPED}})
		p.ta.attempts = nil
		p.put(t, 100) // goes to bad (round robin), fails, is resent to the good one
		p.run(t, sim.Millisecond)
		if !p.a.PeerNI(bad).InRecovery() {
			t.Fatalf("failing peer NI not on the recovery queue")
		}
		p.ta.attempts = nil
		p.run(t, 200*sim.Second)
		wantSeconds(t, attemptTimes(p.ta, bad), c.want)
		if hs := p.a.PeerNI(bad).HealthStats(); hs.Dropped < uint64(len(c.want)) {
			t.Fatalf("dropped = %d", hs.Dropped)
		}
	}
}

// A local NI in recovery is pinged (from the healthy NI, to its own NID) on the same schedule.
func TestLocalRecoveryBackoff(t *testing.T) {
	p := newPair(t, 2, 1, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	sick := nid("10.0.1.1@o2ib")
	// The sick NI's pings never come back (remote failures on our own NID are not charged).
	p.lnd.AddRule(IdealRule{To: NIDPattern{NID: sick}, Count: -1, Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_REMOTE_DROPPED}})
	p.a.handleLocalFailure(p.a.NI(sick))
	p.ta.attempts = nil
	p.run(t, 100*sim.Second)
	wantSeconds(t, attemptTimes(p.ta, sick), []int{0, 2, 6, 14, 30, 62})
	for _, a := range p.ta.attempts {
		if a.dst == sick && a.ni != nid("10.0.0.1@o2ib") {
			t.Fatalf("recovery ping sent from %s, want the healthy NI", a.ni)
		}
	}
	if h := p.a.NI(sick).Health(); h != 900 {
		t.Fatalf("health %d, want 900 (failed pings to own NID charge nothing)", h)
	}
}

// Health recovers through successful recovery pings: +sensitivity per REPLY; a successful
// receive resets the ping count, so pings stay 2 s apart; the NI leaves the queue at 1000.
func TestPeerHealthRecovers(t *testing.T) {
	p := newPair(t, 1, 2, DefaultTunables(), NetTunables{})
	for i := 0; i < 2; i++ {
		p.put(t, 100)
		p.run(t, sim.Millisecond)
	}
	sick := nid("10.0.1.2@o2ib")
	if err := p.a.SetPeerHealth(sick, 500); err != nil {
		t.Fatal(err)
	}
	p.ta.attempts = nil
	p.ta.health = nil
	p.run(t, 60*sim.Second)
	wantSeconds(t, attemptTimes(p.ta, sick), []int{0, 2, 4, 6, 8})
	if n := len(attemptTimes(p.ta, sick)); n != 5 {
		t.Fatalf("%d pings, want 5", n)
	}
	lp := p.a.PeerNI(sick)
	if lp.Health() != 1000 || lp.InRecovery() {
		t.Fatalf("health %d in recovery %v", lp.Health(), lp.InRecovery())
	}
	var steps []int
	for _, h := range p.ta.health {
		if h.nid == sick {
			steps = append(steps, h.new)
		}
	}
	if len(steps) != 5 || steps[0] != 600 || steps[4] != 1000 {
		t.Fatalf("health steps %v", steps)
	}
}

// A local NI recovers through its pings: REPLY raises it, status UP at 1000.
func TestLocalHealthRecovers(t *testing.T) {
	p := newPair(t, 2, 1, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	ni := p.a.NIs()[1]
	for i := 0; i < 10; i++ {
		p.a.handleLocalFailure(ni)
	}
	if ni.Status() != NIStatusDown {
		t.Fatal("not down")
	}
	p.run(t, 120*sim.Second)
	if ni.Health() != 1000 || ni.Status() != NIStatusUp || ni.InRecovery() {
		t.Fatalf("health %d status %s", ni.Health(), ni.Status())
	}
}

// recovery_limit: a peer NI not heard from within the limit stops being recovered.
func TestRecoveryLimit(t *testing.T) {
	tun := DefaultTunables()
	tun.RecoveryLimit = 10
	p := newPair(t, 1, 2, tun, NetTunables{})
	bad := p.failSecondPeerNI(t)
	p.ta.attempts = nil
	p.run(t, 100*sim.Second)
	got := attemptTimes(p.ta, bad)
	// Pings at 0, 2, 6 (within 10 s of last alive); the re-queue after the ping at ~14 s ages out.
	if len(got) == 0 || len(got) > 4 || got[len(got)-1] > 15*sim.Second {
		t.Fatalf("pings %v continue past recovery_limit", got)
	}
	if p.a.PeerNI(bad).InRecovery() {
		t.Fatal("still in recovery")
	}
}

// failSecondPeerNI has A hear from both of B's NIs, makes every message to B's second NI fail
// REMOTE_DROPPED from then on, and sends a PUT (round robin takes that NI); it returns the NID.
func (p *pair) failSecondPeerNI(t *testing.T) NID {
	t.Helper()
	for i := 0; i < 2; i++ {
		p.put(t, 100)
		p.run(t, sim.Millisecond)
	}
	bad := nid("10.0.1.2@o2ib")
	p.lnd.AddRule(IdealRule{To: NIDPattern{NID: bad}, Count: -1, Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_REMOTE_DROPPED}})
	p.put(t, 100)
	return bad
}
