package ib

import (
	"fmt"
	"net/netip"

	"github.com/lnetsim/lnetsim/sim"
)

// CMTiming holds the RDMA CM's delays. Zero fields take the defaults shown.
type CMTiming struct {
	AddrResolve  sim.Time // an answered IPoIB ARP probe, request and reply (default 50us)
	RouteResolve sim.Time // an answered SA path record query (default 100us)
	MAD          sim.Time // one-way delivery of a CM MAD: REQ, REP, RTU, REJ, DREQ, DREP (default 10us)
	// ARPProbes and ARPRetrans pace address resolution: an unanswered ARP request is resent
	// after ARPRetrans, ARPProbes requests in all (defaults 3 and 1s, Linux's neighbour
	// mcast_solicit and retrans_time); then rdma_resolve_addr waits for its timeout.
	ARPProbes  int
	ARPRetrans sim.Time
	// SARetries is how many times a path record query is resent, each attempt waiting
	// 1/SARetries of rdma_resolve_route's timeout (default 10, Linux's sa_query
	// nmbr_sa_query_retries; the last attempt ends at the timeout).
	SARetries int
	// ResponseTimeout is the CM's wait for a reply to a REQ or DREQ before resending it.
	// The default is what the IB CM computes for rdma_cm's requests: twice the path's packet
	// lifetime plus the remote CM response time, each an IBA exponent converted to 2^(e-8)
	// ms: packet lifetime 18 (OpenSM's default) and CMA_CM_RESPONSE_TIMEOUT 20 give
	// 2*1024 + 4096 = 6144 ms.
	ResponseTimeout sim.Time
	MaxRetries      int      // resends before giving up (default 15, CMA_MAX_CM_RETRIES)
	Timewait        sim.Time // from DISCONNECTED to TIMEWAIT_EXIT (default 1s)
	DeviceRemoval   sim.Time // from HCA fatal to DEVICE_REMOVAL on its CM ids (default 0)
}

func (c *CMTiming) fill() {
	def := func(v *sim.Time, d sim.Time) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.AddrResolve, 50*sim.Microsecond)
	def(&c.RouteResolve, 100*sim.Microsecond)
	def(&c.MAD, 10*sim.Microsecond)
	def(&c.ResponseTimeout, 2*cmConvert(18)+cmConvert(20))
	def(&c.ARPRetrans, sim.Second)
	if c.ARPProbes == 0 {
		c.ARPProbes = 3
	}
	if c.SARetries == 0 {
		c.SARetries = 10
	}
	def(&c.Timewait, sim.Second)
	if c.MaxRetries == 0 {
		c.MaxRetries = 15
	}
}

// cmConvert converts an IBA time exponent to the IB CM's rounded milliseconds (2^(e-8) ms
// for 4.096us * 2^e), as the Linux IB CM does for its MAD timeouts.
func cmConvert(e int) sim.Time {
	if e < 8 {
		e = 8
	}
	return sim.Time(1<<(e-8)) * sim.Millisecond
}

// CMEventType is an RDMA CM event (enum rdma_cm_event_type).
type CMEventType uint8

// CM events.
const (
	CMAddrResolved   CMEventType = iota // RDMA_CM_EVENT_ADDR_RESOLVED
	CMAddrError                         // RDMA_CM_EVENT_ADDR_ERROR
	CMRouteResolved                     // RDMA_CM_EVENT_ROUTE_RESOLVED
	CMRouteError                        // RDMA_CM_EVENT_ROUTE_ERROR
	CMConnectRequest                    // RDMA_CM_EVENT_CONNECT_REQUEST (on a new id; Listen is the listener)
	CMConnectError                      // RDMA_CM_EVENT_CONNECT_ERROR
	CMUnreachable                       // RDMA_CM_EVENT_UNREACHABLE
	CMRejected                          // RDMA_CM_EVENT_REJECTED (Status = reject reason)
	CMEstablished                       // RDMA_CM_EVENT_ESTABLISHED
	CMDisconnected                      // RDMA_CM_EVENT_DISCONNECTED
	CMDeviceRemoval                     // RDMA_CM_EVENT_DEVICE_REMOVAL
	CMAddrChange                        // RDMA_CM_EVENT_ADDR_CHANGE
	CMTimewaitExit                      // RDMA_CM_EVENT_TIMEWAIT_EXIT
)

