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
