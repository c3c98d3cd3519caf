package ib

import (
	"net/netip"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestAddIPSharedByNets: two LNet nets on one interface assign its address twice to the
// same port, which keeps one entry; the address still resolves to that port. Giving it to
// a second port is a caller's bug and says which ports.
func TestAddIPSharedByNets(t *testing.T) {
	f := New(sim.New(1), Config{})
	h := f.AddNode("a").AddHCA("mlx5_0", 2)
	a := netip.MustParseAddr("10.0.0.1")
	h.Port(1).AddIP(a)
	h.Port(1).AddIP(a)
	if got := h.Port(1).IPs(); len(got) != 1 || f.PortByIP(a) != h.Port(1) {
		t.Fatalf("IPs %v, port %v", got, f.PortByIP(a))
	}
	defer func() {
		if r := recover(); r != "ib: address 10.0.0.1 assigned to a/mlx5_0:1 and a/mlx5_0:2" {
			t.Fatalf("recovered %v", r)
		}
	}()
	h.Port(2).AddIP(a)
}
