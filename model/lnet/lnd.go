package lnet

import (
	"errors"
	"strconv"

	"github.com/lnetsim/lnetsim/sim"
)

// LND is the Go form of struct lnet_lnd: what LNet calls on a network driver. One LND value
// may serve many NIs (of one or several nodes); every call names the NI.
//
// Calling conventions (the contract model/o2ib implements):
//
//   - Send(ni, msg): start sending msg from ni to msg.Target() (the next hop, a peer NI on
//     ni's net). msg.Hdr is the LNet header to put on the wire; msg.Len() payload bytes
//     follow it. msg.AckExpected/ReplyExpected and msg.Hdr.Type let the LND choose IMMEDIATE
//     vs PUT_REQ/GET_REQ. Use ni.LNDTimeout() as the tx timeout. Return nil and later call
//     Node.Finalize(msg, status, hstatus) exactly once when the send is complete (for a
//     PUT/REPLY: when the data is placed, i.e. on PUT_DONE completion / IMMEDIATE
//     completion; for a GET: when GET_DONE arrives or the IMMEDIATE completes). A non-nil
//     return means immediate failure (lnet_ni_send): LNet finalizes the message itself, with
//     no resend, with the error's errno (an Errno, else -EIO) and whatever msg.HStatus the
//     LND set (left OK, the pair is inconsistent and health is untouched); the LND must not
//     call Finalize then. For an optimized GET, call Node.CreateReplyMsg from Send and
//     finalize the GET, then the REPLY, when GET_DONE arrives.
//   - On the receiving side, for every LNet message that arrives, call
//     Node.Parse(ni, &hdr, fromNID, private, rdmaReq). Parse returns an error if the
//     message is rejected (the LND drops it; for PUT_REQ/GET_REQ it answers NAK/-ENODATA).
//     Otherwise Parse calls exactly one of Recv (possibly with mlen 0, or with msg == nil to
//     say "receive nothing and discard"), later, on the same NI with the same private.
//   - Recv(ni, private, msg, delayed, offset, mlen, rlen): receive mlen of the rlen payload
//     bytes into msg's MD. When done call Node.Finalize(msg, status, hstatus) (msg != nil).
//     With msg == nil, release the private (o2ib: PUT_NAK(0) / GET_DONE(-ENODATA), repost).
//     For a GET received with rdmaReq, msg is the REPLY LNet built: the LND sends the reply
//     data and finalizes it (such a REPLY never goes through Send). For a GET received
//     without rdmaReq, Recv(nil) releases the private first and the REPLY then goes through
//     Send like any other message.
//   - EagerRecv: called when Parse must delay a message (router buffers); return a
//     new private or an error.
//   - Notify: an LND tells LNet a peer's aliveness with Node.Notify(ni, nid, alive, reset,
//     when).
//   - Query: LNet asks when a peer NID was last known alive (lnd_query).
//
// Finalize's hstatus must be LNET_MSG_STATUS_OK iff status == 0; a mismatched pair is treated
// as the kernel treats it (no health change, no resend).
type LND interface {
	// Type returns the LND type (O2IBLND, SOCKLND...).
	Type() LNDType
	// Startup brings ni up (lnd_startup).
	Startup(ni *NI) error
	// Shutdown stops ni (lnd_shutdown); pending messages must be finalized.
	Shutdown(ni *NI)
	// Ctl is lnd_ctl (IOC commands, unused by LNet core; LNDs may return nil).
	Ctl(ni *NI, cmd uint32, arg any) error
	// Send starts sending msg (lnd_send); private is always nil (an ACK, a REPLY or a
	// forwarded message was received with a private that Recv has already released).
	Send(ni *NI, private any, msg *Msg) error
	// Recv receives a parsed message's payload (lnd_recv). msg may be nil (discard).
	Recv(ni *NI, private any, msg *Msg, delayed bool, offset, mlen, rlen int) error
	// EagerRecv lets the LND free resources for a delayed message (lnd_eager_recv).
	EagerRecv(ni *NI, private any, msg *Msg) (any, error)
	// NotifyPeerDown is lnd_notify_peer_down.
	NotifyPeerDown(ni *NI, peer NID)
	// Query returns when peer was last known alive, and false if unknown (lnd_query).
	Query(ni *NI, peer NID) (sim.Time, bool)
}

// Errno is an error carrying a kernel errno (negative, e.g. Errno(-EHOSTUNREACH)), for LND
// calls that fail immediately.
type Errno int

// Error returns "errno -113".
func (e Errno) Error() string { return "errno " + strconv.Itoa(int(e)) }

// errnoOf is the negative errno an LND call's error carries (an Errno), or otherwise.
func errnoOf(err error, otherwise int) int {
	var e Errno
	if errors.As(err, &e) && e < 0 {
		return int(e)
	}
	return otherwise
}

// TimeoutLND is implemented by an LND that exposes its tx timeout (lnd_get_timeout). LNet then
// sets each message's deadline to now + timeout*(retry_count+1) + 1 s; without it (or with a
// timeout of 0) the deadline is now + transaction_timeout (get_msg_deadline). o2iblnd exposes
// it: its `timeout` module parameter (50 s on master), or lnet_lnd_timeout when that is 0 —
// NI.LNDTimeout gives the latter rule with Net.LNDTimeout as the parameter.
type TimeoutLND interface {
	Timeout(ni *NI) sim.Time
}

// IocGetPeer is IOC_LIBCFS_GET_PEER, the lnd_ctl command `lnetctl debug peer` reaches: the LND
// answers with its peer number arg (an *int index, 0 for lnetctl) on the NI, or an Errno
// (-ENOENT when it has no such peer).
const IocGetPeer uint32 = 76 // IOC_LIBCFS_GET_PEER is _IOWR('e', 76, ...)

// CtlGetPeer is an LND's answer to IOC_LIBCFS_GET_PEER (kiblnd_get_peer_info,
// ksocknal_get_peer_info) on an NI with npeers peers in its table: peer number *arg (an *int)
// exists, or -ENOENT; any other command -EINVAL (the LNDs' default).
func CtlGetPeer(cmd uint32, arg any, npeers int) error {
	idx, ok := arg.(*int)
	switch {
	case cmd != IocGetPeer || !ok:
		return Errno(-EINVAL)
	case *idx >= npeers:
		return Errno(-ENOENT)
	}
	return nil
}

// DebugPeer models `lnetctl debug peer --nid NID` (lustre_lnet_show_peer_debug_info ->
// IOC_LIBCFS_GET_PEER -> LNetCtl's default case): the first NI of NID's net takes it
// (lnet_net2ni_addref; none: -EINVAL) and its LND's lnd_ctl answers with its first peer on
// that NI, whatever NID was asked for (kiblnd_get_peer_info, ksocknal_get_peer_info; the
// kernel dumps NID's peer to the debug log on the way, which the model does not keep). It
// returns 0 or the negative errno.
func (n *Node) DebugPeer(nid NID) int {
	net := n.netByID(nid.Net())
	if net == nil || len(net.nis) == 0 {
		return -EINVAL
	}
	idx := 0
	if err := net.lnd.Ctl(net.nis[0], IocGetPeer, &idx); err != nil {
		return errnoOf(err, -EINVAL)
	}
	return 0
}
