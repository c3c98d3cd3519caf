package lnet

import (
	"slices"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// relTunables returns release name's default tunables and rules.
func relTunables(t *testing.T, name string) Tunables {
	t.Helper()
	rel, err := LookupRelease(name)
	if err != nil {
		t.Fatal(err)
	}
	return rel.Tunables()
}

// An unknown release is refused with the list of known ones; 2.12 is 2.12.9; the 2.12.x
// defaults change at 2.12.3 (LU-11816) and 2.12.4 (LU-13145), transaction_timeout at 2.16
// (LU-15288), the ko2iblnd timeout at 2.17 (LU-18566).
func TestReleaseDefaults(t *testing.T) {
	_, err := LookupRelease("2.14")
	if err == nil || !strings.Contains(err.Error(), `unknown release "2.14" (known: 2.12.0, 2.12.1,`) ||
		!strings.HasSuffix(err.Error(), "2.12, 2.15, 2.16, 2.17, master)") {
		t.Fatalf("unknown release: %v", err)
	}
	for _, c := range []struct {
		name string
		want ReleaseDefaults
	}{
		{"2.12.2", ReleaseDefaults{50, 0, 0, 0}},
		{"2.12.3", ReleaseDefaults{10, 3, 100, 0}},
		{"2.12.4", ReleaseDefaults{50, 2, 100, 0}},
		{"2.12", ReleaseDefaults{50, 2, 100, 0}},
		{"2.15", ReleaseDefaults{50, 2, 100, 0}},
		{"2.16", ReleaseDefaults{150, 2, 100, 0}},
		{"2.17", ReleaseDefaults{150, 2, 100, 50}},
		{"master", ReleaseDefaults{150, 2, 100, 50}},
	} {
		rel, err := LookupRelease(c.name)
		if err != nil || rel.Defaults != c.want {
			t.Errorf("%s: defaults %+v (%v), want %+v", c.name, rel.Defaults, err, c.want)
		}
	}
	if rel, _ := LookupRelease("master"); rel.Profile != (Profile{}) || rel.Tunables() != DefaultTunables() {
		t.Fatalf("master is not the zero profile with the default tunables: %+v", rel)
	}
}

// failOnce makes the next PUT A sends from NI from fail with hs, and sends two PUTs so one
// takes that NI; it runs 1 ms.
func (p *pair) failOnce(t *testing.T, from string, hs HStatus) {
	t.Helper()
	p.lnd.AddRule(IdealRule{From: NIDPattern{NID: nid(from)}, Types: MaskPUT, Count: 1, Verdict: IdealVerdict{Action: IdealFail, HStatus: hs}})
	p.put(t, 100)
	p.put(t, 100)
	p.run(t, sim.Millisecond)
}

// A success adds 1 to health up to 2.12 and health_sensitivity from 2.15 (LU-12303): an NI
// charged one local failure (1000 -> 900) climbs back by one per successful recovery ping
// (one a second) in 2.12, and is back to 1000 after its first ping in 2.15.
func TestProfileHealthIncrement(t *testing.T) {
	for _, c := range []struct {
		rel  string
		want []int // the NI's health 1 ms, 1.5 s, 10.5 s after the failure
	}{
		{"2.12.9", []int{900, 902, 920}}, // each ping's GET and REPLY: +1 each
		{"2.15", []int{900, 1000, 1000}},
		{"master", []int{900, 1000, 1000}},
	} {
		p := newPair(t, 2, 2, relTunables(t, c.rel), NetTunables{})
		p.put(t, 100)
		p.run(t, sim.Millisecond)
		p.failOnce(t, "10.0.1.1@o2ib", LNET_MSG_STATUS_LOCAL_DROPPED)
		ni := p.a.NI(nid("10.0.1.1@o2ib"))
		got := []int{ni.Health()}
		p.run(t, 1500*sim.Millisecond)
		got = append(got, ni.Health())
		p.run(t, 9*sim.Second)
		got = append(got, ni.Health())
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: health %v, want %v", c.rel, got, c.want)
		}
	}
}