var cmEventNames = [...]string{"ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED", "ROUTE_ERROR", "CONNECT_REQUEST",
	"CONNECT_ERROR", "UNREACHABLE", "REJECTED", "ESTABLISHED", "DISCONNECTED", "DEVICE_REMOVAL", "ADDR_CHANGE", "TIMEWAIT_EXIT"}

// String returns the name the verbs and CM documentation use.
func (t CMEventType) String() string { return cmEventNames[t] }

// RejectReason is an IB CM REJ reason code, as RDMA_CM_EVENT_REJECTED's status.
type RejectReason int

// Reject reasons (IB CM REJ).
const (
	RejNoQP             RejectReason = 1
	RejNoResources      RejectReason = 3
	RejTimeout          RejectReason = 4
	RejInvalidServiceID RejectReason = 8 // no listener on the service (port)
	RejStaleConn        RejectReason = 10
	RejConsumerDefined  RejectReason = 28 // rdma_reject by the passive side's consumer
)

// Negative errno values carried in CMEvent.Status.
const (
	ENODEV       = -19
	ENETUNREACH  = -101
	ECONNRESET   = -104
	ETIMEDOUT    = -110
	EHOSTUNREACH = -113
)

// Private data limits of rdma_cm over InfiniBand.
const (
	MaxReqPrivate = 56
	MaxRepPrivate = 196
	MaxRejPrivate = 148
)

// CMEvent is an RDMA CM event (struct rdma_cm_event).
type CMEvent struct {
	Type   CMEventType
	ID     *CMID
	Listen *CMID // CONNECT_REQUEST: the listening id
	Status int   // 0, a negative errno, or the REJ reason for REJECTED
	// PrivateData is the message's private data, to read during the call only (as
	// rdma_cm's): a REQ's or REP's is the sending id's copy, which its resends carry too.
	PrivateData []byte
}

// CMHandler receives a CM id's events (the rdma_cm_id's event handler). It is called from
// the event loop.
type CMHandler interface {
	CMEvent(ev CMEvent)
}

// ConnParam are the connection parameters of rdma_connect and rdma_accept.
type ConnParam struct {
	PrivateData   []byte
	RetryCount    uint8 // retry_count for the RC QP (0..7)
	RNRRetryCount uint8 // rnr_retry_count (0..7, 7 = infinite)
	AckTimeout    uint8 // local_ack_timeout exponent; 0 = Config.AckTimeout
	MinRNRTimer   uint8 // min_rnr_timer code; 0 = Config.MinRNRTimer
	// responder_resources and initiator_depth: the RDMA READs this side offers to hold
	// for the peer and to have outstanding to it (0: none, as o2iblnd asks). Each QP
	// gets the smaller of its offer and the peer's matching one (see rdLimit).
	ResponderResources, InitiatorDepth uint8
}

type cmState uint8

const (
	cmIdle cmState = iota
	cmAddrQuery
	cmAddrResolved
	cmRouteQuery
	cmRouteResolved
	cmConnecting
	cmListen
	cmConnectReq
	cmAccepting
	cmEstablished
	cmDisconnecting
	cmDisconnected
	cmFailed
	cmDestroyed
)

var cmStateNames = [...]string{"IDLE", "ADDR_QUERY", "ADDR_RESOLVED", "ROUTE_QUERY", "ROUTE_RESOLVED",
	"CONNECTING", "LISTEN", "CONNECT_REQ", "ACCEPTING", "ESTABLISHED", "DISCONNECTING", "DISCONNECTED",
	"FAILED", "DESTROYED"}

// String returns the state's name.
func (s cmState) String() string { return cmStateNames[s] }

// legalCMTransition reports whether a CM id may move from one state to another: address
// then route resolution (each falling back one step on error), connect, the passive side's
// request and accept, establishment or failure, disconnection, and destruction from any
// state.
func legalCMTransition(from, to cmState) bool {
	switch to {
	case cmDestroyed:
		return true
	case cmIdle:
		return from == cmAddrQuery
	case cmListen, cmAddrQuery, cmConnectReq:
		return from == cmIdle
	case cmAddrResolved:
		return from == cmAddrQuery || from == cmRouteQuery
	case cmRouteQuery:
		return from == cmAddrResolved
	case cmRouteResolved:
		return from == cmRouteQuery
	case cmConnecting:
		return from == cmRouteResolved
	case cmAccepting:
		return from == cmConnectReq
	case cmEstablished:
		return from == cmConnecting || from == cmAccepting
	case cmFailed:
		return from == cmConnecting || from == cmAccepting || from == cmConnectReq
	case cmDisconnecting:
		return from == cmConnecting || from == cmAccepting || from == cmEstablished
	case cmDisconnected:
		return from == cmAccepting || from == cmEstablished || from == cmDisconnecting
	}
	return false
}

