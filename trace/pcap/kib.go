package pcap

import (
	"encoding/binary"

	"github.com/lnetsim/lnetsim/model/o2ib"
)

// The kib_msg layout (magic, version, header and body sizes) and message types are
// model/o2ib's; the dissector knows versions 0x11 and 0x12 only.

// LNDTypeO2IB is o2iblnd's LND number in an 8-byte NID.
const LNDTypeO2IB = 5

// LNet message types in the LNet header.
const (
	LNetAck   uint32 = 0
	LNetPut   uint32 = 1
	LNetGet   uint32 = 2
	LNetReply uint32 = 3
	LNetHello uint32 = 4
)

// NID8 packs a NID in the 8-byte wire form the dissector decodes: the IPv4 address as a
// 32-bit integer, the net number and the LND type.
func NID8(ip [4]byte, netNum uint16, lnd uint16) uint64 {
	addr := uint64(binary.BigEndian.Uint32(ip[:]))
	return addr | uint64(netNum)<<32 | uint64(lnd)<<48
}

// WireHandle is an lnet_handle_wire: the cookies naming an MD on the peer.
type WireHandle struct {
	Interface, Object uint64
}

// LNetHdr is the LNet header carried by IMMEDIATE, PUT_REQ and GET_REQ messages. Fields that
// do not apply to Type are ignored.
type LNetHdr struct {
	DestNID, SrcNID uint64
	DestPID, SrcPID uint32
	Type            uint32 // LNetAck ... LNetHello
	PayloadLength   uint32
	MD              WireHandle // ACK: dst_wmd; PUT: ack_wmd; GET: return_wmd; REPLY: dst_wmd
	MatchBits       uint64
	HdrData         uint64 // PUT
	Portal          uint32 // PUT, GET
	Offset          uint32 // PUT offset, GET src_offset
	SinkLength      uint32 // GET
	MLength         uint32 // ACK
}

// AppendTo appends the 72-byte wire form of h to b.
func (h *LNetHdr) AppendTo(b []byte) []byte { return h.appendTo(b, true) }

// appendTo appends h; pad selects whether the message union is padded to its 40-byte size.
func (h *LNetHdr) appendTo(b []byte, pad bool) []byte {
	b = binary.LittleEndian.AppendUint64(b, h.DestNID)
	b = binary.LittleEndian.AppendUint64(b, h.SrcNID)
	b = binary.LittleEndian.AppendUint32(b, h.DestPID)
	b = binary.LittleEndian.AppendUint32(b, h.SrcPID)
	b = binary.LittleEndian.AppendUint32(b, h.Type)
	b = binary.LittleEndian.AppendUint32(b, h.PayloadLength)
	start := len(b)
	switch h.Type {
	case LNetAck:
		b = h.MD.appendTo(b)
		b = binary.LittleEndian.AppendUint64(b, h.MatchBits)
		b = binary.LittleEndian.AppendUint32(b, h.MLength)
	case LNetPut:
		b = h.MD.appendTo(b)
		b = binary.LittleEndian.AppendUint64(b, h.MatchBits)
		b = binary.LittleEndian.AppendUint64(b, h.HdrData)
		b = binary.LittleEndian.AppendUint32(b, h.Portal)
		b = binary.LittleEndian.AppendUint32(b, h.Offset)
	case LNetGet:
		b = h.MD.appendTo(b)
		b = binary.LittleEndian.AppendUint64(b, h.MatchBits)
		b = binary.LittleEndian.AppendUint32(b, h.Portal)
		b = binary.LittleEndian.AppendUint32(b, h.Offset)
		b = binary.LittleEndian.AppendUint32(b, h.SinkLength)
	case LNetReply:
		b = h.MD.appendTo(b)
	}
	// The union is always 40 bytes on the wire; a short one is flagged malformed.
	for pad && len(b)-start < o2ib.LNetHdrUnionSize {
		b = append(b, 0)
	}
	return b
}

func (w WireHandle) appendTo(b []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, w.Interface)
	return binary.LittleEndian.AppendUint64(b, w.Object)
}

// RDMAFrag is one fragment of an RDMA descriptor.
type RDMAFrag struct {
	Nob  uint32
	Addr uint64
}

