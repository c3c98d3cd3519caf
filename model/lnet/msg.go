package lnet

import "github.com/lnetsim/lnetsim/sim"

// MsgType is an LNet message type (lnet_msg_type): ACK 0, PUT 1, GET 2, REPLY 3, HELLO 4.
type MsgType uint8

// LNet message types.
const (
	MsgACK   MsgType = 0
	MsgPUT   MsgType = 1
	MsgGET   MsgType = 2
	MsgREPLY MsgType = 3
	MsgHELLO MsgType = 4
)

var msgTypeNames = [...]string{"ACK", "PUT", "GET", "REPLY", "HELLO"}

// String returns "PUT", "ACK", ...
func (t MsgType) String() string {
	if int(t) < len(msgTypeNames) {
		return msgTypeNames[t]
	}
	return "?"
}

// HStatus is a message's health status (enum lnet_msg_hstatus), set by the LND or by LNet.
type HStatus uint8

// Health statuses with the kernel's values.
const (
	LNET_MSG_STATUS_OK              HStatus = iota // 0
	LNET_MSG_STATUS_LOCAL_INTERRUPT                // 1
	LNET_MSG_STATUS_LOCAL_DROPPED                  // 2
	LNET_MSG_STATUS_LOCAL_ABORTED                  // 3
	LNET_MSG_STATUS_LOCAL_NO_ROUTE                 // 4
	LNET_MSG_STATUS_LOCAL_ERROR                    // 5
	LNET_MSG_STATUS_LOCAL_TIMEOUT                  // 6
	LNET_MSG_STATUS_REMOTE_ERROR                   // 7
	LNET_MSG_STATUS_REMOTE_DROPPED                 // 8
	LNET_MSG_STATUS_REMOTE_TIMEOUT                 // 9
	LNET_MSG_STATUS_NETWORK_TIMEOUT                // 10
	NumHStatus                                     // number of statuses
)

var hstatusNames = [...]string{"ok", "local_interrupt", "local_dropped", "local_aborted",
	"local_no_route", "local_error", "local_timeout", "remote_error", "remote_dropped",
	"remote_timeout", "network_timeout"}

// String returns the status as lnetctl and `lctl net_drop -e` spell it ("local_timeout").
func (h HStatus) String() string {
	if int(h) < len(hstatusNames) {
		return hstatusNames[h]
	}
	return "?"
}

// ParseHStatus reads a name written by String.
func ParseHStatus(s string) (HStatus, bool) {
	for i, n := range hstatusNames {
		if n == s {
			return HStatus(i), true
		}
	}
	return 0, false
}

// Errno values used as message and event statuses (negated, as the kernel passes them).
const (
	EIO          = 5
	ENOMEM       = 12
	EINVAL       = 22
	ENOENT       = 2
	ENODATA      = 61
	ENETDOWN     = 100
	ECONNABORTED = 103
	ETIMEDOUT    = 110
	EHOSTUNREACH = 113
	ECANCELED    = 125
	ESHUTDOWN    = 108
	EAGAIN       = 11
	EPROTO       = 71
)

// WireHandle names an MD across the wire (lnet_handle_wire): the ACK/REPLY target.
type WireHandle struct {
	Idx uint32 // MD table index on the node that owns it
	Gen uint32 // generation (stale handles do not match)
}

// IsZero reports whether no MD is named.
func (w WireHandle) IsZero() bool { return w.Gen == 0 }

