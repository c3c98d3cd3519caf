package tcp

import (
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// transfer1MiB writes one 1 MiB record on an established connection and runs until the
// sender has it all acknowledged; it returns the events fired and the delivery time.
func transfer1MiB(t testing.TB) (events uint64, delivered sim.Time) {
	p := newPair(t, Config{}, LinkSpec{Latency: sim.Microsecond}, Options{})
	c := p.dial(t, Options{})
	p.k.RunUntil(p.k.Now() + sim.Second)
	start, before := p.k.Now(), p.k.Fired()
	p.srec.onData = func(*Conn, Record) { delivered = p.k.Now() - start }
	c.Write(Record{Bytes: 1 << 20})
	if err := p.k.Run(); err != nil {
		t.Fatal(err)
	}
	return p.k.Fired() - before, delivered
}

// A 1 MiB record on an established idle connection: 17 chunks of up to 45 segments (the
// first ones smaller: slow start from 10 segments), each one event at the switch, one at
// the receiver and one ACK: 54 events. 1 MiB at the framing-limited 9.41482 Gb/s takes
// 891us; slow start's first round trips add 26us.
func TestEvents1MiB(t *testing.T) {
	ev, d := transfer1MiB(t)
	same(t, "events", ev, 54)
	same(t, "delivered after", d, 917436*sim.Nanosecond)
}

func BenchmarkTransfer1MiB(b *testing.B) {
	var ev uint64
	for b.Loop() {
		ev, _ = transfer1MiB(b)
	}
	b.ReportMetric(float64(ev), "events/op")
}
