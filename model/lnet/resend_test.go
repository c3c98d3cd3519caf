package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// unlinkOnFailure records events and, like a client ending its operation on the first
// failure, unlinks the MD when an event reports an error.
type unlinkOnFailure struct {
	evRec
	n *Node
}

func (u *unlinkOnFailure) OnEvent(ev *Event) {
	u.evRec.OnEvent(ev)
	if ev.Status != 0 && !ev.Unlinked {
		_ = u.n.MDUnlink(ev.MD)
	}
}

// getResendPair is a one-NI client A and a discovered two-NI server B whose first GET toward
// B's first NI (10.0.0.2) fails REMOTE_DROPPED, as when that NI's HCA dies under it.
func getResendPair(t *testing.T, optimized bool) *pair {
	t.Helper()
	tun := DefaultTunables()
	tun.RetryCount = 2
	p := newPair(t, 1, 2, tun, NetTunables{})
	p.put(t, 10) // discovery: B is multi-rail
	p.run(t, sim.Millisecond)
	p.lnd.OptimizedGET = optimized
	if lp := p.a.findPeerNI(nid("10.0.0.2@o2ib")); lp == nil || len(lp.peer.nis) != 2 {
		t.Fatal("B not discovered as a two-NI peer")
	}
	p.lnd.AddRule(IdealRule{To: NIDPattern{NID: nid("10.0.0.2@o2ib")}, Types: 1 << MsgGET, Count: 1,
		Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_REMOTE_DROPPED}})
	p.src.evs = nil
	return p
}

func (p *pair) get(t *testing.T, h EventHandler) {
	t.Helper()
	md := p.a.MDBind(MDSpec{Length: 64 << 10, Threshold: 2, Handler: h})
	if err := p.a.Get(AnyNID, md, nid("10.0.0.2@o2ib"), testPortal, 1, 0); err != nil {
		t.Fatal(err)
	}
	p.run(t, sim.Millisecond)
}

// A plain GET (o2iblnd sends a GET whose sink fits a message IMMEDIATE) that fails
// REMOTE_DROPPED toward a multi-rail peer is resent to the peer's other NI and its REPLY
// arrives (lnet_health_check -> lnet_attempt_msg_resend).
func TestGETResentAfterRemoteDropped(t *testing.T) {
	p := getResendPair(t, false)
	p.get(t, p.src)
	s := p.a.Stats()
	if s.RemoteDroppedCount != 1 || s.ResendCount != 1 || s.SuccessfulResends != 1 || s.LocalErrorCount != 0 {
		t.Fatalf("stats %+v", s)
	}
	send, reply := p.src.last(EventSEND), p.src.last(EventREPLY)
	if send == nil || send.Status != 0 || reply == nil || reply.Status != 0 || !reply.Unlinked || len(p.src.evs) != 2 {
		t.Fatalf("events %+v", p.src.evs)
	}
	if h := p.a.findPeerNI(nid("10.0.0.2@o2ib")).Health(); h != MaxHealth-DefaultTunables().HealthSensitivity {
		t.Fatalf("failed peer NI health %d", h)
	}
	if h := p.a.findPeerNI(nid("10.0.1.2@o2ib")).Health(); h != MaxHealth {
		t.Fatalf("healthy peer NI charged: %d", h)
	}
	if p.a.Stats().MsgsAlloc != 0 {
		t.Fatalf("leaked messages: %+v", p.a.Stats())
	}
}

// An optimized (RDMA) GET cannot be resent successfully: o2iblnd's tx carries the GET and the
// REPLY it pre-created (lnet_create_reply_msg), and kiblnd_tx_done finalizes both, the GET
// with the hstatus (queued for resend) and the REPLY with the error (a failed REPLY event,
// which used up the MD's second operation).
//
// A user that unlinks the MD on that failed REPLY makes the resend meet an aborted MD after
// selection and commit (lnet_post_send_locked with do_send 0): -ECANCELED with LOCAL_ERROR,
// which charges the client's own NI. The SEND event closes the MD.
func TestOptimizedGETResendCancelledByUnlink(t *testing.T) {
	p := getResendPair(t, true)
	h := &unlinkOnFailure{n: p.a}
	p.get(t, h)
	evs := h.evs
	if len(evs) != 2 || evs[0].Type != EventREPLY || evs[0].Status != -EIO || evs[0].Unlinked ||
		evs[1].Type != EventSEND || evs[1].Status != -ECANCELED || !evs[1].Unlinked {
		t.Fatalf("events %+v", evs)
	}
	s := p.a.Stats()
	if s.RemoteDroppedCount != 1 || s.LocalErrorCount != 1 || s.ResendCount != 0 || s.SuccessfulResends != 0 || s.FailedResends != 0 {
		t.Fatalf("stats %+v", s)
	}
	var local []healthRec
	for _, hc := range p.ta.health {
		if hc.local {
			local = append(local, hc)
		}
	}
	if len(local) != 1 || local[0].nid != nid("10.0.0.1@o2ib") || local[0].new != MaxHealth-DefaultTunables().HealthSensitivity {
		t.Fatalf("local NI health changes %+v", local)
	}
	if h := p.a.findPeerNI(nid("10.0.1.2@o2ib")).Health(); h != MaxHealth {
		t.Fatalf("healthy peer NI charged: %d", h)
	}
	if p.a.Stats().MsgsAlloc != 0 || p.a.Stats().RstAlloc != 0 {
		t.Fatalf("leaked messages or trackers: %+v", p.a.Stats())
	}
}

// A user that waits for the MD's last event lets the resend reach the LND, which cannot
// create the REPLY (md_threshold 0: "Can't create reply for GET") and refuses the send;
// lnet_ni_send finalizes it with no resend, and the message still carries the first
// attempt's REMOTE_DROPPED (nothing resets msg_health_status), so the health check charges
// the peer NI the resend had chosen, the healthy one.
func TestOptimizedGETResendRefusedByLND(t *testing.T) {
	p := getResendPair(t, true)
	p.get(t, p.src)
	evs := p.src.evs
	if len(evs) != 2 || evs[0].Type != EventREPLY || evs[0].Status != -EIO || evs[0].Unlinked ||
		evs[1].Type != EventSEND || evs[1].Status != -EIO || !evs[1].Unlinked {
		t.Fatalf("events %+v", evs)
	}
	s := p.a.Stats()
	if s.RemoteDroppedCount != 2 || s.LocalErrorCount != 0 || s.ResendCount != 1 || s.SuccessfulResends != 0 || s.FailedResends != 0 {
		t.Fatalf("stats %+v", s)
	}
	sens := DefaultTunables().HealthSensitivity
	for _, n := range []string{"10.0.0.2@o2ib", "10.0.1.2@o2ib"} {
		if h := p.a.findPeerNI(nid(n)).Health(); h != MaxHealth-sens {
			t.Fatalf("peer NI %s health %d, want %d", n, h, MaxHealth-sens)
		}
	}
	if p.a.Stats().MsgsAlloc != 0 || p.a.Stats().RstAlloc != 0 {
		t.Fatalf("leaked messages or trackers: %+v", p.a.Stats())
	}
}