// setState moves the id to state to if the transition is legal; an illegal one changes
// nothing and is counted (Fabric.CMBadTransitions), as it can only be a model bug.
func (id *CMID) setState(to cmState) bool {
	if !legalCMTransition(id.state, to) {
		id.f.cmBadTransitions++
		return false
	}
	id.state = to
	return true
}

// CMBadTransitions returns how many illegal CM id state changes were refused (0 unless the
// model has a bug; tests check it).
func (f *Fabric) CMBadTransitions() int { return f.cmBadTransitions }

// CMID is an RDMA CM identifier (struct rdma_cm_id). Pointers and addresses come first,
// the 32-bit and 8-bit fields last, so that the object takes 288 bytes, not 352: a 1000-client
// cluster has 35k of them.
type CMID struct {
	f       *Fabric
	node    *Node
	h       CMHandler
	port    *Port
	dstPort *Port
	qp      *QP
	local   netip.AddrPort
	remote  netip.AddrPort
	param   ConnParam

	timer    sim.Timer
	deadline sim.Time
	every    sim.Time // path record query: the wait for each answer
	sent     sim.Time // when the last ARP request or path record query went out
	reqPriv  []byte

	// Context is for the consumer (the id's context).
	Context any

	idx     int32
	peer    int32 // the other end's id
	peerQPN uint32
	backlog int32
	retries int32
	probes  int32 // ARP requests or path record queries sent by this resolution
	state   cmState
	timerOp uint8
	// The peer's READ offer (its responder_resources and initiator_depth), from its REQ/REP.
	peerRes, peerInit uint8
	passive           bool // created by a CONNECT_REQUEST: indexed in Fabric.passive by peer
}

const (
	tAddr      = iota // an ARP reply arrives
	tAddrProbe        // time to resend the ARP request
	tAddrFail
	tRoute
	tRouteRetry
	tRouteFail
	tReq
	tRTU
	tDReq
)

// CreateID creates a CM id on the node with handler h (rdma_create_id, RDMA_PS_TCP).
func (n *Node) CreateID(h CMHandler) *CMID {
	f := n.f
	id := f.cmidSlab.New()
	id.f, id.idx, id.node, id.h, id.peer = f, int32(len(f.cmids)), n, h, -1
	id.timer = sim.Timer{H: f.hid, Kind: evCMTimer, Arg: uint64(id.idx)}
	f.cmids = append(f.cmids, id)
	return id
}

// QP returns the id's QP, or nil.
func (id *CMID) QP() *QP { return id.qp }

// Port returns the local port the id is bound or resolved to, or nil.
func (id *CMID) Port() *Port { return id.port }

// LocalAddr returns the id's local address.
func (id *CMID) LocalAddr() netip.AddrPort { return id.local }

// RemoteAddr returns the peer's address (after ResolveAddr, or of a CONNECT_REQUEST).
func (id *CMID) RemoteAddr() netip.AddrPort { return id.remote }

// Node returns the node the id lives on.
func (id *CMID) Node() *Node { return id.node }

func (id *CMID) deliver(ev CMEvent) {
	if id.state == cmDestroyed || id.node.crashed || id.h == nil {
		return
	}
	id.h.CMEvent(ev)
}

// event delivers ev to the id now, from the current event handler.
func (id *CMID) event(t CMEventType, status int, priv []byte) {
	id.deliver(CMEvent{Type: t, ID: id, Status: status, PrivateData: priv})
}

// eventLater delivers an event after d through the event loop.
func (id *CMID) eventLater(d sim.Time, t CMEventType, status int) {
	id.f.defer_(d, pending{op: pCMEvent, kind: uint8(t), num: int32(status), id: id})
}

