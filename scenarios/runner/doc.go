// Package runner plays a loaded scenario: it builds the simulated cluster (one LNet node per
// member, its NIs on the chosen LND), drives the workloads and the fault timeline on one
// event kernel, evaluates the expectations and writes the run's result directory.
//
// # LND backends
//
// The "ideal" backend connects NIs through model/lnet's ideal LND: fixed latency, no
// credits or handshakes of its own. Fabric faults are then approximated at the LND boundary,
// as o2iblnd would surface them (see faults.go): a port or link that goes down makes its NI
// fatal on its node (as PORT_ERR does) and fails the sends that use it with
// LNET_MSG_STATUS_REMOTE_DROPPED (o2iblnd's status for a send completion error), a send to it
// only after the RC retry exhaustion time. The "o2ib" backend, which runs o2iblnd over the
// InfiniBand model, replaces the approximation once model/o2ib is wired in.
//
// # Attribution
//
// LNet messages are attributed to a workload by their endpoints: a PUT or GET from a member of
// the workload's From to a member of its To (ACK and REPLY the other way). Messages LNet sends
// for itself (discovery, recovery pings) between the same nodes are attributed alike; ping
// workloads therefore count them too.
package runner
