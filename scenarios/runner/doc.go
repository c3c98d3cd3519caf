// Package runner plays a loaded scenario: it builds the simulated cluster (one LNet node per
// member, its NIs on the chosen LND), drives the workloads and the fault timeline on one
// event kernel, evaluates the expectations and writes the run's result directory.
//
// # LND backends
//
// The "o2ib" backend (the default) runs o2iblnd (model/o2ib) over the InfiniBand model
// (model/ib): every member's HCA ports are cabled to one switch at the scenario's link rate,
// latency and MTU, each NI's address is its port's IPoIB address, and fabric faults act on the
// model itself (a link goes down, an HCA dies, a node crashes, a link loses packets or gains
// delay); o2iblnd then sees the device and CM events and completion errors and LNet the
// hstatus o2iblnd derives from them.
//
// The "ideal" backend connects NIs through model/lnet's ideal LND instead: each message is
// serialized at the link rate on its sender's and receiver's ports, with no credits or
// handshakes of its own, and fabric faults are approximated at the LND boundary as o2iblnd
// would surface them (see faults.go): a port or link that goes down makes its NI fatal on its
// node (as PORT_ERR does) and fails the sends that use it with REMOTE_DROPPED (o2iblnd's
// status for a send completion error), a send to it only after the RC retry exhaustion time.
// It is faster and isolates LNet's own behaviour; link_loss needs the o2ib backend.
//
// # Attribution
//
// LNet messages are attributed to a workload by their endpoints: a PUT or GET from a member of
// the workload's From to a member of its To (ACK and REPLY the other way). Messages LNet sends
// for itself (discovery, recovery pings) between the same nodes are attributed alike; ping
// workloads therefore count them too. The first workload in file order that matches takes the
// message, so two workloads of one type between the same nodes are not told apart (their
// operations are: each stream records its own).
package runner
