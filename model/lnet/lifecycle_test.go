package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// Discovery of an unreachable peer fails when the ping times out in the LND; the messages
// waiting for it are finalized with the error (no resend), and the ping's failure is
// health-checked (the local NI is charged for the NETWORK_TIMEOUT).
func TestDiscoveryFailure(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
	md := p.a.MDBind(MDSpec{Length: 10, Threshold: 2, Handler: p.src})
	if err := p.a.Put(AnyNID, md, AckReqAck, nid("10.0.0.9@o2ib"), testPortal, 1, 0, 0); err != nil {
		t.Fatal(err)
	}
	p.run(t, 49*sim.Second+sim.Second/2) // before the local recovery ping mends it
	ev := p.src.last(EventSEND)
	if ev == nil || ev.Status != -ETIMEDOUT {
		t.Fatalf("SEND %+v", ev)
	}
	if lt := p.a.NIs()[0].LNDTimeout(); ev.Time != lt {
		t.Fatalf("failed at %v, want the LND timeout %v", ev.Time, lt)
	}
	if h := p.a.NIs()[0].Health(); h != 900 || p.a.Stats().NetworkTimeoutCount != 1 || p.a.Stats().ResendCount != 0 {
		t.Fatalf("health %d stats %+v", h, p.a.Stats())
	}
	if p.a.PeerNI(nid("10.0.0.9@o2ib")).Peer().Discovered() {
		t.Fatal("peer marked discovered")
	}
}

// Unlinking an MD while its PUT is in flight: the SEND event reports -ETIMEDOUT... only if it
// would have succeeded; an MD with no message gets UNLINK at once.
func TestMDUnlink(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
	p.put(t, 10)
	p.run(t, sim.Millisecond)
	p.src.evs = nil
	h := p.put(t, 10)
	if err := p.a.MDUnlink(h); err != nil {
		t.Fatal(err)
	}
	p.run(t, sim.Millisecond)
	ev := p.src.last(EventSEND)
	if ev == nil || ev.Status != -ETIMEDOUT || !ev.Unlinked || p.src.count(EventACK) != 0 {
		t.Fatalf("events %+v", p.src.evs)
	}
	if p.a.Stats().DropCount != 1 {
		t.Fatalf("the late ACK should be dropped: %+v", p.a.Stats())
	}
	idle := p.a.MDBind(MDSpec{Length: 1, Threshold: 1, Handler: p.src})
	if err := p.a.MDUnlink(idle); err != nil || p.src.last(EventUNLINK) == nil {
		t.Fatalf("idle unlink: %v %+v", err, p.src.evs)
	}
	if err := p.a.MDUnlink(idle); err == nil {
		t.Fatal("double unlink accepted")
	}
	if err := p.a.Put(AnyNID, idle, AckReqNone, nid("10.0.0.2@o2ib"), testPortal, 1, 0, 0); err == nil {
		t.Fatal("PUT on an unlinked MD accepted")
	}
}

// A GET whose REPLY fails on the target with a resendable error is resent by the target (the
// REPLY is tx-committed there) and the initiator still gets its REPLY.
func TestReplyResentByTarget(t *testing.T) {
	p := newPair(t, 2, 2, DefaultTunables(), NetTunables{})
	p.put(t, 10)
	p.run(t, sim.Millisecond)
	p.lnd.AddRule(IdealRule{Types: MaskREPLY, Count: 1, Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_LOCAL_TIMEOUT}})
	md := p.a.MDBind(MDSpec{Length: 100, Threshold: 2, Handler: p.src})
	if err := p.a.Get(AnyNID, md, nid("10.0.0.2@o2ib"), testPortal, 1, 0); err != nil {
		t.Fatal(err)
	}
	p.run(t, sim.Millisecond)
	if r := p.src.last(EventREPLY); r == nil || r.Status != 0 {
		t.Fatalf("REPLY %+v", r)
	}
	if s := p.b.Stats(); s.ResendCount != 1 || s.SuccessfulResends != 1 || s.LocalTimeoutCount != 1 {
		t.Fatalf("target stats %+v", s)
	}
}

// Shutdown stops the monitor and refuses new operations; drop rules can be listed and removed.
func TestShutdownAndRuleRemoval(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
	_, _ = p.a.AddDropRule(DropRuleSpec{Rate: 3})
	_, _ = p.a.AddDropRule(DropRuleSpec{FaultAttr: FaultAttr{Src: NIDPattern{NID: nid("10.0.0.1@o2ib")}}, Rate: 3})
	src := NIDPattern{NID: nid("10.0.0.1@o2ib")}
	if k := p.a.DelDropRules(&src, nil); k != 1 || len(p.a.DropRules()) != 1 {
		t.Fatalf("removed %d, left %d", k, len(p.a.DropRules()))
	}
	_, _ = p.a.AddDelayRule(DelayRuleSpec{Rate: 3, Latency: 1})
	if p.a.DelDelayRules(nil, nil) != 1 || len(p.a.DelayRules()) != 0 {
		t.Fatal("delay rule not removed")
	}
	dr, _ := p.a.AddDelayRule(DelayRuleSpec{Rate: 3, Latency: 1})
	if !p.a.RemoveDelayRule(dr) || p.a.RemoveDelayRule(dr) || !p.a.RemoveDropRule(p.a.DropRules()[0]) || len(p.a.DropRules()) != 0 {
		t.Fatal("Remove*Rule")
	}
	p.a.Shutdown()
	md := p.a.MDBind(MDSpec{Length: 1, Threshold: 1})
	if err := p.a.Put(AnyNID, md, AckReqNone, nid("10.0.0.2@o2ib"), testPortal, 1, 0, 0); err != ErrShutdown {
		t.Fatalf("Put after shutdown: %v", err)
	}
	before := p.k.Pending()
	p.run(t, 10*sim.Second)
	if p.k.Pending() > before {
		t.Fatal("monitor still running")
	}
}

// failLND fails every Send immediately with an errno, as an LND that cannot even queue.
type failLND struct{ *IdealLND }

func (f failLND) Send(*NI, any, *Msg) error { return Errno(-ENOMEM) }

// An immediate LND failure finalizes the message with the LND's errno, no resend, and (no
// hstatus set) no health change.
func TestLNDSendImmediateFailure(t *testing.T) {
	k := sim.New(1)
	ideal := NewIdealLND(k, sim.Microsecond)
	tun := DefaultTunables()
	tun.Discovery = false
	a, _ := NewNode(k, "a", tun)
	if _, err := a.AddNI(nid("10.0.0.1@o2ib"), failLND{ideal}, NetTunables{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AddNI(nid("10.0.1.1@o2ib"), failLND{ideal}, NetTunables{}); err != nil {
		t.Fatal(err)
	}
	_ = a.Startup()
	rec := &evRec{}
	md := a.MDBind(MDSpec{Length: 1, Threshold: 1, Handler: rec})
	_ = a.Put(AnyNID, md, AckReqNone, nid("10.0.0.2@o2ib"), 4, 1, 0, 0)
	_ = k.RunUntil(sim.Millisecond)
	if ev := rec.last(EventSEND); ev == nil || ev.Status != -ENOMEM || !ev.Unlinked {
		t.Fatalf("SEND %+v", rec.evs)
	}
	if a.Stats().ResendCount != 0 || a.NIs()[0].Health() != 1000 {
		t.Fatalf("stats %+v", a.Stats())
	}
}
