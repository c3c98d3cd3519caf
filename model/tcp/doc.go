// Package tcp models TCP/IPv4 over Ethernet for lnetsim's socklnd: hosts with IPv4
// addresses attached by Ethernet links to switches (rate, latency, MTU, per-port buffers
// that drop on overflow) and TCP connections whose behaviour follows Linux: the three-way
// handshake with SYN retries, retransmission timeouts per RFC 6298 with Linux's bounds and
// tcp_retries2 give-up, SACK and RACK loss detection with fast recovery and tail loss
// probes, CUBIC congestion control in its TCP-friendly region, RST from a peer that
// rebooted, FIN on close, keepalive probes and send and receive buffers that block the
// sender. It runs on a sim.Kernel and imports nothing above it.
//
// Every upcall (Handler, the accept and dial callbacks) is a plain method call made from
// inside one of the network's event handlers, never from inside the call that caused it:
// Dial, Write, Close and the faults only schedule events.
//
// # Building a network
//
//	k := sim.New(seed)
//	n := tcp.New(k, tcp.Config{})
//	hosts, err := n.SingleSwitch([]string{"c1", "oss1"},
//		tcp.LinkSpec{Rate: 10 * tcp.Gbps, Latency: 500 * sim.Nanosecond},
//		netip.MustParseAddr("192.168.1.1")) // addresses 192.168.1.1, 192.168.1.2
//
// LeafSpineHosts builds a two-tier leaf-spine fabric (AddLeafSpine its switches and
// trunks alone). AddHost, AddSwitch, Attach (a host interface with an address, on a link
// to a switch) and Trunk (a link between two switches) build anything else. Frames follow
// a path of fewest switch hops over the trunks that are up; among equal ones each switch
// picks per flow by a hash of the 5-tuple (ECMP), and routes change as soon as a trunk goes
// down or up (routing.go).
//
// # Connections
//
// The socket is a byte stream; the application writes records: a byte count and an opaque
// payload (a socklnd message header, say). Bytes are not stored; a record is handed to the
// receiver's Handler.Data once all its bytes have arrived in order.
//
//	oss.Listen(988, tcp.Options{}, func(c *tcp.Conn) { c.SetHandler(srv) })
//	c1.Dial(netip.AddrPortFrom(c1ip, 1023), netip.AddrPortFrom(ossip, 988), tcp.Options{},
//		func(c *tcp.Conn, err error) {
//			// err: nil, ErrConnRefused (RST to the SYN), ErrTimedOut (SYN retries spent),
//			// ErrAddrInUse (the local port is taken)
//			c.SetHandler(cli)
//			c.Write(tcp.Record{Bytes: 4096, Payload: msg}) // false: send buffer full, wait
//		})                                              // for Handler.Writable
//
// A connection ends by Close (FIN after the queued data; the peer sees io.EOF), Abort (RST;
// the peer sees ErrConnReset) or an error its Handler.Closed reports: ErrConnReset (RST
// from the peer, e.g. after it rebooted), ErrTimedOut (retransmissions or keepalive probes
// unanswered).
//
// Conn.Progress tells how far the stream has moved at chunk granularity (bytes read and
// acknowledged, and when), for a caller whose timeouts follow bytes rather than records.
//
// # Faults
//
// Link.Down/Up, Link.SetLoss, Link.SetExtraDelay, Host.Crash and Host.Restart take effect
// at the kernel's current time. A crashed host is silent; a restarted host has no
// connections or listeners and answers segments of its old connections with RST.
//
// ARCHITECTURE.md ("TCP/Ethernet model") describes the granularity of data movement (chunks
// of segments, as model/ib moves chunks of packets) and the model's known simplifications.
package tcp
