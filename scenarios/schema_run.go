package scenarios

import (
	"github.com/lnetsim/lnetsim/scenarios/units"
	"github.com/lnetsim/lnetsim/sim"
)

// Workload is one traffic generator, in lnet_selftest's vocabulary (type ping or brw), or an
// RPC-like exchange above LNet (type rpc: request PUT, optional bulk GET/PUT, reply PUT, with
// an upper-layer timeout and resend, as ptlrpc does).
type Workload struct {
	// Name identifies the workload in results and expectations (default workload<i>).
	Name string `yaml:"name" json:"name"`
	// Type is ping, brw or rpc.
	Type string `yaml:"type" json:"type"`
	// Op is read or write (brw; default write). read is an LNet GET of size bytes, write a PUT.
	Op string `yaml:"op" json:"op,omitempty"`
	// From and To are node or group names (a group means every member).
	From NameList `yaml:"from" json:"from"`
	To   NameList `yaml:"to" json:"to"`
	// Distribution pairs sources with targets: 1:1 (default), 1:n or all-to-all
	// (lst add_test --distribute).
	Distribution string `yaml:"distribution" json:"distribution"`
	// Size of each brw transfer (default 1MiB; lst size=).
	Size units.Size `yaml:"size" json:"size"`
	// Concurrency is the number of operations in flight per source (default 1; lst
	// --concurrency).
	Concurrency int `yaml:"concurrency" json:"concurrency"`
	// Count of operations per source; 0 (default) runs for Duration.
	Count int `yaml:"count" json:"count"`
	// Start is when the workload begins (default 0).
	Start sim.Time `yaml:"start" json:"start"`
	// Duration the workload runs (default: until the end of the run).
	Duration sim.Time `yaml:"duration" json:"duration"`
	// Interval between operations of one stream (default 0: back to back; pings 1s).
	Interval sim.Time `yaml:"interval" json:"interval"`
	// RequestSize is the rpc request PUT's size (default 1KiB).
	RequestSize units.Size `yaml:"request_size" json:"request_size,omitempty"`
	// Bulk is the rpc bulk transfer: none (default), get (server GETs from client: a write)
	// or put (server PUTs to client: a read).
	Bulk string `yaml:"bulk" json:"bulk,omitempty"`
	// BulkSize is the rpc bulk size (default 1MiB when bulk is set).
	BulkSize units.Size `yaml:"bulk_size" json:"bulk_size,omitempty"`
	// ReplySize is the rpc reply PUT's size (default 1KiB).
	ReplySize units.Size `yaml:"reply_size" json:"reply_size,omitempty"`
	// Timeout is the rpc upper-layer timeout after which the request is resent (default 0:
	// none, the RPC waits for its reply however long it takes; ptlrpc's adaptive timeouts are
	// not modelled, so give a fixed value to see resends).
	Timeout sim.Time `yaml:"timeout" json:"timeout"`
	// MaxResends is how many times an rpc is resent after a timeout (default 0).
	MaxResends int `yaml:"max_resends" json:"max_resends"`
	// Portal is the LNet portal used (default 0 for ping; 52, lnet_selftest's SRPC_RDMA_PORTAL, for
	// brw and rpc requests).
	Portal int `yaml:"portal" json:"portal"`
}

func (w *Workload) setDefaults() {
	*w = Workload{Distribution: "1:1", Size: units.MiB, Concurrency: 1, Portal: -1}
}

