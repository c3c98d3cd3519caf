package runner

import (
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// TestPendingKeys: attempts are kept under a packed key, and under the wide map for a key
// that does not pack (an id of 2^44 or more, a node index of 2^20 or more), the two never
// mixed up: each key gets its own attempts back once.
func TestPendingKeys(t *testing.T) {
	col := newCollector()
	col.keepAttempts = true
	keys := []pendKey{{id: 7, idx: 3}, {id: 1<<44 + 7, idx: 3}, {id: 7, idx: 1 << 20}, {id: 7, idx: 4}}
	for i, k := range keys {
		col.attempt(k.idx, k.id, 0, lnet.NID(i+1), lnet.NID(100+i))
	}
	if len(col.pending) != 2 || len(col.wide) != 2 {
		t.Fatalf("%d packed, %d wide keys, want 2 and 2", len(col.pending), len(col.wide))
	}
	for i, k := range keys {
		p, ok := col.take(k)
		if !ok || p.first.txNI != lnet.NID(i+1) || p.first.nextH != lnet.NID(100+i) {
			t.Errorf("key %+v: %+v %v", k, p, ok)
		}
		if _, ok := col.take(k); ok {
			t.Errorf("key %+v taken twice", k)
		}
	}
}

// TestHopNames: a hop's text is built once and found again; two pairs whose hopKey
// collides each keep their own text (the second in the wide map).
func TestHopNames(t *testing.T) {
	var n nidNames
	a, b := lnet.NID(0x0005000a00000001), lnet.NID(0x0005000a00000002)
	if got := n.hop(a, b); got != a.String()+">"+b.String() || n.hop(a, b) != got || len(n.hops) != 1 {
		t.Fatalf("hop %q, %d cached", got, len(n.hops))
	}
	// c, d with hopKey(c, d) == hopKey(a, b): d = hopKey(a, b) ^ c*K.
	c := lnet.NID(0x0005000a00000003)
	d := lnet.NID(hopKey(a, b) ^ uint64(c)*0x9E3779B97F4A7C15)
	if hopKey(c, d) != hopKey(a, b) {
		t.Fatal("the test's collision is not one")
	}
	if got := n.hop(c, d); got != c.String()+">"+d.String() || n.hop(a, b) != a.String()+">"+b.String() || len(n.wide) != 1 {
		t.Fatalf("colliding hop %q, wide %v", got, n.wide)
	}
}
