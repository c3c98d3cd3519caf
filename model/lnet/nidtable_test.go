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

// TestNITable: a node's own NIs by NID, 0@lo included; a replaced NID keeps one entry and a
// deleted one is gone.
func TestNITable(t *testing.T) {
	var tab niTable
	a, b, lo := &NI{nid: nid("10.0.0.1@o2ib")}, &NI{nid: nid("10.1.0.1@o2ib1")}, &NI{nid: LoNID}
	for _, ni := range []*NI{lo, a, b} {
		tab.set(ni.nid, ni)
	}
	b2 := &NI{nid: b.nid}
	tab.set(b.nid, b2)
	tab.del(a.nid)
	for _, c := range []struct {
		nid  NID
		want *NI
	}{{LoNID, lo}, {a.nid, nil}, {b.nid, b2}, {nid("10.0.0.2@o2ib"), nil}} {
		if got := tab.get(c.nid); got != c.want {
			t.Errorf("get(%s) = %p, want %p", c.nid, got, c.want)
		}
	}
	if len(tab.nids) != 2 || len(tab.nis) != 2 {
		t.Errorf("%d NIDs, %d NIs, want 2 and 2", len(tab.nids), len(tab.nis))
	}
}