// Fault is one entry of the fault timeline: an action at a time, repeated periodically, or
// fired at random with a given rate from a named random stream.
type Fault struct {
	// At is when the fault happens (the first time, when periodic; default 0).
	At sim.Time `yaml:"at" json:"at"`
	// Every repeats the fault with this period from At until Until.
	Every sim.Time `yaml:"every" json:"every,omitempty"`
	// Rate fires the fault at random (Poisson, events per second) between At and Until.
	Rate float64 `yaml:"rate" json:"rate,omitempty"`
	// Stream names the random stream of Rate and of random rules (default faults/<i>).
	Stream string `yaml:"stream" json:"stream,omitempty"`
	// Until ends a periodic or random fault (default: the end of the run).
	Until sim.Time `yaml:"until" json:"until,omitempty"`
	// For undoes the fault after this long (link_down -> link_up, port_error -> port_active,
	// hca_fatal -> hca_recover, node_crash -> node_restart, router_down -> router_up, rule
	// add -> remove, loss/delay cleared).
	For sim.Time `yaml:"for" json:"for,omitempty"`
	// Action is one of: link_down, link_up, port_error, port_active, hca_fatal, hca_recover,
	// node_crash, node_restart, router_down, router_up, cm_reject, link_loss, link_delay, sm_down, sm_up,
	// drop_rule_add, drop_rule_remove, delay_rule_add, delay_rule_remove, set_health,
	// set_peer_health, fail_loc, add_uuid, del_uuid, lnd_unload.
	Action string `yaml:"action" json:"action"`
	// Node the action applies to (node actions; the observing node for set_peer_health).
	Node string `yaml:"node" json:"node,omitempty"`
	// NI is a node's NI (node:index or a NID): the port, link or HCA acted on, or the NI
	// whose health is set.
	NI string `yaml:"ni" json:"ni,omitempty"`
	// SwitchLink names a leaf-spine Ethernet trunk, leaf<i>-spine<j> (link_down, link_up,
	// link_loss, link_delay: instead of ni).
	SwitchLink string `yaml:"switch_link" json:"switch_link,omitempty"`
	// PeerNI is the remote NI whose health is set, as seen from Node (set_peer_health).
	PeerNI string `yaml:"peer_ni" json:"peer_ni,omitempty"`
	// Health is the value set by set_health / set_peer_health (0..1000).
	Health int `yaml:"health" json:"health"`
	// Loss is the probability that a packet on the link is lost (link_loss, 0..1).
	Loss float64 `yaml:"loss" json:"loss,omitempty"`
	// Delay added to each packet on the link (link_delay).
	Delay sim.Time `yaml:"delay" json:"delay,omitempty"`
	// Reason of a CM reject: conn_race, no_resources, fatal, conn_uncompat, conn_stale,
	// rdma_frags, msg_queue_size, invalid_srv_id or early (default no_resources).
	Reason string `yaml:"reason" json:"reason,omitempty"`
	// Count of connection attempts rejected (cm_reject; default 1).
	Count int `yaml:"count" json:"count,omitempty"`
	// Rule is the LNet drop or delay rule added (drop_rule_add, delay_rule_add).
	Rule *FaultRule `yaml:"rule" json:"rule,omitempty"`
	// Name names a rule for its removal (default rule<i>), or an lnetctl command for the
	// command check.
	Name string `yaml:"name" json:"name,omitempty"`
	// FailLoc is the libcfs fail_loc the fail_loc action writes on Node (`lctl set_param
	// fail_loc=...`): a check point LNet or socklnd has (0xe002 CFS_FAIL_DELAY_MSG_FORWARD,
	// 0xe003 CFS_FAIL_TEST_PING_MD, 0xe004 CFS_FAIL_RTR_HEALTH_INC, 0xe020 CFS_FAIL_SOCK_CONN,
	// 0xf201 CFS_FAIL_O2IBLND_FMR_MAP_SHORT) with flag bits (0x80000000 once, 0x20000000 skip, 0x10000000
	// some, 0x08000000 rand), or 0 to clear it.
	FailLoc uint32 `yaml:"fail_loc" json:"fail_loc,omitempty"`
	// FailVal is the fail_val written with it (the count of skip and some, rand's 1-in-N;
	// default 0).
	FailVal int64 `yaml:"fail_val" json:"fail_val,omitempty"`
	// UUID is the Lustre UUID add_uuid and del_uuid name (lctl add_uuid UUID NID, lctl
	// del_uuid UUID).
	UUID string `yaml:"uuid" json:"uuid,omitempty"`
	// NID is the NID add_uuid adds to UUID's NIDs: a NID (a node of the scenario need not
	// have it), or node:index.
	NID string `yaml:"nid" json:"nid,omitempty"`
	// LND is the LND module lnd_unload removes from Node: ksocklnd or ko2iblnd.
	LND string `yaml:"lnd" json:"lnd,omitempty"`
	// Lnetctl is an lnetctl command run on Node, as typed ("route del --net o2ib1 --gateway
	// 10.0.0.5@o2ib"); it replaces action.
	Lnetctl string `yaml:"lnetctl" json:"lnetctl,omitempty"`
	// Import is the document `lnetctl: import` reads (its route, peer and routing sections, as
	// lnetctl export prints them).
	Import *LnetctlExport `yaml:"yaml" json:"-"`
	// Cmd is Lnetctl parsed and checked by the loader.
	Cmd *Command `yaml:"-" json:"-"`
}

