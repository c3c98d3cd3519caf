package lnet

import (
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// runScenario runs a small busy scenario with failures, drop rules and recovery and returns
// the kernel checksum and the tracer output.
func runScenario(t *testing.T, seed uint64) (uint64, string) {
	k := sim.New(seed)
	cs := sim.NewChecksum()
	k.SetObserver(cs.Observe)
	lnd := NewIdealLND(k, 2*sim.Microsecond)
	tr := &traceRec{}
	var nodes []*Node
	for h := 1; h <= 3; h++ {
		n, err := NewNode(k, string(rune('a'+h-1)), DefaultTunables())
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ {
			if _, err := n.AddNI(MakeNID(MakeNet(O2IBLND, 0), uint32(10<<24|i<<8|h)), lnd, NetTunables{}); err != nil {
				t.Fatal(err)
			}
		}
		n.SetTracer(tr)
		if err := n.Startup(); err != nil {
			t.Fatal(err)
		}
		n.MEAttach(MatchSpec{Portal: 4, Source: AnyNID, SourcePID: LNET_PID_ANY, IgnoreBits: ^uint64(0)},
			MDSpec{Length: 1 << 20, Threshold: ThresholdInf, Options: MD_OP_PUT | MD_OP_GET})
		nodes = append(nodes, n)
	}
	if _, err := nodes[1].AddDropRule(DropRuleSpec{Rate: 7}); err != nil {
		t.Fatal(err)
	}
	if _, err := nodes[0].AddDropRule(DropRuleSpec{Interval: 3, HealthMask: 0x7fe}); err != nil {
		t.Fatal(err)
	}
	rnd := k.Rand("test.workload")
	lnd.Hook = func(m *Msg) IdealVerdict {
		if rnd.IntN(50) == 0 {
			return IdealVerdict{Action: IdealFail, HStatus: HStatus(1 + rnd.IntN(10))}
		}
		return IdealVerdict{}
	}
	for i := 0; i < 400; i++ {
		at := sim.Time(rnd.Int64N(int64(60 * sim.Second)))
		src, dst := rnd.IntN(3), rnd.IntN(3)
		if src == dst {
			continue
		}
		get := rnd.IntN(3) == 0
		k.ScheduleFunc(at, func() {
			n := nodes[src]
			md := n.MDBind(MDSpec{Length: 4096, Threshold: 2})
			target := nodes[dst].NIs()[0].NID()
			if get {
				_ = n.Get(AnyNID, md, target, 4, 1, 0)
			} else {
				_ = n.Put(AnyNID, md, AckReqAck, target, 4, 1, 0, 0)
			}
		})
	}
	if err := k.RunUntil(400 * sim.Second); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		checkInvariants(t, n)
		if n.Stats().MsgsAlloc != 0 {
			t.Fatalf("%s: %d messages never finalized", n.Name(), n.Stats().MsgsAlloc)
		}
	}
	return cs.Sum(), strings.Join(tr.lines, "\n")
}

func TestDeterminism(t *testing.T) {
	s1, o1 := runScenario(t, 42)
	s2, o2 := runScenario(t, 42)
	if s1 != s2 || o1 != o2 {
		t.Fatalf("same seed, different runs: %x vs %x", s1, s2)
	}
	s3, o3 := runScenario(t, 43)
	if s3 == s1 || o3 == o1 {
		t.Fatal("different seeds gave identical runs")
	}
	if !strings.Contains(o1, "health") || !strings.Contains(o1, "done") {
		t.Fatal("scenario exercised nothing")
	}
}

