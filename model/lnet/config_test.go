package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestDelRoute: deleting the route through R1 moves C's traffic to R2 at once; R1 is then no
// longer a gateway (not pinged, not shown); deleting again is not an error while the net has
// a route, ENOENT once it has none; adding R1 back makes it a pinged gateway again.
func TestDelRoute(t *testing.T) {
	r := newRouted(t, 2, DefaultTunables(), DefaultTunables())
	r.run(t, sim.Second)
	o2ib1 := r.sNID.Net()
	r1, r2 := nid("10.0.0.3@o2ib"), nid("10.0.0.4@o2ib")
	if err := r.c.DelRoute(o2ib1, r1); err != nil {
		t.Fatal(err)
	}
	if rs := r.c.Routes(); len(rs) != 1 || rs[0].Gateway != "10.0.0.4@o2ib" {
		t.Fatalf("routes after del: %+v", rs)
	}
	if gs := r.c.Gateways(); len(gs) != 1 || gs[0].NID != "10.0.0.4@o2ib" {
		t.Fatalf("gateways after del: %+v", gs)
	}
	pings := r.c.gateways[0].gw.pings
	r.put(t, 4096, 1)
	r.run(t, 200*sim.Second)
	// Only S's push back to C (S keeps its route through R1; lnet_peer_push_event queues C on
	// S, which pushes its own buffer) and C's ACK of it (a response goes back through the
	// router its request came through): nothing of C's own.
	if got := r.rs[0].RouterStats().Forwarded; got != 2 {
		t.Errorf("R1 forwarded %d messages after its route was deleted, want 2", got)
	}
	// C's discovery GET, its push and the PUT, and their REPLY and ACKs.
	if got := r.rs[1].RouterStats().Forwarded; got != 6 {
		t.Errorf("R2 forwarded %d, want 6", got)
	}
	if got := r.c.gateways[0].gw.pings; got != pings {
		t.Errorf("R1 pinged %d more times after its last route went", got-pings)
	}
	if err := r.c.DelRoute(o2ib1, r1); err != nil {
		t.Errorf("deleting a gone route while the net has one: %v", err)
	}
	if err := r.c.DelRoute(o2ib1, r2); err != nil {
		t.Fatal(err)
	}
	if err := r.c.DelRoute(o2ib1, r2); ErrnoOf(err) != ENOENT {
		t.Errorf("no route to the net: %v, want ENOENT", err)
	}
	if err := r.c.ConfigRoute(o2ib1, r1, 1, 0); err != nil {
		t.Fatal(err)
	}
	r.run(t, 200*sim.Second)
	if got := r.c.gateways[0].gw.pings; got == pings {
		t.Errorf("R1 not pinged again after its route came back")
	}
}

// TestConfigRouteErrnos: lnet_add_route's refusals, in its order.
func TestConfigRouteErrnos(t *testing.T) {
	r := newRouted(t, 1, DefaultTunables(), DefaultTunables())
	o2ib, o2ib1, o2ib2 := r.cNID.Net(), r.sNID.Net(), MakeNet(O2IBLND, 2)
	for _, c := range []struct {
		net   NetID
		gw    string
		hops  int
		errno int
	}{
		{o2ib, "10.0.0.3@o2ib", -1, EINVAL},  // gateway on the route's net
		{o2ib1, "10.0.0.3@o2ib", 0, EINVAL},  // hops out of range
		{o2ib, "10.1.0.3@o2ib1", -1, EEXIST}, // local net
		{o2ib2, "10.1.0.3@o2ib1", -1, EHOSTUNREACH},
		{o2ib1, "10.0.0.3@o2ib", 1, EEXIST},  // already there
		{o2ib1, "10.0.0.1@o2ib", -1, EINVAL}, // own NID (lnetsim)
		{o2ib1, "10.0.0.99@o2ib", 1, 0},      // no such node: accepted
	} {
		err := r.c.ConfigRoute(c.net, nid(c.gw), c.hops, 0)
		if got := 0; err != nil {
			got = ErrnoOf(err)
			if got != c.errno {
				t.Errorf("route to %s via %s: %v, want %s", c.net, c.gw, err, ErrnoName(c.errno))
			}
		} else if c.errno != 0 {
			t.Errorf("route to %s via %s accepted, want %s", c.net, c.gw, ErrnoName(c.errno))
		}
	}
}