func (f *Fault) setDefaults() { f.Health = -1 }

// FaultRule is an LNet drop or delay rule (lctl net_drop_add / net_delay_add, lnetctl fault),
// with the kernel's fields (struct lnet_fault_attr).
type FaultRule struct {
	// Src and Dst match the LNet header's source and final destination: "*" (default), a
	// NID, "*@net", or a node reference (node, node:index).
	Src string `yaml:"src" json:"src"`
	Dst string `yaml:"dst" json:"dst"`
	// LocalNID matches the NID a message is received on (receive path only).
	LocalNID string `yaml:"local_nid" json:"local_nid,omitempty"`
	// Rate: act on one message in every Rate matched (exclusive with Interval).
	Rate int `yaml:"rate" json:"rate,omitempty"`
	// Interval: act on about one message per interval (whole seconds in the kernel).
	Interval sim.Time `yaml:"interval" unit:"s" json:"interval,omitempty"`
	// Random drops each matched message with probability 1/2 (needs interval; drop only).
	Random bool `yaml:"random" json:"random,omitempty"`
	// DropAll drops every matched message (drop only).
	DropAll bool `yaml:"drop_all" json:"drop_all,omitempty"`
	// Portal lists the portals matched (empty: all; then only PUT and GET match).
	Portal []int `yaml:"portal" json:"portal,omitempty"`
	// Message lists the LNet message types matched: put, ack, get, reply (empty: all).
	Message []string `yaml:"message" json:"message,omitempty"`
	// HealthError lists the health statuses a drop applies at send time: local_interrupt,
	// local_dropped, local_aborted, local_no_route, local_error, local_timeout,
	// remote_error, remote_dropped, remote_timeout, network_timeout, or random (drop only).
	HealthError []string `yaml:"health_error" json:"health_error,omitempty"`
	// Latency of a delay rule (whole seconds in the kernel).
	Latency sim.Time `yaml:"latency" unit:"s" json:"latency,omitempty"`
}

func (r *FaultRule) setDefaults() { r.Src, r.Dst = "*", "*" }

