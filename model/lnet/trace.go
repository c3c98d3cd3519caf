package lnet

import "github.com/lnetsim/lnetsim/sim"

// HealthCause says why a health value changed.
type HealthCause uint8

// Causes of health changes.
const (
	CauseFailure         HealthCause = iota // a message finalized with a failing hstatus
	CauseSuccess                            // a successful send or receive
	CauseRecoveryReply                      // a recovery ping answered
	CauseResponseTimeout                    // the response tracker expired (next hop charged)
	CauseManual                             // lnetctl net/peer set --health
	CauseNotify                             // lnet_notify(alive, reset) from an LND
	CauseDiscovery                          // status learnt by discovery/push
	CauseRouter                             // received from a router / router mode (set to max)
)

var causeNames = [...]string{"failure", "success", "recovery_reply", "response_timeout",
	"manual", "notify", "discovery", "router"}

// String names the cause as results files write it.
func (c HealthCause) String() string { return causeNames[c] }

// MsgRecord is what a tracer learns of a message at its end (or of one attempt).
type MsgRecord struct {
	ID       uint64   // message id (per node)
	Node     string   // the node that finalized it
	Type     MsgType  // type as finalized (a PUT's ACK is its own record)
	Src, Dst NID      // header source and final destination
	Size     int      // payload bytes
	Start    sim.Time // API call (or receive) time
	End      sim.Time // finalize time
	Status   int      // 0 or a negative errno
	HStatus  HStatus  // health status of the last attempt
	Resends  int      // resends done
	Received bool     // a message this node received (rx side) rather than sent
}

// Tracer observes a node's LNet activity. Every method is called synchronously from the
// simulation; a nil tracer costs one nil check per call site. Records are passed by pointer
// and must be copied if kept.
type Tracer interface {
	// MsgAttempt is called each time a message is handed to the LND (first send and every
	// resend), with the NIs chosen (models the tracepoints in lnet_handle_send).
	MsgAttempt(node string, id uint64, attempt int, t sim.Time, txNI, nextHop NID)
	// MsgDone is called when a message is finalized for good (not for a resend).
	MsgDone(r *MsgRecord)
	// HealthChange is called on every change of a local NI's (local=true) or peer NI's health.
	HealthChange(t sim.Time, node string, nid NID, local bool, old, new int, cause HealthCause)
	// NIStatusChange is called when a local NI's advertised status changes.
	NIStatusChange(t sim.Time, node string, nid NID, old, new NIStatus)
}
