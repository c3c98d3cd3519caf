package socklnd

import (
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// TestReconnectBackoff: the kernel's interval sequence with the defaults, with a 5 s floor,
// and after a success (interval reset to 0).
func TestReconnectBackoff(t *testing.T) {
	for _, tc := range []struct {
		min, max int
		want     []int64
	}{
		{1000, 60000, []int64{1, 2, 4, 8, 16, 32, 60, 60}},
		{5000, 20000, []int64{5, 10, 20, 20}},
		{1500, 4000, []int64{1, 2, 4, 4}}, // whole seconds: 1500 ms is 1 s
	} {
		var cur int64
		for i, w := range tc.want {
			cur = NextRetryInterval(cur, tc.min, tc.max)
			if cur != w {
				t.Fatalf("min %d max %d: failure %d -> %d, want %d", tc.min, tc.max, i+1, cur, w)
			}
		}
	}
	if LostRaceInterval(1000) != 1 || LostRaceInterval(2500) != 2 {
		t.Error("lost race interval")
	}
}

// TestHealthStatusPerFailure: the status each socklnd failure path gives a message.
func TestHealthStatusPerFailure(t *testing.T) {
	const (
		OK  = lnet.LNET_MSG_STATUS_OK
		LE  = lnet.LNET_MSG_STATUS_LOCAL_ERROR
		RD  = lnet.LNET_MSG_STATUS_REMOTE_DROPPED
		RT  = lnet.LNET_MSG_STATUS_REMOTE_TIMEOUT
		NT  = lnet.LNET_MSG_STATUS_NETWORK_TIMEOUT
		REr = lnet.LNET_MSG_STATUS_REMOTE_ERROR
	)
	for _, tc := range []struct {
		name  string
		cur   lnet.HStatus
		errno int
		want  lnet.HStatus
	}{
		{"connect timed out", OK, -ETIMEDOUT, NT},
		{"connection refused", OK, -ECONNREFUSED, RD},
		{"reset by peer", OK, -ECONNRESET, RD},
		{"host unreachable", OK, -EHOSTUNREACH, RD},
		{"net unreachable", OK, -ENETUNREACH, RD},
		{"net down", OK, -ENETDOWN, RD},
		{"protocol error", OK, -EPROTO, LE},
		{"lost race, zombies", OK, -EALREADY, LE},
		{"peer rebooted (ESTALE)", OK, -ESTALE, LE},
		{"already timed out by the reaper", NT, -ETIMEDOUT, NT},
		{"already set, other error", RT, -ECONNRESET, RT},
		{"no error", OK, 0, OK},
	} {
		if got := TxListStatus(tc.cur, tc.errno); got != tc.want {
			t.Errorf("txlist_done %s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if TransmitStatus(-ETIMEDOUT) != RT || TransmitStatus(-ECONNRESET) != LE || TransmitStatus(-ENOMEM) != LE {
		t.Error("process_transmit statuses")
	}
	for _, tc := range []struct {
		rc, resid  int
		zc         bool
		in         lnet.HStatus
		wantRC     int
		wantStatus lnet.HStatus
	}{
		{0, 0, false, OK, 0, OK},
		{0, 100, false, OK, -EIO, LE},
		{0, 0, true, OK, -EIO, LE},
		{0, 100, false, NT, -EIO, NT},
		{-ETIMEDOUT, 100, false, NT, -ETIMEDOUT, NT},
	} {
		rc, hs := TxDone(tc.rc, tc.in, tc.resid, tc.zc)
		if rc != tc.wantRC || hs != tc.wantStatus {
			t.Errorf("tx_done(%d, %v, resid %d, zc %v) = %d %v", tc.rc, tc.in, tc.resid, tc.zc, rc, hs)
		}
	}
	if NoRouteStatus != REr || PartialRecvStatus != REr || TimedOutQueueStatus != NT {
		t.Error("fixed statuses")
	}
	// ksocknal_peer_failed notifies only with nothing left that could bring the peer back.
	if !PeerFailedNotifies(false, 0, 0, false) || PeerFailedNotifies(true, 0, 0, false) ||
		PeerFailedNotifies(false, 1, 0, false) || PeerFailedNotifies(false, 0, 1, false) ||
		PeerFailedNotifies(false, 0, 0, true) {
		t.Error("peer_failed condition")
	}
}

// TestReaper: the slice of the peer table checked per second and the resulting bound on
// noticing a deadline.
func TestReaper(t *testing.T) {
	for _, tc := range []struct{ timeout, chunk, period int }{
		{50, 10, 13}, {4, 128, 1}, {1, 128, 1}, {5, 102, 2}, {100, 5, 26}, {1000, 1, 128}, {600, 1, 128},
	} {
		if c, p := ReaperChunk(tc.timeout), ReaperScanPeriod(tc.timeout); c != tc.chunk || p != tc.period {
			t.Errorf("timeout %d: chunk %d period %d, want %d %d", tc.timeout, c, p, tc.chunk, tc.period)
		}
	}
}

// TestTimedOut is ksocknal_find_timed_out_conn's order: socket error, receive stall, send stall.
func TestTimedOut(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    ConnTimers
		now  int64
		want int
	}{
		{"idle conn never times out", ConnTimers{RxDeadline: 10, TxDeadline: 10}, 100, 0},
		{"reset", ConnTimers{SockErr: ECONNRESET}, 0, -ECONNRESET},
		{"rx stalled at deadline", ConnTimers{RxStarted: true, RxDeadline: 50}, 50, -ETIMEDOUT},
		{"rx one second early", ConnTimers{RxStarted: true, RxDeadline: 50}, 49, 0},
		{"tx stalled", ConnTimers{TxPending: true, TxDeadline: 60}, 60, -ETIMEDOUT},
		{"tx deadline passed but nothing pending", ConnTimers{TxDeadline: 60}, 70, 0},
		{"error beats timeout", ConnTimers{SockErr: ETIMEDOUT, RxStarted: true, RxDeadline: 1}, 5, -ETIMEDOUT},
	} {
		if got := tc.c.TimedOut(tc.now); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestKeepalive: ksocknal_send_keepalive_locked on V3 with keepalive 30.
func TestKeepalive(t *testing.T) {
	for _, tc := range []struct {
		name        string
		v           Version
		nconns, ka  int
		now, la, sk int64
		queued      bool
		armed, send bool
	}{
		{"silent 30 s: NOOP", ProtoV3, 3, 30, 130, 100, 0, false, true, true},
		{"silent 29 s: nothing", ProtoV3, 3, 30, 129, 100, 0, false, false, false},
		{"within 10 s of the last: nothing", ProtoV3, 3, 30, 135, 100, 140, false, false, false},
		{"10 s later: again", ProtoV3, 3, 30, 140, 100, 140, false, true, true},
		{"ACK queued: armed, no NOOP", ProtoV3, 3, 30, 130, 100, 0, true, true, false},
		{"V2: never", ProtoV2, 3, 30, 1000, 0, 0, false, false, false},
		{"keepalive 0: never", ProtoV3, 3, 0, 1000, 0, 0, false, false, false},
		{"no conns: never", ProtoV3, 0, 30, 1000, 0, 0, false, false, false},
	} {
		armed, send := KeepaliveDue(tc.v, tc.nconns, tc.ka, tc.now, tc.la, tc.sk, tc.queued)
		if armed != tc.armed || send != tc.send {
			t.Errorf("%s: armed %v send %v", tc.name, armed, send)
		}
	}
	if NextKeepalive(130) != 140 {
		t.Error("retry 10 s later")
	}
}
