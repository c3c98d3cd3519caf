package o2ib

import "github.com/lnetsim/lnetsim/sim"

// Profile holds the o2iblnd behaviour rules that differ between the Lustre releases the
// model knows, one field per rule. The zero value is master: each field is the older
// behaviour, set for the releases before the change its comment names. It rides in Params
// (per net or per NI, so each node of a mixed cluster follows its own release); whoever maps
// releases fills it, and code here tests the fields, never a release name.
type Profile struct {
	// NoListenerReconnect: a "no listener" reject (IB_CM_REJ_INVALID_SERVICE_ID) is handed
	// to kiblnd_check_reconnect like a stale one, and the attempt ends -ECONNREFUSED (up to
	// 2.12.8; LU-14536 fails it at once with -EHOSTUNREACH from 2.12.9 and 2.15).
	NoListenerReconnect bool
	// NoListenerUnlimited: with NoListenerReconnect, the reconnects go on as long as txs wait
	// for the peer (up to 2.12.6; LU-13972 counts the no-listener rejects per peer,
	// ibp_retries, and stops reconnecting once they exceed retry_count, in 2.12.7 and 2.14).
	NoListenerUnlimited bool
	// LocalConnFailureStatus: a failed connection fails its waiting txs LOCAL_DROPPED
	// whatever the error, and connd fails a waiting tx past its deadline LOCAL_TIMEOUT (up
	// to 2.12; LU-13571 reports NETWORK_TIMEOUT for both, and for -EHOSTUNREACH and
	// -ETIMEDOUT, from 2.14, so 2.15).
	LocalConnFailureStatus bool
	// RefusedLocalDropped: a refused connection (-ECONNREFUSED) fails its waiting txs
	// LOCAL_DROPPED (up to 2.14; LU-14540 reports REMOTE_DROPPED from 2.15).
	RefusedLocalDropped bool
	// NoConnreqTimeout: connd never aborts a connection request, and address and route
	// resolution may take the tx timeout (up to 2.15; LU-17480 aborts a request older than
	// max(5 s, timeout/4) and resolves within RDMA_RESOLVE_TIMEOUT, 5 s, from 2.16).
	NoConnreqTimeout bool
	// WaitingTxStaleDeadline: a tx queued on a peer waiting for its connection keeps the
	// deadline its descriptor had (0 for one never used), so connd may fail it at its first
	// look at the peer (up to 2.15; LU-16184 sets the deadline there, and LU-17480 makes it
	// connreq timeout + 2 x 5 s, from 2.16).
	WaitingTxStaleDeadline bool
	// CreditsHighwaterMin: credits are returned at min(peer_credits_hiw, queue depth - 1)
	// (up to 2.15; LU-15828 scales peer_credits_hiw by the conn's queue depth over
	// peer_credits from 2.16).
	CreditsHighwaterMin bool
	// CreditsHighwaterFixed: credits are returned at peer_credits_hiw whatever the conn's
	// queue depth, so a conn negotiated below it returns them only with a keepalive NOOP or
	// a message going back (up to 2.12.2; LU-12569 takes min(hiw, queue depth - 1) from
	// 2.12.3). It overrides CreditsHighwaterMin.
	CreditsHighwaterFixed bool
	// ImmediatePayloadCopied: an IMMEDIATE's payload is copied into the message, so it maps
	// no FastReg descriptor (up to 2.12; LU-14008 sends it from the mapped pages, a
	// descriptor taken for every IMMEDIATE with a payload, from 2.15).
	ImmediatePayloadCopied bool
}

// resolveTimeout is the timeout given to rdma_resolve_addr and rdma_resolve_route:
// RDMA_RESOLVE_TIMEOUT, or the net's tx timeout before LU-17480 (NoConnreqTimeout).
func (n *kibNet) resolveTimeout() sim.Time {
	if n.tun.Profile.NoConnreqTimeout {
		return n.timeout()
	}
	return rdmaResolveTimeout
}
