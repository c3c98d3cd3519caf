package socklnd

import "github.com/lnetsim/lnetsim/model/lnet"

// Kernel errnos socklnd's failures carry (negative in the kernel's calls).
const (
	ECONNRESET   = 104
	ECONNREFUSED = 111
	EADDRINUSE   = 98
	ENETDOWN     = 100
	ENETUNREACH  = 101
	EHOSTUNREACH = 113
	ETIMEDOUT    = 110
	EPROTO       = 71
	EIO          = 5
	EINVAL       = 22
	ESHUTDOWN    = 108
	EALREADY     = 114
	ESTALE       = 116
	ENOMEM       = 12
)

// NextRetryInterval models the backoff in ksocknal_connect's failure path: the conn cb's
// retry interval (whole seconds, 0 before the first failure or after a success) doubles,
// bounded below by min_reconnectms/1000 and above by max_reconnectms/1000. With the defaults
// the intervals after successive failures are 1, 2, 4, 8, 16, 32, 60, 60... seconds.
func NextRetryInterval(cur int64, minReconnectms, maxReconnectms int) int64 {
	next := max(cur*2, int64(minReconnectms/1000))
	return min(next, int64(maxReconnectms/1000))
}

// LostRaceInterval is the delay ksocknal_connect puts before the next attempt after a lost
// connection race (or while the peer is connecting to me): min_reconnectms/1000 seconds.
func LostRaceInterval(minReconnectms int) int64 { return int64(minReconnectms / 1000) }

// TxListStatus models the health status ksocknal_txlist_done gives a tx completed with
// error (a kernel errno, negative) when the tx has none yet: NETWORK_TIMEOUT for -ETIMEDOUT,
// REMOTE_DROPPED for the errors that say the peer or path is gone (-ENETDOWN, -EHOSTUNREACH,
// -ENETUNREACH, -ECONNREFUSED, -ECONNRESET), LOCAL_ERROR for any other error (not resent),
// OK for 0. A status already set (cur != OK) is kept.
func TxListStatus(cur lnet.HStatus, errno int) lnet.HStatus {
	if cur != lnet.LNET_MSG_STATUS_OK || errno == 0 {
		return cur
	}
	switch -errno {
	case ETIMEDOUT:
		return lnet.LNET_MSG_STATUS_NETWORK_TIMEOUT
	case ENETDOWN, EHOSTUNREACH, ENETUNREACH, ECONNREFUSED, ECONNRESET:
		return lnet.LNET_MSG_STATUS_REMOTE_DROPPED
	}
	return lnet.LNET_MSG_STATUS_LOCAL_ERROR
}

// TransmitStatus models the status ksocknal_process_transmit sets when a socket write fails
// with errno (negative): REMOTE_TIMEOUT for -ETIMEDOUT, LOCAL_ERROR otherwise (also for
// -ENOMEM, retried later). The conn and its siblings are then closed with that errno.
func TransmitStatus(errno int) lnet.HStatus {
	if -errno == ETIMEDOUT {
		return lnet.LNET_MSG_STATUS_REMOTE_TIMEOUT
	}
	return lnet.LNET_MSG_STATUS_LOCAL_ERROR
}

// TxDone models ksocknal_tx_done's result for an LNet message: a tx that "succeeded" with
// bytes left unsent, or whose zero-copy ACK was aborted by a close, fails with -EIO and, if
// its status was OK, LOCAL_ERROR.
func TxDone(rc int, hs lnet.HStatus, resid int, zcAborted bool) (int, lnet.HStatus) {
	if rc == 0 && (resid != 0 || zcAborted) {
		rc = -EIO
		if hs == lnet.LNET_MSG_STATUS_OK {
			hs = lnet.LNET_MSG_STATUS_LOCAL_ERROR
		}
	}
	return rc, hs
}

// Other statuses, named after the kernel path that sets them.
const (
	// NoRouteStatus: ksocknal_launch_packet found no conn and no connection attempt to wait
	// on (routes failed recently): -EHOSTUNREACH at once with REMOTE_ERROR.
	NoRouteStatus = lnet.LNET_MSG_STATUS_REMOTE_ERROR
	// PartialRecvStatus: ksocknal_destroy_conn completes a receive cut short by the close
	// with -EIO and REMOTE_ERROR; so does a bad checksum or ZC request on receive.
	PartialRecvStatus = lnet.LNET_MSG_STATUS_REMOTE_ERROR
	// TimedOutQueueStatus: ksocknal_find_timed_out_conn marks every tx queued on a conn
	// whose send deadline passed NETWORK_TIMEOUT before closing it with -ETIMEDOUT;
	// ksocknal_flush_stale_txs does the same to txs waiting on the peer for a connection
	// (master; Profile.TimeoutLocalStatus gives the older LOCAL_TIMEOUT).
	TimedOutQueueStatus = lnet.LNET_MSG_STATUS_NETWORK_TIMEOUT
)

