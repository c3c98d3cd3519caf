package ib

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestByteFairness: a backlogged flow of small SENDs and a flow of 1 MiB WRITEs leaving one
// HCA port share it by bytes (deficit round robin), not by chunks.
func TestByteFairness(t *testing.T) {
	t.Run("one HCA port", func(t *testing.T) { byteFairness(t, false) })
	t.Run("one switch output", func(t *testing.T) { byteFairness(t, true) })
}

// byteFairness runs the small-SEND flow a->b against the 1 MiB WRITE flow a2->c; with
// atSwitch the flows come from different nodes into one: they meet at a switch output.
func byteFairness(t *testing.T, atSwitch bool) {
	k, _, s := fabricN(t, 1, 3, Config{})
	a, b, c := s[0], s[1], s[2]
	a2 := &side{n: a.n, p: a.p, cq: a.cq, r: a.r}
	if atSwitch {
		// a -> c small, b -> c big: both into c's link.
		a2 = &side{n: s[1].n, p: s[1].p, cq: s[1].cq, r: s[1].r}
		b = &side{n: s[2].n, p: s[2].p, cq: s[2].cq, r: s[2].r}
		c = &side{n: s[2].n, p: s[2].p, cq: s[2].cq, r: s[2].r}
	}
	rcPair(t, a, b, defRTS, 4096)
	rcPair(t, a2, c, defRTS, 64)
	mr, _ := c.p.HCA().RegMR(1<<20, AccessRemoteWrite)
	const small = 4096
	var smallBytes, bigBytes float64
	const warm, end = sim.Millisecond, 3 * sim.Millisecond
	for i := 0; i < 4096; i++ {
		must(t, b.qp.PostRecv(RecvWR{ID: uint64(i), Len: small}))
	}
	for a.qp.PostSend(SendWR{Op: OpSend, Len: small, Signaled: true}) == nil {
	}
	for a2.qp.PostSend(SendWR{Op: OpWrite, Len: 1 << 20, Signaled: true, RKey: mr.RKey}) == nil {
	}
	onWC := func(wc WC) {
		now := k.Now()
		in := now > warm && now <= end
		if wc.QPNum == a.qp.Num() {
			if in {
				smallBytes += small
			}
			if now < end {
				must(t, b.qp.PostRecv(RecvWR{Len: small}))
				must(t, a.qp.PostSend(SendWR{Op: OpSend, Len: small, Signaled: true}))
			}
		} else {
			if in {
				bigBytes += 1 << 20
			}
			if now < end {
				must(t, a2.qp.PostSend(SendWR{Op: OpWrite, Len: 1 << 20, Signaled: true, RKey: mr.RKey}))
			}
		}
	}
	a.r.onWC = onWC
	a2.r.onWC = onWC
	run(t, k)
	total := smallBytes + bigBytes
	t.Logf("small SENDs %.1f Gb/s, 1 MiB WRITEs %.1f Gb/s", smallBytes*8/float64(end-warm), bigBytes*8/float64(end-warm))
	if smallBytes < 0.475*total || smallBytes > 0.525*total { // within 5% of half
		t.Fatalf("small-message flow gets %.0f%% of the port", 100*smallBytes/total)
	}
}
