package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestFailedDiscoveryUnlinksPingMD follows lnet_peer_ping_failed: when the discovery ping
// fails, its MD is unlinked before the waiting messages are finalized, so its response
// tracker never expires later. Here every GET from A fails (REMOTE_ERROR) and the waiting
// PUT has no ACK (its MD unlinks with its SEND event), with response_tracking 0 (discovery
// pings are tracked anyway, as lnet_send_ping asks): 200 s on, no response timeout is counted
// and B's peer NI (non-MR, so the failed ping itself costs it nothing) keeps its health.
func TestFailedDiscoveryUnlinksPingMD(t *testing.T) {
	tun := DefaultTunables()
	tun.ResponseTracking = 0
	p := newPair(t, 1, 1, tun, NetTunables{})
	p.lnd.AddRule(IdealRule{Types: MaskGET, Count: -1, Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_REMOTE_ERROR}})
	md := p.a.MDBind(MDSpec{Length: 100, Threshold: 1, Handler: p.src})
	if err := p.a.Put(AnyNID, md, AckReqNone, nid("10.0.0.2@o2ib"), testPortal, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	p.run(t, 200*sim.Second)
	if e := p.src.last(EventSEND); p.src.count(EventSEND) != 1 || e.Status != -EIO || !e.Unlinked {
		t.Fatalf("PUT events %+v, want one SEND failed -%d, unlinked", p.src.evs, EIO)
	}
	if n := p.a.Stats().ResponseTimeoutCount; n != 0 {
		t.Fatalf("response_timeout_count %d, want 0", n)
	}
	var got []healthRec
	for _, h := range p.ta.health {
		if !h.local {
			got = append(got, h)
		}
	}
	if len(got) != 0 {
		t.Fatalf("peer health changes %+v, want none", got)
	}
}

// TestDiscLPNIHealth follows handle_disc_lpni_health: a peer NI reported DOWN is charged a
// remote failure (1000 -> 900); reported UP again (a change) its health stays 900; reported
// UP once more (no change, never heard from) it gets full health.
func TestDiscLPNIHealth(t *testing.T) {
	p := newPair(t, 1, 1, DefaultTunables(), NetTunables{})
	b := nid("10.0.0.2@o2ib")
	peer, err := p.a.AddPeer(b, []NID{nid("10.0.1.2@o2ib")}, false)
	if err != nil {
		t.Fatal(err)
	}
	lpni := p.a.PeerNI(nid("10.0.1.2@o2ib"))
	buf := func(st NIStatus) *PingBuffer {
		return &PingBuffer{MultiRail: true, NIs: []PingNI{{b, NIStatusUp}, {lpni.NID(), st}}}
	}
	for i, c := range []struct {
		st     NIStatus
		health int
	}{{NIStatusDown, 900}, {NIStatusUp, 900}, {NIStatusUp, MaxHealth}} {
		p.a.processPingBuffer(peer, buf(c.st), true)
		if lpni.Health() != c.health || lpni.Status() != c.st {
			t.Fatalf("step %d: health %d status %s, want %d %s", i, lpni.Health(), lpni.Status(), c.health, c.st)
		}
	}
}

// TestForcePushFirstNotMultiRail follows 2.16's lnet_peer_discovery loop (ForcePushFirst):
// FORCE_PUSH without FORCE_PING goes to lnet_peer_send_push before the NIDS_UPTODATE check,
// and that refuses a peer that is not multi-rail: FORCE_PUSH is dropped, a peer whose NIDs
// are up to date is discovered (lnet_peer_discovered), and one whose NIDs are not is left
// DISCOVERING with nothing sent (the step returns 0 with the peer on ln_dc_working). On
// master the same peer is pinged (lnet_peer_needs_ping).
func TestForcePushFirstNotMultiRail(t *testing.T) {
	for _, c := range []struct {
		release  string
		uptodate bool
		// what the step leaves: DISCOVERING, a ping in flight, FORCE_PUSH
		discovering, ping, forcePush bool
	}{
		{"2.16", true, false, false, false},
		{"2.16", false, true, false, false},
		{"master", false, true, true, true},
	} {
		p := newPair(t, 1, 1, relTunables(t, c.release), NetTunables{})
		p.run(t, sim.Millisecond)
		peer := p.a.nid2peerni(nid("10.0.0.2@o2ib")).peer
		peer.uptodate, peer.forcePush = c.uptodate, true
		p.a.discoverPeer(peer)
		if peer.discovering != c.discovering || (peer.discPing != nil) != c.ping || peer.forcePush != c.forcePush || peer.mr {
			t.Errorf("%s, NIDs up to date %v: discovering %v ping %v force_push %v mr %v, want %v %v %v false", c.release, c.uptodate,
				peer.discovering, peer.discPing != nil, peer.forcePush, peer.mr, c.discovering, c.ping, c.forcePush)
		}
	}
}