// Single rail (LU-13501, 2.15): 2.12 charges and resends a local failure on a single-NI node
// and a remote one to a single-NI peer; 2.15 and 2.16 do neither; master (LU-19476) charges
// the local NI again but still does not resend. Two PUTs each failing twice, locally then
// remotely.
func TestProfileSingleRail(t *testing.T) {
	for _, c := range []struct {
		rel                  string
		resends, local, peer int
	}{
		{"2.12", 4, 802, 801}, // -100 per failure, +1 per success
		{"2.15", 0, 1000, 1000},
		{"2.16", 0, 1000, 1000},
		{"master", 0, 900, 1000},
	} {
		p := newPair(t, 1, 1, relTunables(t, c.rel), NetTunables{})
		p.put(t, 100)
		p.run(t, sim.Millisecond)
		for _, hs := range []HStatus{LNET_MSG_STATUS_LOCAL_DROPPED, LNET_MSG_STATUS_REMOTE_DROPPED} {
			p.lnd.ClearRules()
			p.lnd.AddRule(IdealRule{Types: MaskPUT, Count: 2, Verdict: IdealVerdict{Action: IdealFail, HStatus: hs}})
			p.put(t, 100)
			p.run(t, sim.Millisecond)
		}
		peer := p.a.PeerNI(nid("10.0.0.2@o2ib"))
		got := []int{int(p.a.Stats().ResendCount), p.a.NIs()[0].Health(), peer.Health()}
		if want := []int{c.resends, c.local, c.peer}; !slices.Equal(got, want) {
			t.Errorf("%s: resends, local health, peer health %v, want %v", c.rel, got, want)
		}
	}
}

// The LND timeout and message deadline: 2.12 has a fixed 5 s lnd_timeout and deadline
// transaction_timeout (50 s); 2.15 derives lnd_timeout (LU-13510): (50-1)/3 = 16 s, deadline
// 50 s; 2.16: 49 s, 150 s; from 2.17 the deadline follows the LND timeout (LU-18566): with
// o2iblnd's timeout 50, 50 x 3 + 1 = 151 s.
func TestProfileLNDTimeout(t *testing.T) {
	for _, c := range []struct {
		rel            string
		o2ib           sim.Time // the net's own LND timeout (ko2iblnd timeout)
		lndt, deadline sim.Time
	}{
		{"2.12", 0, 5, 50},
		{"2.15", 0, 16, 50},
		{"2.16", 0, 49, 150},
		{"2.17", 50, 50, 151},
		{"master", 50, 50, 151},
	} {
		p := newPair(t, 1, 1, relTunables(t, c.rel), NetTunables{})
		ni := p.a.NIs()[0]
		ni.Net().LNDTimeout = c.o2ib * sim.Second
		if lt, d := ni.LNDTimeout(), p.a.deadline(ni); lt != c.lndt*sim.Second || d != c.deadline*sim.Second {
			t.Errorf("%s: lnd timeout %v, deadline %v; want %ds, %ds", c.rel, lt, d, c.lndt, c.deadline)
		}
	}
}

// Recovery pings (LU-13569, 2.15): every recovery_interval (1 s) in 2.12, 2^n s backoff
// from 2.15.
func TestProfileRecoverySchedule(t *testing.T) {
	for _, c := range []struct {
		rel   string
		n     int // pings in 200 s
		first []int
	}{
		{"2.12", 200, []int{0, 1, 2, 3, 4, 5, 6}},
		{"2.15", 7, []int{0, 2, 6, 14, 30, 62, 126}},
		{"master", 7, []int{0, 2, 6, 14, 30, 62, 126}},
	} {
		p := newPair(t, 1, 2, relTunables(t, c.rel), NetTunables{})
		bad := p.failSecondPeerNI(t)
		p.run(t, sim.Millisecond)
		p.ta.attempts = nil
		p.run(t, 200*sim.Second)
		got := attemptTimes(p.ta, bad)
		if len(got) != c.n {
			t.Errorf("%s: %d pings in 200 s, want %d", c.rel, len(got), c.n)
		}
		wantSeconds(t, got, c.first)
	}
}