// PeerFailedNotifies models ksocknal_peer_failed's condition for telling LNet a peer is dead
// (lnet_notify alive=false, with the peer's last-alive time): a kernel peer (not a userspace
// PID) with no conns left, no passive connection being accepted and no connection attempt
// scheduled.
func PeerFailedNotifies(userspace bool, nconns, accepting int, connecting bool) bool {
	return !userspace && nconns == 0 && accepting == 0 && !connecting
}

// Reaper timing (ksocknal_reaper): every p = 1 s it checks a slice of the peer hash table
// sized so that each conn is looked at n = 4 times per timeout.
const (
	PeerHashSize   = 1 << 7 // HASH_SIZE(ksnd_peers): SOCKNAL_PEER_HASH_BITS 7
	reaperPasses   = 4      // n
	reaperPeriod   = 1      // p, seconds
	keepaliveRetry = 10     // s: ksnp_send_keepalive after a keepalive NOOP is launched
)

// ReaperChunk models the slice ksocknal_reaper checks each second: the whole table when the
// timeout is at most n*p seconds, else HASH_SIZE*n*p/timeout buckets (at least 1): 10 of 128
// with the 50 s default. timeoutSecs is ksocknal_timeout().
func ReaperChunk(timeoutSecs int) int {
	chunk := PeerHashSize
	if timeoutSecs > reaperPasses*reaperPeriod {
		chunk = chunk * reaperPasses * reaperPeriod / timeoutSecs
	}
	return max(chunk, 1)
}

// ReaperScanPeriod is how many seconds the reaper takes to visit every bucket once: the
// ceiling of HASH_SIZE/chunk (13 s with the 50 s default). A deadline is therefore noticed at
// most this long after it passes, which is the kernel's "(n+1)/n times the timeout" bound.
func ReaperScanPeriod(timeoutSecs int) int {
	c := ReaperChunk(timeoutSecs)
	return (PeerHashSize + c - 1) / c
}

// ConnTimers are the per-conn clocks ksocknal_find_timed_out_conn reads, in whole seconds
// as the kernel keeps them.
type ConnTimers struct {
	SockErr    int   // the socket's pending error (sk_err, positive), 0 if none
	RxStarted  bool  // a message has started arriving
	RxDeadline int64 // last receive progress + sock_timeout
	TxPending  bool  // txs queued on the conn or bytes unacknowledged in the socket buffer
	TxDeadline int64 // first queued tx or last send-buffer progress + sock_timeout
}

// TimedOut models ksocknal_find_timed_out_conn's test of one conn at second now: a socket
// error closes it at once (with that errno); a message partly received and no byte for
// sock_timeout, or txs queued or unacknowledged and no send progress for sock_timeout,
// closes it with -ETIMEDOUT. It returns the errno (negative) to close with, or 0.
func (c ConnTimers) TimedOut(now int64) int {
	switch {
	case c.SockErr != 0:
		return -c.SockErr
	case c.RxStarted && now >= c.RxDeadline:
		return -ETIMEDOUT
	case c.TxPending && now >= c.TxDeadline:
		return -ETIMEDOUT
	}
	return 0
}

// KeepaliveDue models ksocknal_send_keepalive_locked's decision at second now for a peer:
// only on V3 and later, with conns, keepalive > 0, the peer silent for keepalive seconds
// (lastAlive) and the retry time (sendKeepalive) reached does it arm: the retry time moves to
// now + 10 s (NextKeepalive) whether or not a NOOP goes out; the NOOP (keepalive cookie,
// nonblocking, so on the BULK_IN socket from V3) is not sent when that conn already has txs
// queued (ackQueued): a queued ZC-ACK will do.
func KeepaliveDue(v Version, nconns int, keepalive int, now, lastAlive, sendKeepalive int64, ackQueued bool) (armed, send bool) {
	if nconns == 0 || v < ProtoV3 || keepalive <= 0 {
		return false, false
	}
	if now < lastAlive+int64(keepalive) || now < sendKeepalive {
		return false, false
	}
	return true, !ackQueued
}

// NextKeepalive is ksnp_send_keepalive after a keepalive attempt at second now.
func NextKeepalive(now int64) int64 { return now + keepaliveRetry }