// Header is the LNet wire header (struct lnet_hdr) an LND carries: what model/o2ib packs into
// its IMMEDIATE/PUT_REQ/GET_REQ messages and hands to Parse on the other side.
type Header struct {
	Type          MsgType // ACK, PUT, GET, REPLY
	Src, Dst      NID     // originator and final destination (routers keep them)
	SrcPID        uint32  // source process id
	DstPID        uint32  // destination process id
	PayloadLength int     // bytes of payload that follow (PUT, REPLY); 0 for ACK and GET

	Portal    uint32     // PUT, GET
	MatchBits uint64     // PUT, GET; for ACK the initiator's match bits
	Offset    int        // PUT, GET: remote offset
	HdrData   uint64     // PUT: out-of-band header data
	WMD       WireHandle // PUT: ACK target (zero = no ACK); GET: return MD; ACK/REPLY: dest MD
	SinkLen   int        // GET: bytes wanted
	MLength   int        // ACK: bytes the target accepted

	// Data is the content of LNet's own small payloads (ping and push buffers, *PingBuffer).
	// An LND carries it from the sending message's header to Parse unchanged; it is nil for
	// every upper-layer message.
	Data any
}

// LNet PIDs.
const (
	LNET_PID_LUSTRE = 12345
	LNET_PID_ANY    = ^uint32(0)
)

// Msg is one LNet message (struct lnet_msg), owned by a Node and recycled through its pool.
// An LND reads Hdr, Len, Type, ReplyExpected/AckExpected, TxNI/TxPeerNI and sets HStatus before
// calling Finalize; it must not keep the pointer after Finalize.
type Msg struct {
	Hdr Header // the LNet header (what goes on the wire)

	node *Node
	idx  int32
	gen  uint32

	status  int32
	retries int32 // resends so far (msg_retry_count)

	txNI     *NI
	txPeerNI *PeerNI
	rxNI     *NI
	rxPeerNI *PeerNI
	from     NID // the hop a received message came from (msg_from)

	srcSpec NID // source NID given to lnet_send, kept for resends
	rtrNID  NID // gateway given to lnet_send (ACK/REPLY), kept for resends
	target  NID // msg_target.nid: the peer NI this attempt goes to

	txCommitted bool
	rxCommitted bool
	peerCredit  bool // holds a peer NI tx credit
	niCredit    bool // holds an NI tx credit
	onActive    bool
	recovery    bool // msg_recovery: a recovery ping
	noResend    bool // msg_no_resend
	sending     bool // handed to the LND
	resending   bool // sitting on the resend queue
	ackPending  bool // a received PUT whose ACK is still to be sent
	isResponse  bool // ACK or REPLY
	delayed     bool // held by a delay rule
	rdmaReq     bool // received as an LND RDMA request (o2ib PUT_REQ/GET_REQ)
	delayedRx   bool // held by a delay rule on the receive path
	routing     bool // msg_routing: being forwarded by this node (a router)
	targetIsRtr bool // msg_target_is_router: this hop goes to a gateway

	forwarded     bool // a routed message handed to lnet_send after its receive
	peerRtrCredit bool // holds a router credit of its rx peer NI (msg_peerrtrcredit)
	rtrQueued     bool // waiting on an rtrq or rbp_msgs
	rtrPool       int8 // router buffer pool index + 1 (msg_rtrcredit), 0 if none
	txCPT         int8 // msg_tx_cpt: the CPT whose NI tx queue it takes a credit from
	// LND-facing hstatus set before Finalize(status != 0).
	HStatus HStatus
	// The event this message delivers when it detaches from its MD (lnet_build_msg_event):
	// its type here, with the flags (Msg is then 384 bytes, six whole lines, not the 416
	// size class), its fields in ev.
	evType      EventType
	rtrDeadline sim.Time // deadline when it arrived on this router (expiry policy)

	tStart   sim.Time // msg_t_start: when the message was last committed for sending
	deadline sim.Time
	start    sim.Time

	md      *MD // bound MD (initiator) or matched MD (target), nil if none
	private any // the LND's private for a received message

	// Trace bookkeeping.
	id uint64

	ev    evInfo
	rxLen int // payload bytes received (recv_length)
}

// evInfo keeps the fields of a target-side event that the header loses when a received GET
// is turned into its REPLY, or a PUT into its ACK.
type evInfo struct {
	initiator NID
	target    NID
	sender    NID
	portal    uint32
	matchBits uint64
	rlen      int
	mlen      int
	offset    int
	hdrData   uint64
	data      any
}

