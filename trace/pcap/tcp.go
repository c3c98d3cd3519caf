package pcap

import "encoding/binary"

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