// RDMADesc is a kib_rdma_desc: a memory key and its fragments.
type RDMADesc struct {
	Key   uint32
	Frags []RDMAFrag
}

func (d *RDMADesc) appendTo(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, d.Key)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(d.Frags)))
	for _, f := range d.Frags {
		b = binary.LittleEndian.AppendUint32(b, f.Nob)
		b = binary.LittleEndian.AppendUint64(b, f.Addr)
	}
	return b
}

// ConnParams are the connection parameters of CONNREQ/CONNACK.
type ConnParams struct {
	QueueDepth, MaxFrags uint16
	MaxMsgSize           uint32
}

// KibMsg is one o2iblnd message. Which fields are encoded depends on Type.
type KibMsg struct {
	Type               o2ib.MsgType
	Credits            uint8 // credits returned to the peer (ibm_credits)
	SrcNID, DstNID     uint64
	SrcStamp, DstStamp uint64 // incarnation stamps

	Hdr        LNetHdr    // IMMEDIATE, PUT_REQ, GET_REQ, PUT_RDREQ
	Payload    []byte     // IMMEDIATE: inline payload (the model carries lengths, so zeros)
	Cookie     uint64     // PUT_REQ, GET_REQ, PUT_NAK/DONE, GET_DONE; PUT_ACK's source cookie
	DstCookie  uint64     // PUT_ACK
	Status     int32      // PUT_NAK, PUT_DONE, GET_DONE, PUT_RDDONE
	RDMA       RDMADesc   // PUT_ACK, GET_REQ, PUT_RDREQ (the source)
	ConnParams ConnParams // CONNREQ, CONNACK
}

// AppendTo appends the wire form of m to b; the header's nob covers the whole message.
//
// Wireshark's LNet dissector hands an inline PUT payload to the subdissector registered for
// the PUT's portal (only Lustre's ptlrpc portals have one) and flags the packet Malformed when
// none consumes it: an IMMEDIATE PUT with a payload to another portal (LNet's discovery
// pushes, on portal 0) therefore carries that expert note, as it would in a capture of real
// o2iblnd traffic; lnet_ping.lua (PingDissector) consumes portal 0's ping buffers. Recording
// the payload truncated does not help: the InfiniBand dissector then skips the whole payload
// ("Invalid Packet Length"). Other messages decode cleanly.
func (m *KibMsg) AppendTo(b []byte) []byte {
	start := len(b)
	b = binary.LittleEndian.AppendUint32(b, m.Type.Magic())
	b = binary.LittleEndian.AppendUint16(b, o2ib.MsgVersion)
	b = append(b, uint8(m.Type), m.Credits)
	nobAt := len(b)
	b = binary.LittleEndian.AppendUint32(b, 0) // nob, patched below
	b = binary.LittleEndian.AppendUint32(b, 0) // cksum: unused
	b = binary.LittleEndian.AppendUint64(b, m.SrcNID)
	b = binary.LittleEndian.AppendUint64(b, m.SrcStamp)
	b = binary.LittleEndian.AppendUint64(b, m.DstNID)
	b = binary.LittleEndian.AppendUint64(b, m.DstStamp)
	switch m.Type {
	case o2ib.MsgCONNREQ, o2ib.MsgCONNACK:
		b = binary.LittleEndian.AppendUint16(b, m.ConnParams.QueueDepth)
		b = binary.LittleEndian.AppendUint16(b, m.ConnParams.MaxFrags)
		b = binary.LittleEndian.AppendUint32(b, m.ConnParams.MaxMsgSize)
	case o2ib.MsgIMMEDIATE:
		b = m.Hdr.AppendTo(b)
		b = append(b, m.Payload...)
	case o2ib.MsgPUT_REQ:
		b = m.Hdr.AppendTo(b)
		b = binary.LittleEndian.AppendUint64(b, m.Cookie)
	case o2ib.MsgGET_REQ:
		// Deliberate deviation: the kernel pads the GET union to 40 bytes here too, but
		// Wireshark's LNet dissector (4.0) reads the cookie right after the 36-byte GET body,
		// so the capture omits those 4 bytes to decode cleanly.
		b = m.Hdr.appendTo(b, false)
		b = binary.LittleEndian.AppendUint64(b, m.Cookie)
		b = m.RDMA.appendTo(b)
	case o2ib.MsgPUT_ACK:
		b = binary.LittleEndian.AppendUint64(b, m.Cookie)
		b = binary.LittleEndian.AppendUint64(b, m.DstCookie)
		b = m.RDMA.appendTo(b)
	case o2ib.MsgPUT_NAK, o2ib.MsgPUT_DONE, o2ib.MsgGET_DONE, o2ib.MsgPUT_RDDONE:
		b = binary.LittleEndian.AppendUint64(b, m.Cookie)
		b = binary.LittleEndian.AppendUint32(b, uint32(m.Status))
	case o2ib.MsgPUT_RDREQ:
		// The read variant's request (not in the kernel): a PUT_REQ body and the source's
		// descriptor. It and PUT_RDDONE carry o2ib.VariantMagic, so Wireshark's o2iblnd
		// dissector leaves them as data rather than misreading them.
		b = m.Hdr.AppendTo(b)
		b = binary.LittleEndian.AppendUint64(b, m.Cookie)
		b = m.RDMA.appendTo(b)
	}
	binary.LittleEndian.PutUint32(b[nobAt:], uint32(len(b)-start))
	return b
}

