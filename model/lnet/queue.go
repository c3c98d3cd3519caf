package lnet

import "github.com/lnetsim/lnetsim/internal/fifo"

// msgQueue is a FIFO of messages (a credit wait queue, the resend queue, rbp_msgs, lpni_rtrq,
// the discovery wait list).
type msgQueue = fifo.Queue[*Msg]
