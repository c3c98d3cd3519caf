package lnet

import (
	"math/rand/v2"
	"testing"
)

// TestNIDTableMatchesMap drives a nidTable and a Go map with the same random sets and
// deletes over few NIDs (long probe runs, many deletes in them) and checks every look-up.
func TestNIDTableMatchesMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var tab nidTable
	ref := map[NID]*PeerNI{}
	lpnis := make([]PeerNI, 8)
	for step := 0; step < 200000; step++ {
		nid := NID(rng.IntN(600)) << (rng.IntN(2) * 32)
		switch rng.IntN(3) {
		case 0:
			v := &lpnis[rng.IntN(len(lpnis))]
			tab.set(nid, v)
			ref[nid] = v
		case 1:
			tab.del(nid)
			delete(ref, nid)
		}
		if got, want := tab.get(nid), ref[nid]; got != want {
			t.Fatalf("step %d: get(%#x) = %p, want %p", step, uint64(nid), got, want)
		}
		if tab.n != len(ref) {
			t.Fatalf("step %d: %d entries, want %d", step, tab.n, len(ref))
		}
	}
	for k, want := range ref {
		if got := tab.get(k); got != want {
			t.Fatalf("get(%#x) = %p, want %p", uint64(k), got, want)
		}
	}
	if got := tab.get(NID(1) << 40); got != nil {
		t.Fatalf("absent NID found: %p", got)
	}
}
