package pcap

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net/netip"
	"sort"

	"github.com/lnetsim/lnetsim/sim"
)

// Socklnd wire constants of the HELLO and the acceptor request (lnet-idl.h, socklnd-idl.h).
const (
	SockProtoMagic      = 0x45726963 // LNET_PROTO_MAGIC: V2+ HELLO
	SockProtoV3         = 3          // KSOCK_PROTO_V3
	AcceptorMagic       = 0xacce7100 // LNET_PROTO_ACCEPTOR_MAGIC
	AcceptorVersion     = 1          // LNET_PROTO_ACCEPTOR_VERSION (8-byte NID)
	sockHelloSize       = 56         // struct ksock_hello_msg_nid4 without the IP list
	defaultSockMSS      = 1460       // a 1500-byte IP MTU less the IPv4 and TCP headers
	maxSockMSS          = 65481      // the largest segment whose frame fits the 65535-byte snap length
	sockWindowScale     = 7          // advertised in SYNs: a 65535 window means 8 MiB
	tcpFIN, tcpSYN      = 0x01, 0x02
	tcpRST, tcpPSH      = 0x04, 0x08
	tcpACK              = 0x10
	tcpHdrLen, tcpOptSz = 20, 8 // options of a SYN: MSS, NOP, window scale
)

// Socklnd connection types (SOCKLND_CONN_*), as a HELLO carries them.
const (
	SockConnAny     = 0
	SockConnControl = 1
	SockConnBulkIn  = 2
	SockConnBulkOut = 3
)

// SockHello is a V2/V3 socklnd HELLO (struct ksock_hello_msg_nid4): NIDs in the 8-byte wire
// form (NID8 with LNDTypeSock).
type SockHello struct {
	Version                        uint32 // KSOCK_PROTO_V2 or V3; 0 means V3
	SrcNID, DstNID                 uint64
	SrcPID, DstPID                 uint32
	SrcIncarnation, DstIncarnation uint64
	CType                          uint32 // SockConn*
	IPs                            []uint32
}

// AppendTo appends the HELLO as ksocknal_send_hello_v2 writes it (little-endian, as an x86
// host sends it): 56 bytes, then 4 per listed IP (every current kernel lists none).
func (h *SockHello) AppendTo(b []byte) []byte {
	v := h.Version
	if v == 0 {
		v = SockProtoV3
	}
	le := binary.LittleEndian
	b = le.AppendUint32(b, SockProtoMagic)
	b = le.AppendUint32(b, v)
	b = le.AppendUint64(b, h.SrcNID)
	b = le.AppendUint64(b, h.DstNID)
	b = le.AppendUint32(b, h.SrcPID)
	b = le.AppendUint32(b, h.DstPID)
	b = le.AppendUint64(b, h.SrcIncarnation)
	b = le.AppendUint64(b, h.DstIncarnation)
	b = le.AppendUint32(b, h.CType)
	b = le.AppendUint32(b, uint32(len(h.IPs)))
	for _, ip := range h.IPs {
		b = le.AppendUint32(b, ip)
	}
	return b
}

// AppendConnReq appends the 16-byte lnet_acceptor_connreq the active side sends first on a
// socket to port 988: the acceptor magic, version 1 and the NID it wants to reach.
func AppendConnReq(b []byte, target uint64) []byte {
	b = binary.LittleEndian.AppendUint32(b, AcceptorMagic)
	b = binary.LittleEndian.AppendUint32(b, AcceptorVersion)
	return binary.LittleEndian.AppendUint64(b, target)
}

