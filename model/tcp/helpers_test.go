package tcp

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// rec is a test Handler that logs its upcalls with their virtual times.
type rec struct {
	k        *sim.Kernel
	name     string
	log      []string
	bytes    int64
	closed   error
	closedAt sim.Time
	onData   func(c *Conn, r Record)
	onWr     func(c *Conn)
}

func (r *rec) logf(format string, a ...any) {
	r.log = append(r.log, fmt.Sprintf("%s %s: ", r.k.Now(), r.name)+fmt.Sprintf(format, a...))
}

func (r *rec) Data(c *Conn, x Record) {
	r.bytes += int64(x.Bytes)
	if r.onData != nil {
		r.onData(c, x)
		return
	}
	r.logf("data %d %v", x.Bytes, x.Payload)
}

func (r *rec) Writable(c *Conn) {
	if r.onWr != nil {
		r.onWr(c)
		return
	}
	r.logf("writable")
}

func (r *rec) Closed(c *Conn, err error) {
	r.closed = err
	r.closedAt = r.k.Now()
	r.logf("closed %v", err)
}

func (r *rec) String() string { return strings.Join(r.log, "\n") }

// pair is two hosts on one switch, 10 Gb/s, 1us per link, a server listening on 988.
type pair struct {
	k        *sim.Kernel
	n        *Network
	cli, srv *Host
	ca, sa   netip.Addr
	crec     *rec
	srec     *rec
	sconn    *Conn
}

func newPair(t testing.TB, cfg Config, spec LinkSpec, opt Options) *pair {
	t.Helper()
	k := sim.New(1)
	n := New(k, cfg)
	if spec.Rate == 0 {
		spec.Rate = 10 * Gbps
	}
	hs, err := n.SingleSwitch([]string{"cli", "srv"}, spec, netip.MustParseAddr("10.0.0.1"))
	if err != nil {
		t.Fatal(err)
	}
	p := &pair{k: k, n: n, cli: hs[0], srv: hs[1], ca: hs[0].Addrs()[0], sa: hs[1].Addrs()[0]}
	p.crec = &rec{k: k, name: "cli"}
	p.srec = &rec{k: k, name: "srv"}
	p.srv.Listen(988, opt, func(c *Conn) {
		p.sconn = c
		c.SetHandler(p.srec)
		p.srec.logf("accept %s", c.RemoteAddr())
	})
	return p
}

// dial connects cli to srv:988 and runs until the dial completes.
func (p *pair) dial(t testing.TB, opt Options) *Conn {
	t.Helper()
	var conn *Conn
	var derr error
	fired := false
	p.cli.Dial(netip.AddrPortFrom(p.ca, 1023), netip.AddrPortFrom(p.sa, 988), opt, func(c *Conn, err error) {
		conn, derr, fired = c, err, true
		if c != nil {
			c.SetHandler(p.crec)
		}
		p.crec.logf("dial %v", err)
	})
	for !fired {
		if err := p.k.RunUntil(p.k.Now() + sim.Millisecond); err != nil {
			t.Fatal(err)
		}
		if p.k.Now() > 200*sim.Second {
			t.Fatal("dial never completed")
		}
	}
	if derr != nil {
		t.Fatalf("dial: %v", derr)
	}
	return conn
}

// stream keeps c's send buffer full with records of size bytes until stop.
func stream(k *sim.Kernel, c *Conn, r *rec, size int, stop sim.Time) {
	fill := func(c *Conn) {
		for k.Now() < stop && c.Write(Record{Bytes: size}) {
		}
	}
	r.onWr = fill
	fill(c)
}

// same fails t unless got equals want.
func same[T comparable](t testing.TB, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// sameLog fails t unless r's log is want (lines).
func sameLog(t testing.TB, r *rec, want ...string) {
	t.Helper()
	if got := r.String(); got != strings.Join(want, "\n") {
		t.Errorf("%s log:\n%s\nwant:\n%s", r.name, got, strings.Join(want, "\n"))
	}
}
