package o2ib

// This file is the RDMA READ bulk variant (Params.Bulk = BulkRead), which is not in the
// kernel: o2iblnd offers 0 initiator depth and 0 responder resources at connect
// (kiblnd_active_connect, kiblnd_passive_connect), so its QPs can issue no READ, and
// every large PUT or REPLY is pushed by the sender with RDMA WRITE after a PUT_ACK. With
// the variant on, the receiver pulls instead: see readOffer, and the PUT_RDREQ and
// PUT_RDDONE messages (msg.go).

// readOffer is what a conn of the net offers as both initiator depth and responder
// resources at connect: 0 on a write net (the kernel's offer); on a read net read_depth,
// or by default the conn's queue depth, capped at the device's limit. The queue depth is
// the default because a peer can have at most that many PUT_RDREQs on the conn at once
// (each takes a credit), so a deeper offer is never used and a shallower one queues READs
// on the QP behind each other.
func (n *kibNet) readOffer(c *conn) uint8 {
	if n.tun.Bulk != BulkRead {
		return 0
	}
	d := n.tun.ReadDepth
	if d == 0 {
		d = c.queueDepth
	}
	return uint8(min(d, maxReadDepth))
}

// canRead reports whether the conn negotiated RDMA READ both ways: its QP may issue READs
// (initiator depth) and answer them (responder resources). Both sides must have offered
// it, so a read net meeting a write peer (per-NI parameters) falls back to the write path.
func (c *conn) canRead() bool {
	if c.qp == nil {
		return false
	}
	a := c.qp.Attr()
	return a.MaxRdAtomic > 0 && a.MaxDestRdAtomic > 0
}
