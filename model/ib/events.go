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
// index in an evPending event (events carry no pointers).
type pending struct {
	op    uint8
	async AsyncEvent
	cm    CMEvent
	msg   cmMsg
	port  *Port
}

const (
	pAsync      = iota // deliver async to the HCA's handlers
	pCMEvent           // deliver cm to its id's handler
	pCMMsg             // a CM MAD reaches its destination
	pPortActive        // a port finishes link training
	pResweep           // the subnet manager recomputes routes
)

func (f *Fabric) defer_(after sim.Time, p pending) {
	var i int32
	if n := len(f.freeP); n > 0 {
		i = f.freeP[n-1]
		f.freeP = f.freeP[:n-1]
		f.pend[i] = p
	} else {
		f.pend = append(f.pend, p)
		i = int32(len(f.pend) - 1)
	}
	f.k.After(after, f.hid, evPending, uint64(i))
}

func (f *Fabric) runPending(i int32) {
	p := f.pend[i]
	f.pend[i] = pending{}
	f.freeP = append(f.freeP, i)
	switch p.op {
	case pAsync:
		h := p.async.HCA
		if h.node.crashed {
			return
		}
		if qp := p.async.QP; qp != nil && qp.init.EventHandler != nil {
			qp.init.EventHandler.AsyncEvent(p.async)
			return
		}
		if cq := p.async.CQ; cq != nil && cq.evh != nil {
			cq.evh.AsyncEvent(p.async)
			return
		}
		for _, a := range h.handlers {
			a.AsyncEvent(p.async)
		}
	case pCMEvent:
		p.cm.ID.deliver(p.cm)
	case pCMMsg:
		f.cmReceive(p.msg)
	case pPortActive:
		f.portActive(p.port)
	case pResweep:
		f.computeRoutes()
	}
}

// async raises a device event; handlers see it from the event loop, at the current time.
func (f *Fabric) async(ev AsyncEvent) { f.defer_(0, pending{op: pAsync, async: ev}) }
