package o2ib

import (
	"fmt"
	"testing"
)

// TestTxListOrder checks the intrusive tx lists against the slice they replaced: pushes,
// pops from the head and removals anywhere keep the rest in posting order, a removed tx is
// off every list (no links), and removeActive ignores a tx that is not on the conn's list.
func TestTxListOrder(t *testing.T) {
	txs := make([]*tx, 6)
	for i := range txs {
		txs[i] = &tx{idx: int32(i)}
	}
	var q txList
	var want []*tx
	check := func(step string) {
		t.Helper()
		var got []*tx
		for x := q.First(); x != nil; x = x.next {
			got = append(got, x)
		}
		if txIDs(got) != txIDs(want) || q.Len() != len(want) || q.empty() != (len(want) == 0) {
			t.Fatalf("%s: list %s (len %d), want %s", step, txIDs(got), q.Len(), txIDs(want))
		}
		if len(want) > 0 && (q.head.prev != nil || q.tail != want[len(want)-1] || q.tail.next != nil) {
			t.Fatalf("%s: bad ends", step)
		}
	}
	for _, x := range txs {
		q.Push(x)
		want = append(want, x)
	}
	check("push")
	q.remove(txs[3])
	want = []*tx{txs[0], txs[1], txs[2], txs[4], txs[5]}
	check("remove middle")
	q.remove(txs[5])
	want = want[:4]
	check("remove tail")
	if x := q.Pop(); x != txs[0] || x.next != nil || x.prev != nil {
		t.Fatalf("pop: %d", x.idx)
	}
	want = want[1:]
	check("pop")
	q.Push(txs[3])
	want = append(want, txs[3])
	check("push again")
	if d := q.Drain(); txIDs(d) != txIDs(want) {
		t.Fatalf("drain: %s, want %s", txIDs(d), txIDs(want))
	}
	want = nil
	check("drained")
	if q.Pop() != nil {
		t.Fatal("pop of an empty list")
	}

	c := &conn{}
	a, b := &tx{idx: 1, conn: c, q: qActive}, &tx{idx: 2, conn: c, q: qActive}
	c.active.Push(a)
	other := &tx{idx: 3, conn: c, q: qActive} // says active but was never posted
	c.removeActive(other)
	c.active.Push(b)
	c.removeActive(a)
	if c.active.First() != b || c.active.Len() != 1 || a.q != qNone || other.q != qActive {
		t.Fatalf("removeActive: len %d, a.q %d, other.q %d", c.active.Len(), a.q, other.q)
	}
}

// txIDs names txs by index, for messages.
func txIDs(txs []*tx) string {
	var ids []int32
	for _, x := range txs {
		ids = append(ids, x.idx)
	}
	return fmt.Sprint(ids)
}
