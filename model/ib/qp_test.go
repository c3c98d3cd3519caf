package ib

import (
	"errors"
	"fmt"
	"testing"
)

func TestQPTransitions(t *testing.T) {
	all := []QPState{QPReset, QPInit, QPRTR, QPRTS, QPSQD, QPSQE, QPErr}
	legal := map[[2]QPState]bool{
		{QPReset, QPInit}: true, {QPInit, QPInit}: true, {QPInit, QPRTR}: true, {QPRTR, QPRTS}: true,
		{QPRTS, QPRTS}: true, {QPRTS, QPSQD}: true, {QPSQD, QPSQD}: true, {QPSQD, QPRTS}: true, {QPSQE, QPRTS}: true,
	}
	for _, from := range all {
		for _, to := range all {
			want := legal[[2]QPState{from, to}] || to == QPReset || to == QPErr
			if got := legalTransition(from, to); got != want {
				t.Errorf("%v -> %v: legal=%v, want %v", from, to, got, want)
			}
		}
	}
}

// TestModifyWalk drives a real QP through sequences of ibv_modify_qp calls and checks
// that illegal steps fail with ErrBadState and leave the state unchanged.
func TestModifyWalk(t *testing.T) {
	attr := map[QPState]QPAttr{
		QPInit: {Port: 1},
		QPRTR:  {DestQPN: 1, DestLID: 2},
		QPRTS:  {Timeout: 14, RetryCnt: 7, RNRRetry: 7},
	}
	tests := []struct {
		steps []QPState
		fail  int // index of the first failing step, -1 = none
	}{
		{[]QPState{QPInit, QPRTR, QPRTS, QPSQD, QPRTS, QPErr, QPReset, QPInit}, -1},
		{[]QPState{QPRTR}, 0},
		{[]QPState{QPRTS}, 0},
		{[]QPState{QPInit, QPRTS}, 1},
		{[]QPState{QPInit, QPRTR, QPRTR}, 2},
		{[]QPState{QPInit, QPRTR, QPSQD}, 2},
		{[]QPState{QPInit, QPRTR, QPRTS, QPInit}, 3},
		{[]QPState{QPInit, QPErr, QPRTS}, 2},
		{[]QPState{QPInit, QPRTR, QPRTS, QPSQE}, 3},
		{[]QPState{QPInit, QPInit, QPRTR, QPRTS, QPRTS, QPErr, QPErr, QPReset}, -1},
	}
	for i, tc := range tests {
		_, _, s := fabricN(t, 1, 2, Config{})
		qp, _ := s[0].p.HCA().CreateQP(QPInitAttr{SendCQ: s[0].cq, RecvCQ: s[0].cq, MaxSendWR: 4, MaxRecvWR: 4})
		for j, to := range tc.steps {
			before := qp.State()
			err := qp.Modify(to, attr[to])
			if (err != nil) != (j == tc.fail) {
				t.Fatalf("case %d step %d %v -> %v: err %v", i, j, before, to, err)
			}
			if err != nil {
				if !errors.Is(err, ErrBadState) || qp.State() != before {
					t.Fatalf("case %d: failed step changed state to %v (err %v)", i, qp.State(), err)
				}
				break
			}
			if qp.State() != to {
				t.Fatalf("case %d: state %v after modify to %v", i, qp.State(), to)
			}
		}
	}
}

// TestPostRules: post_send only in RTS/SQD (and ERR, where it flushes); post_recv from INIT.
func TestPostRules(t *testing.T) {
	k, _, s := fabricN(t, 1, 2, Config{})
	qp, _ := s[0].p.HCA().CreateQP(QPInitAttr{SendCQ: s[0].cq, RecvCQ: s[0].cq, MaxSendWR: 2, MaxRecvWR: 1, MaxInline: 64})
	if err := qp.PostSend(SendWR{}); !errors.Is(err, ErrBadState) {
		t.Fatalf("post_send in RESET: %v", err)
	}
	if err := qp.PostRecv(RecvWR{}); !errors.Is(err, ErrBadState) {
		t.Fatalf("post_recv in RESET: %v", err)
	}
	must(t, qp.Modify(QPInit, QPAttr{Port: 1}))
	must(t, qp.PostRecv(RecvWR{ID: 5}))
	if err := qp.PostRecv(RecvWR{}); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("post_recv on a full RQ: %v", err)
	}
	if err := qp.PostSend(SendWR{}); !errors.Is(err, ErrBadState) {
		t.Fatalf("post_send in INIT: %v", err)
	}
	must(t, qp.Modify(QPRTR, QPAttr{DestQPN: 99, DestLID: 2}))
	must(t, qp.Modify(QPRTS, QPAttr{Timeout: 14}))
	if err := qp.PostSend(SendWR{Op: OpSend, Len: 65, Inline: true}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("oversized inline: %v", err)
	}
	must(t, qp.Modify(QPSQD, QPAttr{}))
	must(t, qp.PostSend(SendWR{ID: 1, Op: OpSend, Len: 64, Inline: true}))
	must(t, qp.PostSend(SendWR{ID: 2, Op: OpSend}))
	if err := qp.PostSend(SendWR{}); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("post_send on a full SQ: %v", err)
	}
	must(t, qp.Modify(QPErr, QPAttr{}))
	must(t, qp.PostSend(SendWR{ID: 3, Op: OpSend}))
	run(t, k)
	var ids []uint64
	for _, w := range s[0].r.wcs {
		if w.Status != WCFlushErr {
			t.Fatalf("%+v", w)
		}
		ids = append(ids, w.WRID)
	}
	if len(ids) != 4 || ids[0] != 1 || ids[1] != 2 || ids[2] != 5 || ids[3] != 3 {
		t.Fatalf("flush order %v", ids)
	}
	// SQD with nothing in flight raised SQ_DRAINED.
	if len(s[0].r.async) != 1 || s[0].r.async[0].Type != EventSQDrained {
		t.Fatalf("async %+v", s[0].r.async)
	}
}

