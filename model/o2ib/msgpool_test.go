package o2ib

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestWireMessagesRecycled: the messages SENDs carry and receive buffers hold come back to
// the LND's free list (none is lost while traffic flows, reconnects happen or a GET is
// answered), and there are no more of them than the conns' receive buffers.
func TestWireMessagesRecycled(t *testing.T) {
	c := newCluster(t, clusterOpt{rails: 2})
	u := &pumper{c: c, size: 1 << 20, ack: true, remaining: 200, tb: t}
	for i := 0; i < 8; i++ {
		u.next()
	}
	c.get(t, 1, 2, 1<<19)
	c.run(t, 2*sim.Second)
	small := &pumper{c: c, size: 512, remaining: 200, tb: t}
	for i := 0; i < 8; i++ {
		small.next()
	}
	c.run(t, 2*sim.Second)
	if u.done != 200 || small.done != 200 {
		t.Fatalf("done %d and %d of 200", u.done, small.done)
	}
	l := c.lnd
	// Every rx out of the free list holds a message (LNet has it or it waits on a conn's
	// early list).
	held, buffers := l.rxsMade-len(l.freeRx), 0
	for _, cn := range l.conns {
		held += cn.rxWire.size
		buffers += int(cn.nrx)
	}
	for _, r := range l.freeRx {
		if r.msg != nil || r.conn != nil {
			t.Fatalf("an rx on the free list holds a message or a conn")
		}
	}
	if l.msgsMade != len(l.freeMsgs)+held {
		t.Fatalf("%d messages made, %d free, %d in flight or in buffers: some were lost", l.msgsMade, len(l.freeMsgs), held)
	}
	t.Logf("%d messages made, %d free, %d held, %d receive buffers", l.msgsMade, len(l.freeMsgs), held, buffers)
	if l.msgsMade == 0 || l.msgsMade > buffers {
		t.Fatalf("%d messages made for %d receive buffers", l.msgsMade, buffers)
	}
}