func TestTunablesValidate(t *testing.T) {
	def := DefaultTunables()
	if err := def.Validate(); err != nil {
		t.Fatal(err)
	}
	if def.LNDTimeout() != 49*sim.Second {
		t.Fatalf("lnd_timeout %v, want 49s", def.LNDTimeout())
	}
	if maxRecoveryPingCount(def.MaxRecoveryPingInterval) != 9 {
		t.Fatalf("max recovery ping count %d", maxRecoveryPingCount(def.MaxRecoveryPingInterval))
	}
	bad := []func(*Tunables){
		func(t *Tunables) { t.TransactionTimeout = 0 },
		func(t *Tunables) { t.RetryCount = 200 },
		func(t *Tunables) { t.HealthSensitivity = 1001 },
		func(t *Tunables) { t.HealthSensitivity = 0 },
		func(t *Tunables) { t.ResponseTracking = 4 },
		func(t *Tunables) { t.MaxRecoveryPingInterval = 0 },
		func(t *Tunables) { t.RecoveryLimit = -1 },
	}
	for i, f := range bad {
		tu := DefaultTunables()
		f(&tu)
		if tu.Validate() == nil {
			t.Errorf("case %d accepted: %+v", i, tu)
		}
	}
	tu := DefaultTunables()
	tu.HealthSensitivity = 0
	tu.Normalize()
	if tu.RetryCount != 0 || tu.Validate() != nil {
		t.Fatal("sensitivity 0 did not force retry_count 0")
	}
	nt := DefaultNetTunables()
	if nt.Credits != 256 || nt.PeerCredits != 8 || nt.PeerTimeout != 180 || nt.Validate() != nil {
		t.Fatalf("net defaults %+v", nt)
	}
	nt.Credits = 4
	if nt.Validate() == nil {
		t.Fatal("credits < peer_credits accepted")
	}
}

