package pcap

import (
	"encoding/binary"
	"fmt"

	"github.com/lnetsim/lnetsim/sim"
)

// Socklnd wire constants for captures (model/socklnd names them too).
const (
	// LNDTypeSock is socklnd's LND number in an 8-byte NID.
	LNDTypeSock = 2
	// LNetTCPPort is the acceptor port socklnd connects to; Wireshark's LNet dissector
	// decodes TCP on it.
	LNetTCPPort  = 988
	ksockMsgLNet = 0xc1
	ksockMsgNoop = 0xc0
)

// TCPSegment is one TCP segment to capture: Payload holds the captured bytes (headers);
// Len is the TCP payload length the segment had on the wire (at least len(Payload)), so a
// bulk payload is counted but not captured.
type TCPSegment struct {
	Time             sim.Time
	SrcIP, DstIP     [4]byte
	SrcPort, DstPort uint16
	Seq, Ack         uint32
	Payload          []byte
	Len              int
}

// KsockMsg is a socklnd message header (struct ksock_msg_hdr, 24 bytes, little-endian as x86
// hosts send it) followed, for an LNet message, by its LNet header.
type KsockMsg struct {
	Noop    bool
	Cookies [2]uint64
	Hdr     LNetHdr
}

// AppendTo appends the message's wire form: 24 bytes for a NOOP, 96 for an LNet message.
func (m *KsockMsg) AppendTo(b []byte) []byte {
	typ := uint32(ksockMsgLNet)
	if m.Noop {
		typ = ksockMsgNoop
	}
	b = binary.LittleEndian.AppendUint32(b, typ)
	b = binary.LittleEndian.AppendUint32(b, 0) // checksum: none
	b = binary.LittleEndian.AppendUint64(b, m.Cookies[0])
	b = binary.LittleEndian.AppendUint64(b, m.Cookies[1])
	if !m.Noop {
		b = m.Hdr.AppendTo(b)
	}
	return b
}

// WriteTCP appends s as an Ethernet/IPv4/TCP frame (ACK|PSH) to a pcap (LinkRoCE) capture.
// The record's original length counts the whole segment; only the headers and s.Payload are
// captured. A segment longer than IPv4 allows is recorded with an IP total length of 65535.
func (pw *Writer) WriteTCP(s *TCPSegment) error {
	if s.Time < 0 {
		return ErrNegativeTime
	}
	if pw.link != LinkRoCE {
		return fmt.Errorf("pcap: TCP segments need the roce (Ethernet) capture link")
	}
	const ethLen, ipLen, tcpLen = 14, 20, 20
	var h [ethLen + ipLen + tcpLen]byte
	h[0], h[1] = 0x02, 0x00
	copy(h[2:6], s.DstIP[:])
	h[6], h[7] = 0x02, 0x00
	copy(h[8:12], s.SrcIP[:])
	binary.BigEndian.PutUint16(h[12:], 0x0800)
	ip := h[ethLen:]
	ip[0] = 0x45
	wireLen := max(s.Len, len(s.Payload))
	binary.BigEndian.PutUint16(ip[2:], uint16(min(ipLen+tcpLen+wireLen, 0xffff)))
	ip[6] = 0x40
	ip[8] = 64
	ip[9] = 6 // TCP
	copy(ip[12:16], s.SrcIP[:])
	copy(ip[16:20], s.DstIP[:])
	binary.BigEndian.PutUint16(ip[10:], ipChecksum(ip[:ipLen]))
	tcp := h[ethLen+ipLen:]
	binary.BigEndian.PutUint16(tcp[0:], s.SrcPort)
	binary.BigEndian.PutUint16(tcp[2:], s.DstPort)
	binary.BigEndian.PutUint32(tcp[4:], s.Seq)
	binary.BigEndian.PutUint32(tcp[8:], s.Ack)
	tcp[12] = 5 << 4                             // data offset: 5 words
	tcp[13] = 0x18                               // ACK, PSH
	binary.BigEndian.PutUint16(tcp[14:], 0xffff) // window
	capLen := len(h) + len(s.Payload)
	origLen := len(h) + wireLen
	var rec [16]byte
	binary.LittleEndian.PutUint32(rec[0:], uint32(s.Time/sim.Second))
	binary.LittleEndian.PutUint32(rec[4:], uint32(s.Time%sim.Second))
	binary.LittleEndian.PutUint32(rec[8:], uint32(capLen))
	binary.LittleEndian.PutUint32(rec[12:], uint32(origLen))
	if err := pw.writeAll(rec[:], h[:], s.Payload); err != nil {
		return err
	}
	pw.n++
	return nil
}
