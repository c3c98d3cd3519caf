package lnet

import "github.com/lnetsim/lnetsim/sim"

// LatencyOp names one of the operations whose latency a local NI and a peer NI accumulate
// (enum lnet_latency_op, master only: LU-20426).
type LatencyOp int

// The timed operations, in the kernel's order.
const (
	LatencyPutEgress LatencyOp = iota // PUT commit to its SEND event (local send completion)
	LatencyGetRTT                     // GET request to its REPLY's finalize
	LatencyPutAckRTT                  // acked PUT request to its ACK's finalize
	NumLatencyOps
)

// latencyNames are the key prefixes lnetctl prints for each operation (the Netlink key
// schema of lnet_nl_put_latency: put_egress, get_rtt, put_ack).
var latencyNames = [NumLatencyOps]string{"put_egress", "get_rtt", "put_ack"}

// String returns the operation's key prefix ("get_rtt").
func (op LatencyOp) String() string { return latencyNames[op] }

// latencyAcc is one operation's accumulator (struct lnet_latency_stats): samples, the sum,
// the minimum and the maximum in nanoseconds.
type latencyAcc struct {
	samples  uint32
	sum      uint64
	min, max uint64
}

// opLatency is the accumulators of a local NI or peer NI, indexed by LatencyOp (ni_latency,
// lpni_latency). The model allocates them on an element's first sample, so the many peer NIs
// that never time an operation pay one pointer; the kernel embeds them.
type opLatency [NumLatencyOps]latencyAcc

// record models lnet_record_latency: a sample of ns nanoseconds; none unless positive (a
// completion at its start's virtual instant adds nothing, as a zero delta would not in the
// kernel); the first sample seeds the extremes.
func (a *latencyAcc) record(ns sim.Time) {
	if ns <= 0 {
		return
	}
	v := uint64(ns)
	a.sum += v
	a.samples++
	if a.samples == 1 {
		a.min, a.max = v, v
		return
	}
	a.min = min(a.min, v)
	a.max = max(a.max, v)
}

// LatencySummary is one operation's figures as lnetctl prints them (struct
// lnet_latency_summary from lnet_latency_stats_summary): all zero without samples, the average
// the integer mean.
type LatencySummary struct {
	Samples uint32
	MinNs   uint64
	MaxNs   uint64
	AvgNs   uint64
}

// Latency holds the summaries of an element's three operations, indexed by LatencyOp.
type Latency [NumLatencyOps]LatencySummary

// latencyOf summarizes an element's accumulators (all zeros when it has none).
func latencyOf(l *opLatency) Latency {
	var out Latency
	if l == nil {
		return out
	}
	for op, a := range l {
		if a.samples == 0 {
			continue
		}
		out[op] = LatencySummary{Samples: a.samples, MinNs: a.min, MaxNs: a.max, AvgNs: a.sum / uint64(a.samples)}
	}
	return out
}

// recordLatency adds a sample to the accumulators *p, allocating them on the first.
func recordLatency(p **opLatency, op LatencyOp, ns sim.Time) {
	if ns <= 0 {
		return
	}
	if *p == nil {
		*p = new(opLatency)
	}
	(*p)[op].record(ns)
}

// recordOpLatency models lnet_record_op_latency: the sample goes to the peer NI and to the
// local NI, each when there is one.
func recordOpLatency(lpni *PeerNI, ni *NI, op LatencyOp, ns sim.Time) {
	if lpni != nil {
		recordLatency(&lpni.lat, op, ns)
	}
	if ni != nil {
		recordLatency(&ni.lat, op, ns)
	}
}

// Latency returns the NI's per-operation latency (master's net show -v statistics).
func (ni *NI) Latency() Latency { return latencyOf(ni.lat) }

// Latency returns the peer NI's per-operation latency (master's peer show -v statistics).
func (lpni *PeerNI) Latency() Latency { return latencyOf(lpni.lat) }

// recordEgress models lnet_msg_decommit_tx's PUT egress sample: a successful SEND of a PUT
// this node originated, not a resend, from its commit (msg_t_start) to its finalize, on the
// peer NI and NI it was sent by.
func (n *Node) recordEgress(m *Msg) {
	if m.evType != EventSEND || m.Hdr.Type != MsgPUT || m.retries != 0 || n.tun.Profile.NoLatencyStats {
		return
	}
	recordOpLatency(m.txPeerNI, m.txNI, LatencyPutEgress, n.k.Now()-m.tStart)
}

// recordResponse models lnet_record_response_latency, called where lnet_msg_detach_md lets
// the MD's response tracker go (the last message detached from an MD that unlinks, or from
// one of infinite threshold): a REPLY or ACK finalized with status 0 whose tracker neither
// expired nor was unlinked records the round trip from the tracker's start to now, on the
// peer NI and NI it was received from. The REPLY of an LND's optimized GET
// (lnet_create_reply_msg: o2iblnd's GET_REQ) has neither msg_rxpeer nor msg_rxni in the
// kernel, so its round trip goes nowhere; the model's such REPLY keeps its NI in rxNI for its
// byte counts, and is told by its missing peer NI. Any other message detaching (the SEND of a
// GET whose REPLY finalized first) lets the tracker go without a sample.
func (n *Node) recordResponse(m *Msg, md *MD, status int) {
	md.rspTimed = false
	if status != 0 || n.tun.Profile.NoLatencyStats {
		return
	}
	var op LatencyOp
	switch m.evType {
	case EventREPLY:
		op = LatencyGetRTT
	case EventACK:
		op = LatencyPutAckRTT
	default:
		return
	}
	if m.rxPeerNI == nil {
		return // an optimized GET's REPLY (CreateReplyMsg)
	}
	recordOpLatency(m.rxPeerNI, m.rxNI, op, n.k.Now()-md.rspStart)
}
