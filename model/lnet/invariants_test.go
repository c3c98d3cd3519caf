package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/internal/invariants"

	"github.com/lnetsim/lnetsim/sim"
)

// TestInvariantsCatchBrokenCredits breaks one count at a time on a node with a PUT in
// flight and expects the exact violation Node.checkInvariants reports.
func TestInvariantsCatchBrokenCredits(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(p *pair)
		want   string
	}{
		{"none", func(*pair) {}, ""},
		{"NI credit dropped in flight", func(p *pair) { p.a.liveMsgs(func(m *Msg) { m.niCredit = false }) },
			"node a: message 2 to 10.0.0.2@o2ib holds a peer NI credit without an NI credit but is in flight"},
		{"leaked NI credit", func(p *pair) {
			tq := &p.a.nis[0].tq[0]
			tq.credits, tq.min = tq.credits-1, tq.min-1
			p.a.nis[0].txCredits--
		}, "node a NI 10.0.0.1@o2ib CPT 0 tx queue: credits not conserved: 2 of 256 taken, 1 messages hold one"},
		{"CPT sum", func(p *pair) { p.a.nis[0].txCredits-- },
			"node a NI 10.0.0.1@o2ib: ni_tx_credits 254, its CPT queues sum to 255"},
		{"peer NI credit returned twice", func(p *pair) { p.a.peerNIs.get(nid("10.0.0.2@o2ib")).txCredits++ },
			"node a peer NI 10.0.0.2@o2ib tx credits: credits not conserved: 0 of 8 taken, 1 messages hold one"},
		{"stranded holder", func(p *pair) { p.a.liveMsgs(func(m *Msg) { m.sending = false }) },
			"node a NI 10.0.0.1@o2ib CPT 0 tx queue: 1 credit holders neither in the LND nor in a delay rule, 0 queued: a message waits on a credit nothing will return"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := newPair(t, 1, 1, DefaultTunables(), DefaultNetTunables())
			p.put(t, 4096)
			if err := p.k.RunUntil(p.k.Now() + sim.Microsecond/2); err != nil {
				t.Fatal(err)
			}
			tc.mutate(p)
			got := ""
			if err := p.a.checkInvariants(); err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("got %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestInvariantsCatchDoubleFinalize: freeing a message twice is caught under the tag, and
// is invisible without it (the check compiles out).
func TestInvariantsCatchDoubleFinalize(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), DefaultNetTunables())
	m := p.a.allocMsg()
	p.a.freeMsg(m)
	got := ""
	func() {
		defer func() {
			if r := recover(); r != nil {
				got = r.(string)
			}
		}()
		p.a.freeMsg(m)
	}()
	want := ""
	if invariants.Enabled {
		want = "invariant violated: node a frees message 1 (ACK to *) twice: finalized more than once"
	}
	if got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}
