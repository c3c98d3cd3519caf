// Package modparam reads the lnet module's string options as the kernel does: `networks=`
// (lnet_parse_networks: which NIs a node starts, `net(iface[,iface])` entries separated by
// commas) and `routes=` (lnet_parse_routes: `net [hops] gateway[:priority] ...` entries
// separated by ';' or newlines, with pdsh-style `[a-b/c,d]` ranges expanded in nets and
// gateways). What the kernel accepts comes back as values; what it refuses comes back as an
// *Error with the kernel's message and the byte offset of the part it points at, so a
// scenario can locate it. The package knows nothing of nodes: applying the routes (which
// gateway is local, which net is local, duplicates) is the caller's, as lnet_add_route's.
//
// Syntax that differs between Lustre releases is a Dialect; the zero Dialect is master.
package modparam
