package lnet

import "github.com/lnetsim/lnetsim/sim"

// recoveryState is what a local NI and a peer NI keep while on a recovery queue (the
// kernel's ni_/lpni_ recovery fields: the LNET_NI_RECOVERY_PENDING and _FAILED states, the
// ping count, the next ping's time and the ping's MD). NI and PeerNI embed it;
// recoverLocalNIs and recoverPeerNIs drive it.
type recoveryState struct {
	inRecovery     bool     // on ln_mt_localNIRecovq / ln_mt_peerNIRecovq
	pingPending    bool     // a recovery ping is outstanding (RECOVERY_PENDING)
	recoveryFailed bool     // the last ping failed; its MD is unlinked on the next pass
	pingCount      int      // recovery pings sent (ping_count)
	nextPing       sim.Time // when the next ping is due, whole seconds
	recoveryMD     *MD      // the outstanding ping's MD
}

// takeFailedPing clears a failed ping's mark and returns its MD for unlinking (nil when the
// last ping did not fail or its MD is already gone).
func (r *recoveryState) takeFailedPing() *MD {
	if !r.recoveryFailed {
		return nil
	}
	r.recoveryFailed = false
	md := r.recoveryMD
	r.recoveryMD = nil
	return md
}

// pingDone records an event of the outstanding ping (lnet_handle_recovery_reply): no longer
// pending; an unlinked MD is forgotten; a failure with the MD still linked marks the ping
// failed, so the next pass unlinks it.
func (r *recoveryState) pingDone(ev *Event, failed bool) {
	r.pingPending = false
	if ev.Unlinked {
		r.recoveryMD = nil
	}
	if failed {
		r.recoveryFailed = !ev.Unlinked
	}
}

// pingStats returns ping_count and next_ping as `lnetctl net|peer show -v` print them
// (next_ping only while on the recovery queue, else 0).
func (r *recoveryState) pingStats() (count int, next int64) {
	if r.inRecovery {
		next = r.nextPing.WholeSeconds()
	}
	return r.pingCount, next
}