// Type returns the message's type.
func (m *Msg) Type() MsgType { return m.Hdr.Type }

// Len returns the payload length to transfer.
func (m *Msg) Len() int { return m.Hdr.PayloadLength }

// ID returns the message's trace id (unique within a node, increasing).
func (m *Msg) ID() uint64 { return m.id }

// TxNI returns the local NI chosen for this send attempt (nil on a received message).
func (m *Msg) TxNI() *NI { return m.txNI }

// TxPeerNI returns the peer NI (next hop) of this send attempt.
func (m *Msg) TxPeerNI() *PeerNI { return m.txPeerNI }

// Target returns the next-hop NID of this send attempt.
func (m *Msg) Target() NID { return m.target }

// ReplyExpected reports whether a GET expects a REPLY (o2ib's GET_REQ handshake decision).
func (m *Msg) ReplyExpected() bool { return m.Hdr.Type == MsgGET }

// AckExpected reports whether a PUT asked for an ACK.
func (m *Msg) AckExpected() bool { return m.Hdr.Type == MsgPUT && !m.Hdr.WMD.IsZero() }

// Deadline returns the message deadline of the current attempt (msg_deadline).
func (m *Msg) Deadline() sim.Time { return m.deadline }

// Node returns the node that owns the message.
func (m *Msg) Node() *Node { return m.node }

// Private returns the LND private passed to Parse for a received message.
func (m *Msg) Private() any { return m.private }

// Routing reports msg_routing: the message is being forwarded by this node (it is not the
// final destination). o2iblnd sends such a GET IMMEDIATE (kiblnd_send).
func (m *Msg) Routing() bool { return m.routing }

// TargetIsRouter reports msg_target_is_router: this send attempt goes to a gateway, not to
// the final destination. o2iblnd sends such a GET IMMEDIATE (kiblnd_send).
func (m *Msg) TargetIsRouter() bool { return m.targetIsRtr }

// Retries returns how many resends the message has had.
func (m *Msg) Retries() int { return int(m.retries) }

// MsgRef names a message across events: the table index and generation. The zero MsgRef
// names nothing.
type MsgRef uint64

// Ref returns a reference for events (stale once the message is freed).
func (m *Msg) Ref() MsgRef { return MsgRef(uint64(m.gen)<<32 | uint64(uint32(m.idx))) }

// allocMsg takes a message from the node's pool (models lnet_msg_alloc).
func (n *Node) allocMsg() *Msg {
	var m *Msg
	if k := len(n.freeMsgs); k > 0 {
		m = n.freeMsgs[k-1]
		n.freeMsgs = n.freeMsgs[:k-1]
		idx, gen := m.idx, m.gen
		*m = Msg{}
		m.idx, m.gen = idx, gen+1
	} else {
		m = &Msg{idx: int32(len(n.msgs)), gen: 1}
		n.msgs = append(n.msgs, m)
	}
	m.node = n
	n.nextMsgID++
	m.id = n.nextMsgID
	n.stats.MsgsAlloc++
	if n.stats.MsgsAlloc > n.stats.MsgsMax {
		n.stats.MsgsMax = n.stats.MsgsAlloc
	}
	return m
}

// freeMsg returns a message to the pool (models lnet_msg_free).
func (n *Node) freeMsg(m *Msg) {
	n.checkFreeMsg(m)
	m.gen++
	m.md = nil
	m.private = nil
	m.Hdr.Data = nil
	m.ev.data = nil
	n.stats.MsgsAlloc--
	n.freeMsgs = append(n.freeMsgs, m)
}

// lookupMsg returns the live message named by ref, or nil if it has been freed since.
func (n *Node) lookupMsg(ref MsgRef) *Msg {
	idx := int(uint32(ref))
	if idx >= len(n.msgs) {
		return nil
	}
	m := n.msgs[idx]
	if m.gen != uint32(ref>>32) {
		return nil
	}
	return m
}