// TestSetGlobal: lnetctl set through the kernel's setters: accepted values take effect,
// health_sensitivity 0 forces retry_count 0 and retry_count is then refused, max_interfaces
// below 16 becomes 4096, router_sensitivity above 100 is refused, recovery_interval (master:
// deprecated) succeeds and changes nothing, discovery off is advertised in a new ping buffer.
func TestSetGlobal(t *testing.T) {
	r := newRouted(t, 1, DefaultTunables(), DefaultTunables())
	n := r.c
	steps := []struct {
		name  string
		v     int
		errno int
	}{
		{"retry_count", 3, 0}, {"transaction_timeout", 3, EINVAL}, {"transaction_timeout", 40, 0},
		{"retry_count", 41, EINVAL}, {"health_sensitivity", 0, 0}, {"retry_count", 1, EINVAL},
		{"response_tracking", 4, EINVAL}, {"max_recovery_ping_interval", 0, EINVAL},
		{"max_interfaces", 8, 0}, {"recovery_limit", 30, 0}, {"drop_asym_route", 1, 0}, {"tiny_buffers", 1, 0}, {"lnd_timeout", 1, EINVAL},
		{"router_sensitivity", 101, EINVAL}, {"router_sensitivity", 80, 0}, {"recovery_interval", 0, 0}, {"recovery_interval", 7, 0},
	}
	for _, s := range steps {
		err := n.SetGlobal(s.name, s.v)
		if got := map[bool]int{true: 0, false: ErrnoOf(err)}[err == nil]; got != s.errno {
			t.Errorf("set %s %d: %v, want errno %d", s.name, s.v, err, s.errno)
		}
	}
	tun := n.Tunables()
	if tun.RetryCount != 0 || tun.TransactionTimeout != 40 || tun.HealthSensitivity != 0 || tun.MaxInterfaces != 4096 ||
		tun.RecoveryLimit != 30 || !tun.DropAsymRoute || tun.TinyRouterBuffers != 1 || tun.RouterSensitivity != 80 ||
		tun.RecoveryInterval != DefaultTunables().RecoveryInterval {
		t.Errorf("tunables after the sets: %+v", tun)
	}
	seq := n.PingBuffer().Seq
	if err := n.SetGlobal("discovery", 0); err != nil {
		t.Fatal(err)
	}
	// discovery_set edits the feature bit of the ping target in place: same sequence number.
	if b := n.PingBuffer(); b.Discovery || b.Seq != seq {
		t.Errorf("ping buffer after discovery off: discovery %v seq %d (was %d)", b.Discovery, b.Seq, seq)
	}
}

// TestMaxInterfacesByRelease: LNET_INTERFACES_MAX_DEFAULT is 200 up to 2.17 and 4096 in
// master (LU-19563): the default of max_interfaces and what a value below 16 becomes.
func TestMaxInterfacesByRelease(t *testing.T) {
	for _, c := range []struct {
		rel  string
		want int
	}{{"2.12", 200}, {"2.15", 200}, {"2.16", 200}, {"2.17", 200}, {"master", 4096}} {
		tun := relTunables(t, c.rel)
		if tun.MaxInterfaces != c.want {
			t.Errorf("%s: default max_interfaces %d, want %d", c.rel, tun.MaxInterfaces, c.want)
		}
		r := newRouted(t, 1, tun, tun)
		if err := r.c.SetGlobal("max_interfaces", 64); err != nil {
			t.Fatal(err)
		}
		if err := r.c.SetGlobal("max_interfaces", 8); err != nil {
			t.Fatal(err)
		}
		if got := r.c.Tunables().MaxInterfaces; got != c.want {
			t.Errorf("%s: set max_interfaces 8 gives %d, want %d", c.rel, got, c.want)
		}
	}
}

// TestSetRecoveryInterval212: 2.12's recovery_interval_set refuses 0 and stores the value,
// which drives its fixed-interval recovery pings (FixedRecoveryInterval).
func TestSetRecoveryInterval212(t *testing.T) {
	tun := relTunables(t, "2.12")
	r := newRouted(t, 1, tun, tun)
	if err := r.c.SetGlobal("recovery_interval", 0); ErrnoOf(err) != EINVAL {
		t.Errorf("set recovery_interval 0 on 2.12: %v, want EINVAL", err)
	}
	if err := r.c.SetGlobal("recovery_interval", 7); err != nil || r.c.Tunables().RecoveryInterval != 7 {
		t.Errorf("set recovery_interval 7 on 2.12: %v, interval %d", err, r.c.Tunables().RecoveryInterval)
	}
}
