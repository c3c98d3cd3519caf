package o2ib

// RejectPrivateData returns the private data an o2iblnd passive side sends with a
// consumer-defined CM reject of reason why (Reject*), advertising queueDepth (the queue depth
// a REJECT_MSG_QUEUE_SIZE asks the initiator to adopt). Scenarios inject such rejects with
// ib.Fabric.InjectCMReject to exercise kiblnd_rejected's paths.
func RejectPrivateData(why, queueDepth int) []byte {
	r := rejMsg{version: MsgVersion, why: why, cp: connParams{queueDepth: queueDepth, maxFrags: maxRDMAFrags, maxMsgSize: msgSize}}
	return r.pack()
}