func (id *CMID) arm(op uint8, d sim.Time) {
	id.timerOp = op
	id.f.k.ArmAfter(&id.timer, d)
}

// BindAddr binds the id to a local address (rdma_bind_addr). An unspecified IP binds to
// every port of the node (for a listener); otherwise the IP must be on one of its ports.
func (id *CMID) BindAddr(a netip.AddrPort) error {
	if id.state != cmIdle {
		return ErrBadState
	}
	if a.Addr().IsValid() && !a.Addr().IsUnspecified() {
		p := id.f.PortByIP(a.Addr())
		if p == nil || p.hca.node != id.node {
			return fmt.Errorf("%w: %s is not an address of %s (EADDRNOTAVAIL)", ErrInvalid, a.Addr(), id.node)
		}
		id.port = p
	}
	id.local = a
	return nil
}

// Listen makes a bound id listen for connection requests (rdma_listen). Requests arrive as
// CONNECT_REQUEST events on new ids that share this id's handler and Context. The backlog
// is recorded but not enforced.
func (id *CMID) Listen(backlog int) error {
	if id.state != cmIdle || !id.local.IsValid() {
		return ErrBadState
	}
	for _, l := range id.node.listeners {
		if l.state == cmListen && l.local.Port() == id.local.Port() &&
			(l.port == nil || id.port == nil || l.port == id.port) {
			return fmt.Errorf("%w: address in use (EADDRINUSE)", ErrInvalid)
		}
	}
	id.setState(cmListen)
	id.backlog = int32(min(backlog, 1<<31-1))
	id.node.listeners = append(id.node.listeners, id)
	return nil
}

// ResolveAddr resolves dst to a local port and the destination port (rdma_resolve_addr,
// modelling Linux's rdma_resolve_ip over the IPoIB neighbour table): an ARP request goes
// out at once and every CMTiming.ARPRetrans while unanswered, CMTiming.ARPProbes in all;
// ADDR_RESOLVED comes CMTiming.AddrResolve (plus any link_delay) after the first request
// whose request and reply both cross the fabric (see cm_path.go), else ADDR_ERROR
// (ETIMEDOUT) when timeout expires. src picks the local address; if invalid, the node's
// first port with an address.
func (id *CMID) ResolveAddr(src netip.Addr, dst netip.AddrPort, timeout sim.Time) error {
	if id.state != cmIdle {
		return ErrBadState
	}
	if src.IsValid() {
		p := id.f.PortByIP(src)
		if p == nil || p.hca.node != id.node {
			return fmt.Errorf("%w: %s is not an address of %s", ErrInvalid, src, id.node)
		}
		id.port = p
	} else if id.port == nil {
		for _, h := range id.node.hcas {
			for _, p := range h.ports {
				if id.port == nil && len(p.ips) > 0 {
					id.port = p
				}
			}
		}
		if id.port == nil {
			return fmt.Errorf("%w: %s has no address (EADDRNOTAVAIL)", ErrInvalid, id.node)
		}
	}
	if !id.local.IsValid() || id.local.Addr().IsUnspecified() {
		var a netip.Addr
		if len(id.port.ips) > 0 {
			a = id.port.ips[0]
		}
		id.local = netip.AddrPortFrom(a, id.local.Port())
	}
	id.remote = dst
	id.setState(cmAddrQuery)
	id.deadline = id.f.k.Now() + timeout
	id.probes = 0
	id.arpProbe()
	return nil
}

// arpProbe sends an ARP request: its reply arms tAddr, a loss the next request or, after
// the last, the wait for the deadline.
func (id *CMID) arpProbe() {
	f := id.f
	now := f.k.Now()
	id.probes++
	id.sent = now
	id.dstPort = f.PortByIP(id.remote.Addr())
	if id.dstPort != nil && id.port.hca.alive() {
		if extra, ok := f.roundTrip(id.port, id.dstPort); ok && now+f.cfg.CM.AddrResolve+extra < id.deadline {
			id.arm(tAddr, f.cfg.CM.AddrResolve+extra)
			return
		}
	}
	id.nextProbe()
}

// nextProbe arms the next ARP request, or the deadline after the last.
func (id *CMID) nextProbe() {
	id.again(tAddrProbe, tAddrFail, id.f.cfg.CM.ARPProbes, id.f.cfg.CM.ARPRetrans)
}

