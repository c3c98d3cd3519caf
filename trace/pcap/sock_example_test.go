package pcap_test

import (
	"bytes"
	"fmt"
	"net/netip"

	"github.com/lnetsim/lnetsim/sim"
	"github.com/lnetsim/lnetsim/trace/pcap"
)

// A socklnd wire observer needs one call per record: the first record on a socket opens the
// connection (handshake), a message header brings its payload length with it.
func ExampleSockStreams() {
	var buf bytes.Buffer
	w, _ := pcap.NewWriter(&buf, pcap.LinkRoCE)
	s, _ := pcap.NewSockStreams(w)
	cli, srv := netip.MustParseAddrPort("192.168.1.1:1023"), netip.MustParseAddrPort("192.168.1.2:988")
	cn := pcap.NID8(cli.Addr().As4(), 0, pcap.LNDTypeSock)
	sn := pcap.NID8(srv.Addr().As4(), 0, pcap.LNDTypeSock)

	_ = s.Write(0, cli, srv, pcap.AppendConnReq(nil, sn), 16) // SYN, SYN-ACK, ACK, request
	_ = s.Hello(0, cli, srv, &pcap.SockHello{SrcNID: cn, DstNID: sn, SrcPID: 12345, DstPID: 12345})
	_ = s.Hello(sim.Microsecond, srv, cli, &pcap.SockHello{SrcNID: sn, DstNID: cn, SrcPID: 12345, DstPID: 12345})
	put := pcap.KsockMsg{Hdr: pcap.LNetHdr{DestNID: sn, SrcNID: cn, Type: pcap.LNetPut, PayloadLength: 65536, Portal: 4}}
	_ = s.Msg(2*sim.Microsecond, cli, srv, &put, 65536) // 96 + 65536 bytes: 45 segments
	_ = s.Close(10*sim.Microsecond, cli, srv)
	_ = w.Flush()
	fmt.Println(w.Packets(), "frames,", buf.Len(), "bytes")
	// Output: 53 frames, 3974 bytes
}
