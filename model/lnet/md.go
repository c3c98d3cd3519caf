package lnet

import (
	"errors"

	"github.com/lnetsim/lnetsim/sim"
)

// EventType is an LNet event type (lnet_event_kind): GET 1, PUT 2, REPLY 3, ACK 4, SEND 5,
// UNLINK 6.
type EventType uint8

// LNet event types.
const (
	EventGET    EventType = 1
	EventPUT    EventType = 2
	EventREPLY  EventType = 3
	EventACK    EventType = 4
	EventSEND   EventType = 5
	EventUNLINK EventType = 6
)

var eventNames = [...]string{"?", "GET", "PUT", "REPLY", "ACK", "SEND", "UNLINK"}

// String returns "SEND", "ACK", ...
func (t EventType) String() string {
	if int(t) < len(eventNames) {
		return eventNames[t]
	}
	return "?"
}

// Event is what an MD's handler receives (struct lnet_event). The pointer is only valid
// during the OnEvent call: the node reuses one Event value.
type Event struct {
	Type      EventType // what happened
	Target    NID       // the NID the operation was addressed to
	Initiator NID       // the originator
	Sender    NID       // the previous hop it came from
	Portal    uint32    // portal of the PUT/GET
	MatchBits uint64    // match bits of the PUT/GET (or the ACK's)
	RLength   int       // requested length
	MLength   int       // accepted length
	Offset    int       // offset in the MD
	HdrData   uint64    // the PUT's header data
	Status    int       // 0 or a negative errno
	Unlinked  bool      // the MD is unlinked after this event
	MD        MDHandle  // the MD the event is for
	User      uint64    // the MD's User value
	Time      sim.Time  // when it happened
	MsgType   MsgType   // type of the message that produced it
	Data      any       // LNet's own ping/push buffer content (*PingBuffer), else nil
	// RspTimeout marks the UNLINK caused by response-tracker expiry (a model extension: the
	// kernel's event carries status 0 and no such flag).
	RspTimeout bool
}

// EventHandler receives an MD's events (the MD's event queue / handler).
type EventHandler interface {
	OnEvent(ev *Event)
}

// MDOptions are MD option bits (LNET_MD_*).
type MDOptions uint32

// MD options modelled.
const (
	MD_OP_PUT            MDOptions = 1 << 0 // accept PUTs
	MD_OP_GET            MDOptions = 1 << 1 // accept GETs
	MD_TRUNCATE          MDOptions = 1 << 3 // accept longer messages, truncating
	MD_ACK_DISABLE       MDOptions = 1 << 4 // never send an ACK for PUTs into this MD
	MD_TRACK_RESPONSE    MDOptions = 1 << 10
	MD_NO_TRACK_RESPONSE MDOptions = 1 << 11
)

// ThresholdInf is LNET_MD_THRESH_INF.
const ThresholdInf = -1

// MDSpec describes a memory descriptor (struct lnet_md): a buffer length, the operation
// count after which it unlinks, options and the handler of its events.
type MDSpec struct {
	Length    int          // buffer bytes
	Threshold int          // operations before auto-unlink; ThresholdInf = never
	Options   MDOptions    // MD_* bits
	Handler   EventHandler // receives the MD's events (nil: none)
	User      uint64       // returned in every event (md user_ptr)
}

// MDHandle names an MD (lnet_handle_md). The zero handle names none.
type MDHandle struct {
	idx uint32
	gen uint32
}

// IsZero reports whether h names no MD.
func (h MDHandle) IsZero() bool { return h.gen == 0 }

// MD is a memory descriptor (struct lnet_libmd).
type MD struct {
	spec      MDSpec
	idx, gen  uint32
	threshold int
	refs      int // messages attached
	unlinked  bool
	aborted   bool // unlinked while messages were attached (LNET_MD_FLAG_ABORTED)
	me        *ME
	rspt      rspRef
	// rspStart is when the MD's response tracker was armed (rspt_start); rspTimed holds
	// while that tracker neither expired nor was unlinked and its round trip is still to be
	// recorded (the kernel keeps the tracker on the MD until then; the model detaches it when
	// the response arrives).
	rspStart sim.Time
	rspTimed bool
}

