package lnet

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestCPTOfNID: lnet_nid4_cpt_hash of IPv4-type NIDs, the sum of the NID's 8 bytes modulo
// the number of CPTs (10.0.0.1@o2ib: 10+0+0+1 + net number 0 + LND type 5 = 16).
func TestCPTOfNID(t *testing.T) {
	for _, c := range []struct {
		nid   string
		ncpts int
		want  int
	}{
		{"10.0.0.1@o2ib", 1, 0},
		{"10.0.0.1@o2ib", 2, 0},
		{"10.0.0.1@o2ib", 3, 1},
		{"10.0.0.2@o2ib", 2, 1},
		{"10.1.0.2@o2ib1", 4, (10 + 1 + 2 + 1 + 5) % 4},
		{"192.168.1.250@o2ib", 5, (192 + 168 + 1 + 250 + 5) % 5},
		{"10.0.0.1@tcp", 2, (10 + 1 + 2) % 2},
	} {
		tun := DefaultTunables()
		tun.CPTs = c.ncpts
		n, err := NewNode(sim.New(1), "n", tun)
		if err != nil {
			t.Fatal(err)
		}
		if got := n.cptOfNID(nid(c.nid)); got != c.want {
			t.Errorf("%s over %d CPTs: %d, want %d", c.nid, c.ncpts, got, c.want)
		}
	}
	tun := DefaultTunables()
	tun.CPTs = MaxCPTs + 1
	if _, err := NewNode(sim.New(1), "n", tun); err == nil {
		t.Fatal("too many CPTs accepted")
	}
}

// TestRouterPoolsPerCPT: every CPT gets total/ncpts buffers of each pool (at least 1), and a
// routed message takes its buffer in the pools of its receive CPT (the CPT of the previous
// hop's NID): with 2 CPTs and large_router_buffers=4, 2 large buffers per CPT; 8 concurrent
// 1 MiB PUTs from 10.0.0.1 (CPT 0) queue on CPT 0's large pool only (min credits -6) while
// CPT 1's stays untouched, and all complete in order.
func TestRouterPoolsPerCPT(t *testing.T) {
	rtun := DefaultTunables()
	rtun.CPTs = 2
	rtun.TinyRouterBuffers, rtun.SmallRouterBuffers, rtun.LargeRouterBuffers = 3, 0, 4
	r := newRouted(t, 1, DefaultTunables(), rtun)
	rt := r.rs[0]
	want := []RouterPoolShow{{0, 1, 1, 1, 0}, {1, 8192, 8192, 8192, 0}, {256, 2, 2, 2, 0}}
	for c, pools := range rt.RouterPoolsCPT() {
		for i, p := range pools {
			if i == 0 || i == 1 {
				continue // tiny/small carry pings and ACKs: credits move
			}
			if p != want[i] {
				t.Fatalf("before: CPT %d pool %d %+v, want %+v", c, i, p, want[i])
			}
		}
		if pools[0].NBuffers != 1 || pools[1].NBuffers != 8192 {
			t.Fatalf("CPT %d pools %+v", c, pools)
		}
	}
	for i := 0; i < 8; i++ {
		r.put(t, 1<<20, uint64(i))
	}
	r.run(t, sim.Second)
	if a := r.cEv.count(EventACK); a != 8 {
		t.Fatalf("%d ACKs, want 8", a)
	}
	assertPutsInOrder(t, r.sEv)
	pc := rt.RouterPoolsCPT()
	l0, l1 := pc[0][2], pc[1][2]
	if l0.NBuffers != 2 || l0.Credits != 2 || l0.MinCredits != -6 {
		t.Fatalf("CPT 0 large pool %+v: want 2 buffers, all free, min credits -6", l0)
	}
	if l1 != (RouterPoolShow{256, 2, 2, 2, 0}) {
		t.Fatalf("CPT 1 large pool %+v: want untouched", l1)
	}
	if tot := rt.RouterPools()[2]; tot.NBuffers != 4 || tot.MinCredits != -4 {
		t.Fatalf("summed large pool %+v", tot)
	}
}