// again arms op for every after the last request if fewer than limit went out and the next
// one starts before the deadline, else fail at the deadline.
func (id *CMID) again(op, fail uint8, limit int, every sim.Time) {
	now := id.f.k.Now()
	if next := max(id.sent+every, now); int(id.probes) < limit && next < id.deadline {
		id.arm(op, next-now)
		return
	}
	id.arm(fail, id.deadline-now)
}

// ResolveRoute obtains a path to the resolved destination (rdma_resolve_route, modelling
// Linux's cma_query_ib_route and ib_sa_path_rec_get; the SM sits one link away, see
// cm_path.go): ROUTE_RESOLVED after CMTiming.RouteResolve (plus any
// link_delay) once a query and its answer cross the local link with the subnet manager up
// and the subnet has a path of up links when the answer arrives; an unanswered query is
// resent every timeout/CMTiming.SARetries; ROUTE_ERROR (ETIMEDOUT) when timeout expires.
func (id *CMID) ResolveRoute(timeout sim.Time) error {
	if id.state != cmAddrResolved {
		return ErrBadState
	}
	id.setState(cmRouteQuery)
	id.deadline = id.f.k.Now() + timeout
	id.probes = 0
	id.every = timeout / sim.Time(id.f.cfg.CM.SARetries)
	id.saSend()
	return nil
}

// saSend sends a path record query: its answer arms tRoute, a loss the next query or,
// after the last, the wait for the deadline.
func (id *CMID) saSend() {
	f := id.f
	id.probes++
	id.sent = f.k.Now()
	extra, ok := f.saQuery(id.port)
	if d := f.cfg.CM.RouteResolve + extra; ok && d < id.every && f.k.Now()+d < id.deadline {
		id.arm(tRoute, d)
		return
	}
	id.nextQuery()
}

// nextQuery arms the next path record query, or the deadline after the last.
func (id *CMID) nextQuery() {
	id.again(tRouteRetry, tRouteFail, id.f.cfg.CM.SARetries+1, id.every)
}

func (id *CMID) reachable() bool {
	if !id.port.hca.alive() || id.dstPort == nil || !id.dstPort.hca.alive() {
		return false
	}
	if id.dstPort.hca.node == id.node {
		return true
	}
	return id.f.pathUp(id.port, id.dstPort)
}

// CreateQP creates the id's RC QP on its port's HCA and moves it to INIT (rdma_create_qp).
// The CM moves it through RTR and RTS when the connection is established.
func (id *CMID) CreateQP(init QPInitAttr) (*QP, error) {
	if id.port == nil || id.qp != nil {
		return nil, ErrBadState
	}
	qp, err := id.port.hca.CreateQP(init)
	if err != nil {
		return nil, err
	}
	if err := qp.Modify(QPInit, QPAttr{Port: id.port.Num}); err != nil {
		return nil, err
	}
	qp.cmid = id
	id.qp = qp
	return qp, nil
}

// Connect sends a connection request with p's private data (rdma_connect). The outcome
// is ESTABLISHED, REJECTED (reason in Status, rejecter's private data), or UNREACHABLE
// (ETIMEDOUT) after MaxRetries+1 response timeouts without an answer.
func (id *CMID) Connect(p ConnParam) error {
	if id.state != cmRouteResolved || id.qp == nil {
		return ErrBadState
	}
	if len(p.PrivateData) > MaxReqPrivate || p.RetryCount > 7 || p.RNRRetryCount > 7 {
		return ErrInvalid
	}
	id.param = p
	id.setState(cmConnecting)
	id.retries = 0
	id.reqPriv = id.f.privData.Copy(p.PrivateData)
	id.param.PrivateData = nil // the REQ's copy is reqPriv
	id.sendREQ()
	return nil
}

func (id *CMID) sendREQ() {
	id.f.sendMAD(cmMsg{typ: mREQ, from: id.idx, to: -1, src: id.port, dst: id.dstPort, addr: id.remote,
		priv: id.reqPriv, qpn: id.qp.num, retry: id.param.RetryCount, srcAddr: id.local,
		rdRes: id.param.ResponderResources, rdInit: id.param.InitiatorDepth})
	id.arm(tReq, id.f.cfg.CM.ResponseTimeout)
}