// Route aliveness from gateway health (LU-11300 in 2.13, reverted by LU-18444 in 2.17): one
// send through the router failing REMOTE_DROPPED takes the route down in 2.15 and 2.16, not
// in 2.12 nor 2.17.
func TestProfileRouteAliveness(t *testing.T) {
	for _, c := range []struct {
		rel    string
		want   string
		health int // the gateway NI's: 2.12 charges -100 then +1 for the resend's success; 2.15 and 2.16 charge the gateway's own sensitivity, 1
	}{
		{"2.12", "up", 901}, {"2.15", "down", 999}, {"2.16", "down", 999}, {"2.17", "up", 900}, {"master", "up", 900},
	} {
		g := newGWNet(t, relTunables(t, c.rel), []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"}, true)
		g.start(t, 2*sim.Second)
		g.c.DiscoverPeer(nid("10.1.0.2@o2ib1"), false) // so that the failing PUT is the user's, not discovery's push
		runFor(t, g.k, 10*sim.Millisecond)
		g.l.AddRule(IdealRule{To: NIDPattern{NID: nid("10.0.0.3@o2ib")}, Types: MaskPUT, Count: 1, Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_REMOTE_DROPPED}})
		putTo(t, g.c, "10.1.0.2@o2ib1", &evRec{})
		runFor(t, g.k, 10*sim.Millisecond)
		st, h := g.c.Routes()[0].State, g.c.PeerNI(nid("10.0.0.3@o2ib")).Health()
		if st != c.want || h != c.health {
			t.Errorf("%s: route %s, gateway NI health %d; want %s, %d", c.rel, st, h, c.want, c.health)
		}
	}
}

// NETWORK_TIMEOUT charges the peer NI only up to 2.12, the local NI too from 2.15
// (LU-13571): one failed PUT between multi-rail nodes, before any success heals them.
func TestProfileNetworkTimeout(t *testing.T) {
	for _, c := range []struct {
		rel         string
		local, peer int // sums over the two NIs
	}{
		{"2.12", 2000, 1900}, {"2.15", 1900, 1900}, {"master", 1900, 1900},
	} {
		p := newPair(t, 2, 2, relTunables(t, c.rel), NetTunables{})
		p.put(t, 100)
		p.put(t, 100)
		p.run(t, sim.Millisecond)
		p.lnd.AddRule(IdealRule{From: NIDPattern{NID: nid("10.0.1.1@o2ib")}, Types: MaskPUT, Count: 1, Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_NETWORK_TIMEOUT}})
		p.put(t, 100)
		p.put(t, 100)
		p.run(t, sim.Millisecond)
		local, peer := sumNIHealth(p.a), sumPeerHealth(p.a, p.a.PeerNI(nid("10.0.0.2@o2ib")).Peer())
		if local != c.local || peer != c.peer {
			t.Errorf("%s: health of the local NIs %d, of the peer NIs %d; want %d, %d", c.rel, local, peer, c.local, c.peer)
		}
	}
}

// Failed recovery pings charge no health in 2.15 and 2.16 (LU-12292) and do up to 2.12 and
// from 2.17 (LU-19476): a peer NI failing everything, after 60 s of recovery pings.
func TestProfileRecoveryFailure(t *testing.T) {
	for _, c := range []struct {
		rel    string
		health int
	}{
		{"2.12", 0}, // 60 pings, one a second
		{"2.15", 900}, {"2.16", 900},
		{"master", 400}, // pings at 0, 2, 6, 14, 30 s (and the failed PUT): -600

	} {
		p := newPair(t, 1, 2, relTunables(t, c.rel), NetTunables{})
		bad := p.failSecondPeerNI(t)
		p.run(t, 60*sim.Second)
		if h := p.a.PeerNI(bad).Health(); h != c.health {
			t.Errorf("%s: peer NI health %d after 60 s, want %d", c.rel, h, c.health)
		}
	}
}

// A local NI's status follows its health from 2.17 (LU-19476): DOWN at 0, UP at 1000;
// before, health does not touch it.
func TestProfileNIStatusFromHealth(t *testing.T) {
	for _, c := range []struct {
		rel    string
		atZero NIStatus
	}{
		{"2.12", NIStatusUp}, {"2.16", NIStatusUp}, {"2.17", NIStatusDown}, {"master", NIStatusDown},
	} {
		p := newPair(t, 2, 1, relTunables(t, c.rel), NetTunables{})
		ni := p.a.NIs()[1]
		p.a.setNIHealth(ni, 0, CauseFailure)
		if st := ni.Status(); st != c.atZero {
			t.Errorf("%s: status %s at health 0, want %s", c.rel, st, c.atZero)
		}
		p.a.setNIHealth(ni, MaxHealth, CauseSuccess)
		if st := ni.Status(); st != NIStatusUp {
			t.Errorf("%s: status %s at health 1000, want up", c.rel, st)
		}
	}
}

