package socklnd

import (
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestDefaultParams pins every default to socklnd_modparams.c and lib-lnet.h on master.
func TestDefaultParams(t *testing.T) {
	p := DefaultParams()
	want := Params{SockTimeout: 50, Credits: 256, PeerCredits: 8, PeerTimeout: 180, NConnds: 4,
		NConndsMax: 64, MinReconnectms: 1000, MaxReconnectms: 60000, TypedConns: 1, MinBulk: 1024,
		RoundRobin: 1, Keepalive: 30, KeepaliveIdle: 30, KeepaliveCount: 5, KeepaliveIntvl: 5,
		NonblkZcack: 1, ZcMinPayload: 16384, ZcRecvMinNfrags: 16, TOS: -1}
	if p != want {
		t.Fatalf("defaults\n got %+v\nwant %+v", p, want)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestParamsValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Params)
		want string
	}{
		{"negative sock_timeout", func(p *Params) { p.SockTimeout = -1 }, "sock_timeout must be >= 0"},
		{"zero credits", func(p *Params) { p.Credits = 0 }, "credits must be >= 1"},
		{"sub-second min_reconnectms", func(p *Params) { p.MinReconnectms = 500 }, "min_reconnectms must be >= 1000"},
		{"max below min", func(p *Params) { p.MaxReconnectms = 999; p.MinReconnectms = 2000 }, "max_reconnectms must be >= min_reconnectms"},
		{"typed_conns 2", func(p *Params) { p.TypedConns = 2 }, "typed_conns must be 0 or 1"},
		{"tos 256", func(p *Params) { p.TOS = 256 }, "tos must be in -1..255"},
	} {
		p := DefaultParams()
		tc.mod(&p)
		err := p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestSetup: zc_min_payload is raised to 2 KiB (ksocknal_tunables_init); conns_per_peer 0
// comes from the link speed (ksocklnd_speed2cpp) and is capped at 255.
func TestSetup(t *testing.T) {
	p := DefaultParams()
	p.ZcMinPayload = 100
	if got := p.setup(0).zcMinPayload; got != 2048 {
		t.Errorf("zc_min_payload 100 -> %d, want 2048", got)
	}
	for _, tc := range []struct{ speed, cpp, want int }{
		{0, 0, 1}, {100, 0, 1}, {1000, 0, 1}, {3000, 0, 1}, {4000, 0, 2}, {10000, 0, 2},
		{16000, 0, 3}, {25000, 0, 3}, {40000, 0, 3}, {100000, 0, 4}, {400000, 0, 5},
		{100000, 2, 2}, {0, 300, 255},
	} {
		p := DefaultParams()
		p.ConnsPerPeer = tc.cpp
		if got := p.setup(tc.speed).connsPerPeer; got != tc.want {
			t.Errorf("speed %d Mb/s conns_per_peer %d -> %d, want %d", tc.speed, tc.cpp, got, tc.want)
		}
	}
}

// TestTimeout: ksocknal_timeout is sock_timeout, or lnet_lnd_timeout when it is 0.
func TestTimeout(t *testing.T) {
	p := DefaultParams()
	if got := p.Timeout(7 * sim.Second); got != 50*sim.Second {
		t.Errorf("sock_timeout 50: %v", got)
	}
	p.SockTimeout = 0
	if got := p.Timeout(7 * sim.Second); got != 7*sim.Second {
		t.Errorf("sock_timeout 0: %v", got)
	}
}