// Accept accepts a CONNECT_REQUEST (rdma_accept): the REP carries p's private data; the
// active side sees ESTABLISHED on the REP, this side on the RTU. The id needs a QP.
func (id *CMID) Accept(p ConnParam) error {
	if id.state != cmConnectReq || id.qp == nil {
		return ErrBadState
	}
	if len(p.PrivateData) > MaxRepPrivate || p.RetryCount > 7 || p.RNRRetryCount > 7 {
		return ErrInvalid
	}
	id.param.PrivateData, id.param.RNRRetryCount = id.f.privData.Copy(p.PrivateData), p.RNRRetryCount
	id.param.AckTimeout, id.param.MinRNRTimer = p.AckTimeout, p.MinRNRTimer
	id.param.ResponderResources, id.param.InitiatorDepth = p.ResponderResources, p.InitiatorDepth
	if err := id.qp.Modify(QPRTR, id.rtrAttr()); err != nil {
		return err
	}
	id.setState(cmAccepting)
	id.retries = 0
	id.sendREP()
	return nil
}

func (id *CMID) sendREP() {
	id.f.sendMAD(cmMsg{typ: mREP, from: id.idx, to: id.peer, src: id.port, dst: id.dstPort,
		priv: id.param.PrivateData, qpn: id.qp.num,
		rdRes: id.param.ResponderResources, rdInit: id.param.InitiatorDepth})
	id.arm(tRTU, id.f.cfg.CM.ResponseTimeout)
}

// Reject refuses a CONNECT_REQUEST (rdma_reject): the active side sees REJECTED with
// reason RejConsumerDefined and priv.
func (id *CMID) Reject(priv []byte) error {
	if id.state != cmConnectReq {
		return ErrBadState
	}
	if len(priv) > MaxRejPrivate {
		return ErrInvalid
	}
	id.setState(cmFailed)
	id.f.sendMAD(cmMsg{typ: mREJ, from: id.idx, to: id.peer, src: id.port, dst: id.dstPort,
		priv: id.f.privData.Copy(priv), reason: RejConsumerDefined})
	return nil
}

// Disconnect tears the connection down (rdma_disconnect): the QP moves to ERR (flushing
// its WRs), a DREQ goes to the peer, which moves its QP to ERR and sees DISCONNECTED; this
// side sees DISCONNECTED on the DREP, or when the DREQ times out. TIMEWAIT_EXIT follows
// each DISCONNECTED after CMTiming.Timewait.
func (id *CMID) Disconnect() error {
	switch id.state {
	case cmEstablished, cmAccepting, cmConnecting:
	default:
		return ErrBadState
	}
	if id.qp != nil && id.qp.state != QPErr {
		id.qp.toErr()
	}
	id.setState(cmDisconnecting)
	id.retries = 0
	id.sendDREQ()
	return nil
}

func (id *CMID) sendDREQ() {
	id.f.sendMAD(cmMsg{typ: mDREQ, from: id.idx, to: id.peer, src: id.port, dst: id.dstPort})
	id.arm(tDReq, id.f.cfg.CM.ResponseTimeout)
}

// Destroy releases the id (rdma_destroy_id). It does not destroy the QP. Like the IB CM,
// destroying a connected id sends a DREQ (the peer sees DISCONNECTED), and destroying an
// unanswered CONNECT_REQUEST rejects it (RejConsumerDefined).
func (id *CMID) Destroy() {
	switch id.state {
	case cmEstablished, cmAccepting:
		id.f.sendMAD(cmMsg{typ: mDREQ, from: id.idx, to: id.peer, src: id.port, dst: id.dstPort})
	case cmConnectReq:
		id.f.sendMAD(cmMsg{typ: mREJ, from: id.idx, to: id.peer, src: id.port, dst: id.dstPort, reason: RejConsumerDefined})
	case cmConnecting:
		if id.peer >= 0 {
			id.f.sendMAD(cmMsg{typ: mREJ, from: id.idx, to: id.peer, src: id.port, dst: id.dstPort, reason: RejTimeout})
		}
	}
	id.f.k.Disarm(&id.timer)
	id.setState(cmDestroyed)
	id.f.cmids[id.idx] = nil
	id.f.dropListener(id)
}

func (f *Fabric) dropListener(id *CMID) {
	n := id.node
	for i, l := range n.listeners {
		if l == id {
			n.listeners = append(n.listeners[:i], n.listeners[i+1:]...)
			break
		}
	}
	if id.passive {
		f.setPassive(id.peer, -1)
	}
}

