package o2ib

import (
	"encoding/binary"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// MsgType is an o2iblnd wire message type (ibm_type).
type MsgType uint8

// o2iblnd message types with the kernel's values (o2iblnd-idl.h).
const (
	MsgCONNREQ   MsgType = 0xc0 // connection request (CM private data)
	MsgCONNACK   MsgType = 0xc1 // connection acknowledgement (CM private data)
	MsgNOOP      MsgType = 0xd0 // returns credits / keepalive
	MsgIMMEDIATE MsgType = 0xd1 // LNet header + payload inline
	MsgPUT_REQ   MsgType = 0xd2 // LNet header + source cookie
	MsgPUT_NAK   MsgType = 0xd3 // completion: the sink wants nothing or failed
	MsgPUT_ACK   MsgType = 0xd4 // the sink's RDMA descriptor + both cookies
	MsgPUT_DONE  MsgType = 0xd5 // completion after the RDMA WRITE
	MsgGET_REQ   MsgType = 0xd6 // LNet header + cookie + sink RDMA descriptor
	MsgGET_DONE  MsgType = 0xd7 // completion after the RDMA WRITE of the reply
)

// Message types of the RDMA READ bulk variant (bulkread.go), not in the kernel. They are
// numbered outside o2iblnd's ranges (0xc0-0xc1 connection, 0xd0-0xd7 data), and their
// kib_msg header carries VariantMagic instead of MsgMagic: a kernel peer's
// kiblnd_unpack_msg refuses them (bad magic) and Wireshark's o2iblnd dissector does not
// claim them (it shows them as undissected data) rather than reading them as o2iblnd
// messages they are not. The rest of the header is o2iblnd's.
//
//	PUT_RDREQ   kib_msg header (48) + LNet header (72) + source cookie (8) + the source's
//	            kib_rdma_desc (rd_key, rd_nfrags, one fragment: 8 + 12) = 148 bytes; the
//	            PUT_REQ body with the descriptor a GET_REQ carries for its sink
//	PUT_RDDONE  kib_msg header (48) + kib_completion_msg (cookie 8, status 4) = 60 bytes;
//	            the source cookie and the bytes pulled, 0 (nothing wanted) or -errno
const (
	MsgPUT_RDREQ  MsgType = 0xe0 // LNet header + source cookie + source RDMA descriptor
	MsgPUT_RDDONE MsgType = 0xe1 // completion after the receiver's RDMA READ

	// VariantMagic is ibm_magic of the variant's messages: IBLND_MSG_MAGIC with its last
	// byte changed, neither it nor its byte swap.
	VariantMagic = 0x0be91bee
)

// Magic returns the ibm_magic a message of type t carries.
func (t MsgType) Magic() uint32 {
	if t == MsgPUT_RDREQ || t == MsgPUT_RDDONE {
		return VariantMagic
	}
	return MsgMagic
}

// String returns the kernel's name without the IBLND_MSG_ prefix.
func (t MsgType) String() string {
	switch t {
	case MsgCONNREQ:
		return "CONNREQ"
	case MsgCONNACK:
		return "CONNACK"
	case MsgNOOP:
		return "NOOP"
	case MsgIMMEDIATE:
		return "IMMEDIATE"
	case MsgPUT_REQ:
		return "PUT_REQ"
	case MsgPUT_NAK:
		return "PUT_NAK"
	case MsgPUT_ACK:
		return "PUT_ACK"
	case MsgPUT_DONE:
		return "PUT_DONE"
	case MsgGET_REQ:
		return "GET_REQ"
	case MsgGET_DONE:
		return "GET_DONE"
	case MsgPUT_RDREQ:
		return "PUT_RDREQ"
	case MsgPUT_RDDONE:
		return "PUT_RDDONE"
	}
	return "?"
}

// Protocol constants (o2iblnd.h, o2iblnd-idl.h).
const (
	msgSize      = 4 << 10 // IBLND_MSG_SIZE: every rx buffer and the largest message
	maxRDMAFrags = 256     // IBLND_MAX_RDMA_FRAGS (LNET_MAX_IOV)
	oobMsgs      = 2       // IBLND_OOB_MSGS(v2): NOOPs in flight
	// MaxImmediate is the largest payload an IMMEDIATE carries.
	MaxImmediate = msgSize - MsgHdrSize - LNetHdrSize
)

// Wire layout of an o2iblnd message (o2iblnd-idl.h): the one description the model's sizes,
// the capture writer (trace/pcap) and the runner's ideal-backend overhead all use.
const (
	MsgMagic         = 0x0be91b91 // IBLND_MSG_MAGIC, ibm_magic at offset 0
	MsgVersion       = 0x12       // IBLND_MSG_VERSION (v2, OOB NOOPs), ibm_version at offset 4
	MsgHdrSize       = 48         // struct kib_msg up to ibm_u
	LNetHdrSize      = 72         // struct lnet_hdr_nid4: 32 bytes of addresses and type, then the union
	LNetHdrUnionSize = 40         // lnet_hdr_nid4's msg union (its largest member, the PUT)
	RDMADescHdrSize  = 8          // struct kib_rdma_desc before its fragments (rd_key, rd_nfrags)
	RDMAFragSize     = 12         // struct kib_rdma_frag (rf_nob, rf_addr)
	ComplSize        = 12         // struct kib_completion_msg
	ConnParamsSize   = 8          // struct kib_connparams
	RejSize          = 24         // struct kib_rej

	// rdSize is a kib_rdma_desc with one fragment (the model maps one region).
	rdSize = RDMADescHdrSize + RDMAFragSize
)

// Connection reject reasons (ibr_why) with the kernel's values.
const (
	RejectConnRace     = 1 // IBLND_REJECT_CONN_RACE
	RejectNoResources  = 2 // IBLND_REJECT_NO_RESOURCES
	RejectFatal        = 3 // IBLND_REJECT_FATAL
	RejectConnUncompat = 4 // IBLND_REJECT_CONN_UNCOMPAT
	RejectConnStale    = 5 // IBLND_REJECT_CONN_STALE
	RejectRDMAFrags    = 6 // IBLND_REJECT_RDMA_FRAGS
	RejectMsgQueueSize = 7 // IBLND_REJECT_MSG_QUEUE_SIZE
	RejectInvalidSrvID = 8 // IBLND_REJECT_INVALID_SRV_ID
	RejectEarly        = 9 // IBLND_REJECT_EARLY
)

var rejectNames = [...]string{"", "conn_race", "no_resources", "fatal", "conn_uncompat", "conn_stale",
	"rdma_frags", "msg_queue_size", "invalid_srv_id", "early"}

// RejectName names a reject reason.
func RejectName(why int) string {
	if why > 0 && why < len(rejectNames) {
		return rejectNames[why]
	}
	return "?"
}

// rdmaDesc is a kib_rdma_desc reduced to one region: the rkey and the byte count (rf_nob,
// 32 bits as on the wire).
type rdmaDesc struct {
	key uint32
	nob int32
}

// wireMsg is one o2iblnd message (struct kib_msg): the header every message carries and the
// union of the per-type bodies. The IB model moves byte counts, so the content of a SEND
// travels beside it (see conn.rxWire) while its size (nob) is what crosses the fabric. The
// counts are 32 bits, as the kernel's are on the wire, which makes the message 192 bytes:
// three whole cache lines in Go's 192-byte size class (at 216 bytes the 224 class straddled
// four or five).
type wireMsg struct {
	next     *wireMsg // the next SEND in flight to the same conn (see wireRing), beside nob: a receive reads both
	typ      MsgType
	credits  int32 // ibm_credits: credits returned to the receiver
	nob      int32 // ibm_nob: bytes on the wire
	status   int32 // completions (ibm_u.completion.ibcm_status): bytes or -errno
	srcNID   lnet.NID
	dstNID   lnet.NID
	srcStamp uint64
	dstStamp uint64

	hdr       lnet.Header // IMMEDIATE, PUT_REQ, GET_REQ
	cookie    uint64      // PUT_REQ/GET_REQ: sender's cookie; PUT_ACK: src cookie; completions: cookie
	dstCookie uint64      // PUT_ACK: the sink's cookie
	rd        rdmaDesc    // PUT_ACK, GET_REQ, PUT_RDREQ (the source)
}

// initMsg models kiblnd_init_tx_msg's sizing: the message's wire length by type.
func msgNob(t MsgType, payload int) int {
	switch t {
	case MsgIMMEDIATE:
		return MsgHdrSize + LNetHdrSize + payload
	case MsgPUT_REQ:
		return MsgHdrSize + LNetHdrSize + 8
	case MsgGET_REQ, MsgPUT_RDREQ:
		return MsgHdrSize + LNetHdrSize + 8 + rdSize
	case MsgPUT_ACK:
		return MsgHdrSize + 16 + rdSize
	case MsgPUT_NAK, MsgPUT_DONE, MsgGET_DONE, MsgPUT_RDDONE:
		return MsgHdrSize + ComplSize
	case MsgCONNREQ, MsgCONNACK:
		return MsgHdrSize + ConnParamsSize
	}
	return MsgHdrSize
}

// connParams is struct kib_connparams.
type connParams struct {
	queueDepth int
	maxFrags   int
	maxMsgSize int
}

// put packs the parameters at the start of b (connParSize bytes, little-endian as the
// kernel's struct kib_connparams is sent: queue depth, max frags, max message size).
func (cp connParams) put(b []byte) {
	le := binary.LittleEndian
	le.PutUint16(b[0:], uint16(cp.queueDepth))
	le.PutUint16(b[2:], uint16(cp.maxFrags))
	le.PutUint32(b[4:], uint32(cp.maxMsgSize))
}

// getConnParams unpacks what put packed at the start of b.
func getConnParams(b []byte) connParams {
	le := binary.LittleEndian
	return connParams{int(le.Uint16(b[0:])), int(le.Uint16(b[2:])), int(le.Uint32(b[4:]))}
}

// connMsg is a CONNREQ/CONNACK: the kib_msg header and kib_connparams, packed into the CM
// private data (56 bytes, exactly the IB CM REQ's limit).
type connMsg struct {
	typ      MsgType
	version  uint16
	srcNID   lnet.NID
	dstNID   lnet.NID
	srcStamp uint64
	dstStamp uint64
	cp       connParams
}

// pack models kiblnd_pack_msg for a connection message, into buf: the result is buf's
// slice, valid until the next pack into it (rdma_connect and rdma_accept copy it).
func (m *connMsg) pack(buf *[MsgHdrSize + ConnParamsSize]byte) []byte {
	b := buf[:]
	le := binary.LittleEndian
	le.PutUint32(b[0:], MsgMagic)
	le.PutUint16(b[4:], m.version)
	b[6] = byte(m.typ)
	le.PutUint32(b[8:], uint32(len(b)))
	le.PutUint64(b[16:], uint64(m.srcNID))
	le.PutUint64(b[24:], m.srcStamp)
	le.PutUint64(b[32:], uint64(m.dstNID))
	le.PutUint64(b[40:], m.dstStamp)
	m.cp.put(b[MsgHdrSize:])
	return b
}

// unpackConnMsg models kiblnd_unpack_msg for a connection message.
func unpackConnMsg(b []byte) (connMsg, bool) {
	var m connMsg
	le := binary.LittleEndian
	if len(b) < MsgHdrSize+ConnParamsSize || le.Uint32(b[0:]) != MsgMagic {
		return m, false
	}
	m.version = le.Uint16(b[4:])
	m.typ = MsgType(b[6])
	m.srcNID = lnet.NID(le.Uint64(b[16:]))
	m.srcStamp = le.Uint64(b[24:])
	m.dstNID = lnet.NID(le.Uint64(b[32:]))
	m.dstStamp = le.Uint64(b[40:])
	m.cp = getConnParams(b[MsgHdrSize:])
	return m, true
}

// rejMsg is struct kib_rej: the private data of a consumer-defined CM reject.
type rejMsg struct {
	version     uint16
	why         int
	incarnation uint64
	cp          connParams
}

func (r *rejMsg) pack() []byte {
	b := make([]byte, RejSize)
	le := binary.LittleEndian
	le.PutUint32(b[0:], MsgMagic)
	le.PutUint16(b[4:], r.version)
	b[6] = byte(r.why)
	le.PutUint64(b[8:], r.incarnation)
	r.cp.put(b[16:])
	return b
}

func unpackRej(b []byte) (rejMsg, bool) {
	var r rejMsg
	le := binary.LittleEndian
	if len(b) < RejSize || le.Uint32(b[0:]) != MsgMagic {
		return r, false
	}
	r.version = le.Uint16(b[4:])
	r.why = int(b[6])
	r.incarnation = le.Uint64(b[8:])
	r.cp = getConnParams(b[16:])
	return r, true
}
