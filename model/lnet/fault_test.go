package lnet

import (
	"fmt"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// putNoAck sends a PUT without ACK carrying match bits mb.
func (p *pair) putNoAck(t *testing.T, mb uint64) {
	t.Helper()
	md := p.a.MDBind(MDSpec{Length: 100, Threshold: 1})
	if err := p.a.Put(AnyNID, md, AckReqNone, nid("10.0.0.2@o2ib"), testPortal, mb, 0, 0); err != nil {
		t.Fatal(err)
	}
}

func (p *pair) received() map[uint64]bool {
	got := map[uint64]bool{}
	for _, e := range p.sink.evs {
		if e.Type == EventPUT {
			got[e.MatchBits] = true
		}
	}
	return got
}

// Rate rules: the dropped messages are exactly those the kernel's arithmetic picks from the
// rule's stream: one in every window of rate matched messages, at a random place.
func TestDropRuleRate(t *testing.T) {
	for _, rate := range []uint32{1, 2, 5, 7} {
		t.Run(fmt.Sprint(rate), func(t *testing.T) {
			p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
			p.put(t, 100)
			p.run(t, sim.Millisecond)
			p.sink.evs = nil
			r, err := p.b.AddDropRule(DropRuleSpec{FaultAttr: FaultAttr{MsgMask: MaskPUT}, Rate: rate})
			if err != nil {
				t.Fatal(err)
			}
			const n = 70
			for i := 0; i < n; i++ {
				p.putNoAck(t, uint64(i))
			}
			p.run(t, sim.Millisecond)
			// Independent replay of the arithmetic.
			rnd := sim.NewStream(1, fmt.Sprintf("lnet.b.drop-rule.%d", r.ID))
			var dropAt uint64
			if rate != 2 {
				dropAt = rnd.Uint64N(uint64(rate))
			}
			want := map[uint64]bool{}
			for c := uint64(0); c < n; c++ {
				if c == dropAt {
					want[c] = true
				}
				if (c+1)%uint64(rate) == 0 {
					dropAt = c + 1 + rnd.Uint64N(uint64(rate))
				}
			}
			got := p.received()
			for i := uint64(0); i < n; i++ {
				if got[i] == want[i] {
					t.Fatalf("message %d: received=%v but kernel drop=%v", i, got[i], want[i])
				}
			}
			if r.Stats.Dropped != uint64(n/int(rate)) || r.Stats.Count != n || r.Stats.PUT != uint64(n/int(rate)) {
				t.Fatalf("stats %+v, want %d dropped of %d", r.Stats, n/int(rate), n)
			}
			if rate == 2 && got[0] {
				t.Fatal("rate 2 must drop the first message")
			}
			if p.b.NIs()[0].Stats().DropCount != uint64(n/int(rate)) {
				t.Fatalf("NI drop_count %d", p.b.NIs()[0].Stats().DropCount)
			}
		})
	}
}

// Interval rules: one drop per interval window, at the times the kernel's arithmetic picks.
func TestDropRuleInterval(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	p.sink.evs = nil
	t0 := p.k.Now()
	r, err := p.b.AddDropRule(DropRuleSpec{FaultAttr: FaultAttr{Src: NIDPattern{NID: nid("10.0.0.1@o2ib")}}, Interval: 10})
	if err != nil {
		t.Fatal(err)
	}
	const n = 100
	for i := 0; i < n; i++ {
		p.putNoAck(t, uint64(i))
		p.run(t, sim.Second)
	}
	rnd := sim.NewStream(1, fmt.Sprintf("lnet.b.drop-rule.%d", r.ID))
	sec := func(t sim.Time) sim.Time { return t / sim.Second * sim.Second }
	base := sec(t0) + 10*sim.Second
	dropTime := sec(t0) + sim.Time(rnd.Uint64N(10))*sim.Second
	got := p.received()
	drops := 0
	for i := 0; i < n; i++ {
		at := sec(t0 + sim.Time(i)*sim.Second + p.lnd.Latency)
		drop := at >= dropTime
		if drop {
			drops++
			base = max(base, at)
			dropTime = base + sim.Time(rnd.Uint64N(10))*sim.Second
			base += 10 * sim.Second
		}
		if got[uint64(i)] == drop {
			t.Fatalf("message %d at %v: received=%v, kernel drop=%v", i, at, got[uint64(i)], drop)
		}
	}
	if drops < 9 || drops > 11 || r.Stats.Dropped != uint64(drops) {
		t.Fatalf("%d drops in 100 s with interval 10 (stats %+v)", drops, r.Stats)
	}
}

// Masks: a portal mask limits the rule to PUT/GET on those portals; a message mask to types;
// src/dst patterns and the local NID must match.
func TestDropRuleMatching(t *testing.T) {
	h := &Header{Type: MsgPUT, Src: nid("10.0.0.1@o2ib"), Dst: nid("10.0.0.2@o2ib"), Portal: 4}
	ack := &Header{Type: MsgACK, Src: h.Src, Dst: h.Dst}
	local := nid("10.0.0.2@o2ib")
	cases := []struct {
		name string
		a    FaultAttr
		h    *Header
		want bool
	}{
		{"any", FaultAttr{}, h, true},
		{"src", FaultAttr{Src: NIDPattern{NID: nid("10.0.0.9@o2ib")}}, h, false},
		{"src net", FaultAttr{Src: NIDPattern{Net: MakeNet(O2IBLND, 0)}}, h, true},
		{"dst net other", FaultAttr{Dst: NIDPattern{Net: MakeNet(O2IBLND, 1)}}, h, false},
		{"local nid", FaultAttr{LocalNID: nid("10.0.5.2@o2ib")}, h, false},
		{"portal hit", FaultAttr{PtlMask: 1 << 4}, h, true},
		{"portal miss", FaultAttr{PtlMask: 1 << 5}, h, false},
		{"portal mask excludes ACK", FaultAttr{PtlMask: 1 << 4, MsgMask: MaskACK | MaskPUT}, ack, false},
		{"msg mask", FaultAttr{MsgMask: MaskGET}, h, false},
		{"msg mask ack", FaultAttr{MsgMask: MaskACK}, ack, true},
	}
	for _, c := range cases {
		if got := c.a.match(c.h, local); got != c.want {
			t.Errorf("%s: match = %v, want %v", c.name, got, c.want)
		}
	}
}

// A rule with a health mask acts on the sender at post time: the send fails with that
// hstatus, with the health/resend consequences of the table.
func TestDropRuleHealthError(t *testing.T) {
	p := newPair(t, 2, 2, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	r, err := p.a.AddDropRule(DropRuleSpec{FaultAttr: FaultAttr{MsgMask: MaskPUT}, Rate: 1,
		HealthMask: 1 << LNET_MSG_STATUS_LOCAL_TIMEOUT})
	if err != nil {
		t.Fatal(err)
	}
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	s := p.a.Stats()
	if s.LocalTimeoutCount != 3 || s.ResendCount != 2 || s.FailedResends != 1 || r.Stats.Dropped != 3 {
		t.Fatalf("stats %+v rule %+v", s, r.Stats)
	}
	// Receive-side rules ignore it: B saw nothing dropped.
	if p.b.Stats().DropCount != 0 {
		t.Fatal("receive side dropped")
	}
}

// The hstatus chosen for a multi-bit mask is always one of the mask's.
func TestDropRuleHealthChoice(t *testing.T) {
	k := sim.New(3)
	r := &DropRule{Spec: DropRuleSpec{HealthMask: 1<<LNET_MSG_STATUS_LOCAL_DROPPED | 1<<LNET_MSG_STATUS_NETWORK_TIMEOUT}, rnd: k.Rand("x")}
	seen := map[HStatus]int{}
	for i := 0; i < 1000; i++ {
		seen[r.pickHStatus()]++
	}
	if len(seen) != 2 || seen[LNET_MSG_STATUS_LOCAL_DROPPED] == 0 || seen[LNET_MSG_STATUS_NETWORK_TIMEOUT] == 0 {
		t.Fatalf("choices %v", seen)
	}
	if err := (&DropRuleSpec{Rate: 1, Interval: 1}).Validate(); err == nil {
		t.Fatal("rate and interval accepted together")
	}
	if err := (&DelayRuleSpec{Rate: 1}).Validate(); err == nil {
		t.Fatal("delay rule without latency accepted")
	}
}

// Delay rules hold a message for their latency; a delayed send keeps its credits.
func TestDelayRule(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	if _, err := p.a.AddDelayRule(DelayRuleSpec{FaultAttr: FaultAttr{MsgMask: MaskPUT}, Rate: 1, Latency: 3}); err != nil {
		t.Fatal(err)
	}
	p.sink.evs = nil
	t0 := p.k.Now()
	p.putNoAck(t, 1)
	p.run(t, sim.Second)
	lpni := p.a.PeerNI(nid("10.0.0.2@o2ib"))
	if avail, _, _ := lpni.TxCredits(); avail != 7 || len(p.sink.evs) != 0 {
		t.Fatalf("during delay: credits %d events %d", avail, len(p.sink.evs))
	}
	p.run(t, 3*sim.Second)
	if len(p.sink.evs) != 1 || p.sink.evs[0].Time != t0+3*sim.Second+p.lnd.Latency {
		t.Fatalf("delivered %+v", p.sink.evs)
	}
	// Receive-side delay on B.
	p.a.DelDelayRules(nil, nil)
	if _, err := p.b.AddDelayRule(DelayRuleSpec{Rate: 1, Latency: 2}); err != nil {
		t.Fatal(err)
	}
	p.sink.evs = nil
	t1 := p.k.Now()
	p.putNoAck(t, 2)
	p.run(t, 5*sim.Second)
	if len(p.sink.evs) != 1 || p.sink.evs[0].Time != t1+2*sim.Second+p.lnd.Latency {
		t.Fatalf("rx delayed %+v", p.sink.evs)
	}
}

// The kernel's nearest-bit scan, including its quirk: the choice moves to each closer bit in
// turn while scanning down, so {5, 9} with 6 drawn gives 9, not the nearer 5.
func TestMatchHealth(t *testing.T) {
	b := func(s ...HStatus) uint32 {
		m := uint32(0)
		for _, x := range s {
			m |= 1 << x
		}
		return m
	}
	cases := []struct {
		choice int
		mask   uint32
		want   HStatus
	}{
		{4, b(4), 4},
		{7, b(2, 9), 9},
		{6, b(5, 9), 9},
		{6, b(5, 7), 7},
		{1, b(10), 10},
		{3, HealthMaskRandom, 3},
		{8, 0, 8},
	}
	for _, c := range cases {
		if got := matchHealth(c.choice, c.mask); got != c.want {
			t.Errorf("matchHealth(%d, %#x) = %d, want %d", c.choice, c.mask, got, c.want)
		}
	}
}

// TestFaultFini follows lnet_fault_fini (LNet stopping): the rules go and what the delay
// rules hold is released at once, a held send to its LND (delivered now, not at its delay's
// end), a held receive dropped (-ECANCELED: B counts a drop and delivers nothing).
func TestFaultFini(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	if _, err := p.a.AddDelayRule(DelayRuleSpec{FaultAttr: FaultAttr{MsgMask: MaskPUT}, Rate: 1, Latency: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.a.AddDropRule(DropRuleSpec{FaultAttr: FaultAttr{MsgMask: MaskPUT}, Rate: 1}); err != nil {
		t.Fatal(err)
	}
	p.sink.evs = nil
	p.putNoAck(t, 1)
	p.run(t, sim.Second)
	t0 := p.k.Now()
	p.a.FaultFini()
	if len(p.a.DropRules()) != 0 || len(p.a.DelayRules()) != 0 {
		t.Fatalf("rules left: %d drop, %d delay", len(p.a.DropRules()), len(p.a.DelayRules()))
	}
	p.run(t, 5*sim.Second)
	if len(p.sink.evs) != 1 || p.sink.evs[0].Time != t0+p.lnd.Latency {
		t.Fatalf("held send: delivered %+v, want one at %v", p.sink.evs, t0+p.lnd.Latency)
	}
	// A receive held on B is dropped.
	if _, err := p.b.AddDelayRule(DelayRuleSpec{Rate: 1, Latency: 2}); err != nil {
		t.Fatal(err)
	}
	p.sink.evs = nil
	drops := p.b.Stats().DropCount
	p.putNoAck(t, 2)
	p.run(t, sim.Second)
	p.b.FaultFini()
	p.run(t, 5*sim.Second)
	if len(p.sink.evs) != 0 || p.b.Stats().DropCount != drops+1 {
		t.Fatalf("held receive: delivered %+v, drops %d, want none and %d", p.sink.evs, p.b.Stats().DropCount, drops+1)
	}
}

// TestDelDelayRulesReleases: deleting a delay rule releases what it holds at once, as
// lnet_delay_rule_del does (delayed_msg_process without drop): a held send goes to the LND
// at the deletion, and a held receive is delivered then, not at the end of its latency; the
// release events of the messages no longer fire.
func TestDelDelayRulesReleases(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	if _, err := p.a.AddDelayRule(DelayRuleSpec{FaultAttr: FaultAttr{MsgMask: MaskPUT}, Rate: 1, Latency: 30}); err != nil {
		t.Fatal(err)
	}
	p.sink.evs = nil
	p.putNoAck(t, 1)
	p.run(t, sim.Second)
	t0 := p.k.Now()
	if n := p.a.DelDelayRules(nil, nil); n != 1 {
		t.Fatalf("DelDelayRules removed %d rules, want 1", n)
	}
	p.run(t, 40*sim.Second)
	if len(p.sink.evs) != 1 || p.sink.evs[0].Time != t0+p.lnd.Latency {
		t.Fatalf("held send: delivered %+v, want one at %v", p.sink.evs, t0+p.lnd.Latency)
	}
	// A receive held on B is parsed when its rule goes (RemoveDelayRule).
	r, err := p.b.AddDelayRule(DelayRuleSpec{Rate: 1, Latency: 30})
	if err != nil {
		t.Fatal(err)
	}
	p.sink.evs = nil
	p.putNoAck(t, 2)
	p.run(t, sim.Second)
	t1 := p.k.Now()
	if !p.b.RemoveDelayRule(r) {
		t.Fatal("RemoveDelayRule: not installed")
	}
	p.run(t, 40*sim.Second)
	if len(p.sink.evs) != 1 || p.sink.evs[0].Time != t1 {
		t.Fatalf("held receive: delivered %+v, want one at %v", p.sink.evs, t1)
	}
}

// TestRuleSpecValidate: what lnet_drop_rule_add and lnet_delay_rule_add refuse (EINVAL), with
// the model's words; a drop_all rule needs its rate or interval as any other.
func TestRuleSpecValidate(t *testing.T) {
	ptl := FaultAttr{PtlMask: 1 << 4, MsgMask: MaskACK | MaskREPLY}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"drop ok", (&DropRuleSpec{Rate: 1}).Validate(), ""},
		{"drop_all with rate", (&DropRuleSpec{Rate: 1, DropAll: true}).Validate(), ""},
		{"drop_all alone", (&DropRuleSpec{DropAll: true}).Validate(), "drop rule needs exactly one of rate and interval, got 0/0"},
		{"drop_all with both", (&DropRuleSpec{Rate: 1, Interval: 2, DropAll: true}).Validate(), "drop rule needs exactly one of rate and interval, got 1/2"},
		{"drop neither", (&DropRuleSpec{}).Validate(), "drop rule needs exactly one of rate and interval, got 0/0"},
		{"drop portal without PUT or GET", (&DropRuleSpec{FaultAttr: ptl, Rate: 1}).Validate(), "a portal filter matches only PUT and GET messages"},
		{"drop portal, any type", (&DropRuleSpec{FaultAttr: FaultAttr{PtlMask: 1}, Rate: 1}).Validate(), ""},
		{"drop random with rate", (&DropRuleSpec{Rate: 1, Random: true}).Validate(), "drop rule: random needs an interval"},
		{"drop bad health mask", (&DropRuleSpec{Rate: 1, HealthMask: 1}).Validate(), "drop rule: bad health error mask 0x1"},
		{"delay ok", (&DelayRuleSpec{Interval: 1, Latency: 1}).Validate(), ""},
		{"delay both", (&DelayRuleSpec{Rate: 1, Interval: 1, Latency: 1}).Validate(), "delay rule needs exactly one of rate and interval, got 1/1"},
		{"delay latency 0", (&DelayRuleSpec{Rate: 1}).Validate(), "delay rule needs a latency > 0"},
		{"delay portal without PUT or GET", (&DelayRuleSpec{FaultAttr: ptl, Rate: 1, Latency: 1}).Validate(), "a portal filter matches only PUT and GET messages"},
	} {
		got := ""
		if tc.err != nil {
			got = tc.err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
