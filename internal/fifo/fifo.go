// Package fifo provides the FIFO queue the models keep their wait lists in (LNet's credit,
// resend, discovery and router queues; o2iblnd's connection tx queues). Push and Pop are O(1)
// and reuse the backing array, so steady-state queueing allocates nothing; order is exactly
// the order of Push, which the models' determinism relies on.
package fifo

// Queue is a first-in first-out queue. The zero value is an empty queue.
type Queue[T any] struct {
	buf  []T
	head int
}

// Len returns the number of queued items.
func (q *Queue[T]) Len() int { return len(q.buf) - q.head }

// Push appends v at the tail. When more than half of a large backing array is already
// consumed, the live items move to its front first, so a queue that never empties does not
// grow without bound.
func (q *Queue[T]) Push(v T) {
	if q.head > 32 && q.head*2 >= len(q.buf) {
		n := copy(q.buf, q.buf[q.head:])
		clear(q.buf[n:])
		q.buf = q.buf[:n]
		q.head = 0
	}
	q.buf = append(q.buf, v)
}

// First returns the head without removing it, or the zero value when the queue is empty.
func (q *Queue[T]) First() T {
	var zero T
	if q.head == len(q.buf) {
		return zero
	}
	return q.buf[q.head]
}

// Pop removes and returns the head, or returns the zero value when the queue is empty.
func (q *Queue[T]) Pop() T {
	var zero T
	if q.head == len(q.buf) {
		return zero
	}
	v := q.buf[q.head]
	q.buf[q.head] = zero
	q.head++
	if q.head == len(q.buf) {
		q.buf = q.buf[:0]
		q.head = 0
	}
	return v
}

// Drain empties the queue and returns its items in order, in a new slice.
func (q *Queue[T]) Drain() []T {
	out := append([]T(nil), q.buf[q.head:]...)
	clear(q.buf)
	q.buf = q.buf[:0]
	q.head = 0
	return out
}

// Each calls fn on every item in order until fn returns false.
func (q *Queue[T]) Each(fn func(T) bool) {
	for _, v := range q.buf[q.head:] {
		if !fn(v) {
			return
		}
	}
}
