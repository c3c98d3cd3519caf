package lnet

// attemptResend models lnet_attempt_msg_resend. It refuses recovery pings, messages marked
// no-resend and messages that used up retry_count (counting failed_resends when retry_count >
// 0); otherwise it returns the tx credits (decommit with -EAGAIN: no send statistics), resets
// the target to the header destination and queues the message for the monitor, which is woken.
func (n *Node) attemptResend(m *Msg) bool {
	if m.recovery || m.noResend {
		return false
	}
	if int(m.retries) >= n.tun.RetryCount {
		if n.tun.RetryCount > 0 {
			n.stats.FailedResends++
		}
		return false
	}
	m.retries++
	n.decommitTx(m, -EAGAIN)
	m.target = m.Hdr.Dst
	m.sending = false
	m.resending = true
	n.resendQ.Push(m)
	n.wakeMonitor()
	return true
}

// resendPending models lnet_resend_pending_msgs_locked: re-run lnet_send for each queued
// message with its original source and gateway parameters; a successful re-post counts
// resend_count, a failure finalizes the message with msg_no_resend. A message whose MD was
// unlinked meanwhile goes through selection and commit like any resend and is refused there
// with -ECANCELED and LOCAL_ERROR (see handleSend), as in the kernel. The message keeps the
// previous attempt's hstatus, as the kernel's does (msg_health_status is only set again by
// the LND's completion or by an LNet failure): a resend the LND refuses at once reports the
// old status again.
func (n *Node) resendPending() {
	for k := n.resendQ.Len(); k > 0; k-- {
		m := n.resendQ.Pop()
		m.resending = false
		if rc := n.send(m.srcSpec, m, m.rtrNID); rc != 0 {
			m.noResend = true
			n.finalize(m, rc)
			continue
		}
		n.stats.ResendCount++
	}
}
