package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// expiryRun is the outcome of one congested-egress run (see runCongestedEgress).
type expiryRun struct {
	sum, events uint64   // checksum of every event fired after the setup
	delivered   []uint64 // match bits of the PUTs the server received, in order
	sends, acks int      // the client's SEND events (all status 0) and ACKs
	rstats      RouterStats
	stats       Counters // the router's lnetctl stats show
	minTx       int      // min tx credits of the router's peer NI for the server
	health      []int    // the router's NIs' and its peer NIs' (client, server) health
}

// runCongestedEgress: 16 x 1 MiB PUTs to a discovered server through one router whose egress is slow (every
// router->server PUT takes 3 s to complete, and the router holds 8 peer tx credits towards the
// server), with router buffers and router credits to spare (peer_buffer_credits 64): all 16
// are received into router buffers at once and 8 wait on the server peer NI's tx queue
// (lpni_txq) for 3 s. The router's message deadline is arrival + lndTimeout * (retry_count
// 0 + 1) + 1 s.
func runCongestedEgress(t *testing.T, policy bool, lndTimeout sim.Time) expiryRun {
	t.Helper()
	rtun := DefaultTunables()
	rtun.RetryCount = 0
	rtun.PeerBufferCredits = 64
	rtun.RouterMsgExpiry = policy
	r := newRouted(t, 1, DefaultTunables(), rtun)
	for _, nt := range r.rs[0].Nets() {
		nt.LNDTimeout = lndTimeout
	}
	// The client discovers the server first (ping, push and the server's push back, each
	// ACKed), so that only the PUTs meet the slow egress.
	r.c.DiscoverPeer(r.sNID, false)
	r.run(t, sim.Millisecond)
	r.lnd.AddRule(IdealRule{From: pat(t, "10.1.0.3@o2ib1"), To: pat(t, "10.1.0.2@o2ib1"),
		Types: 1 << MsgPUT, Count: -1, Verdict: IdealVerdict{Delay: 3 * sim.Second}})
	cs := sim.NewChecksum()
	r.k.SetObserver(cs.Observe)
	for i := 0; i < 16; i++ {
		r.put(t, 1<<20, uint64(i))
	}
	r.run(t, 20*sim.Second)
	out := expiryRun{sum: cs.Sum(), events: cs.Events(), rstats: r.rs[0].RouterStats(), stats: r.rs[0].Stats(),
		acks: r.cEv.count(EventACK)}
	for _, ev := range r.cEv.evs {
		if ev.Type == EventSEND {
			if ev.Status != 0 {
				t.Fatalf("client SEND status %d: the router's drop must not reach the sender's send", ev.Status)
			}
			out.sends++
		}
	}
	for _, ev := range r.sEv.evs {
		if ev.Type == EventPUT {
			out.delivered = append(out.delivered, ev.MatchBits)
		}
	}
	if lpni := r.rs[0].PeerNI(r.sNID); lpni != nil {
		_, _, out.minTx = lpni.TxCredits()
	}
	for _, ni := range r.rs[0].NIs() {
		out.health = append(out.health, ni.Health())
	}
	for _, id := range []NID{r.cNID, r.sNID} {
		if lpni := r.rs[0].PeerNI(id); lpni != nil {
			out.health = append(out.health, lpni.Health())
		}
	}
	return out
}