// An NI status learnt by discovery charges the peer NI from 2.16 (LU-16563): a ping buffer
// listing B's second NI DOWN takes A's health of it to 900; up to 2.15 the status is only
// stored.
func TestProfileDiscoveryStatus(t *testing.T) {
	for _, c := range []struct {
		rel    string
		health int
	}{
		{"2.12", 1000}, {"2.15", 1000}, {"2.16", 900}, {"master", 900},
	} {
		p := newPair(t, 1, 1, relTunables(t, c.rel), NetTunables{})
		b := nid("10.0.0.2@o2ib")
		peer, err := p.a.AddPeer(b, []NID{nid("10.0.1.2@o2ib")}, false)
		if err != nil {
			t.Fatal(err)
		}
		lpni := p.a.PeerNI(nid("10.0.1.2@o2ib"))
		p.a.processPingBuffer(peer, &PingBuffer{MultiRail: true, NIs: []PingNI{{b, NIStatusUp}, {lpni.NID(), NIStatusDown}}}, true)
		if lpni.Health() != c.health || lpni.Status() != NIStatusDown {
			t.Errorf("%s: health %d status %s, want %d down", c.rel, lpni.Health(), lpni.Status(), c.health)
		}
	}
}

// routeDownAt returns the first whole second (from 2 s, up to limit) at which c's route is
// not up, or 0.
func (g *gwNet) routeDownAt(t *testing.T, limit int) int {
	t.Helper()
	for s := 2; s <= limit; s++ {
		if g.c.Routes()[0].State != "up" {
			return s
		}
		runFor(t, g.k, sim.Second)
	}
	return 0
}

// The router checker (LU-11300/LU-11299, 2.13): a gateway that goes silent at 2 s (every
// message to or from that NI lost: else its push of the NI's DOWN status, once it has heard
// nothing on it for router_ping_timeout, would take the route down at 112 s). 2.12 pings it at 61 s (the pass after the 60 s interval, first ping
// at 0) and declares it dead at the pass after router_ping_timeout (50 s): 112 s; from 2.15
// the ping at 60 s is response-tracked and fails when its tracker expires
// (transaction_timeout: 50 s in 2.15, 150 s in 2.16 and master; checked every
// transaction_timeout/2: 125 s in 2.15, 225 s in 2.16 and master).
func TestProfileRouterCheckerTimeout(t *testing.T) {
	for _, c := range []struct {
		rel  string
		down int
	}{
		{"2.12", 112}, {"2.15", 125}, {"2.16", 225}, {"master", 225},
	} {
		g := newGWNet(t, relTunables(t, c.rel), []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"}, true)
		g.start(t, 2*sim.Second)
		g.l.AddRule(IdealRule{To: NIDPattern{NID: nid("10.0.0.3@o2ib")}, Count: -1, Verdict: IdealVerdict{Action: IdealDrop}})
		g.l.AddRule(IdealRule{From: NIDPattern{NID: nid("10.0.0.3@o2ib")}, Count: -1, Verdict: IdealVerdict{Action: IdealDrop}})
		if got := g.routeDownAt(t, 400); got != c.down {
			t.Errorf("%s: route down at %d s, want %d", c.rel, got, c.down)
		}
	}
}

// Peer NI recovery bounds (LU-13569, 2.15): with recovery_limit 10 a 2.12 client pings a
// failing peer NI every second for as long as it runs; from 2.15 it ages out after the
// pings at 0, 2, 6 and 14 s (the re-queue after that one ages out). A configured peer NI
// never heard from, its health set to 900 and every ping to it failing, is pinged by 2.12
// only, once a second (from 2.15 only peer NIs heard from are recovered).
func TestProfilePeerRecoveryBounds(t *testing.T) {
	for _, c := range []struct {
		rel              string
		limited, unheard int // pings in 100 s with recovery_limit 10; in 10 s never heard from
	}{
		{"2.12", 100, 10}, {"2.15", 4, 0}, {"master", 4, 0},
	} {
		tun := relTunables(t, c.rel)
		tun.RecoveryLimit = 10
		p := newPair(t, 1, 2, tun, NetTunables{})
		bad := p.failSecondPeerNI(t)
		p.run(t, sim.Millisecond)
		p.ta.attempts = nil
		p.run(t, 100*sim.Second)
		limited := len(attemptTimes(p.ta, bad))

		p = newPair(t, 1, 1, relTunables(t, c.rel), NetTunables{})
		if _, err := p.a.AddPeer(nid("10.0.0.2@o2ib"), []NID{bad}, false); err != nil {
			t.Fatal(err)
		}
		p.lnd.AddRule(IdealRule{To: NIDPattern{NID: bad}, Count: -1, Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_REMOTE_DROPPED}})
		if err := p.a.SetPeerHealth(bad, 900); err != nil { // lnetctl peer set --health
			t.Fatal(err)
		}
		p.ta.attempts = nil
		p.run(t, 10*sim.Second)
		unheard := len(attemptTimes(p.ta, bad))
		if limited != c.limited || unheard != c.unheard {
			t.Errorf("%s: %d pings with recovery_limit 10, %d to a peer NI never heard from; want %d, %d",
				c.rel, limited, unheard, c.limited, c.unheard)
		}
	}
}

