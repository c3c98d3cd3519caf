package lnet

// msgQueue is a FIFO of messages (a credit wait queue, the resend queue). It reuses its
// backing array, so steady-state queueing allocates nothing.
type msgQueue struct {
	buf  []*Msg
	head int
}

func (q *msgQueue) len() int { return len(q.buf) - q.head }

func (q *msgQueue) push(m *Msg) {
	if q.head > 0 && q.head == len(q.buf) {
		q.buf = q.buf[:0]
		q.head = 0
	}
	q.buf = append(q.buf, m)
}

func (q *msgQueue) pop() *Msg {
	if q.head == len(q.buf) {
		return nil
	}
	m := q.buf[q.head]
	q.buf[q.head] = nil
	q.head++
	if q.head == len(q.buf) {
		q.buf = q.buf[:0]
		q.head = 0
	}
	return m
}

// remove deletes m if queued, keeping order, and reports whether it was there.
func (q *msgQueue) remove(m *Msg) bool {
	for i := q.head; i < len(q.buf); i++ {
		if q.buf[i] == m {
			copy(q.buf[i:], q.buf[i+1:])
			q.buf[len(q.buf)-1] = nil
			q.buf = q.buf[:len(q.buf)-1]
			return true
		}
	}
	return false
}
