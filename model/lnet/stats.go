package lnet

// Counters are a node's LNet counters as `lnetctl stats show` prints them (lnet_counters
// common + health).
type Counters struct {
	MsgsAlloc            uint64 `yaml:"msgs_alloc"`
	MsgsMax              uint64 `yaml:"msgs_max"`
	RstAlloc             uint64 `yaml:"rst_alloc"`
	Errors               uint64 `yaml:"errors"`
	SendCount            uint64 `yaml:"send_count"`
	ResendCount          uint64 `yaml:"resend_count"`
	ResponseTimeoutCount uint64 `yaml:"response_timeout_count"`
	LocalInterruptCount  uint64 `yaml:"local_interrupt_count"`
	LocalDroppedCount    uint64 `yaml:"local_dropped_count"`
	LocalAbortedCount    uint64 `yaml:"local_aborted_count"`
	LocalNoRouteCount    uint64 `yaml:"local_no_route_count"`
	LocalTimeoutCount    uint64 `yaml:"local_timeout_count"`
	LocalErrorCount      uint64 `yaml:"local_error_count"`
	RemoteDroppedCount   uint64 `yaml:"remote_dropped_count"`
	RemoteErrorCount     uint64 `yaml:"remote_error_count"`
	RemoteTimeoutCount   uint64 `yaml:"remote_timeout_count"`
	NetworkTimeoutCount  uint64 `yaml:"network_timeout_count"`
	RecvCount            uint64 `yaml:"recv_count"`
	RouteCount           uint64 `yaml:"route_count"`
	DropCount            uint64 `yaml:"drop_count"`
	SendLength           uint64 `yaml:"send_length"`
	RecvLength           uint64 `yaml:"recv_length"`
	RouteLength          uint64 `yaml:"route_length"`
	DropLength           uint64 `yaml:"drop_length"`
	FailedResends        uint64 `yaml:"failed_resends"`
	SuccessfulResends    uint64 `yaml:"successful_resends"`
	LateMsgCount         uint64 `yaml:"late_msg_count"` // ln_late_msg_count (not shown by lnetctl)
}

// Stats returns the node's counters. msgs_alloc, msgs_max and rst_alloc are the kernel's
// unsigned 32-bit values (they wrap below zero after a stats reset, ResetStats).
func (n *Node) Stats() Counters {
	c := n.stats
	c.MsgsAlloc, c.MsgsMax, c.RstAlloc = uint64(uint32(c.MsgsAlloc)), uint64(uint32(c.MsgsMax)), uint64(uint32(c.RstAlloc))
	return c
}

// countHStatus bumps the global per-hstatus counter (models lnet_incr_stats).
func (c *Counters) countHStatus(h HStatus) {
	switch h {
	case LNET_MSG_STATUS_LOCAL_INTERRUPT:
		c.LocalInterruptCount++
	case LNET_MSG_STATUS_LOCAL_DROPPED:
		c.LocalDroppedCount++
	case LNET_MSG_STATUS_LOCAL_ABORTED:
		c.LocalAbortedCount++
	case LNET_MSG_STATUS_LOCAL_NO_ROUTE:
		c.LocalNoRouteCount++
	case LNET_MSG_STATUS_LOCAL_TIMEOUT:
		c.LocalTimeoutCount++
	case LNET_MSG_STATUS_LOCAL_ERROR:
		c.LocalErrorCount++
	case LNET_MSG_STATUS_REMOTE_DROPPED:
		c.RemoteDroppedCount++
	case LNET_MSG_STATUS_REMOTE_ERROR:
		c.RemoteErrorCount++
	case LNET_MSG_STATUS_REMOTE_TIMEOUT:
		c.RemoteTimeoutCount++
	case LNET_MSG_STATUS_NETWORK_TIMEOUT:
		c.NetworkTimeoutCount++
	}
}