// The recovery ping backoff's cap (LU-14979, 2.16): 2.15 caps at a fixed 900 s, so
// max_recovery_ping_interval 4 changes nothing; from 2.16 the pings are at most 4 s apart.
func TestProfileMaxRecoveryInterval(t *testing.T) {
	for _, c := range []struct {
		rel  string
		want []int
	}{
		{"2.15", []int{0, 2, 6, 14, 30, 62, 126}},
		{"2.16", []int{0, 2, 6, 10, 14, 18}},
		{"master", []int{0, 2, 6, 10, 14, 18}},
	} {
		tun := relTunables(t, c.rel)
		tun.MaxRecoveryPingInterval = 4
		p := newPair(t, 1, 2, tun, NetTunables{})
		bad := p.failSecondPeerNI(t)
		p.run(t, sim.Millisecond)
		p.ta.attempts = nil
		p.run(t, 200*sim.Second)
		got := attemptTimes(p.ta, bad)
		wantSeconds(t, got, c.want)
	}
}

// A gateway's own health sensitivity (LU-11297 in 2.13, removed by LU-18444 in 2.17): with
// health off (health_sensitivity 0, retry_count 0), one send through the router failing
// REMOTE_DROPPED still costs the gateway NI 1 in 2.15 and 2.16, which takes the route down
// (router_sensitivity 100%); 2.12 and 2.17 leave it at 1000 and the route up.
func TestProfileGatewaySensitivity(t *testing.T) {
	for _, c := range []struct {
		rel    string
		want   string
		health int
	}{
		{"2.12", "up", 1000}, {"2.15", "down", 999}, {"2.16", "down", 999}, {"2.17", "up", 1000}, {"master", "up", 1000},
	} {
		tun := relTunables(t, c.rel)
		tun.HealthSensitivity, tun.RetryCount = 0, 0
		g := newGWNet(t, tun, []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"}, true)
		g.start(t, 2*sim.Second)
		g.c.DiscoverPeer(nid("10.1.0.2@o2ib1"), false) // so that the failing PUT is the user's, not discovery's push
		runFor(t, g.k, 10*sim.Millisecond)
		g.l.AddRule(IdealRule{To: NIDPattern{NID: nid("10.0.0.3@o2ib")}, Types: MaskPUT, Count: 1, Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_REMOTE_DROPPED}})
		putTo(t, g.c, "10.1.0.2@o2ib1", &evRec{})
		runFor(t, g.k, 10*sim.Millisecond)
		st, h := g.c.Routes()[0].State, g.c.PeerNI(nid("10.0.0.3@o2ib")).Health()
		if st != c.want || h != c.health {
			t.Errorf("%s: route %s, gateway NI health %d; want %s, %d", c.rel, st, h, c.want, c.health)
		}
	}
}

