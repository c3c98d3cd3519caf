package ib

import (
	"errors"
	"testing"
)

// TestQueuesGrowOnDemand: a CQ's completion ring and a QP's send queue are allocated as they
// fill (the model's memory at 1000 clients), yet hold exactly their created sizes, keep
// posting order across every growth, and overrun or refuse at the same point as before.
func TestQueuesGrowOnDemand(t *testing.T) {
	for _, size := range []int{1, 3, 4, 5, 10, 17} {
		k, _, s := fabricN(t, 1, 2, Config{})
		a := s[0]
		cq, err := a.p.HCA().CreateCQ(size, nil)
		must(t, err)
		qp, err := a.p.HCA().CreateQP(QPInitAttr{SendCQ: cq, RecvCQ: cq, MaxSendWR: size + 1, MaxRecvWR: 1})
		must(t, err)
		must(t, qp.Modify(QPInit, QPAttr{Port: 1}))
		must(t, qp.Modify(QPRTR, QPAttr{DestQPN: 99, DestLID: 2}))
		must(t, qp.Modify(QPRTS, defRTS))
		// Every send goes to a QP number nobody has: none completes while they are posted,
		// so the send queue holds all of them at once.
		for i := 0; i <= size; i++ {
			must(t, qp.PostSend(SendWR{ID: uint64(i), Op: OpSend, Len: 8, Signaled: true}))
		}
		if err := qp.PostSend(SendWR{ID: 99, Op: OpSend}); !errors.Is(err, ErrQueueFull) {
			t.Fatalf("size %d: post beyond MaxSendWR: %v", size, err)
		}
		if snd, _ := qp.Outstanding(); snd != size+1 {
			t.Fatalf("size %d: %d sends outstanding, want %d", size, snd, size+1)
		}
		// Flushing completes them all, in order: the CQ keeps the first size and overruns.
		must(t, qp.Modify(QPErr, QPAttr{}))
		run(t, k)
		if !cq.Errored() || cq.Len() != size {
			t.Fatalf("size %d: CQ errored=%v len=%d", size, cq.Errored(), cq.Len())
		}
		wcs := make([]WC, size+1)
		if n := cq.Poll(wcs); n != size {
			t.Fatalf("size %d: polled %d", size, n)
		}
		for i, w := range wcs[:size] {
			if w.WRID != uint64(i) || w.Status != WCFlushErr {
				t.Fatalf("size %d: completion %d is %+v", size, i, w)
			}
		}
	}
}

// TestSendQueueGrowsMidStream: the send queue grows while earlier WRs have completed and
// freed their slots (the ring's live part starts mid-ring): every send still arrives and
// completes once, in order.
func TestSendQueueGrowsMidStream(t *testing.T) {
	const depth = 13
	k, _, s := fabricN(t, 1, 2, Config{})
	a, b := s[0], s[1]
	rcPair(t, a, b, defRTS, depth)
	id := uint64(0)
	post := func(n int) {
		for i := 0; i < n; i++ {
			must(t, b.qp.PostRecv(RecvWR{ID: id, Len: 64}))
			must(t, a.qp.PostSend(SendWR{ID: id, Op: OpSend, Len: 64, Signaled: true}))
			id++
		}
	}
	post(3)
	run(t, k)
	post(depth)
	if err := a.qp.PostSend(SendWR{ID: 99, Op: OpSend, Len: 64}); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("post beyond MaxSendWR: %v", err)
	}
	run(t, k)
	post(depth)
	run(t, k)
	var got []uint64
	for _, w := range a.r.wcs {
		if w.Status != WCSuccess || w.Opcode != WCSend {
			t.Fatalf("%+v", w)
		}
		got = append(got, w.WRID)
	}
	if len(got) != int(id) {
		t.Fatalf("%d send completions, want %d", len(got), id)
	}
	for i, g := range got {
		if g != uint64(i) {
			t.Fatalf("send completions out of order: %v", got)
		}
	}
	if len(b.r.wcs) != int(id) {
		t.Fatalf("%d receives, want %d", len(b.r.wcs), id)
	}
}