// LNet ping buffer (struct lnet_ping_info) constants.
const (
	PingMagic           = 0x70696e67 // LNET_PROTO_PING_MAGIC, "ping"
	PingFeatNIStatus    = 1 << 1     // LNET_PING_FEAT_NI_STATUS
	PingFeatRteDisabled = 1 << 2     // LNET_PING_FEAT_RTE_DISABLED
	PingFeatMultiRail   = 1 << 3     // LNET_PING_FEAT_MULTI_RAIL
	PingFeatDiscovery   = 1 << 4     // LNET_PING_FEAT_DISCOVERY
	PingFeatMetadata    = 1 << 7     // LNET_PING_FEAT_METADATA (2.17)
	PingPortal          = 0          // LNET_RESERVED_PORTAL: pings and discovery pushes
)

// PingNI is one struct lnet_ni_status: an 8-byte NID and the status its node advertises
// (LNET_NI_STATUS_UP 0x15aac0de or LNET_NI_STATUS_DOWN 0xdeadface).
type PingNI struct {
	NID    uint64
	Status uint32
}

// PingInfo is a struct lnet_ping_info: what a node answers a ping with and pushes to its
// peers when its NIs change (discovery push).
type PingInfo struct {
	Features uint32 // PingFeat* bits
	PID      uint32
	NIs      []PingNI
	// Metadata lists the NIDs with an entry of NID metadata (struct lnet_nid_metadata) after
	// the NIs; with PingFeatMetadata set. Each entry's 32 bytes of LND data carry the test
	// pattern (0x5a) CFS_FAIL_TEST_PING_MD writes, the only metadata lnetsim has.
	Metadata []uint64
}

// Len is the wire size of p: a 16-byte header, 16 bytes per NI and, with metadata, its
// 4-byte count and 40 bytes per entry.
func (p *PingInfo) Len() int {
	n := 16 + 16*len(p.NIs)
	if len(p.Metadata) > 0 {
		n += 4 + 40*len(p.Metadata)
	}
	return n
}

// AppendTo appends the wire form of p (little-endian, as an x86 kernel sends it; receivers
// swab by the magic) to b. ns_msg_size (ns_unused before Lustre 2.15) is written as 0.
func (p *PingInfo) AppendTo(b []byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, PingMagic)
	b = binary.LittleEndian.AppendUint32(b, p.Features)
	b = binary.LittleEndian.AppendUint32(b, p.PID)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(p.NIs)))
	for _, ni := range p.NIs {
		b = binary.LittleEndian.AppendUint64(b, ni.NID)
		b = binary.LittleEndian.AppendUint32(b, ni.Status)
		b = binary.LittleEndian.AppendUint32(b, 0)
	}
	if len(p.Metadata) > 0 {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(p.Metadata)))
		for _, nid := range p.Metadata {
			b = binary.LittleEndian.AppendUint64(b, nid)
			for range 32 {
				b = append(b, 0x5a)
			}
		}
	}
	return b
}