// countNIHStatus bumps a local NI's or peer NI's health statistics for a failure (models
// lnet_incr_hstats): local statuses count on the NI, remote and network ones on the peer NI.
func countNIHStatus(ni *NI, lpni *PeerNI, h HStatus) {
	switch h {
	case LNET_MSG_STATUS_LOCAL_INTERRUPT:
		ni.hstats.Interrupts++
	case LNET_MSG_STATUS_LOCAL_DROPPED:
		ni.hstats.Dropped++
	case LNET_MSG_STATUS_LOCAL_ABORTED:
		ni.hstats.Aborted++
	case LNET_MSG_STATUS_LOCAL_NO_ROUTE:
		ni.hstats.NoRoute++
	case LNET_MSG_STATUS_LOCAL_TIMEOUT:
		ni.hstats.Timeouts++
	case LNET_MSG_STATUS_LOCAL_ERROR:
		ni.hstats.Error++
	case LNET_MSG_STATUS_REMOTE_DROPPED:
		if lpni != nil {
			lpni.hstats.Dropped++
		}
	case LNET_MSG_STATUS_REMOTE_ERROR:
		if lpni != nil {
			lpni.hstats.Error++
		}
	case LNET_MSG_STATUS_REMOTE_TIMEOUT:
		if lpni != nil {
			lpni.hstats.Timeout++
		}
	case LNET_MSG_STATUS_NETWORK_TIMEOUT:
		if lpni != nil {
			lpni.hstats.NetworkTimeout++
		}
	}
}

// TypeCounts are per-message-type counters (`sent_stats`, `received_stats`, `dropped_stats`
// of `lnetctl net show -v` / `peer show -v`, lnet_element_stats).
type TypeCounts struct {
	Put   uint64 `yaml:"put"`
	Get   uint64 `yaml:"get"`
	Reply uint64 `yaml:"reply"`
	Ack   uint64 `yaml:"ack"`
	Hello uint64 `yaml:"hello"`
}

// Add adds o's counts to c.
func (c *TypeCounts) Add(o *TypeCounts) {
	c.Put += o.Put
	c.Get += o.Get
	c.Reply += o.Reply
	c.Ack += o.Ack
	c.Hello += o.Hello
}

func (c *TypeCounts) inc(t MsgType) {
	switch t {
	case MsgPUT:
		c.Put++
	case MsgGET:
		c.Get++
	case MsgREPLY:
		c.Reply++
	case MsgACK:
		c.Ack++
	case MsgHELLO:
		c.Hello++
	}
}

// statsType is the type lnet_msg_decommit_tx/rx counts a message under: a target's ACK counts
// as the PUT it answers and its REPLY as the GET (the kernel restores msg_type from the event
// before counting).
func statsType(m *Msg) MsgType {
	switch {
	case m.Hdr.Type == MsgACK && m.isResponse && m.rxNI != nil:
		return MsgPUT
	case m.Hdr.Type == MsgREPLY && m.evType == EventGET:
		return MsgGET
	}
	return m.Hdr.Type
}

// ResetStats models IOC_LIBCFS_RESET_LNET_STATS (`lnetctl stats reset`, from 2.14):
// lnet_counters_reset zeroes the global counters, every field of lnet_counters (not the late
// message count, which is not one of them), when LNet is running; on master
// lnet_iface_stats_reset also zeroes every local NI's and peer NI's message counts (the
// per-type counts their totals are summed from; the model's per-NI byte counts with them)
// and latency accumulators, leaving their health statistics. The kernel's msgs_alloc and
// rst_alloc are unsigned 32-bit: a message or tracker live at the reset that is freed later
// takes them below zero, and `stats show` prints them wrapped, as Stats does. The response
// trackers' compaction keeps its own count of live trackers (rspLive), so it is not misled.
func (n *Node) ResetStats() {
	if n.shutdown {
		return
	}
	n.stats = Counters{LateMsgCount: n.stats.LateMsgCount}
	if n.tun.Profile.NoLatencyStats {
		return
	}
	resetNI := func(ni *NI) {
		ni.stats = NIStats{}
		ni.lat = nil
	}
	if n.loNI != nil {
		resetNI(n.loNI)
	}
	for _, ni := range n.nis {
		resetNI(ni)
	}
	for _, p := range n.peers {
		for _, lpni := range p.nis {
			lpni.sent, lpni.received, lpni.dropped = typedCount{}, typedCount{}, typedCount{}
			lpni.lat = nil
		}
	}
}