// SockStreams writes socklnd sockets as TCP streams into a pcap (LinkRoCE) capture: per
// connection the three-way handshake, then the bytes socklnd writes cut into segments of at
// most MSS bytes with their sequence and acknowledgement numbers, PSH on the last segment of
// each record, FIN on close and RST on abort. Wireshark's LNet dissector (TCP port 988)
// decodes the NOOPs and LNet messages; the acceptor request and HELLOs are captured too,
// which it leaves undecoded.
//
// Which payload bytes are captured follows what the dissector checks: a PUT's payload is
// counted in its segments' lengths but not captured (the dissector hands it to the portal's
// Lustre subdissector, and a frame cut short is not flagged); any other message's payload
// (a REPLY's) is captured in full, as zeros, because the dissector flags a message whose
// captured length differs from its headers plus payload length.
//
// What it does not show: the network's own behaviour (no retransmissions, duplicate or
// pure ACKs, window updates or losses: every byte appears once, at the time socklnd wrote
// it, and each segment acknowledges everything the peer wrote before). Both initial
// sequence numbers are 0; checksums are not computed.
type SockStreams struct {
	// MSS is the largest TCP payload of a segment: default 1460 (a 1500-byte MTU), 8960 for
	// 9000-byte jumbo frames. A capture on a sending host with TCP segmentation offload shows
	// segments of up to 64 KiB; MSS takes values up to 65481 (a whole frame within the
	// capture's 65535-byte snap length), larger ones count as 65481.
	MSS int

	w     *Writer
	conns map[sockKey]*sockConn
	hdr   []byte // a frame's record and protocol headers
	msg   []byte // a message's captured bytes
}

type sockKey struct{ client, server netip.AddrPort }

type sockConn struct {
	key    sockKey
	nxt    [2]uint32 // next sequence number from client (0) and server (1)
	closed [2]bool   // FIN sent by client, server
}

// ErrNotIPv4 is returned for an address the capture cannot carry.
var ErrNotIPv4 = errors.New("pcap: socklnd capture needs IPv4 addresses")

// NewSockStreams returns a SockStreams writing into w, which must be a LinkRoCE capture.
func NewSockStreams(w *Writer) (*SockStreams, error) {
	if w.link != LinkRoCE {
		return nil, fmt.Errorf("pcap: TCP streams need the roce (Ethernet) capture link")
	}
	return &SockStreams{w: w, conns: map[sockKey]*sockConn{}}, nil
}

func (s *SockStreams) mss() int {
	if s.MSS <= 0 {
		return defaultSockMSS
	}
	return min(s.MSS, maxSockMSS)
}

// find returns the connection between a and b and the side a is on (0 client, 1 server).
func (s *SockStreams) find(a, b netip.AddrPort) (*sockConn, int) {
	if c := s.conns[sockKey{a, b}]; c != nil {
		return c, 0
	}
	if c := s.conns[sockKey{b, a}]; c != nil {
		return c, 1
	}
	return nil, 0
}

// Open writes the three-way handshake of a connection from client to server at t (SYN,
// SYN-ACK and ACK, each advertising the MSS and a window scale of 7). A connection still
// open between the same ends is forgotten first, as a reused port would be.
func (s *SockStreams) Open(t sim.Time, client, server netip.AddrPort) error {
	return s.OpenAt(t, t, t, client, server)
}

// OpenAt is Open with the three segments at their own times: the SYN at syn, the SYN-ACK at
// synAck and the client's ACK at ack.
func (s *SockStreams) OpenAt(syn, synAck, ack sim.Time, client, server netip.AddrPort) error {
	if !client.Addr().Is4() || !server.Addr().Is4() {
		return ErrNotIPv4
	}
	if c, _ := s.find(client, server); c != nil {
		delete(s.conns, c.key)
	}
	c := &sockConn{key: sockKey{client, server}, nxt: [2]uint32{1, 1}}
	s.conns[c.key] = c
	opts := s.synOptions()
	if err := s.frame(syn, client, server, 0, 0, tcpSYN, opts, nil, 0); err != nil {
		return err
	}
	if err := s.frame(synAck, server, client, 0, 1, tcpSYN|tcpACK, opts, nil, 0); err != nil {
		return err
	}
	return s.frame(ack, client, server, 1, 1, tcpACK, nil, nil, 0)
}

func (s *SockStreams) synOptions() []byte {
	o := []byte{2, 4, 0, 0, 1, 3, 3, sockWindowScale}
	binary.BigEndian.PutUint16(o[2:], uint16(s.mss()))
	return o
}