// Expectation is one assertion checked at the end of the run (or at At).
type Expectation struct {
	// Name labels the assertion in reports (default expect<i>).
	Name string `yaml:"name" json:"name"`
	// Check is one of: messages, operations, stats, health, route, ni_status, path,
	// latency, throughput, nothing_lost, lnetctl.
	Check string `yaml:"check" json:"check"`
	// At is when the check is evaluated (default: the end of the run).
	At sim.Time `yaml:"at" json:"at"`
	// From starts the window of deltas, "changed" and throughput (default 0).
	From sim.Time `yaml:"from" json:"from"`
	// Node is the node observed (stats, route, peer health, path source); empty = all.
	Node string `yaml:"node" json:"node,omitempty"`
	// NI is a local NI reference (health, ni_status, throughput).
	NI string `yaml:"ni" json:"ni,omitempty"`
	// PeerNI is a remote NI as seen from Node (health of a peer NI).
	PeerNI string `yaml:"peer_ni" json:"peer_ni,omitempty"`
	// Workload restricts messages, latency, path and throughput to one workload.
	Workload string `yaml:"workload" json:"workload,omitempty"`
	// Counter is an `lnetctl stats show` counter (stats): resend_count, failed_resends,
	// successful_resends, response_timeout_count, drop_count, send_count, recv_count,
	// local_interrupt_count, local_dropped_count, local_aborted_count,
	// local_no_route_count, local_timeout_count, local_error_count, remote_dropped_count,
	// remote_error_count, remote_timeout_count, network_timeout_count, route_count (messages
	// forwarded); and two router counters lnetctl has no name for: router_expired_count
	// (routed messages dropped past their deadline by the opt-in router_msg_expiry policy)
	// and router_dropped_count (routed messages dropped otherwise: routing disabled,
	// asymmetric route, no way on, next hop believed dead).
	Counter string `yaml:"counter" json:"counter,omitempty"`
	// Status selects by outcome: ok, failed, or an hstatus name (messages); ok or failed
	// (operations); ok, an errno name such as ENOENT, or not_run (command).
	Status string `yaml:"status" json:"status,omitempty"`
	// Type selects LNet messages by type: put, get, ack, reply (messages, latency).
	Type string `yaml:"type" json:"type,omitempty"`
	// Fault names the lnetctl entry of the timeline whose outcome is checked (command).
	Fault string `yaml:"fault" json:"fault,omitempty"`
	// AnsweredBy is the NID (or NI reference) whose REPLY answered a ping (command).
	AnsweredBy string `yaml:"answered_by" json:"answered_by,omitempty"`
	// Match is the text the console check counts the kernel log lines of Node holding (as
	// `dmesg | grep -c MATCH`).
	Match string `yaml:"match" json:"match,omitempty"`
	// Local and Remote select the sockets check's TCP sockets by address and port, ADDR:PORT
	// with * for any part (0.0.0.0 is a socket bound to every address).
	Local  string `yaml:"local" json:"local,omitempty"`
	Remote string `yaml:"remote" json:"remote,omitempty"`
	// Net and Gateway identify a route (route check).
	Net     string `yaml:"net" json:"net,omitempty"`
	Gateway string `yaml:"gateway" json:"gateway,omitempty"`
	// State is up or down (route, ni_status), or absent (route: the node has no such route);
	// listen or established (sockets).
	State string `yaml:"state" json:"state,omitempty"`
	// Via lists NI references a message must traverse in order (path).
	Via []string `yaml:"via" json:"via,omitempty"`
	// Percentile of completion latency (latency; e.g. 50, 99, 99.9).
	Percentile float64 `yaml:"percentile" json:"percentile,omitempty"`
	// Changed asserts that the health value changed (true) or not (false) since From.
	Changed *bool `yaml:"changed" json:"changed,omitempty"`
	// Command is what the lnetctl check reads on Node: net, peer or route show with
	// lnetctl's levels and filters (net show -v 2 --net o2ib, ParseShowCommand), routing
	// show, udsp show [--idx N], stats show, global show, export, export --backup, debug recovery, or
	// which_nid NID [NID...] (the local NID LNetDist chooses for each, distance and order).
	Command string `yaml:"command" json:"command,omitempty"`
	// Show is Command parsed at load when it is a net, peer or route show.
	Show *ShowCommand `yaml:"-" json:"-"`
	// Present, Absent and Equal compare the command's YAML (lnetctl check): every key and
	// list item of Present is in it; no list item of Absent (nor a non-list value) is; each
	// top-level section of Equal is exactly the printed one, compared as parsed YAML.
	Present *YAMLDoc `yaml:"present" json:"present,omitempty"`
	Absent  *YAMLDoc `yaml:"absent" json:"absent,omitempty"`
	Equal   *YAMLDoc `yaml:"equal" json:"equal,omitempty"`
	// Eq, Min and Max bound the observed value: a count, a health value, a duration
	// (latency) or a rate (throughput).
	Eq  Bound `yaml:"eq" json:"eq,omitempty"`
	Min Bound `yaml:"min" json:"min,omitempty"`
	Max Bound `yaml:"max" json:"max,omitempty"`
}
