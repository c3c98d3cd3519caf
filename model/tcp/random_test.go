package tcp

import (
	"fmt"
	"net/netip"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// orderCheck is a Handler that checks records arrive in the order written, each once.
type orderCheck struct {
	t      *testing.T
	name   string
	next   int // payload expected next
	err    error
	closed bool
}

func (o *orderCheck) Data(c *Conn, r Record) {
	if r.Payload.(int) != o.next {
		o.t.Errorf("%s: record %v arrived, expected %d", o.name, r.Payload, o.next)
	}
	o.next = r.Payload.(int) + 1
}
func (o *orderCheck) Writable(*Conn)            {}
func (o *orderCheck) Closed(c *Conn, err error) { o.err, o.closed = err, true }

// TestRandomTraffic runs flows both ways between four hosts on two switches while links
// lose frames, flap and slow down, and requires every record delivered in order exactly
// once on every connection that survives, with the connection state consistent throughout
// (run with -tags invariants to check it between events too).
func TestRandomTraffic(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { randomTraffic(t, seed) })
	}
}

func randomTraffic(t *testing.T, seed uint64) {
	k := sim.New(seed)
	n := New(k, Config{})
	s1, s2 := n.AddSwitch("s1"), n.AddSwitch("s2")
	spec := LinkSpec{Rate: 10 * Gbps, Latency: sim.Microsecond, BufferBytes: 256 << 10}
	_, err := n.Trunk(s1, s2, LinkSpec{Rate: 10 * Gbps, Latency: 5 * sim.Microsecond, BufferBytes: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	var hosts []*Host
	for i := range 4 {
		h := n.AddHost(fmt.Sprint("h", i))
		sw := s1
		if i >= 2 {
			sw = s2
		}
		if _, err := n.Attach(h, netip.AddrFrom4([4]byte{10, 0, 0, byte(i + 1)}), sw, spec); err != nil {
			t.Fatal(err)
		}
		hosts = append(hosts, h)
	}
	rng := k.Rand("test")
	type flow struct {
		c       *Conn
		written int
		rx      *orderCheck
	}
	var flows []*flow
	for _, h := range hosts {
		h.Listen(988, Options{}, func(c *Conn) {
			for _, f := range flows {
				if f.c != nil && f.c.local == c.peer && f.c.peer == c.local {
					c.SetHandler(f.rx)
					return
				}
			}
			t.Errorf("accepted an unknown connection %s at %s on %s", c.peer, k.Now(), c.local)
		})
	}
	stopWrites := 3 * sim.Second
	for i := range 6 {
		a, b := hosts[i%4], hosts[(i+1+i/4)%4]
		f := &flow{rx: &orderCheck{t: t, name: fmt.Sprintf("flow %d", i)}}
		flows = append(flows, f)
		a.Dial(netip.AddrPortFrom(a.Addrs()[0], 0), netip.AddrPortFrom(b.Addrs()[0], 988), Options{}, func(c *Conn, err error) {
			if err != nil {
				t.Errorf("flow %d: dial: %v", i, err)
				return
			}
			f.c = c
			send := func(c *Conn) {
				for k.Now() < stopWrites && c.Write(Record{Bytes: 1 + rng.IntN(200000), Payload: f.written}) {
					f.written++
				}
			}
			c.SetHandler(&rec{k: k, onWr: send})
			send(c)
			var tick func()
			tick = func() {
				send(c)
				if k.Now() < stopWrites {
					k.AfterFunc(sim.Time(rng.IntN(int(10*sim.Millisecond))), tick)
				}
			}
			tick()
		})
	}
	// Faults until 2 s: loss bursts, flaps and delays on random links.
	links := n.Links()
	for at := 100 * sim.Millisecond; at < 2*sim.Second; at += sim.Time(rng.IntN(int(200 * sim.Millisecond))) {
		l := links[rng.IntN(len(links))]
		switch rng.IntN(3) {
		case 0:
			p := rng.Float64() * 0.05
			k.ScheduleFunc(at, func() { l.SetLoss(p) })
			k.ScheduleFunc(at+50*sim.Millisecond, func() { l.SetLoss(0) })
		case 1:
			k.ScheduleFunc(at, l.Down)
			k.ScheduleFunc(at+sim.Time(rng.IntN(int(300*sim.Millisecond))), l.Up)
		case 2:
			d := sim.Time(rng.IntN(int(sim.Millisecond)))
			k.ScheduleFunc(at, func() { l.SetExtraDelay(d) })
			k.ScheduleFunc(at+100*sim.Millisecond, func() { l.SetExtraDelay(0) })
		}
	}
	if err := k.RunUntil(60 * sim.Second); err != nil {
		t.Fatal(err)
	}
	k.CheckInvariants()
	if err := n.checkConns(); err != nil {
		t.Fatal(err)
	}
	for i, f := range flows {
		if f.c == nil {
			continue
		}
		if f.rx.next != f.written {
			t.Errorf("flow %d: %d of %d records delivered (%+v, receiver closed %v %v)", i, f.rx.next, f.written, f.c.Info(), f.rx.closed, f.rx.err)
		}
	}
	t.Logf("%+v", n.Counters())
}
