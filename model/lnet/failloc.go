package lnet

import (
	"fmt"

	"github.com/lnetsim/lnetsim/sim"
)

// Failure-injection locations (libcfs fail_loc values, lib-lnet.h) at which the model checks,
// each where the kernel does.
const (
	// FailDelayMsgForward is CFS_FAIL_DELAY_MSG_FORWARD: lnet_parse skips the delay rules,
	// so a delay rule holds a message only where it is sent (lnet_post_send_locked).
	FailDelayMsgForward uint32 = 0xe002
	// FailTestPingMD is CFS_FAIL_TEST_PING_MD: the ping target gets room for NID metadata and
	// a test entry for every non-loopback NI, lnetctl ping first fetches the target's
	// metadata, and the reply's entries are logged ("found metadata reply"; metadata.go).
	FailTestPingMD uint32 = 0xe003
	// FailRtrHealthInc is CFS_FAIL_RTR_HEALTH_INC: on a router, or from a router, a message
	// received raises the sender's peer NI by the sensitivity instead of to full health.
	FailRtrHealthInc uint32 = 0xe004
	// FailSockConn is CFS_FAIL_SOCK_CONN: socklnd closes a connection on a send error that
	// lnet_send_error_simulation made up, which it otherwise leaves open.
	FailSockConn uint32 = 0xe020
	// FailO2IBFMRMapShort is CFS_FAIL_O2IBLND_FMR_MAP_SHORT: o2iblnd's FastReg mapping of a
	// tx's pages (kiblnd_fmr_pool_map) is made to come up one fragment short, which fails
	// the map and gives the descriptor back to its pool.
	FailO2IBFMRMapShort uint32 = 0xf201
)

// fail_loc's flag bits (libcfs_fail.h).
const (
	failMaskLoc uint32 = 0x0000ffff // CFS_FAIL_MASK_LOC
	failOnce    uint32 = 0x80000000 // CFS_FAIL_ONCE: fail once, then never
	failFailed  uint32 = 0x40000000 // CFS_FAILED: set by the first failure
	failSkip    uint32 = 0x20000000 // CFS_FAIL_SKIP: pass fail_val checks, then fail
	failSome    uint32 = 0x10000000 // CFS_FAIL_SOME: fail until fail_val checks have been made
	failRand    uint32 = 0x08000000 // CFS_FAIL_RAND: fail one check in fail_val at random
	failFault   uint32 = 0x02000000 // CFS_FAULT: match any location that has it too
)

// failInject is the node's libcfs failure-injection state: cfs_fail_loc, cfs_fail_val and the
// check counter __cfs_fail_check_set keeps (one per node: one kernel each).
type failInject struct {
	loc, val uint32
	count    uint32
	rnd      *sim.Stream // CFS_FAIL_RAND's draws: the stream "lnet.<node>.fail_loc"
}

// SetFailLoc models `lctl set_param fail_loc=LOC fail_val=VAL`: both are written as given (the
// check counter is not reset, as in the kernel). A node restarted, or LNet started again,
// starts from 0.
func (n *Node) SetFailLoc(loc, val uint32) {
	n.fail.loc, n.fail.val = loc, val
	if loc&failRand != 0 && n.fail.rnd == nil {
		n.fail.rnd = n.k.Rand(fmt.Sprintf("lnet.%s.fail_loc", n.name))
	}
}

// FailLoc returns fail_loc and fail_val as `lctl get_param` reads them: a check that failed
// has added CFS_FAILED (0x40000000), and CFS_FAIL_SOME adds CFS_FAIL_ONCE when it is spent.
func (n *Node) FailLoc() (loc, val uint32) { return n.fail.loc, n.fail.val }

// failCheck models CFS_FAIL_CHECK(id): cfs_fail_check_set_loc's precheck (fail_loc set, and
// its location is id's or both have CFS_FAULT), then __cfs_fail_check_set without a value
// to set. It answers whether the check point fails this time; a check point the node's
// release does not have (failPoint) never runs, so it neither fails nor counts.
func (n *Node) failCheck(id uint32) bool {
	f := &n.fail
	if f.loc == 0 || !n.failPoint(id) || f.loc&failMaskLoc != id&failMaskLoc && f.loc&id&failFault == 0 {
		return false
	}
	if f.loc&(failFailed|failOnce) == failFailed|failOnce {
		f.count = 0
		return false
	}
	if f.loc&failRand != 0 && (f.val < 2 || f.rnd.Uint64N(uint64(f.val)) > 0) {
		return false
	}
	if f.loc&failSkip != 0 {
		if f.count++; f.count <= f.val {
			return false
		}
	}
	if f.loc&failSome != 0 && (f.loc&failOnce == 0 || f.val <= 1) {
		f.count++
		if c := f.count; c >= f.val {
			f.loc |= failOnce
			f.count = 0
			if c > f.val { // fail_val was lowered under the count (or is 0)
				return false
			}
		}
	}
	if f.loc&failFailed != 0 {
		return f.loc&failOnce == 0 // once: the first failure was the only one
	}
	f.loc |= failFailed
	return true
}

// FailCheck is CFS_FAIL_CHECK(id) for an LND's check point (failCheck).
func (n *Node) FailCheck(id uint32) bool { return n.failCheck(id) }

// failPoint reports whether the node's release has the check point id (the Profile's
// NoFail* rules name the releases without it).
func (n *Node) failPoint(id uint32) bool {
	switch id {
	case FailDelayMsgForward:
		return !n.tun.Profile.NoFailDelayMsgForward
	case FailTestPingMD:
		return !n.tun.Profile.NoNIDMetadata
	case FailRtrHealthInc:
		return !n.tun.Profile.NoFailRtrHealthInc
	case FailSockConn:
		return !n.tun.Profile.NoFailSockConn
	case FailO2IBFMRMapShort:
		return !n.tun.Profile.NoFailO2IBFMRMapShort
	}
	return false
}
