package lnet

import "github.com/lnetsim/lnetsim/sim"

// NIStatus is the status a node advertises for an NI in its ping buffer.
type NIStatus uint32

// NI status values (LNET_NI_STATUS_UP/DOWN).
const (
	NIStatusUp   NIStatus = 0x15aac0de
	NIStatusDown NIStatus = 0xdeadface
)

// String returns "up" or "down".
func (s NIStatus) String() string {
	if s == NIStatusUp {
		return "up"
	}
	return "down"
}

// NIStats are an NI's traffic counters as `lnetctl net show -v` prints them (statistics:).
type NIStats struct {
	SendCount  uint64 `yaml:"send_count"`
	RecvCount  uint64 `yaml:"recv_count"`
	DropCount  uint64 `yaml:"drop_count"`
	SendLength uint64 `yaml:"send_length"`
	RecvLength uint64 `yaml:"recv_length"`
	DropLength uint64 `yaml:"drop_length"`

	Sent     TypeCounts `yaml:"sent_stats"`
	Received TypeCounts `yaml:"received_stats"`
	Dropped  TypeCounts `yaml:"dropped_stats"`
}

// NIHealthStats are a local NI's health counters (`net show -v`, health stats:).
type NIHealthStats struct {
	FatalError int    `yaml:"fatal_error"`
	Interrupts uint64 `yaml:"interrupts"`
	Dropped    uint64 `yaml:"dropped"`
	Aborted    uint64 `yaml:"aborted"`
	NoRoute    uint64 `yaml:"no route"`
	Timeouts   uint64 `yaml:"timeouts"`
	Error      uint64 `yaml:"error"`
	PingCount  int    `yaml:"ping_count"`
	NextPing   int64  `yaml:"next_ping"` // seconds of virtual time
}

// Net is a local network (struct lnet_net): its tunables, its NIs and its selection state.
type Net struct {
	ID          NetID       // the network
	Tunables    NetTunables // credits, peer_credits, peer_timeout, peer_buffer_credits
	LNDTimeout  sim.Time    // the LND's own timeout (o2ib `timeout`); 0 = use the global lnd_timeout
	SelPriority uint32      // net_sel_priority (UDSP src rule), lower preferred
	nis         []*NI
	seq         uint32
	lnd         LND
	timeoutLND  TimeoutLND // lnd if it exposes a timeout, else nil
	lastAlive   sim.Time   // net_last_alive: last router checker ping received (routers)
}

// NIs returns the net's local NIs in configuration order.
func (nt *Net) NIs() []*NI { return nt.nis }

// healthv is lnet_get_net_healthv_locked: the best health of the net's NIs not in fatal state.
func (nt *Net) healthv() int {
	best := 0
	for _, ni := range nt.nis {
		if !ni.fatal && ni.health > best {
			best = ni.health
		}
	}
	return best
}

// NI is a local network interface (struct lnet_ni).
type NI struct {
	node *Node
	nid  NID
	net  *Net

	health int
	status NIStatus // the NI's word in the ping buffer (*ni_status)
	fatal  bool     // ni_fatal_error_on
	active bool     // started by its LND and in the ping buffer (LNET_NI_STATE_ACTIVE)

	lastAlive sim.Time // ni_last_alive (NIAliveFromAnyMessage, 2.12): the whole second it last received a message

	SelPriority uint32 // ni_sel_priority, lower preferred (UINT_MAX default)
	NUMADist    int    // distance to the MD's CPT (all equal in the model unless set)

	txCredits int       // ni_tx_credits: the sum over the CPTs' queues, what selection compares
	tq        []txQueue // ni_tx_queues: one per CPT
	seq       uint32

	stats  NIStats
	hstats NIHealthStats
	lat    *opLatency // ni_latency (master), allocated on the first sample

	recoveryState // local recovery (ln_mt_localNIRecovq)

	// LNDData is free for the LND's per-NI state (ni_data).
	LNDData any
}

// NID returns the NI's NID.
func (ni *NI) NID() NID { return ni.nid }

// Net returns the NI's net.
func (ni *NI) Net() *Net { return ni.net }

// Node returns the node owning the NI.
func (ni *NI) Node() *Node { return ni.node }