// Handle returns the MD's handle.
func (md *MD) Handle() MDHandle { return MDHandle{md.idx, md.gen} }

func (md *MD) wire() WireHandle { return WireHandle{md.idx, md.gen} }

// MatchSpec is a match entry's criteria (struct lnet_me).
type MatchSpec struct {
	Portal     uint32 // portal index
	Source     NID    // AnyNID = any initiator
	SourcePID  uint32 // LNET_PID_ANY = any
	MatchBits  uint64 // bits to match
	IgnoreBits uint64 // bits ignored in the comparison
}

// ME is a match entry on a portal, with its MD.
type ME struct {
	match MatchSpec
	md    *MD
}

// Errors of the MD/ME API.
var (
	ErrNoMD     = errors.New("lnet: no such MD")
	ErrBusyMD   = errors.New("lnet: MD threshold exhausted")
	ErrNoRoute  = errors.New("lnet: no route to destination")
	ErrShutdown = errors.New("lnet: node is shut down")
)

// allocMD takes an MD from the pool.
func (n *Node) allocMD(spec MDSpec) *MD {
	var md *MD
	if k := len(n.freeMDs); k > 0 {
		md = n.freeMDs[k-1]
		n.freeMDs = n.freeMDs[:k-1]
		idx, gen := md.idx, md.gen
		*md = MD{idx: idx, gen: gen + 1}
	} else {
		md = &MD{idx: uint32(len(n.mds)), gen: 1}
		n.mds = append(n.mds, md)
	}
	md.spec = spec
	md.threshold = spec.Threshold
	return md
}

func (n *Node) lookupMD(idx, gen uint32) *MD {
	if int(idx) >= len(n.mds) {
		return nil
	}
	md := n.mds[idx]
	if md.gen != gen || md.unlinked && md.refs == 0 {
		return nil
	}
	return md
}

// MD returns the live MD named by h, or nil.
func (n *Node) MD(h MDHandle) *MD { return n.lookupMD(h.idx, h.gen) }

// MDBind creates a free-floating MD for an initiator's PUT or GET (models LNetMDBind).
func (n *Node) MDBind(spec MDSpec) MDHandle {
	return n.allocMD(spec).Handle()
}

// MEAttach attaches a match entry with an MD at the end of a portal's list (models LNetMEAttach
// + LNetMDAttach with LNET_INS_AFTER).
func (n *Node) MEAttach(match MatchSpec, spec MDSpec) MDHandle {
	md := n.allocMD(spec)
	me := &ME{match: match, md: md}
	md.me = me
	for int(match.Portal) >= len(n.portals) {
		n.portals = append(n.portals, nil)
	}
	n.portals[match.Portal] = append(n.portals[match.Portal], me)
	return md.Handle()
}

// MDUnlink unlinks an MD (models LNetMDUnlink). With no message attached the handler gets an
// UNLINK event at once; otherwise the MD is aborted and the last detaching message's event
// carries Unlinked (with -ETIMEDOUT if it would have succeeded).
func (n *Node) MDUnlink(h MDHandle) error {
	md := n.MD(h)
	if md == nil || md.unlinked {
		return ErrNoMD
	}
	n.mdUnlink(md, 0)
	return nil
}

// mdUnlink models lnet_md_unlink: detach from its ME, drop the response tracker, and emit the
// UNLINK event (status st) if no message holds the MD.
func (n *Node) mdUnlink(md *MD, st int) {
	if md.unlinked {
		return
	}
	md.unlinked = true
	n.dropRspTracker(md)
	n.detachME(md)
	if md.refs > 0 {
		md.aborted = true
		return
	}
	if md.spec.Handler != nil {
		ev := n.newEvent(EventUNLINK, md)
		ev.Status = st
		ev.Unlinked = true
		ev.RspTimeout = n.rspExpiring
		md.spec.Handler.OnEvent(ev)
	}
	n.releaseMD(md)
}