// TestRouterExpiryEgress: the opt-in policy drops routed messages that waited past their
// deadline for tx credits on the router's egress (lpni_txq), after their payload was received
// into a router buffer: the 8 queued messages are dropped when they leave the queue, counted,
// with no health effect on the router and no resend; the client's sends all succeeded (it will
// learn of the loss from its response tracker), and only the first 8 are ACKed.
func TestRouterExpiryEgress(t *testing.T) {
	on := runCongestedEgress(t, true, sim.Second) // deadline = arrival + 2 s < 3 s of waiting
	if on.minTx >= 0 {
		t.Fatalf("min tx credits %d: the messages did not queue on the egress", on.minTx)
	}
	if on.rstats.Expired != 8 || len(on.delivered) != 8 || on.acks != 8 || on.sends != 16 {
		t.Fatalf("policy on: %d expired, %d delivered, %d ACKs, %d sends; want 8, 8, 8, 16",
			on.rstats.Expired, len(on.delivered), on.acks, on.sends)
	}
	for i, b := range on.delivered {
		if b != uint64(i) {
			t.Fatalf("delivered %v: want the first 8, in order", on.delivered)
		}
	}
	if on.stats.ResendCount != 0 || on.stats.DropCount != 8 {
		t.Fatalf("router stats %+v: want no resend and 8 drops", on.stats)
	}
	if len(on.health) != 4 {
		t.Fatalf("router health values %v: want its 2 NIs and 2 peer NIs", on.health)
	}
	for _, h := range on.health {
		if h != MaxHealth {
			t.Fatalf("router health values %v: an expiry must not change health", on.health)
		}
	}
	t.Logf("policy on: expired %d delivered %d, router min tx credits %d", on.rstats.Expired, len(on.delivered), on.minTx)
}

// TestRouterExpiryOffIsKernel: with the policy off the router ignores deadlines on what it
// forwards, as the kernel does: the congested run is event-for-event identical whether the
// router's deadline (2 s) is passed or never reached (501 s), except for the kernel's
// late-message counter; and the policy on with a deadline
// never reached is identical to it too (the policy adds no event, no randomness, no ordering,
// it only drops). Only on with a passed deadline differs.
func TestRouterExpiryOffIsKernel(t *testing.T) {
	offShort := runCongestedEgress(t, false, sim.Second)
	offLong := runCongestedEgress(t, false, 500*sim.Second)
	onLong := runCongestedEgress(t, true, 500*sim.Second)
	// The deadline's one effect with the policy off is the kernel's own: lnet_health_check
	// counts messages finalized past their deadline (ln_late_msg_count, not shown by lnetctl).
	if offShort.stats.LateMsgCount != 16 || offLong.stats.LateMsgCount != 0 {
		t.Fatalf("late_msg_count %d and %d: want 16 with the 2 s deadline, 0 with 501 s",
			offShort.stats.LateMsgCount, offLong.stats.LateMsgCount)
	}
	same := func(a, b expiryRun) bool {
		a.stats.LateMsgCount, b.stats.LateMsgCount = 0, 0
		if a.sum != b.sum || a.events != b.events || len(a.delivered) != len(b.delivered) ||
			a.rstats != b.rstats || a.stats != b.stats || a.acks != b.acks || a.minTx != b.minTx ||
			len(a.health) != len(b.health) {
			return false
		}
		for i := range a.delivered {
			if a.delivered[i] != b.delivered[i] {
				return false
			}
		}
		for i := range a.health {
			if a.health[i] != b.health[i] {
				return false
			}
		}
		return true
	}
	if offShort.rstats.Expired != 0 || len(offShort.delivered) != 16 || offShort.acks != 16 {
		t.Fatalf("policy off: %d expired, %d delivered, %d ACKs; want 0, 16, 16", offShort.rstats.Expired, len(offShort.delivered), offShort.acks)
	}
	if !same(offShort, offLong) {
		t.Fatalf("policy off: the router's deadline changed the run:\n%+v\n%+v", offShort, offLong)
	}
	if !same(offLong, onLong) {
		t.Fatalf("policy on with no deadline passed differs from off:\n%+v\n%+v", offLong, onLong)
	}
	onShort := runCongestedEgress(t, true, sim.Second)
	if same(offShort, onShort) {
		t.Fatal("policy on with deadlines passed is identical to off")
	}
	t.Logf("off: %d events, checksum %x, %d delivered", offShort.events, offShort.sum, len(offShort.delivered))
}