// Health returns ni_healthv (0..1000).
func (ni *NI) Health() int { return ni.health }

// Status returns the NI's status as lnet_ni_get_status_locked gives it, what `lnetctl net
// show` prints and what a new ping target takes (lnet_ping_target_install_locked): DOWN while
// in fatal state, else its word in the ping buffer; under NonRouterNIStatusUp (2.16) UP on a
// node that does not route.
func (ni *NI) Status() NIStatus {
	switch {
	case ni.fatal:
		return NIStatusDown
	case ni.node.tun.Profile.NonRouterNIStatusUp && !ni.node.routing:
		return NIStatusUp
	}
	return ni.status
}

// AdvertisedStatus returns the NI's word in the node's ping buffer (*ni_status): what peers
// read when they ping it or are pushed to. It differs from Status while the NI is in fatal
// state and nothing has written the word DOWN yet, and after the fatal state is cleared
// while the word stays DOWN (FatalClearLeavesStatus).
func (ni *NI) AdvertisedStatus() NIStatus { return ni.status }

// Fatal reports ni_fatal_error_on.
func (ni *NI) Fatal() bool { return ni.fatal }

// txQueue is one CPT's share of an NI's tx credits (struct lnet_tx_queue): its credits, their
// maximum and the lowest they fell to, and the messages waiting for one (tq_delayed).
type txQueue struct {
	credits, max, min int
	delayed           msgQueue
}

// newTxQueues models the NI's queues as lnet_startup_lndni sets them: ncpts queues of
// lnet_ni_tq_credits each (the net's credits on one CPT; otherwise credits/ncpts raised to
// 8 x peer_credits and capped at credits, so the NI's total can exceed its credits).
func newTxQueues(tun NetTunables, ncpts int) []txQueue {
	c := tun.Credits
	if ncpts > 1 {
		c = min(max(tun.Credits/ncpts, 8*tun.PeerCredits), tun.Credits)
	}
	tq := make([]txQueue, ncpts)
	for i := range tq {
		tq[i] = txQueue{credits: c, max: c, min: c}
	}
	return tq
}

// TxCredits returns the NI's tx credits summed over its CPTs: available (ni_tx_credits),
// maximum, and the sum of each CPT's lowest. TxQueues has them per CPT.
func (ni *NI) TxCredits() (avail, max, min int) {
	for _, q := range ni.tq {
		max += q.max
		min += q.min
	}
	return ni.txCredits, max, min
}

// TxQueue is one CPT's NI tx credits, as /sys/kernel/debug/lnet/nis prints a line per CPT.
type TxQueue struct {
	CPT           int `yaml:"cpt"`
	NICreditsShow `yaml:",inline"`
}

// TxQueues returns the NI's tx credits per CPT.
func (ni *NI) TxQueues() []TxQueue {
	out := make([]TxQueue, len(ni.tq))
	for i, q := range ni.tq {
		out[i] = TxQueue{CPT: i, NICreditsShow: NICreditsShow{Max: q.max, Available: q.credits, Min: q.min, Queued: q.delayed.Len()}}
	}
	return out
}

// TxQueued returns how many messages wait for an NI tx credit, on every CPT.
func (ni *NI) TxQueued() int {
	n := 0
	for i := range ni.tq {
		n += ni.tq[i].delayed.Len()
	}
	return n
}

// Stats returns the NI's traffic counters.
func (ni *NI) Stats() NIStats { return ni.stats }

// HealthStats returns the NI's health counters.
func (ni *NI) HealthStats() NIHealthStats {
	h := ni.hstats
	h.PingCount, h.NextPing = ni.pingStats()
	if ni.fatal {
		h.FatalError = 1
	}
	return h
}

// InRecovery reports whether the NI is on the local recovery queue.
func (ni *NI) InRecovery() bool { return ni.inRecovery }

// LNDTimeout returns the timeout the LND must use for a tx on this NI: the net's own LND
// timeout if set, else the global lnet_lnd_timeout (models kiblnd_timeout/lnet_get_lnd_timeout).
func (ni *NI) LNDTimeout() sim.Time {
	if ni.net.LNDTimeout > 0 {
		return ni.net.LNDTimeout
	}
	return ni.node.tun.LNDTimeout()
}
