package o2ib

// txList is one of a conn's tx lists (ibc_tx_noops, ibc_tx_queue, ibc_tx_queue_rsrvd,
// ibc_active_txs), chained through the txs' own prev and next as the kernel chains them
// through tx_list: a tx is on one list at a time. The four list heads fit in one cache line
// of the conn, and pushing, popping or taking a tx off reads no array of the conn's (with
// a slice per list, every post and completion loaded the slices' arrays, cold at tens of
// thousands of conns, and removing an active tx shifted the rest).
type txList struct {
	head, tail *tx
}

// empty reports whether the list holds no tx.
func (q *txList) empty() bool { return q.head == nil }

// Len counts the txs on the list (a walk; tests and checks only).
func (q *txList) Len() int {
	n := 0
	for t := q.head; t != nil; t = t.next {
		n++
	}
	return n
}

// First returns the oldest tx, nil if none.
func (q *txList) First() *tx { return q.head }

// Push appends t.
func (q *txList) Push(t *tx) {
	t.prev, t.next = q.tail, nil
	if q.tail == nil {
		q.head = t
	} else {
		q.tail.next = t
	}
	q.tail = t
}

// Pop takes the oldest tx off, nil if none.
func (q *txList) Pop() *tx {
	t := q.head
	if t != nil {
		q.remove(t)
	}
	return t
}

// remove takes t, which is on the list, off it.
func (q *txList) remove(t *tx) {
	if t.prev == nil {
		q.head = t.next
	} else {
		t.prev.next = t.next
	}
	if t.next == nil {
		q.tail = t.prev
	} else {
		t.next.prev = t.prev
	}
	t.prev, t.next = nil, nil
}

// Drain empties the list and returns its txs in order.
func (q *txList) Drain() []*tx {
	var out []*tx
	for t := q.Pop(); t != nil; t = q.Pop() {
		out = append(out, t)
	}
	return out
}

// any reports whether f holds for a tx of the list, trying them in order.
func (q *txList) any(f func(*tx) bool) bool {
	for t := q.head; t != nil; t = t.next {
		if f(t) {
			return true
		}
	}
	return false
}