// TestPostRecvN: a chain of equal receive WRs posts as far as the receive queue has room
// and reports how many went in, as that many PostRecv calls would; in ERR they flush in
// posting order after the WR already queued.
func TestPostRecvN(t *testing.T) {
	k, _, s := fabricN(t, 1, 2, Config{})
	qp, _ := s[0].p.HCA().CreateQP(QPInitAttr{SendCQ: s[0].cq, RecvCQ: s[0].cq, MaxSendWR: 2, MaxRecvWR: 5})
	if n, err := qp.PostRecvN(RecvWR{ID: 7}, 3); n != 0 || !errors.Is(err, ErrBadState) {
		t.Fatalf("post_recv chain in RESET: %d %v", n, err)
	}
	must(t, qp.Modify(QPInit, QPAttr{Port: 1}))
	must(t, qp.PostRecv(RecvWR{ID: 1}))
	if n, err := qp.PostRecvN(RecvWR{ID: 7, Len: 8}, 3); n != 3 || err != nil {
		t.Fatalf("chain of 3: %d %v", n, err)
	}
	if n, err := qp.PostRecvN(RecvWR{ID: 8}, 3); n != 1 || !errors.Is(err, ErrQueueFull) {
		t.Fatalf("chain of 3 with room for 1: %d %v", n, err)
	}
	if _, recv := qp.Outstanding(); recv != 5 {
		t.Fatalf("%d receives outstanding, want 5", recv)
	}
	must(t, qp.Modify(QPErr, QPAttr{}))
	if n, err := qp.PostRecvN(RecvWR{ID: 9}, 2); n != 2 || err != nil {
		t.Fatalf("chain of 2 in ERR: %d %v", n, err)
	}
	run(t, k)
	var ids []uint64
	for _, w := range s[0].r.wcs {
		if w.Status != WCFlushErr || w.Opcode != WCRecv {
			t.Fatalf("%+v", w)
		}
		ids = append(ids, w.WRID)
	}
	if fmt.Sprint(ids) != "[1 7 7 7 8 9 9]" {
		t.Fatalf("flush order %v", ids)
	}
}

// TestUnsignaledSlots: unsignalled WRs hold their send queue slots until a later signalled
// WR completes.
func TestUnsignaledSlots(t *testing.T) {
	k, _, s := fabricN(t, 1, 2, Config{})
	a, b := s[0], s[1]
	rcPair(t, a, b, defRTS, 2)
	mr, _ := b.p.HCA().RegMR(1<<20, AccessRemoteWrite)
	must(t, a.qp.PostSend(SendWR{ID: 1, Op: OpWrite, Len: 10, RKey: mr.RKey}))
	must(t, a.qp.PostSend(SendWR{ID: 2, Op: OpWrite, Len: 10, RKey: mr.RKey}))
	run(t, k)
	if err := a.qp.PostSend(SendWR{ID: 3, Op: OpWrite, Len: 10, RKey: mr.RKey}); !errors.Is(err, ErrQueueFull) {
		t.Fatalf("third post on a queue of two unsignalled WRs: %v", err)
	}
	if snd, _ := a.qp.Outstanding(); snd != 0 {
		t.Fatalf("%d sends outstanding after their ACKs", snd)
	}
	// A signalled WR's completion frees everything before it.
	rcPair(t, a, b, defRTS, 2)
	must(t, a.qp.PostSend(SendWR{ID: 1, Op: OpWrite, Len: 10, RKey: mr.RKey}))
	must(t, a.qp.PostSend(SendWR{ID: 2, Op: OpWrite, Len: 10, RKey: mr.RKey, Signaled: true}))
	run(t, k)
	must(t, a.qp.PostSend(SendWR{ID: 3, Op: OpWrite, Len: 10, RKey: mr.RKey}))
	must(t, a.qp.PostSend(SendWR{ID: 4, Op: OpWrite, Len: 10, RKey: mr.RKey}))
}