// passiveOf returns the passive id the REQ of active id a created, or -1.
func (f *Fabric) passiveOf(a int32) int32 {
	if int(a) < len(f.passive) {
		return f.passive[a] - 1
	}
	return -1
}

// setPassive records p (-1: none) as the passive id of active id a.
func (f *Fabric) setPassive(a, p int32) {
	if int(a) >= len(f.passive) {
		if p < 0 {
			return
		}
		f.passive = append(f.passive, make([]int32, max(len(f.cmids), int(a)+1)-len(f.passive))...)
	}
	f.passive[a] = p + 1
}

func (id *CMID) rtrAttr() QPAttr {
	rnr := id.param.MinRNRTimer
	if rnr == 0 {
		rnr = id.f.cfg.MinRNRTimer
	}
	return QPAttr{DestQPN: id.peerQPN, DestLID: id.dstPort.LID(), MinRNRTimer: rnr,
		MaxDestRdAtomic: rdLimit(id.param.ResponderResources, id.peerInit, id.qp.hca.attr.MaxQPRdAtom)}
}

func (id *CMID) rtsAttr() QPAttr {
	to := id.param.AckTimeout
	if to == 0 {
		to = id.f.cfg.AckTimeout
	}
	return QPAttr{Timeout: to, RetryCnt: id.param.RetryCount, RNRRetry: id.param.RNRRetryCount,
		MaxRdAtomic: rdLimit(id.param.InitiatorDepth, id.peerRes, id.qp.hca.attr.MaxQPInitRdAtom)}
}

// timeout handles the id's CM timer.
func (id *CMID) timeout() {
	f := id.f
	switch id.timerOp {
	case tAddr, tAddrProbe, tAddrFail:
		if id.state != cmAddrQuery {
			return
		}
		switch {
		case id.timerOp == tAddrProbe:
			id.arpProbe()
			return
		case id.timerOp == tAddr && id.reachable():
			id.setState(cmAddrResolved)
			id.event(CMAddrResolved, 0, nil)
			return
		case id.timerOp == tAddr:
			f.mgmt.lost++ // the reply found the path gone
			id.nextProbe()
			return
		}
		id.setState(cmIdle)
		id.event(CMAddrError, ETIMEDOUT, nil)
	case tRoute, tRouteRetry, tRouteFail:
		if id.state != cmRouteQuery {
			return
		}
		switch {
		case id.timerOp == tRouteRetry:
			id.saSend()
			return
		case id.timerOp == tRoute && id.reachable():
			id.setState(cmRouteResolved)
			id.event(CMRouteResolved, 0, nil)
			return
		case id.timerOp == tRoute:
			f.mgmt.lost++ // the answer found the path gone
			id.nextQuery()
			return
		}
		id.setState(cmAddrResolved)
		id.event(CMRouteError, ETIMEDOUT, nil)
	case tReq:
		if id.state != cmConnecting {
			return
		}
		if id.retries++; int(id.retries) > f.cfg.CM.MaxRetries {
			id.setState(cmFailed)
			id.event(CMUnreachable, ETIMEDOUT, nil)
			return
		}
		id.sendREQ()
	case tRTU:
		if id.state != cmAccepting {
			return
		}
		if id.retries++; int(id.retries) > f.cfg.CM.MaxRetries {
			id.setState(cmFailed)
			if id.qp != nil {
				id.qp.toErr()
			}
			id.event(CMConnectError, ETIMEDOUT, nil)
			return
		}
		id.sendREP()
	case tDReq:
		if id.state != cmDisconnecting {
			return
		}
		if id.retries++; int(id.retries) > f.cfg.CM.MaxRetries {
			id.disconnected()
			return
		}
		id.sendDREQ()
	}
}

func (id *CMID) disconnected() {
	id.f.k.Disarm(&id.timer)
	id.setState(cmDisconnected)
	id.event(CMDisconnected, 0, nil)
	id.eventLater(id.f.cfg.CM.Timewait, CMTimewaitExit, 0)
}

// DefaultCMTiming returns the CM timings used when CMTiming fields are zero.
func DefaultCMTiming() CMTiming {
	var c CMTiming
	c.fill()
	return c
}
