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