func (n *Node) detachME(md *MD) {
	me := md.me
	if me == nil {
		return
	}
	md.me = nil
	list := n.portals[me.match.Portal]
	for i, x := range list {
		if x == me {
			n.portals[me.match.Portal] = append(list[:i], list[i+1:]...)
			break
		}
	}
}

func (n *Node) releaseMD(md *MD) {
	md.gen++
	md.spec.Handler = nil
	n.freeMDs = append(n.freeMDs, md)
}

// newEvent fills the node's reusable event for md.
func (n *Node) newEvent(t EventType, md *MD) *Event {
	ev := &n.ev
	*ev = Event{Type: t, MD: md.Handle(), User: md.spec.User, Time: n.k.Now()}
	return ev
}

// attachMD binds msg to md for one operation (models lnet_msg_attach_md).
func (n *Node) attachMD(m *Msg, md *MD) {
	m.md = md
	md.refs++
	if md.threshold > 0 {
		md.threshold--
	}
}

// detachMD releases msg's MD and delivers ev to the MD's handler (models lnet_msg_detach_md
// and lnet_md_unlink on exhaustion). ev may be nil when no event is due; status is the
// message's. Where the kernel lets the response tracker go (the MD unlinks, or has an
// infinite threshold and no message left) a REPLY or ACK records its round trip
// (recordResponse).
func (n *Node) detachMD(m *Msg, ev *Event, status int) {
	md := m.md
	if md == nil {
		return
	}
	m.md = nil
	md.refs--
	if md.rspTimed && md.refs == 0 && (md.threshold == 0 || md.unlinked || md.threshold == ThresholdInf) {
		n.recordResponse(m, md, status)
	}
	if !md.unlinked && md.threshold == 0 && md.refs == 0 {
		md.unlinked = true
		n.detachRspTracker(md)
		n.detachME(md)
	}
	done := md.unlinked && md.refs == 0
	if ev != nil && md.spec.Handler != nil {
		if md.aborted && ev.Status == 0 {
			ev.Status = -ETIMEDOUT
		}
		ev.Unlinked = done
		md.spec.Handler.OnEvent(ev)
	}
	if done {
		n.releaseMD(md)
	}
}

// matchMD finds the first ME on the portal that accepts the message (models
// lnet_mt_match_md / lnet_try_match_md): portal, match bits with ignore bits, source, MD
// operation permission and threshold. It returns the MD and the accepted length.
func (n *Node) matchMD(hdr *Header, op MDOptions) (*MD, int) {
	if int(hdr.Portal) >= len(n.portals) {
		return nil, 0
	}
	for _, me := range n.portals[hdr.Portal] {
		ms := &me.match
		if (ms.MatchBits^hdr.MatchBits)&^ms.IgnoreBits != 0 {
			continue
		}
		if ms.Source != AnyNID && ms.Source != hdr.Src {
			continue
		}
		if ms.SourcePID != LNET_PID_ANY && ms.SourcePID != 0 && ms.SourcePID != hdr.SrcPID {
			continue
		}
		md := me.md
		if md.unlinked || md.threshold == 0 || md.spec.Options&op == 0 {
			continue
		}
		want := hdr.PayloadLength
		if op == MD_OP_GET {
			want = hdr.SinkLen
		}
		mlen := want
		if avail := md.spec.Length - hdr.Offset; mlen > avail {
			if md.spec.Options&MD_TRUNCATE == 0 {
				continue
			}
			mlen = max(avail, 0)
		}
		return md, mlen
	}
	return nil, 0
}
