package o2ib

import (
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// MsgEvent describes one o2iblnd message as it is posted (ib_post_send of its SEND, or the
// CM private data of a CONNREQ/CONNACK). The pointer is valid during the call only.
type MsgEvent struct {
	Time      sim.Time
	Src, Dst  lnet.NID // ibm_srcnid, ibm_dstnid
	SrcStamp  uint64   // ibm_srcstamp (sender's incarnation)
	DstStamp  uint64   // ibm_dststamp
	Type      MsgType
	Credits   int    // ibm_credits returned with this message
	Nob       int    // ibm_nob: bytes of the message
	Cookie    uint64 // PUT_REQ/GET_REQ: tx cookie; PUT_ACK: source cookie; completions: cookie
	DstCookie uint64 // PUT_ACK: the sink's cookie
	Status    int    // PUT_NAK/PUT_DONE/GET_DONE: bytes or -errno
	RDMAKey   uint32 // PUT_ACK/GET_REQ: the sink's rkey
	RDMANob   int    // PUT_ACK/GET_REQ: the sink's length
	// Hdr is the LNet header carried (IMMEDIATE, PUT_REQ, GET_REQ), else nil.
	Hdr *lnet.Header
	// PayloadLen is the LNet payload carried inline (IMMEDIATE) or announced (PUT_REQ).
	PayloadLen int
	// QueueDepth, MaxFrags and MaxMsgSize are a CONNREQ/CONNACK's kib_connparams.
	QueueDepth, MaxFrags, MaxMsgSize int
	// Wire addressing of a SEND (zero for CONNREQ/CONNACK, which travel as CM MADs): the
	// ports' LIDs, the QP numbers and the index of this work request among those posted on
	// the QP (a stand-in for the PSN).
	SrcLID, DstLID uint16
	SrcQPN, DstQPN uint32
	Seq            uint64
}

// RDMAEvent describes one RDMA WRITE posted (the bulk of a PUT or of an optimized GET's
// REPLY), or with the read variant one RDMA READ.
type RDMAEvent struct {
	Time           sim.Time
	Src, Dst       lnet.NID // the writer and the node written to
	Bytes          int
	RKey           uint32
	Cookie         uint64 // the completion's cookie (the peer's tx)
	SrcLID, DstLID uint16
	SrcQPN, DstQPN uint32
	Seq            uint64 // index of the WRITE among the work requests posted on the QP
	// Read marks an RDMA READ of the read variant (bulkread.go): Src is the reader (the
	// PUT's receiver), Dst the node read from, Cookie the source's PUT_RDREQ cookie.
	Read bool
}

// ConnEvent is a connection life-cycle step: CM progress, rejects, establishment, close.
type ConnEvent struct {
	Time       sim.Time
	Local      lnet.NID
	Peer       lnet.NID
	What       string // "connect", "established", "rejected", "reject", "closed", "reconnect", "failed", "notify_down", ...
	Status     int    // errno or CM status where relevant
	Why        int    // o2iblnd reject reason (Reject*) where relevant
	QueueDepth int
}

// Observer is told of every o2iblnd message posted and every RDMA WRITE, for captures and
// traces. All calls are synchronous; an unset observer costs one nil check per post.
type Observer interface {
	MsgPosted(ev *MsgEvent)
	RDMAPosted(ev *RDMAEvent)
	ConnChange(ev *ConnEvent)
}

// SetObserver installs an observer (nil removes it).
func (l *LND) SetObserver(o Observer) { l.obs = o }

func (l *LND) observePost(c *conn, t *tx) {
	m := &t.msg
	ev := MsgEvent{Time: l.k.Now(), Src: m.srcNID, Dst: m.dstNID, SrcStamp: m.srcStamp, DstStamp: m.dstStamp,
		Type: m.typ, Credits: int(m.credits), Nob: int(m.nob), Cookie: m.cookie, DstCookie: m.dstCookie, Status: int(m.status),
		RDMAKey: m.rd.key, RDMANob: int(m.rd.nob), Seq: c.wrSeq - 1}
	ev.SrcLID, ev.DstLID, ev.SrcQPN, ev.DstQPN = c.addrs()
	switch m.typ {
	case MsgIMMEDIATE, MsgPUT_REQ, MsgGET_REQ, MsgPUT_RDREQ:
		ev.Hdr = &m.hdr
		if m.typ != MsgGET_REQ {
			ev.PayloadLen = m.hdr.PayloadLength
		}
	}
	l.obs.MsgPosted(&ev)
}

func (l *LND) observeConnMsg(m *connMsg) {
	if l.obs == nil {
		return
	}
	l.obs.MsgPosted(&MsgEvent{Time: l.k.Now(), Src: m.srcNID, Dst: m.dstNID, SrcStamp: m.srcStamp,
		DstStamp: m.dstStamp, Type: m.typ, Nob: MsgHdrSize + ConnParamsSize,
		QueueDepth: m.cp.queueDepth, MaxFrags: m.cp.maxFrags, MaxMsgSize: m.cp.maxMsgSize})
}

func (l *LND) connEvent(n *kibNet, peer lnet.NID, what string, status, why, qd int) {
	if l.obs == nil {
		return
	}
	l.obs.ConnChange(&ConnEvent{Time: l.k.Now(), Local: n.ni.NID(), Peer: peer, What: what, Status: status, Why: why, QueueDepth: qd})
}

// addrs returns the conn's LIDs (their low 16 bits, as a packet's LRH holds them) and QP
// numbers.
func (c *conn) addrs() (slid, dlid uint16, sqpn, dqpn uint32) {
	if c.qp == nil || c.qp.Port() == nil {
		return
	}
	a := c.qp.Attr()
	return uint16(c.qp.Port().LID()), uint16(a.DestLID), c.qp.Num(), a.DestQPN
}