func TestNIDSyntax(t *testing.T) {
	for _, s := range []string{"10.0.0.1@o2ib", "10.0.1.1@o2ib1", "0@lo", "192.168.1.20@tcp", "*"} {
		n, err := ParseNID(s)
		if err != nil || n.String() != s {
			t.Errorf("%q -> %v %v -> %q", s, n, err, n.String())
		}
	}
	if MustNID("10.0.0.1@o2ib0") != MustNID("10.0.0.1@o2ib") {
		t.Error("o2ib0 != o2ib")
	}
	if MustNID("10.0.0.1@o2ib1").Net() == MustNID("10.0.0.1@o2ib").Net() {
		t.Error("o2ib1 == o2ib")
	}
	for _, s := range []string{"10.0.0.1", "10.0.0@o2ib", "10.0.0.1@ib", "300.0.0.1@o2ib", "x@lo"} {
		if _, err := ParseNID(s); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
	p, err := ParseNIDPattern("*@o2ib1")
	if err != nil || !p.Match(MustNID("1.2.3.4@o2ib1")) || p.Match(MustNID("1.2.3.4@o2ib")) || p.String() != "*@o2ib1" {
		t.Errorf("pattern %v %v", p, err)
	}
}

// Late ACK (after the response tracker unlinked the MD) is dropped without health effect.
func TestLateAckDropped(t *testing.T) {
	tun := DefaultTunables()
	tun.TransactionTimeout = 10
	p := newPair(t, 1, 1, tun, NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	p.lnd.AddRule(IdealRule{Types: MaskACK, Count: 1, Verdict: IdealVerdict{Action: IdealDeliver, Delay: 30 * sim.Second}})
	p.src.evs = nil
	p.put(t, 100)
	p.run(t, 60*sim.Second)
	if p.src.count(EventACK) != 0 || p.src.count(EventUNLINK) != 1 {
		t.Fatalf("events %+v", p.src.evs)
	}
	if p.a.Stats().DropCount != 1 || p.a.NIs()[0].Health() != 1000 {
		t.Fatalf("late ACK: stats %+v health %d", p.a.Stats(), p.a.NIs()[0].Health())
	}
}

func TestNotify(t *testing.T) {
	p := newPair(t, 1, 2, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	ni := p.a.NIs()[0]
	x := nid("10.0.1.2@o2ib")
	_ = p.a.SetPeerHealth(x, 300)
	if err := p.a.Notify(ni, x, false, false, p.k.Now()); err != nil || p.a.PeerNI(x).Status() != NIStatusDown || p.a.PeerNI(x).Health() != 300 {
		t.Fatalf("down: %v %s %d", err, p.a.PeerNI(x).Status(), p.a.PeerNI(x).Health())
	}
	if err := p.a.Notify(ni, x, true, true, p.k.Now()); err != nil || p.a.PeerNI(x).Health() != 1000 || p.a.PeerNI(x).Status() != NIStatusUp {
		t.Fatalf("alive+reset: %v %d", err, p.a.PeerNI(x).Health())
	}
	if err := p.a.Notify(ni, x, true, true, p.k.Now()+sim.Second); err == nil {
		t.Fatal("future report accepted")
	}
	if err := p.a.Notify(ni, nid("10.0.0.2@o2ib1"), true, true, 0); err == nil {
		t.Fatal("other-net report accepted")
	}
}

// A local NI going down is pushed to discovered MR peers, which mark it DOWN and charge it.
func TestPushOnStatusChange(t *testing.T) {
	p := newPair(t, 2, 1, DefaultTunables(), NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	down := nid("10.0.1.1@o2ib")
	p.a.SetNIFatal(p.a.NI(down), true)
	p.run(t, sim.Millisecond)
	lp := p.b.PeerNI(down)
	if lp == nil || lp.Status() != NIStatusDown || lp.Health() != 900 || !lp.Peer().MultiRail() {
		t.Fatalf("B's view of %s after push: %+v", down, lp)
	}
	nets := p.a.ShowNets() // lo first, as the kernel lists it
	if nets[0].NetType != "lo" || nets[0].NIs[0].NID != "0@lo" || nets[0].NIs[0].Status != "up" ||
		nets[0].NIs[0].Tunables != (NetTunables{}) || nets[0].NIs[0].Credits != nil {
		t.Fatalf("net show lo: %+v", nets[0])
	}
	if nets[1].NIs[1].Status != "down" || nets[1].NIs[1].HealthStats.FatalError != 1 {
		t.Fatalf("net show: %+v", nets[1].NIs[1])
	}
	if g := p.a.ShowGlobal(); g.LNDTimeout != 49 || g.RetryCount != 2 {
		t.Fatalf("global show %+v", g)
	}
	if ps := p.a.ShowPeers(); len(ps) == 0 || ps[0].PeerNIs[0].MaxTx != 8 || ps[0].PeerNIs[0].AvailRtr != 8 {
		t.Fatalf("peer show %+v", ps)
	}
}

// Message deadlines: now + LNDT*(retry_count+1) + 1 s with an LND timeout (49 derived, or the
// net's own 50), now + transaction_timeout without.
func TestMessageDeadline(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
	ni := p.a.NIs()[0]
	if d := p.a.deadline(ni); d != 148*sim.Second {
		t.Fatalf("derived: %v", d)
	}
	ni.Net().LNDTimeout = 50 * sim.Second
	if d := p.a.deadline(ni); d != 151*sim.Second {
		t.Fatalf("o2ib timeout 50: %v", d)
	}
	ni.net.timeoutLND = nil
	if d := p.a.deadline(ni); d != 150*sim.Second {
		t.Fatalf("no LND timeout: %v", d)
	}
}

// Per-type statistics as `net show -v` counts them: the target's ACK counts as a PUT sent.
func TestTypeStats(t *testing.T) {
	tun := DefaultTunables()
	tun.Discovery = false
	p := newPair(t, 1, 1, tun, NetTunables{})
	p.put(t, 100)
	p.run(t, sim.Millisecond)
	a, b := p.a.NIs()[0].Stats(), p.b.NIs()[0].Stats()
	if a.Sent.Put != 1 || a.Received.Ack != 1 || b.Received.Put != 1 || b.Sent.Put != 1 || b.Sent.Ack != 0 {
		t.Fatalf("A %+v\nB %+v", a, b)
	}
	if s := p.a.PeerNI(nid("10.0.0.2@o2ib")).Stats(); s.Sent.Put != 1 || s.Received.Ack != 1 {
		t.Fatalf("peer NI %+v", s)
	}
}
