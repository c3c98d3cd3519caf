package ib

import "github.com/lnetsim/lnetsim/sim"

// AsyncEventType is an asynchronous device event (enum ib_event_type).
type AsyncEventType uint8

// Asynchronous events the model raises.
const (
	EventCQErr       AsyncEventType = iota // a CQ overran
	EventQPFatal                           // a QP failed outside any WR (device fatal)
	EventSQDrained                         // a QP in SQD has no sends in flight
	EventDeviceFatal                       // the HCA failed (Faults.HCAFatal)
	EventPortActive                        // a port came up (Faults.LinkUp)
	EventPortErr                           // a port went down (Faults.LinkDown)
	EventCommEst                           // a QP in RTR received its first packet
)

var asyncNames = [...]string{"CQ_ERR", "QP_FATAL", "SQ_DRAINED", "DEVICE_FATAL", "PORT_ACTIVE", "PORT_ERR", "COMM_EST"}

// String returns the name the verbs and CM documentation use.
func (t AsyncEventType) String() string { return asyncNames[t] }

// AsyncEvent is an affiliated or unaffiliated device event (struct ib_event).
type AsyncEvent struct {
	Type AsyncEventType
	HCA  *HCA
	Port int // port number for PORT_ACTIVE/PORT_ERR
	QP   *QP
	CQ   *CQ
}

// AsyncHandler receives device events (the handler of ib_register_event_handler, or
// ibv_get_async_event). It is called from the event loop.
type AsyncHandler interface {
	AsyncEvent(ev AsyncEvent)
}

// RegisterEventHandler adds a device event handler (ib_register_event_handler). Handlers
// are called in registration order. QP and CQ events go to the QP's or CQ's own handler
// instead when it has one (QPInitAttr.EventHandler, CQ.SetEventHandler), as in the verbs.
// A node crash forgets them.
func (h *HCA) RegisterEventHandler(a AsyncHandler) { h.handlers = append(h.handlers, a) }

// pending is a deferred upcall or control-plane message, kept in a slice and named by its
// index in an evPending event (events carry no pointers). The slot holds each kind's fields
// once: an AsyncEvent or a CMEvent is stored as its parts (an id's deferred CM events carry
// no private data or listener), so a slot is 184 bytes, not the 248 of both events whole;
// the connection storm keeps tens of thousands of MADs in flight at once.
type pending struct {
	op   uint8
	kind uint8 // pAsync: AsyncEventType; pCMEvent: CMEventType
	num  int32 // pAsync: AsyncEvent.Port; pCMEvent: CMEvent.Status
	hca  *HCA  // pAsync
	qp   *QP   // pAsync
	cq   *CQ   // pAsync
	id   *CMID // pCMEvent
	port *Port // pPortActive
	msg  cmMsg // pCMMsg
}

const (
	pAsync      = iota // deliver async to the HCA's handlers
	pCMEvent           // deliver cm to its id's handler
	pCMMsg             // a CM MAD reaches its destination
	pPortActive        // a port finishes link training
	pResweep           // the subnet manager recomputes routes
)

// pendBlock is how many pending slots a pendPool block holds (94 KB).
const pendBlock = 512

// pendPool holds the pending slots in fixed blocks, so that its growth never copies: the
// connection storm of a large cluster has tens of thousands of MADs in flight at once, and
// one slice doubling to hold them cost a few percent of its CPU in copies and page faults.
// Freed slots are reused, most recent first.
type pendPool struct {
	blocks []*[pendBlock]pending
	free   []int32
	n      int32 // slots ever handed out
}

// slot returns slot i.
func (pp *pendPool) slot(i int32) *pending { return &pp.blocks[i/pendBlock][i%pendBlock] }

// put stores p in a free slot and returns its index.
func (pp *pendPool) put(p pending) int32 {
	var i int32
	if n := len(pp.free); n > 0 {
		i = pp.free[n-1]
		pp.free = pp.free[:n-1]
	} else {
		i = pp.n
		pp.n++
		if int(i/pendBlock) == len(pp.blocks) {
			pp.blocks = append(pp.blocks, new([pendBlock]pending))
		}
	}
	*pp.slot(i) = p
	return i
}

// take empties slot i and returns what it held.
func (pp *pendPool) take(i int32) pending {
	s := pp.slot(i)
	p := *s
	*s = pending{}
	pp.free = append(pp.free, i)
	return p
}

func (f *Fabric) defer_(after sim.Time, p pending) {
	f.k.After(after, f.hid, evPending, uint64(f.pend.put(p)))
}

func (f *Fabric) runPending(i int32) {
	p := f.pend.take(i)
	switch p.op {
	case pAsync:
		h := p.hca
		if h.node.crashed {
			return
		}
		ev := AsyncEvent{Type: AsyncEventType(p.kind), HCA: h, Port: int(p.num), QP: p.qp, CQ: p.cq}
		if qp := p.qp; qp != nil && qp.init.EventHandler != nil {
			qp.init.EventHandler.AsyncEvent(ev)
			return
		}
		if cq := p.cq; cq != nil && cq.evh != nil {
			cq.evh.AsyncEvent(ev)
			return
		}
		for _, a := range h.handlers {
			a.AsyncEvent(ev)
		}
	case pCMEvent:
		p.id.deliver(CMEvent{Type: CMEventType(p.kind), ID: p.id, Status: int(p.num)})
	case pCMMsg:
		f.cmReceive(p.msg)
	case pPortActive:
		f.portActive(p.port)
	case pResweep:
		f.computeRoutes()
	}
}

// async raises a device event; handlers see it from the event loop, at the current time.
func (f *Fabric) async(ev AsyncEvent) {
	f.defer_(0, pending{op: pAsync, kind: uint8(ev.Type), num: int32(ev.Port), hca: ev.HCA, qp: ev.QP, cq: ev.CQ})
}
