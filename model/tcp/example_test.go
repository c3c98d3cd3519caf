package tcp_test

import (
	"fmt"
	"net/netip"

	"github.com/lnetsim/lnetsim/model/tcp"
	"github.com/lnetsim/lnetsim/sim"
)

// printer is a Handler that prints what it receives.
type printer struct {
	k    *sim.Kernel
	name string
}

func (p printer) Data(c *tcp.Conn, r tcp.Record) {
	fmt.Printf("%s %s: %d bytes %v\n", p.k.Now(), p.name, r.Bytes, r.Payload)
}
func (p printer) Writable(*tcp.Conn) {}
func (p printer) Closed(c *tcp.Conn, err error) {
	fmt.Printf("%s %s: closed: %v\n", p.k.Now(), p.name, err)
}

// Two hosts on one 25 Gb/s switch: a server listening on 988 (socklnd's port), a client
// connecting from a reserved port, writing a header record and a 1 MiB payload record,
// then closing.
func Example() {
	k := sim.New(1)
	n := tcp.New(k, tcp.Config{})
	hosts, err := n.SingleSwitch([]string{"c1", "oss1"},
		tcp.LinkSpec{Rate: 25 * tcp.Gbps, Latency: 500 * sim.Nanosecond},
		netip.MustParseAddr("192.168.1.1"))
	if err != nil {
		panic(err)
	}
	c1, oss := hosts[0], hosts[1]
	oss.Listen(988, tcp.Options{}, func(c *tcp.Conn) {
		fmt.Printf("%s oss1: accepted %s\n", k.Now(), c.RemoteAddr())
		c.SetHandler(printer{k, "oss1"})
	})
	src := netip.AddrPortFrom(c1.Addrs()[0], 1023)
	dst := netip.AddrPortFrom(oss.Addrs()[0], 988)
	c1.Dial(src, dst, tcp.Options{}, func(c *tcp.Conn, err error) {
		fmt.Printf("%s c1: connected: %v\n", k.Now(), err)
		c.SetHandler(printer{k, "c1"})
		c.Write(tcp.Record{Bytes: 96, Payload: "PUT header"})
		c.Write(tcp.Record{Bytes: 1 << 20, Payload: "PUT payload"})
		c.Close()
	})
	if err := k.Run(); err != nil {
		panic(err)
	}
	// Output:
	// 4.12us c1: connected: <nil>
	// 6.18us oss1: accepted 192.168.1.1:1023
	// 6.238us oss1: 96 bytes PUT header
	// 378.116us oss1: 1048576 bytes PUT payload
	// 378.116us oss1: closed: EOF
}
