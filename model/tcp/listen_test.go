package tcp_test

import (
	"errors"
	"fmt"
	"net/netip"
	"testing"

	"github.com/lnetsim/lnetsim/model/tcp"
	"github.com/lnetsim/lnetsim/sim"
)

// TestListenAddr: a server with two addresses. A socket bound to one address accepts only
// connections to it (the other is refused with RST); beside a socket bound to every address
// on the same port, a connection to the bound address goes to the bound socket and one to
// the other address to the wildcard one; ss -ltn's view lists both, the wildcard as
// 0.0.0.0; UnlistenAddr closes the bound one only.
func TestListenAddr(t *testing.T) {
	k := sim.New(1)
	n := tcp.New(k, tcp.Config{})
	sw := n.AddSwitch("sw")
	spec := tcp.LinkSpec{Rate: 25 * tcp.Gbps, Latency: 500 * sim.Nanosecond}
	cli, srv := n.AddHost("c"), n.AddHost("s")
	a1, b1, b2 := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("10.1.0.2")
	for _, x := range []struct {
		h *tcp.Host
		a netip.Addr
	}{{cli, a1}, {srv, b1}, {srv, b2}} {
		if _, err := n.Attach(x.h, x.a, sw, spec); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	accept := func(name string) func(*tcp.Conn) {
		return func(c *tcp.Conn) { got = append(got, name+" accepted "+c.LocalAddr().String()) }
	}
	port := uint16(1000)
	dial := func(dst netip.Addr) {
		port++
		cli.Dial(netip.AddrPortFrom(a1, port), netip.AddrPortFrom(dst, 988), tcp.Options{}, func(c *tcp.Conn, err error) {
			if errors.Is(err, tcp.ErrConnRefused) {
				got = append(got, "refused "+dst.String())
			}
		})
		if err := k.RunUntil(k.Now() + sim.Millisecond); err != nil {
			t.Fatal(err)
		}
	}
	srv.ListenAddr(b2, 988, tcp.Options{}, accept("bound"))
	dial(b2)
	dial(b1)
	srv.Listen(988, tcp.Options{}, accept("any"))
	dial(b2)
	dial(b1)
	listening := fmt.Sprint(srv.Listening())
	srv.UnlistenAddr(b2, 988)
	after := fmt.Sprint(srv.Listening())
	want := "[bound accepted 10.1.0.2:988 refused 10.0.0.2 bound accepted 10.1.0.2:988 any accepted 10.0.0.2:988]"
	if fmt.Sprint(got) != want {
		t.Errorf("got %v\nwant %s", got, want)
	}
	if listening != "[10.1.0.2:988 0.0.0.0:988]" || after != "[0.0.0.0:988]" {
		t.Errorf("listening %s, then %s", listening, after)
	}
}

// TestCheckBind: a client with a listener on port 1023 and a connection from 1023 to one
// server's 988. Without reuse the port is taken for every destination (EADDRINUSE); with
// SO_REUSEADDR only the listener makes it taken (EADDRINUSE) and, on a port no listener
// holds, only the same destination (EADDRNOTAVAIL); with SO_REUSEPORT the listener does not
// count either. Dial fails with what CheckBind reports, and succeeds where it reports nil.
func TestCheckBind(t *testing.T) {
	k := sim.New(1)
	n := tcp.New(k, tcp.Config{})
	sw := n.AddSwitch("sw")
	spec := tcp.LinkSpec{Rate: 25 * tcp.Gbps, Latency: 500 * sim.Nanosecond}
	cli, s1, s2 := n.AddHost("c"), n.AddHost("s1"), n.AddHost("s2")
	a, b1, b2 := netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("10.0.0.2"), netip.MustParseAddr("10.0.0.3")
	for _, x := range []struct {
		h *tcp.Host
		a netip.Addr
	}{{cli, a}, {s1, b1}, {s2, b2}} {
		if _, err := n.Attach(x.h, x.a, sw, spec); err != nil {
			t.Fatal(err)
		}
	}
	s1.Listen(988, tcp.Options{}, func(*tcp.Conn) {})
	s2.Listen(988, tcp.Options{}, func(*tcp.Conn) {})
	var dialErr error
	dial := func(port uint16, dst netip.Addr, opt tcp.Options) error {
		dialErr = errors.New("no callback")
		cli.Dial(netip.AddrPortFrom(a, port), netip.AddrPortFrom(dst, 988), opt, func(_ *tcp.Conn, err error) { dialErr = err })
		if err := k.RunUntil(k.Now() + sim.Millisecond); err != nil {
			t.Fatal(err)
		}
		return dialErr
	}
	if err := dial(1022, b1, tcp.Options{}); err != nil {
		t.Fatal(err)
	}
	cli.Listen(1023, tcp.Options{}, func(*tcp.Conn) {})
	none, addr, port := tcp.Options{}, tcp.Options{Reuse: tcp.ReuseAddr}, tcp.Options{Reuse: tcp.ReusePort}
	for _, c := range []struct {
		port uint16
		dst  netip.Addr
		opt  tcp.Options
		want error
	}{
		{1022, b2, none, tcp.ErrAddrInUse},    // the connection to s1 holds the port
		{1023, b2, none, tcp.ErrAddrInUse},    // the listener holds it
		{1023, b2, addr, tcp.ErrAddrInUse},    // SO_REUSEADDR: still the listener's
		{1022, b1, addr, tcp.ErrAddrNotAvail}, // the same four-tuple exists
		{1022, b1, port, tcp.ErrAddrNotAvail},
		{1022, b2, addr, nil}, // another destination shares the port
		{1023, b2, port, nil}, // SO_REUSEPORT shares the listener's port
	} {
		src := netip.AddrPortFrom(a, c.port)
		if got := cli.CheckBind(src, netip.AddrPortFrom(c.dst, 988), c.opt); !errors.Is(got, c.want) && got != c.want {
			t.Errorf("CheckBind %v -> %v reuse %d: %v, want %v", src, c.dst, c.opt.Reuse, got, c.want)
		}
		if c.want != nil {
			if got := dial(c.port, c.dst, c.opt); !errors.Is(got, c.want) {
				t.Errorf("Dial %v -> %v reuse %d: %v, want %v", src, c.dst, c.opt.Reuse, got, c.want)
			}
		}
	}
	if err := dial(1022, b2, addr); err != nil {
		t.Errorf("Dial 1022 -> s2 with SO_REUSEADDR: %v", err)
	}
	if got := fmt.Sprint(cli.Established()); got != "[[10.0.0.1:1022 10.0.0.2:988] [10.0.0.1:1022 10.0.0.3:988]]" {
		t.Errorf("established %s", got)
	}
}
