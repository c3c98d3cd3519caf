package lnet

// AckReq says whether a PUT wants an ACK (lnet_ack_req).
type AckReq bool

// ACK request values.
const (
	AckReqNone AckReq = false // LNET_NOACK_REQ
	AckReqAck  AckReq = true  // LNET_ACK_REQ
)

// Reserved portal and match bits of LNet's own ping and push (LNET_RESERVED_PORTAL,
// LNET_PROTO_PING_MATCHBITS).
const (
	ReservedPortal = 0
	PingMatchBits  = uint64(0x8000000000000000)
)

// LNET_MTU is the largest PUT/REPLY payload.
const LNET_MTU = 1 << 20

// tracked reports whether a response tracker is attached for a message type (models
// lnet_response_tracking_enabled): MD options override the global response_tracking.
func (n *Node) tracked(t MsgType, opts MDOptions) bool {
	if opts&MD_NO_TRACK_RESPONSE != 0 {
		return false
	}
	if opts&MD_TRACK_RESPONSE != 0 {
		return true
	}
	switch t {
	case MsgGET:
		return n.tun.ResponseTracking&1 != 0
	case MsgPUT:
		return n.tun.ResponseTracking&2 != 0
	}
	return false
}

// Put starts a PUT of md's contents to target (models LNetPut). self is the source NID to
// send from, or AnyNID to let selection choose. The SEND event (and the ACK event if ack)
// report the outcome; Put itself only fails for a bad MD.
func (n *Node) Put(self NID, mdh MDHandle, ack AckReq, target NID, portal uint32, matchBits uint64, offset int, hdrData uint64) error {
	md := n.MD(mdh)
	if md == nil || md.unlinked || md.threshold == 0 {
		return ErrNoMD
	}
	if n.shutdown {
		return ErrShutdown
	}
	m := n.allocMsg()
	m.start = n.k.Now()
	h := &m.Hdr
	h.Type = MsgPUT
	h.Dst = target
	h.DstPID = LNET_PID_LUSTRE
	h.SrcPID = LNET_PID_LUSTRE
	h.PayloadLength = md.spec.Length
	h.Portal = portal
	h.MatchBits = matchBits
	h.Offset = offset
	h.HdrData = hdrData
	n.attachMD(m, md)
	m.evType = EventSEND
	if ack {
		h.WMD = md.wire()
		if n.tracked(MsgPUT, md.spec.Options) {
			n.attachRspTracker(md)
		}
	}
	if rc := n.send(self, m, AnyNID); rc != 0 {
		n.dropRspTracker(md)
		n.finalize(m, rc)
	}
	return nil
}

// Get starts a GET into md from target (models LNetGet). The SEND event reports the request,
// the REPLY event the data.
func (n *Node) Get(self NID, mdh MDHandle, target NID, portal uint32, matchBits uint64, offset int) error {
	md := n.MD(mdh)
	if md == nil || md.unlinked || md.threshold == 0 {
		return ErrNoMD
	}
	if n.shutdown {
		return ErrShutdown
	}
	n.get(self, md, target, portal, matchBits, offset, false)
	return nil
}

func (n *Node) get(self NID, md *MD, target NID, portal uint32, matchBits uint64, offset int, recovery bool) *Msg {
	m := n.allocMsg()
	m.start = n.k.Now()
	m.recovery = recovery
	h := &m.Hdr
	h.Type = MsgGET
	h.Dst = target
	h.DstPID = LNET_PID_LUSTRE
	h.SrcPID = LNET_PID_LUSTRE
	h.Portal = portal
	h.MatchBits = matchBits
	h.Offset = offset
	h.SinkLen = md.spec.Length
	h.WMD = md.wire()
	n.attachMD(m, md)
	m.evType = EventSEND
	if n.tracked(MsgGET, md.spec.Options) {
		n.attachRspTracker(md)
	}
	if rc := n.send(self, m, AnyNID); rc != 0 {
		n.dropRspTracker(md)
		n.finalize(m, rc)
	}
	return m
}
