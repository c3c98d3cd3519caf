package lnet

import (
	"fmt"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestFailCheck follows __cfs_fail_check_set for one check point, by fail_loc's flags: the
// answers of successive checks, and fail_loc as `lctl get_param` then reads it.
func TestFailCheck(t *testing.T) {
	for _, c := range []struct {
		loc, val uint32
		want     string // one letter per check: F fails, . passes
		after    uint32
	}{
		{0, 0, "....", 0},
		{0xe004, 0, "FFFF", 0x4000e004},         // every check fails
		{0xe002, 0, "....", 0xe002},             // another location
		{0x8000e004, 0, "F...", 0xc000e004},     // CFS_FAIL_ONCE
		{0x1000e004, 1, "F...", 0xd000e004},     // CFS_FAIL_SOME 1
		{0x1000e004, 3, "FF..", 0xd000e004},     // SOME 3: the third check spends it
		{0x1000e004, 0, "....", 0x9000e004},     // SOME 0: spent at once
		{0x2000e004, 2, "..FF", 0x6000e004},     // CFS_FAIL_SKIP 2
		{0x0800e004, 1, "....", 0x0800e004},     // CFS_FAIL_RAND 1: never
		{0x0800e004, 3, "...F.F..", 0x4800e004}, // RAND 3: one in three, drawn
	} {
		k := sim.New(1)
		n, err := NewNode(k, "n", DefaultTunables())
		if err != nil {
			t.Fatal(err)
		}
		n.SetFailLoc(c.loc, c.val)
		got := ""
		for range c.want {
			if n.failCheck(FailRtrHealthInc) {
				got += "F"
			} else {
				got += "."
			}
		}
		loc, _ := n.FailLoc()
		if got != c.want || loc != c.after {
			t.Errorf("fail_loc=%#x fail_val=%d: checks %s, then fail_loc %#x; want %s, %#x", c.loc, c.val, got, loc, c.want, c.after)
		}
	}
}

// TestFailCheckCountKept: writing fail_loc does not reset the check counter (it is
// __cfs_fail_check_set's own): after two skipped checks, the same SKIP 2 written again
// fails at once.
func TestFailCheckCountKept(t *testing.T) {
	n, err := NewNode(sim.New(1), "n", DefaultTunables())
	if err != nil {
		t.Fatal(err)
	}
	n.SetFailLoc(0x2000e004, 2)
	got := fmt.Sprint(n.failCheck(FailRtrHealthInc), n.failCheck(FailRtrHealthInc))
	n.SetFailLoc(0x2000e004, 2)
	got += fmt.Sprint(" ", n.failCheck(FailRtrHealthInc))
	if got != "false false true" {
		t.Fatalf("checks %s, want false false true", got)
	}
}

// CFS_FAIL_DELAY_MSG_FORWARD (fail_loc 0xe002) on the receiving node: its delay rule holds a
// received PUT for 2 s, except from 2.16 (LU-17854) while fail_loc names the location, when
// lnet_parse skips the delay rules. 2.15 has no such check point.
func TestFailDelayMsgForward(t *testing.T) {
	for _, c := range []struct {
		rel     string
		failLoc uint32
		delay   sim.Time
	}{
		{"master", 0, 2 * sim.Second}, {"master", FailDelayMsgForward, 0},
		{"2.16", FailDelayMsgForward, 0}, {"2.15", FailDelayMsgForward, 2 * sim.Second},
	} {
		p := newPair(t, 1, 1, relTunables(t, c.rel), NetTunables{})
		p.put(t, 100)
		p.run(t, sim.Millisecond)
		if _, err := p.b.AddDelayRule(DelayRuleSpec{Rate: 1, Latency: 2}); err != nil {
			t.Fatal(err)
		}
		p.b.SetFailLoc(c.failLoc, 0)
		p.sink.evs = nil
		t0 := p.k.Now()
		p.putNoAck(t, 2)
		p.run(t, 5*sim.Second)
		if len(p.sink.evs) != 1 || p.sink.evs[0].Time != t0+c.delay+p.lnd.Latency {
			t.Errorf("%s fail_loc %#x: delivered %+v, want one PUT at %v", c.rel, c.failLoc, p.sink.evs, t0+c.delay+p.lnd.Latency)
		}
	}
}
