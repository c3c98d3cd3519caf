package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// The story of a rail failure: two multi-rail nodes exchange a PUT every 10 ms; at 10 s A's
// second rail starts failing every send (LOCAL_DROPPED), at 30 s it heals. While it fails,
// traffic moves to the first rail at the first failure (resent, nothing lost). The first
// recovery ping (11 s, from the healthy rail to the sick NI's NID) gets no REPLY — the sick NI
// cannot send it — so the ping stays pending until its response tracker expires at the 225 s
// check (transaction_timeout 150, checked every 75 s); then pings succeed, health returns to
// 1000 and traffic uses both rails again.
func TestRailFailureStory(t *testing.T) {
	p := newPair(t, 2, 2, DefaultTunables(), NetTunables{})
	bad := nid("10.0.1.1@o2ib")
	var rule *IdealRule
	p.k.ScheduleFunc(10*sim.Second, func() {
		rule = p.lnd.AddRule(IdealRule{From: NIDPattern{NID: bad}, Count: -1,
			Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_LOCAL_DROPPED}})
	})
	p.k.ScheduleFunc(30*sim.Second, func() { p.lnd.ClearRules() })
	sent := 0
	var tick func()
	tick = func() {
		if p.k.Now() >= 250*sim.Second {
			return
		}
		p.put(t, 4096)
		sent++
		p.k.AfterFunc(10*sim.Millisecond, tick)
	}
	tick()
	usage := func(from, to sim.Time) (good, badN int) {
		for _, a := range p.ta.attempts {
			if a.t < from || a.t >= to || a.dst.Net() != bad.Net() {
				continue
			}
			if a.ni == bad {
				badN++
			} else {
				good++
			}
		}
		return
	}
	p.run(t, 251*sim.Second)
	if got := p.src.count(EventACK); got != sent {
		t.Fatalf("%d ACKs for %d PUTs: messages lost", got, sent)
	}
	g0, b0 := usage(0, 10*sim.Second)
	if b0 < g0/3 {
		t.Fatalf("before the failure the rails are not shared: %d/%d", g0, b0)
	}
	_, b1 := usage(11*sim.Second, 225*sim.Second)
	// Only the REPLY to the first recovery ping (and its resends) use the failing rail.
	if b1 > 3 {
		t.Fatalf("%d attempts on the failing rail while it failed", b1)
	}
	if rule.Hits < 3 {
		t.Fatalf("rule hit %d times", rule.Hits)
	}
	if h := p.a.NI(bad).Health(); h != 1000 {
		for _, hc := range p.ta.health {
			if hc.nid == bad {
				t.Logf("%v %d->%d %s", hc.t, hc.old, hc.new, hc.cause)
			}
		}
		t.Fatalf("health after recovery %d", h)
	}
	g2, b2 := usage(240*sim.Second, 250*sim.Second)
	if b2 < g2/3 {
		t.Fatalf("after recovery the rails are not shared again: %d/%d", g2, b2)
	}
	// 1 traffic resend + 2 for the ping's REPLY (which then fails: failed_resends 1); the
	// ping's tracker expired once.
	if s := p.a.Stats(); s.ResendCount != 3 || s.FailedResends != 1 || s.ResponseTimeoutCount != 1 {
		t.Fatalf("counters %+v", s)
	}
}