// conn returns the connection src writes on, opening it (src the client unless src's port
// is 988) when the capture has not seen it.
func (s *SockStreams) conn(t sim.Time, src, dst netip.AddrPort) (*sockConn, int, error) {
	if c, side := s.find(src, dst); c != nil {
		return c, side, nil
	}
	client, server := src, dst
	if src.Port() == LNetTCPPort && dst.Port() != LNetTCPPort {
		client, server = dst, src
	}
	if err := s.Open(t, client, server); err != nil {
		return nil, 0, err
	}
	c, side := s.find(src, dst)
	return c, side, nil
}

// Write appends n bytes written by src on its socket to dst at t: the first len(hdr) are
// hdr (captured), the rest payload (counted, not captured). They go out in segments of at
// most MSS bytes, PSH on the last. An unseen connection is opened first (Open), the side on
// port 988 the server.
func (s *SockStreams) Write(t sim.Time, src, dst netip.AddrPort, hdr []byte, n int) error {
	n = max(n, len(hdr))
	c, side, err := s.conn(t, src, dst)
	if err != nil {
		return err
	}
	mss := s.mss()
	for off := 0; off < n; off += mss {
		end := min(off+mss, n)
		b := hdr[min(off, len(hdr)):min(end, len(hdr))]
		flags := uint8(tcpACK)
		if end == n {
			flags |= tcpPSH
		}
		if err := s.frame(t, src, dst, c.nxt[side], c.nxt[1-side], flags, nil, b, end-off); err != nil {
			return err
		}
		c.nxt[side] += uint32(end - off)
	}
	return nil
}

// Hello writes h as src's HELLO on its socket to dst.
func (s *SockStreams) Hello(t sim.Time, src, dst netip.AddrPort, h *SockHello) error {
	hdr := h.AppendTo(nil)
	return s.Write(t, src, dst, hdr, len(hdr))
}

// Msg writes m (a ksock_msg: a NOOP, or an LNet header) and its payload of n bytes, captured
// as zeros unless m is a PUT (see SockStreams).
func (s *SockStreams) Msg(t sim.Time, src, dst netip.AddrPort, m *KsockMsg, n int) error {
	return s.MsgData(t, src, dst, m, nil, n)
}

// MsgData is Msg for a payload whose first bytes are known (LNet's ping and push buffers):
// data is captured, a PUT's included, and the rest of the n bytes as Msg treats them. Stock
// Wireshark flags a push (a PUT to portal 0 with its buffer) Malformed, as it does over
// o2ib; lnet_ping.lua (PingDissector) decodes it.
func (s *SockStreams) MsgData(t sim.Time, src, dst netip.AddrPort, m *KsockMsg, data []byte, n int) error {
	hdr := append(m.AppendTo(s.msg[:0]), data...)
	s.msg = hdr
	rest := max(n-len(data), 0)
	if !m.Noop && m.Hdr.Type != LNetPut {
		hdr = append(hdr, make([]byte, rest)...)
		rest = 0
	}
	return s.Write(t, src, dst, hdr, len(hdr)+rest)
}

// Close writes src's FIN (with ACK) on its connection to dst and dst's ACK of it; once both
// sides have closed the connection is forgotten. Closing an unseen connection writes nothing.
func (s *SockStreams) Close(t sim.Time, src, dst netip.AddrPort) error {
	c, side := s.find(src, dst)
	if c == nil || c.closed[side] {
		return nil
	}
	if err := s.frame(t, src, dst, c.nxt[side], c.nxt[1-side], tcpFIN|tcpACK, nil, nil, 0); err != nil {
		return err
	}
	c.nxt[side]++
	c.closed[side] = true
	if err := s.frame(t, dst, src, c.nxt[1-side], c.nxt[side], tcpACK, nil, nil, 0); err != nil {
		return err
	}
	if c.closed[1-side] {
		delete(s.conns, c.key)
	}
	return nil
}