// Routing disabled at run time (LU-15135, 2.17): a client PUTs through the router every
// 100 ms from 2 s to 12 s, and the router's routing is disabled at 5 s. Up to 2.16 the
// router stops forwarding at once: the 70 PUTs after 5 s are dropped on it (forwarded: the
// 30 before and the client's discovery of the server: ping, REPLY, push, ACK, the server's
// push back and its ACK); from 2.17 it goes on forwarding while stopping (all 100).
// Either way the client's route goes down at its next router check, which sees routing
// disabled in the router's ping buffer (the sample after 60 s; 2.12 pings at 61 s): the
// router edits the feature bit in place and pushes nothing (lnet_rtrpools_disable).
func TestProfileRoutingStop(t *testing.T) {
	for _, c := range []struct {
		rel                string
		forwarded, dropped uint64
		routeDown          int
	}{
		{"2.12", 36, 70, 62}, {"2.16", 36, 70, 61}, {"2.17", 106, 0, 61}, {"master", 106, 0, 61},
	} {
		g := newGWNet(t, relTunables(t, c.rel), []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"}, true)
		g.start(t, 2*sim.Second)
		for i := 0; i < 100; i++ {
			if i == 30 {
				g.r.SetRouting(false)
			}
			putTo(t, g.c, "10.1.0.2@o2ib1", &evRec{})
			runFor(t, g.k, 100*sim.Millisecond)
		}
		fwd, drop := g.r.RouterStats().Forwarded, g.r.Stats().DropCount
		down := g.routeDownAt(t, 100) + 10 // routeDownAt counts from 2 s; we are at 12 s
		if fwd != c.forwarded || drop != c.dropped || down != c.routeDown {
			t.Errorf("%s: forwarded %d, dropped %d, route down at %d s; want %d, %d, %d", c.rel, fwd, drop, down, c.forwarded, c.dropped, c.routeDown)
		}
	}
}

// LU-16563 across releases (2.16): what crosses the wire follows the sender's release, what
// is done with it the receiver's. B's second NI goes fatal, then A sends to B and discovers
// it: a 2.16 or master B rebuilt its ping buffer, listing the NI DOWN; a 2.15 or 2.12 B (not
// routing) did not, so A sees it UP. A 2.16 A charges the DOWN (900), a 2.15 A stores it only
// (1000), and sends the PUT to it all the same (the ideal LND delivers it; its ACK from that
// NI sets it UP again at 4 us).
func TestProfileFatalAdvertised(t *testing.T) {
	for _, c := range []struct {
		a, b   string
		status NIStatus
		health int
	}{
		{"2.16", "2.16", NIStatusDown, 900},
		{"2.15", "2.16", NIStatusDown, 1000},
		{"2.16", "2.15", NIStatusUp, 1000},
		{"2.16", "2.12", NIStatusUp, 1000},
		{"master", "master", NIStatusDown, 900},
		{"2.15", "2.15", NIStatusUp, 1000},
		{"2.15", "2.12", NIStatusUp, 1000}, // a 2.15 client of a 2.12 server
	} {
		p := newPair(t, 1, 2, relTunables(t, c.a), NetTunables{})
		p.b.tun = relTunables(t, c.b)
		p.b.SetNIFatal(p.b.NIs()[1], true)
		p.put(t, 100)
		p.run(t, 3*sim.Microsecond) // the ping's REPLY came at 2 us; the PUT's ACK comes at 4 us
		lpni := p.a.PeerNI(nid("10.0.1.2@o2ib"))
		if lpni.Status() != c.status || lpni.Health() != c.health {
			t.Errorf("A %s, B %s: A sees B's fatal NI %s, health %d; want %s, %d", c.a, c.b, lpni.Status(), lpni.Health(), c.status, c.health)
		}
	}
}

// A router's final hop (LU-12955 in 2.13, LU-13606 in 2.14): a client with discovery off
// PUTs 10 times to a server's primary NID through a router that knows the server as
// multi-rail with two NIs on the remote net. 2.12's router selects among them afresh (5 and
// 5); from 2.15 it honours the client's choice while that NI is healthy (10 and 0). The
// server NIs also receive the router's side of the router check and discovery between them:
// from 2.15 the REPLY to the server's router check, the ACK of its forced push and the
// router's push back (2 and 1); in 2.12, where the router discovers the server when it first
// forwards to it, its ping, its push, the ACK of the server's push back and the REPLY of the
// server's own router check (2 and 2).
func TestProfileFinalHop(t *testing.T) {
	for _, c := range []struct {
		rel    string
		s0, s1 uint64
	}{
		{"2.12", 7, 7}, {"2.15", 12, 1}, {"master", 12, 1},
	} {
		k := sim.New(1)
		l := NewIdealLND(k, sim.Microsecond)
		all := mkNodes(t, k, l, relTunables(t, c.rel), []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"}, []string{"10.1.0.2@o2ib1", "10.1.1.2@o2ib1"})
		cl, r, s := all[0], all[1], all[2]
		sink(s, &evRec{})
		cl.tun.Discovery = false
		r.SetRouting(true)
		mustRoute(t, cl, "o2ib1", "10.0.0.3@o2ib", 1, 0)
		mustRoute(t, s, "o2ib", "10.1.0.3@o2ib1", 1, 0)
		if _, err := r.AddPeer(nid("10.1.0.2@o2ib1"), []NID{nid("10.1.1.2@o2ib1")}, false); err != nil {
			t.Fatal(err)
		}
		startAll(t, all...)
		runFor(t, k, 2*sim.Second)
		for i := 0; i < 10; i++ {
			putTo(t, cl, "10.1.0.2@o2ib1", &evRec{})
			runFor(t, k, 10*sim.Millisecond)
		}
		got0, got1 := s.NIs()[0].Stats().RecvCount, s.NIs()[1].Stats().RecvCount
		if got0 != c.s0 || got1 != c.s1 {
			t.Errorf("%s: server NIs received %d and %d, want %d and %d", c.rel, got0, got1, c.s0, c.s1)
		}
	}
}

// A router's final-hop multi-rail forwarding by release (lnet_mr_forwarding_allowed): a client
// PUTs 10 times to a server's primary NID through a router that knows the server as
// multi-rail with two NIs, and holds that NI at health 500 before each PUT. Master (LU-19827)
// forwards to the healthy NI only for a multi-rail client (discovery on: its router check
// pushes to the router); 2.15 and 2.16 forward for any client, as the chosen NI is below
// router_sensitivity (100%) of full health; 2.17 forwards for none, its NI being UP. Before the
// PUTs the server has received two discovery messages on its primary NI and one on the other.
func TestProfileMRForward(t *testing.T) {
	for _, c := range []struct {
		rel    string
		disc   bool
		s0, s1 uint64
	}{
		{"master", true, 2, 12}, {"master", false, 12, 1},
		{"2.17", true, 13, 1}, {"2.17", false, 12, 1},
		{"2.16", true, 2, 12}, {"2.16", false, 2, 11},
		{"2.15", false, 2, 11},
	} {
		k := sim.New(1)
		l := NewIdealLND(k, sim.Microsecond)
		all := mkNodes(t, k, l, relTunables(t, c.rel), []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"}, []string{"10.1.0.2@o2ib1", "10.1.1.2@o2ib1"})
		cl, r, s := all[0], all[1], all[2]
		sink(s, &evRec{})
		cl.tun.Discovery = c.disc
		r.SetRouting(true)
		mustRoute(t, cl, "o2ib1", "10.0.0.3@o2ib", 1, 0)
		mustRoute(t, s, "o2ib", "10.1.0.3@o2ib1", 1, 0)
		if _, err := r.AddPeer(nid("10.1.0.2@o2ib1"), []NID{nid("10.1.1.2@o2ib1")}, false); err != nil {
			t.Fatal(err)
		}
		if _, err := cl.AddPeer(nid("10.1.0.2@o2ib1"), nil, true); err != nil { // the client keeps to that NID
			t.Fatal(err)
		}
		startAll(t, all...)
		runFor(t, k, 2*sim.Second)
		for i := 0; i < 10; i++ {
			if err := r.SetPeerHealth(nid("10.1.0.2@o2ib1"), 500); err != nil {
				t.Fatal(err)
			}
			putTo(t, cl, "10.1.0.2@o2ib1", &evRec{})
			runFor(t, k, 10*sim.Millisecond)
		}
		got0, got1 := s.NIs()[0].Stats().RecvCount, s.NIs()[1].Stats().RecvCount
		if got0 != c.s0 || got1 != c.s1 {
			t.Errorf("%s, client discovery %v: server NIs received %d and %d, want %d and %d", c.rel, c.disc, got0, got1, c.s0, c.s1)
		}
	}
}

// The fatal-state rules each release has (see testdata/release_fatal_status.txt for their
// effect): 2.12 no LND sets the state (LU-12287, LU-14742); up to 2.15 a non-router's LND
// asks for no new ping target (LU-16563); 2.16 alone reports a non-router's NI UP unless
// fatal (LU-16563 to LU-19476); up to 2.17 clearing the state leaves the word (LU-20093).
func TestProfileFatalRules(t *testing.T) {
	type rules struct{ noLink, notAdvertised, nonRouterUp, clearLeaves bool }
	for _, c := range []struct {
		rel  string
		want rules
	}{
		{"2.12.0", rules{true, true, false, true}},
		{"2.12.9", rules{true, true, false, true}},
		{"2.15", rules{false, true, false, true}},
		{"2.16", rules{false, false, true, true}},
		{"2.17", rules{false, false, false, true}},
		{"master", rules{}},
	} {
		r, err := LookupRelease(c.rel)
		if err != nil {
			t.Fatal(err)
		}
		p := r.Profile
		if got := (rules{p.NoLinkFatalState, p.FatalNotAdvertised, p.NonRouterNIStatusUp, p.FatalClearLeavesStatus}); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.rel, got, c.want)
		}
	}
}

// `route add --health_sensitivity` (2.15, 2.16): lnet_add_route sets the gateway peer's
// lp_health_sensitivity, by which its peer NIs lose health (here 250 for one failed PUT with
// health_sensitivity 0) and which route show prints; a duplicate route leaves it, a value
// below 1 is EINVAL. Other releases keep no such value (2.12's health_sensitivity 0 moves
// nothing, 2.17 and master use health_sensitivity for every peer).
func TestRouteAddSensitivity(t *testing.T) {
	for _, c := range []struct {
		rel          string
		health, show int
	}{
		{"2.12", 1000, 0}, {"2.15", 750, 250}, {"2.16", 750, 250}, {"2.17", 1000, 0}, {"master", 1000, 0},
	} {
		tun := relTunables(t, c.rel)
		tun.HealthSensitivity, tun.RetryCount = 0, 0
		g := newGWNet(t, tun, []string{"10.0.0.1@o2ib"}, []string{"10.0.0.3@o2ib", "10.1.0.3@o2ib1"}, true)
		o2ib1, err := ParseNet("o2ib1")
		if err != nil {
			t.Fatal(err)
		}
		gw := nid("10.0.0.3@o2ib")
		if err := g.c.DelRoute(o2ib1, gw); err != nil {
			t.Fatal(err)
		}
		if err := g.c.ConfigRouteSensitivity(o2ib1, gw, 1, 0, 0); ErrnoOf(err) != EINVAL {
			t.Errorf("%s: sensitivity 0: %v, want EINVAL", c.rel, err)
		}
		if err := g.c.ConfigRouteSensitivity(o2ib1, gw, 1, 0, 250); err != nil {
			t.Fatal(err)
		}
		if err := g.c.ConfigRouteSensitivity(o2ib1, gw, 1, 0, 7); ErrnoOf(err) != EEXIST {
			t.Errorf("%s: duplicate route: %v, want EEXIST", c.rel, err)
		}
		g.start(t, 2*sim.Second)
		if s := g.c.Routes()[0].HealthSensitivity; s != c.show {
			t.Errorf("%s: route show health_sensitivity %d, want %d", c.rel, s, c.show)
		}
		g.c.DiscoverPeer(nid("10.1.0.2@o2ib1"), false)
		runFor(t, g.k, 10*sim.Millisecond)
		g.l.AddRule(IdealRule{To: NIDPattern{NID: gw}, Types: MaskPUT, Count: 1, Verdict: IdealVerdict{Action: IdealFail, HStatus: LNET_MSG_STATUS_REMOTE_DROPPED}})
		putTo(t, g.c, "10.1.0.2@o2ib1", &evRec{})
		runFor(t, g.k, 10*sim.Millisecond)
		if h := g.c.PeerNI(gw).Health(); h != c.health {
			t.Errorf("%s: gateway NI health %d, want %d", c.rel, h, c.health)
		}
	}
}