// Abort writes an RST from src on its connection to dst (a socket closed with data unread,
// or a peer that lost the connection's state) and forgets the connection.
func (s *SockStreams) Abort(t sim.Time, src, dst netip.AddrPort) error {
	c, side := s.find(src, dst)
	if c == nil {
		return nil
	}
	delete(s.conns, c.key)
	return s.frame(t, src, dst, c.nxt[side], c.nxt[1-side], tcpRST|tcpACK, nil, nil, 0)
}

// OpenConns returns the connections the capture holds open, client then server, sorted.
func (s *SockStreams) OpenConns() [][2]netip.AddrPort {
	out := make([][2]netip.AddrPort, 0, len(s.conns))
	for k := range s.conns {
		out = append(out, [2]netip.AddrPort{k.client, k.server})
	}
	sort.Slice(out, func(i, j int) bool {
		if c := out[i][0].Compare(out[j][0]); c != 0 {
			return c < 0
		}
		return out[i][1].Compare(out[j][1]) < 0
	})
	return out
}

// frame writes one Ethernet/IPv4/TCP frame: data is what is captured of the segment's wireLen
// payload bytes.
func (s *SockStreams) frame(t sim.Time, src, dst netip.AddrPort, seq, ack uint32, flags uint8, opts, data []byte, wireLen int) error {
	if t < 0 {
		return ErrNegativeTime
	}
	const ethLen, ipLen = 14, 20
	tcpLen := tcpHdrLen + len(opts)
	frameLen := ethLen + ipLen + tcpLen
	if frameLen+len(data) > snapLen {
		return fmt.Errorf("pcap: TCP frame of %d bytes exceeds the snapshot length %d", frameLen+len(data), snapLen)
	}
	// One reused buffer holds the record header and the frame's headers: no allocation.
	if cap(s.hdr) < 16+frameLen {
		s.hdr = make([]byte, 16+ethLen+ipLen+tcpHdrLen+tcpOptSz)
	}
	rec := s.hdr[:16+frameLen]
	clear(rec)
	binary.LittleEndian.PutUint32(rec[0:], uint32(t/sim.Second))
	binary.LittleEndian.PutUint32(rec[4:], uint32(t%sim.Second))
	binary.LittleEndian.PutUint32(rec[8:], uint32(frameLen+len(data)))
	binary.LittleEndian.PutUint32(rec[12:], uint32(frameLen+wireLen))
	h := rec[16:]
	sip, dip := src.Addr().As4(), dst.Addr().As4()
	h[0], h[1] = 0x02, 0x00
	copy(h[2:6], dip[:])
	h[6], h[7] = 0x02, 0x00
	copy(h[8:12], sip[:])
	binary.BigEndian.PutUint16(h[12:], 0x0800)
	ip := h[ethLen:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[2:], uint16(ipLen+tcpLen+wireLen))
	ip[6] = 0x40 // don't fragment
	ip[8] = 64
	ip[9] = 6 // TCP
	copy(ip[12:16], sip[:])
	copy(ip[16:20], dip[:])
	binary.BigEndian.PutUint16(ip[10:], ipChecksum(ip[:ipLen]))
	tcp := h[ethLen+ipLen:]
	binary.BigEndian.PutUint16(tcp[0:], src.Port())
	binary.BigEndian.PutUint16(tcp[2:], dst.Port())
	binary.BigEndian.PutUint32(tcp[4:], seq)
	if flags&tcpACK != 0 {
		binary.BigEndian.PutUint32(tcp[8:], ack)
	}
	tcp[12] = uint8(tcpLen/4) << 4
	tcp[13] = flags
	binary.BigEndian.PutUint16(tcp[14:], 0xffff) // window (scaled by 7 after the SYNs)
	copy(tcp[tcpHdrLen:], opts)
	if _, err := s.w.w.Write(rec); err != nil {
		return err
	}
	if _, err := s.w.w.Write(data); err != nil {
		return err
	}
	s.w.n++
	return nil
}
