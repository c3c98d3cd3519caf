package lnet

import (
	"fmt"
	"strings"
)

// Profile holds the behaviour rules that differ between the Lustre releases the model knows,
// one field per rule. The zero value is master: each field is the older behaviour, set by
// the releases before the change its comment names. Model code tests these fields, never a
// release name.
type Profile struct {
	// HealthIncrementOne: a success adds 1 to an NI's health instead of health_sensitivity
	// (up to 2.12; LU-12303 recovers at the rate health decays from 2.14, so 2.15).
	HealthIncrementOne bool
	// HealthFromSendsOnly: only messages committed for sending are health-checked, and a
	// successful send raises its peer NI's health too (up to 2.12; LU-11477 checks incoming
	// messages and raises a peer NI only on receipt from it from 2.13, so 2.15).
	HealthFromSendsOnly bool
	// SingleRailResend: a failure is charged and resent even on a single-NI node or to a
	// single-NI peer (up to 2.12; LU-13501 skips both from 2.14, so 2.15).
	SingleRailResend bool
	// SingleRailNoLocalHealth: a single-NI node does not charge its own NI for local
	// failures (2.15 and 2.16: LU-13501; LU-19476 charges it again from 2.17).
	SingleRailNoLocalHealth bool
	// RecoveryFailureKeepsHealth: a failed recovery ping charges neither side (2.15 and
	// 2.16: LU-12292 from 2.14; LU-19476 charges it again from 2.17).
	RecoveryFailureKeepsHealth bool
	// NoNIStatusFromHealth: a local NI's status does not follow its health (up to 2.16;
	// LU-19476 sets it DOWN at 0 and UP at 1000 from 2.17).
	NoNIStatusFromHealth bool
	// DiscoveryStatusNoHealth: an NI status learnt by discovery (ping reply or push) is
	// stored without touching the peer NI's health (up to 2.15; LU-16563 charges a DOWN and
	// heals a never-heard-from UP from 2.16).
	DiscoveryStatusNoHealth bool
	// NetworkTimeoutRemoteOnly: NETWORK_TIMEOUT charges the peer NI only (up to 2.12;
	// LU-13571 charges the local NI too from 2.14, so 2.15).
	NetworkTimeoutRemoteOnly bool
	// FixedLNDTimeout, when not 0, is LNet's lnd_timeout in seconds instead of the value
	// derived from transaction_timeout and retry_count (2.12: 5 s, LNET_LND_DEFAULT_TIMEOUT;
	// LU-13510 derives it from 2.14, so 2.15).
	FixedLNDTimeout int
	// DeadlineFromTransactionTimeout: a message's deadline is now + transaction_timeout
	// whatever the LND's timeout (up to 2.16; LU-18566 derives it from the LND timeout, x
	// (retry_count + 1) + 1 s, from 2.17).
	DeadlineFromTransactionTimeout bool
	// FixedRecoveryInterval: recovery pings go every recovery_interval (up to 2.12; LU-13569
	// backs off exponentially from 2.15).
	FixedRecoveryInterval bool
	// RouteNeedsGatewayHealth: a gateway's peer NI counts as alive only with health at or
	// above router_sensitivity percent of the maximum, besides status UP (2.15 and 2.16:
	// LU-11300 from 2.13; LU-18444 judges by status only from 2.17).
	RouteNeedsGatewayHealth bool

	// Router-side and mixed-cluster rules.

	// RouterCheckerPing: gateways are checked by 2.12's router checker: a ping of each
	// gateway every alive_router_check_interval (2.12's live/dead_router_check_interval)
	// that fails when no reply came within router_ping_timeout, not response-tracked and
	// followed by no push; a gateway is alive by those pings and LND notifications, and a
	// route's state is cached from the gateway's ping buffer (lr_downis), whatever its NIs'
	// health (up to 2.12; LU-11300/LU-11299 check gateways by discovery from 2.13, so 2.15).
	RouterCheckerPing bool
	// NIAliveFromAnyMessage: a router keeps each NI's status by ni_last_alive, the second
	// that NI last received any message (lnet_parse), not by the router checker's pings per
	// net: the first message in a later second sets a DOWN word UP, and the monitor sets the
	// word DOWN once the NI has heard nothing for router_ping_timeout + the longer router
	// check interval (lnet_update_ni_status_locked), both in place and without a push, and
	// that pass sets no NI in fatal state DOWN (up to 2.12; LU-11299 keeps the time per net
	// from 2.12.55, LU-13782 pushes and checks the fatal state from 2.13.56, LU-13714 counts
	// pings only from 2.15.0, so 2.15).
	NIAliveFromAnyMessage bool
	// RouteStateFromReplyWithoutDiscovery: a gateway's ping buffer sets its routes' cached
	// state (lr_alive, lr_single_hop) only when it comes in a discovery ping reply (a router
	// check's or an ordinary discovery's) and discovery is disabled for the gateway; with
	// discovery enabled, each successful discovery of the gateway sets every route alive and
	// single-hop exactly when the gateway peer has a net of the route's remote net
	// (lnet_router_discovery_complete, lnet_set_route_hop_type), and a push sets neither
	// (up to 2.15; LU-15595 sets both from every ping reply and push from 2.16).
	RouteStateFromReplyWithoutDiscovery bool

	// Send path, lnet_notify and peer NI recovery.

	// NoDropPastDeadline: a message still waiting for credits past its deadline is sent
	// (up to 2.15; LU-16303 drops it at post with -ETIMEDOUT from 2.16, LU-17854 exempting
	// routed messages).
	NoDropPastDeadline bool
	// FatalNINeverUsed: an NI in fatal state is never chosen, even when its net has no
	// other (up to 2.15; LU-14955 falls back to it from 2.16).
	FatalNINeverUsed bool
	// NotifyByHealth: lnet_notify leaves the peer NI's status alone on an LND's report
	// (an alive one raises its health by the sensitivity instead) and judges aliveness by
	// lnet_is_peer_ni_alive; a router forwards to a peer NI until peer_timeout passes
	// since it was last heard from, and does not charge a single-NI peer (2.15, from
	// LU-11300 in 2.13; LU-17855 sets the status from the report and charges from 2.16, as
	// 2.12's lnet_notify set the peer NI's aliveness from it).
	NotifyByHealth bool
	// NotifyDownFromAnyNI: an LND's "down" report fails the routes through that gateway
	// NID even when it comes from a local NI that selection no longer prefers (up to 2.17;
	// LU-20379, master only).
	NotifyDownFromAnyNI bool
	// PeerRecoveryUnbounded: every peer NI below full health is recovered, forever: no
	// recovery_limit, no age-out, never-heard-from peer NIs too (up to 2.12; LU-13569
	// a2e61838f8, cc27201a76, 39a169cd02 from 2.15).
	PeerRecoveryUnbounded bool
	// FixedMaxRecoveryInterval: the recovery ping backoff caps at 900 s whatever
	// max_recovery_ping_interval says (2.15; LU-14979 makes it the tunable from 2.16).
	FixedMaxRecoveryInterval bool

	// Router-side and mixed-cluster rules, continued.

	// GatewayOwnSensitivity: a gateway's peer NIs gain and lose health by the gateway's own
	// sensitivity (lp_health_sensitivity: the route's, 1 unless configured), and on a router
	// with health_sensitivity 0 every peer's by 1 (2.15 and 2.16: LU-11297 from 2.13;
	// LU-18444 uses health_sensitivity for every peer from 2.17).
	GatewayOwnSensitivity bool
	// ImmediateRoutingSwitch: `lnetctl set routing 0|1` on a running node takes effect at
	// once: disabling stops forwarding, drops the messages waiting for router buffers and
	// marks routing disabled in the ping buffer without pushing it; enabling forwards and
	// advertises at once, again without a push (up to 2.16; LU-15135 enters STOPPING and
	// STARTING from 2.17).
	ImmediateRoutingSwitch bool
	// FatalNotAdvertised: on a node that does not route, an LND that changes an NI's fatal
	// state does not have the monitor rebuild the ping buffer (lnet_mark_ping_buffer_for_update),
	// so peers keep seeing the status of its last rebuild (up to 2.15; LU-16563 rebuilds and
	// pushes from 2.16, by the monitor from LU-16949). This is the sending side of LU-16563;
	// DiscoveryStatusNoHealth is the receiving side. A router of any release advertises a
	// fatal NI DOWN at its next monitor pass (lnet_update_ni_status_locked, LU-13782).
	FatalNotAdvertised bool
	// NonRouterNIStatusUp: on a node that does not route, an NI not in fatal state has status
	// UP whatever its ping buffer word says (lnet_ni_get_status_locked), so the rebuild after
	// a fatal NI recovers advertises it UP again (2.16: LU-16563 da230373bd; LU-19476
	// 3f423f8d49 returns the word on every node from 2.17).
	NonRouterNIStatusUp bool
	// FatalClearLeavesStatus: clearing an NI's fatal state leaves its ping buffer word as it
	// is, so a word a rebuild or a router's monitor pass set DOWN while the NI was fatal stays
	// DOWN (up to 2.17; LU-20093 af1d3c1b9c sets a fully healthy NI's word UP and pushes,
	// lnet_set_link_fatal_state, from 2.17.53).
	FatalClearLeavesStatus bool
	// NoLinkFatalState: no LND sets an NI's fatal state on a port, device or link event:
	// ni_fatal_error_on is only set by o2iblnd's QP event handler, which port events do not
	// reach (2.12; LU-12287 c6e4c21c4f, 2.13.52, sets it from kiblnd_event_handler and
	// kiblnd_startup, LU-14742 fc2df80e96, 2.14.53, from socklnd's link state).
	NoLinkFatalState bool
	// FinalHopFreeMR: a router's final hop to a multi-rail destination selects among the
	// destination's NIs as a fresh send would, whichever NI the originator chose; responses
	// (ACK, REPLY) still go to the NID they name (up to 2.12; LU-12955 honours the
	// originator's NI from 2.13, and LU-13606 leaves it only when that NI is unhealthy or down
	// from 2.14, so 2.15).
	FinalHopFreeMR bool
	// PingWaitsAfterSendFailure: lnet_ping (lnetctl ping) whose GET fails to send waits for
	// its timeout, when it unlinks the MD, before it returns the send's error (up to 2.15;
	// LU-16290 returns at the failed SEND event from 2.16).
	PingWaitsAfterSendFailure bool
	// MRForwardByDestination: a router's final hop may forward multi-rail when the
	// originator is merely a known peer (the multi-rail flag tested is the destination's, a
	// slip LU-19827 names) and the NI the originator chose is not alive by
	// lnet_is_peer_ni_alive (2.15 and 2.16: status and, under RouteNeedsGatewayHealth, health
	// at or above router_sensitivity percent; 2.17: status only, so a merely unhealthy NI is
	// kept). From LU-13606 in 2.14 to 2.17; LU-19827 (master) requires a multi-rail originator
	// and forwards when the chosen NI is down or below full health.
	MRForwardByDestination bool

	// lnetctl.

	// ShowByIoctl: lnetctl's net, peer and route shows read the kernel by ioctl
	// (liblnetconfig's lustre_lnet_show_*): a filter that matches nothing prints nothing,
	// and an unknown peer NID reports "cannot get peer information" (up to 2.15; the
	// Netlink dumps of 2.16 report "Network is down" and "cannot find peer" with the errno;
	// their "No routes found" lnetctl does not print). `debug recovery` names its queue
	// "local NI recovery" or "peer NI recovery" (show_recovery_queue; from 2.16 the Netlink
	// dump, LU-9680 9c8f9b80f9, capitalises them).
	ShowByIoctl bool
	// ImportByIoctl: lnetctl import goes through liblnetconfig's lustre_yaml_config and
	// lustre_yaml_del (up to 2.15): the global section's keys in the handler's fixed order,
	// without max_recovery_ping_interval, and --del also resets drop_asym_route; from 2.16
	// the Netlink import sets each global key in the document's order.
	ImportByIoctl bool
	// ImportNetRaw: lnetctl import hands the net section to the kernel's lnet_net_cmd as
	// written (one NI per local NI, its last interface, with its own tunables); lnetsim
	// refuses a net section at run time on such a node (2.16; up to 2.15 liblnetconfig's
	// handle_yaml_config_ni reads it, under ImportByIoctl; LU-19386 reads each net entry as
	// an ip2nets rule, one NI per interface, and LU-19160 its CPTs, in 2.17).
	ImportNetRaw bool
	// ImportNoIP2Nets: lnetctl's Netlink import has no ip2nets section (it reads the key as a
	// global one and stops: "invalid key 'ip2nets'"), 2.16; up to 2.15 liblnetconfig's
	// handle_yaml_config_ip2nets reads it (ImportByIoctl), and from 2.17 (LU-19159, IPv6
	// patterns LU-19444) handle_net_config_sequence does.
	ImportNoIP2Nets bool
	// GlobalShowKeys, when not 0, is how many of master's `lnetctl global show` keys the
	// release prints, the first ones (jt_show_global adds each new one at the end): 8 up to
	// 2.12 (to recovery_interval), 12 in 2.15 (max_recovery_ping_interval, LU-14979, from
	// 2.16). lnetctl's `set` has the commands of those keys only.
	GlobalShowKeys int
	// MaxIntfKey: `global show` and export print max_interfaces under the key max_intf (up to
	// 2.12; LU-13722 da59e9d89a, 2.14.52, names it max_interfaces, so 2.15).
	MaxIntfKey bool
	// ExportGlobalFour: lnetctl export's global section holds numa_range, max_intf, discovery
	// and drop_asym_route only (up to 2.12; LU-13728 333deef1eb, 2.13.57, exports every key
	// `global show` prints, so 2.15).
	ExportGlobalFour bool
	// NoResendStatsShow: `lnetctl stats show` prints no failed_resends nor successful_resends
	// (up to 2.16; LU-18555 c892edc14a, 2.16.58, prints them after network_timeout_count, so
	// 2.17). The model counts them in every release (counters.yaml, counter checks).
	NoResendStatsShow bool
	// UDSPShowNA: `lnetctl udsp show` and export print every policy's src, dst and rte, NA for
	// one the policy does not set (2.15 and 2.16; LU-16572 3b48b02aef, 2.16.60, prints only
	// those set, so 2.17).
	UDSPShowNA bool
	// NoRouteTypeShow: `route show -v` and export print a route's net, gateway, hop,
	// priority and state, no `type:` (up to 2.12; LU-13029 9f337d94e7, 2.13.53, adds
	// single-hop or multi-hop after the state, so 2.15).
	NoRouteTypeShow bool
	// ImportBadMRTerse: lnetctl import's peer handler (handle_yaml_config_peer) reports a
	// Multi-Rail value other than True and False as "Bad MR value" (up to 2.12; LU-12410's
	// handle_yaml_peer_common names the value from 2.13, so 2.15).
	ImportBadMRTerse bool
	// PeerNIsInAttachOrder: a peer's nets and NIs are listed in the order they were attached
	// (lnet_peer_attach_peer_ni appends; up to 2.14.52, where LU-13806 puts the primary NID's
	// net and NI first).
	PeerNIsInAttachOrder bool
	// BareDiscoveryHandOff: a ping buffer handed by discovery to the peer its primary NID
	// belongs to (lnet_peer_data_present, lnet_peer_set_primary_data) gives that peer neither
	// the discovered peer's multi-rail and discovery state nor the NIDs its reply came to and
	// from, and one naming another NID of the discovered peer itself is handed to that peer,
	// whose primary NID stays (2.12: LU-11641 and LU-13894 came in 2.12.55 and 2.14.51).
	BareDiscoveryHandOff bool
	// GatewayPrimaryStays: discovery never deletes a peer's primary NID while the peer has
	// other NIDs, a gateway's neither (lnet_peer_del_nid's -EBUSY; 2.12.9 has no
	// LNET_PEER_RTR_NI_FORCE_DEL, LU-11475 in 2.12.55 and 2.13, fixed by LU-13041 in 2.13.53).
	GatewayPrimaryStays bool
	// NoAddPeerForceMerge: LNetAddPeer leaves a NID that already has a peer (-EEXIST) in that
	// peer: only a peer it creates is marked to merge into the primary NID's (up to 2.17;
	// LU-20439's lnet_peer_force_merge in master).
	NoAddPeerForceMerge bool
	// PushWhilePushing: lnet_peer_needs_push does not look at LNET_PEER_PUSH_SENT, so a peer
	// stepped by discovery while a push to it is in flight is pushed again when it still needs
	// one (its lp_node_seqno, set by the ACK, older than this node's ping buffer); the second
	// push takes lp_push_mdh and the first one's events still come to the peer (up to 2.15;
	// LU-14810 72726a3118, 2.15.65, refuses while PUSH_SENT from 2.16).
	PushWhilePushing bool
	// ForcePushFirst: lnet_peer_discovery's loop sends a forced push (LNET_PEER_FORCE_PUSH,
	// without FORCE_PING) before it asks whether the peer's NIDs are up to date, and whatever
	// LNET_PEER_PUSH_SENT says: a push in flight does not hold the forced one back (up to
	// 2.16; LU-14810 99153d212d, 2.16.57, drops that branch: lnet_peer_needs_ping, then
	// lnet_peer_needs_push, which refuses while PUSH_SENT, from 2.17).
	ForcePushFirst bool
	// AddPeerStopsOnError: LNetAddPeer stops at its first error but -EEXIST, discovers the
	// primary NID's peer only when it created it, and with discovery off adds NIDs on nets
	// with no local NI too (2.16; LU-19229 in 2.16.58).
	AddPeerStopsOnError bool

	// SmallMaxInterfaces: LNET_INTERFACES_MAX_DEFAULT is 200, the default of max_interfaces
	// and what `lnetctl set max_interfaces` below 16 becomes (up to 2.17; LU-19563 raises it
	// to 4096 in master).
	SmallMaxInterfaces bool

	// BackupLNDTimeout: `lnetctl export --backup` writes an NI's LND timeout with its other
	// lnd tunables (up to 2.16; LU-19194 leaves the read-only timeout out from 2.17).
	BackupLNDTimeout bool
	// NoPeerLockPrimary: no locked primary NIDs (LNET_PEER_LOCK_PRIMARY, LU-14668, from
	// 2.16): lnetctl has no `peer add --lock_prim` nor `peer del --force`.
	NoPeerLockPrimary bool
	// NoNetAddConnsPerPeer: `lnetctl net add` has no --conns-per-peer (up to 2.12; LU-12815
	// adds it in 2.14, so 2.15).
	NoNetAddConnsPerPeer bool
	// NIAddByIoctl: `lnetctl net add` configures the NI by ioctl (lustre_lnet_config_ni): it
	// has no --tos, and the kernel takes any conns_per_peer (up to 2.15; from 2.16 the
	// Netlink NI add, whose LND tunables parsers refuse a conns_per_peer outside 0..127 with
	// ERANGE, and LU-12452's per-NI --tos).
	NIAddByIoctl bool
	// LaxConnsPerPeerOption: `lnetctl net add` ignores a --conns-per-peer that is not a
	// number and hands any number to the kernel (up to 2.17; LU-20398 refuses one that is
	// not a number or is above 127 in master).
	LaxConnsPerPeerOption bool
	// NoLNDTimeoutTOSShow: `net show -v` and export print an NI's lnd tunables without
	// timeout and tos (up to 2.15: liblnetconfig's ioctl printers; LU-16548 adds the timeout
	// and LU-12452 the tos in 2.16).
	NoLNDTimeoutTOSShow bool
	// LNDTunablesInTunables: lnetctl's net show and export print o2iblnd's parameters inside
	// an NI's `tunables:` block, after the net's four, followed by an empty `lnd tunables:`,
	// and socklnd's none (up to 2.12: lustre_lnet_show_net hands lustre_ni_show_tunables the
	// tunables block; LU-12815 a5cbe7883d, 2.14.54, hands it the `lnd tunables:` block, which
	// the ioctl printer then opens for every NI, the loopback's too, so 2.15).
	LNDTunablesInTunables bool
	// ShowTCPBonding: `net show -v` prints each NI's `tcp bonding:` (0) after `dev cpt` (up to
	// 2.12; LU-13641 d123c47a18, 2.14.52, removes socklnd's TCP bonding and the key, so 2.15).
	ShowTCPBonding bool
	// NoFatalErrorShow: a local NI's `health stats:` have no fatal_error (up to 2.12; LU-14114
	// f75ff33d9f, 2.14.53, prints it first, so 2.15).
	NoFatalErrorShow bool
	// NoHealthPingShow: local and peer NIs' `health stats:` have no ping_count nor next_ping
	// (up to 2.12; LU-13569 4c7e4aa576, 2.14.53, adds both at the end, so 2.15).
	NoHealthPingShow bool
	// MapOnDemandAsSet: the Netlink net show (kiblnd_nl_get) prints o2iblnd's map_on_demand
	// flag true only when the NI's map_on_demand is not 0 (2.16; LU-19179 bcf8c66f0f, 2.16.58,
	// always prints it true, so 2.17). Up to 2.15 the ioctl printer prints the number.
	MapOnDemandAsSet bool
	// NoNetSetLNDTimeout: `lnetctl net set` has no --net nor --lnd-timeout (setting an LND's
	// timeout module parameter), and takes --all beside --nid (up to 2.16; LU-18566 adds them
	// and fails --all with --nid with EINVAL in 2.17).
	NoNetSetLNDTimeout bool
	// NoNetNIDOption: `lnetctl net add` and `net del` have no --nid option (an NI named by
	// its address, LU-13642, from 2.16); the NI is given by --net and --if.
	NoNetNIDOption bool

	// NoLatencyStats: local NIs and peer NIs keep no per-operation latency (PUT egress, GET
	// and acked PUT round trips) and lnetctl's net and peer shows print none; `lnetctl stats
	// reset` clears only the global counters (up to 2.17; LU-20426 adds them and clears them
	// with the NIs' and peer NIs' message counts in master).
	NoLatencyStats bool
	// PingByIoctl: lnetctl ping and discover go through liblnetconfig's ioctls
	// (lustre_lnet_ping_nid, lustre_lnet_discover_nid: infra_ping_nid), which read each
	// comma-separated NID by libcfs_str2nid, a host name resolved by gethostbyname, and report
	// one that does not parse as "cannot parse NID 'X'" (up to 2.15; from 2.16 the Netlink
	// ping and discover read the list by lustre_lnet_parse_nid_range, LU-17629 resolving host
	// names there, and refuse it whole: "Unable to parse nidlist: invalid NID in nidstr").
	PingByIoctl bool
	// NoDebugPeer: lnetctl has no `debug peer` (up to 2.15; LU-15234 adds it in 2.16).
	NoDebugPeer bool
	// NoLnetctlFault: lnetctl has no `fault` command (up to 2.15; LU-9680 adds it in 2.16).
	NoLnetctlFault bool
	// FaultRuleTypeForm: lnetctl's fault command is `fault add|del|reset|show --rule_type
	// drop|delay` (up to 2.16; LU-18927 makes it `fault drop|delay add|del|reset|show` in
	// 2.16.56, so 2.17).
	FaultRuleTypeForm bool
	// PeerCmdsByNIDList: lnetctl's peer add and del are lustre_lnet_config_peer_nid and
	// lustre_lnet_del_peer_nid: add without --prim_nid makes the first --nid the primary NID,
	// and their refusals have their own words (up to 2.12; LU-13750's lustre_lnet_modify_peer,
	// 2.13.56, requires --prim_nid).
	PeerCmdsByNIDList bool
	// NoFaultDropAllLocalNID: a fault rule has no drop_all nor local NID, and lctl
	// net_drop_add no --drop_all nor --local_nid (up to 2.12; LU-11470 adds them in 2.12.55,
	// so 2.13).
	NoFaultDropAllLocalNID bool
	// NoUDSP: lnetctl has no `udsp` command (up to 2.12; LU-9121 adds UDSPs in 2.14.51, so
	// 2.15).
	NoUDSP bool
	// LegacyUDSPDel: lnetctl's `udsp del` has no --all, deletes policy 0 when --idx is absent
	// or not a number, and the kernel's lnet_udsp_del_policy reports no error for an index
	// without a policy (up to 2.15; LU-16574, 2.15.57, adds --all, "Invalid index" and ENOENT,
	// so 2.16).
	LegacyUDSPDel bool
	// NoPingSource: lnetctl ping has no --source (up to 2.12; LU-14939 adds it in 2.14.56,
	// so 2.15).
	NoPingSource bool
	// NoMRRouteSetup: lnetctl has no `net add --skip-mr-route-setup` nor `setup-mrrouting`
	// (up to 2.12; LU-14662 adds them in 2.14.56, so 2.15).
	NoMRRouteSetup bool
	// NoStatsReset: lnetctl has no `stats reset` (up to 2.12; LU-13299 adds it in 2.14, so
	// 2.15).
	NoStatsReset bool

	// ModuleDialect is how the kernel reads the lnet module's networks= and routes= options
	// (scenarios/modparam).
	ModuleDialect

	// Failure-injection check points (fail_loc, failloc.go) a release does not have.

	// NoFailDelayMsgForward: lnet_parse applies the delay rules with no
	// CFS_FAIL_DELAY_MSG_FORWARD check (up to 2.15; LU-17854 adds it in 2.16).
	NoFailDelayMsgForward bool
	// NoFailRtrHealthInc: a message received on or from a router raises the sender's peer NI
	// to full health with no CFS_FAIL_RTR_HEALTH_INC check (up to 2.17; LU-19827 adds it in
	// master).
	NoFailRtrHealthInc bool
	// NoNIDMetadata: ping buffers carry no NID metadata (LNET_PING_FEAT_METADATA), lnetctl
	// ping fetches none and there is no CFS_FAIL_TEST_PING_MD check (up to 2.16; LU-18808 adds
	// them in 2.16.58, so 2.17).
	NoNIDMetadata bool
	// NoFailSockConn: socklnd never closes a connection on a simulated send error, having
	// no CFS_FAIL_SOCK_CONN check (up to 2.17; LU-20379 adds it in master).
	NoFailSockConn bool
	// NoFailO2IBFMRMapShort: o2iblnd's FastReg map has no CFS_FAIL_O2IBLND_FMR_MAP_SHORT
	// check, so fail_loc 0xf201 fails no map (up to 2.17; LU-20400 adds it, with the fix
	// that gives a failed map's descriptor back to its pool, in master).
	NoFailO2IBFMRMapShort bool
}

// ReleaseDefaults are the global tunables whose defaults a release changed.
type ReleaseDefaults struct {
	TransactionTimeout int // lnet_transaction_timeout, s
	RetryCount         int // lnet_retry_count
	HealthSensitivity  int // lnet_health_sensitivity
	O2IBTimeout        int // ko2iblnd timeout, s (0: LNet's lnd_timeout)
}

// Release is one Lustre release the model knows: its defaults and behaviour rules.
// ModuleDialect is how a release's kernel reads the lnet module's networks= and routes=
// options where releases differ (scenarios/modparam reads them with it). The zero value is
// master.
type ModuleDialect struct {
	// ScanfTCPNIDs: a tcp NID's address is read by sscanf "%u.%u.%u.%u" (libcfs_str2nid, up
	// to 2.12; rpc_pton from 2.15, LU-10391).
	ScanfTCPNIDs bool
	// ScanfO2IBNIDs: an o2ib NID's address is read by sscanf (up to 2.17; LU-18317 gives o2ib
	// rpc_pton, as tcp has it, in master).
	ScanfO2IBNIDs bool
	// NoAnyNIDText: "<?>" is not a NID (up to 2.15; libcfs_strnid reads it as LNET_ANY_NID
	// from 2.16).
	NoAnyNIDText bool
	// NoKfiNames: the kernel's NID strings have no kfi net (up to 2.15).
	NoKfiNames bool
	// NoEfaBxi3fNames: the kernel's NID strings have no efa nor bxi3f net (up to 2.16).
	NoEfaBxi3fNames bool
	// PrefixInterfaceDup: networks= refuses an interface that an earlier interface of the
	// same net starts with (lnet_ni_unique_net compares strlen(iface) characters, up to
	// 2.15; from 2.16 up to LNET_MAX_STR_LEN, so only the same name).
	PrefixInterfaceDup bool
	// IP2NetsSkipDupNets: ip2nets= skips a matching entry one of whose nets an earlier
	// matching entry gave (up to 2.13.55; from 2.13.56, LU-13734, the entry's NIs join that
	// net).
	IP2NetsSkipDupNets bool
}

type Release struct {
	Name     string
	Defaults ReleaseDefaults
	Profile  Profile
}

// profile212 is 2.12.x: none of the 2.13/2.14 health, recovery, LND timeout and router
// checker rewrites.
var profile212 = Profile{HealthIncrementOne: true, HealthFromSendsOnly: true,
	SingleRailResend: true, NetworkTimeoutRemoteOnly: true, FixedLNDTimeout: 5,
	DeadlineFromTransactionTimeout: true, FixedRecoveryInterval: true, NoNIStatusFromHealth: true,
	DiscoveryStatusNoHealth: true, RouterCheckerPing: true, NIAliveFromAnyMessage: true, RouteStateFromReplyWithoutDiscovery: true, NoDropPastDeadline: true,
	FatalNINeverUsed: true, NotifyDownFromAnyNI: true, PeerRecoveryUnbounded: true,
	FixedMaxRecoveryInterval: true, ImmediateRoutingSwitch: true, FatalNotAdvertised: true,
	FatalClearLeavesStatus: true, NoLinkFatalState: true, FinalHopFreeMR: true, PingWaitsAfterSendFailure: true, ShowByIoctl: true, ImportByIoctl: true, GlobalShowKeys: 8, MaxIntfKey: true, ExportGlobalFour: true, NoRouteTypeShow: true, NoResendStatsShow: true,
	NoFailDelayMsgForward: true, NoFailRtrHealthInc: true, NoFailSockConn: true, NoFailO2IBFMRMapShort: true, NoNIDMetadata: true,
	SmallMaxInterfaces: true, NoNetNIDOption: true, BackupLNDTimeout: true, NoPeerLockPrimary: true, NoLatencyStats: true, NoStatsReset: true,
	NoDebugPeer: true, PingByIoctl: true, NoNetAddConnsPerPeer: true, NoNetSetLNDTimeout: true, NoUDSP: true, LegacyUDSPDel: true,
	NoPingSource: true, NoMRRouteSetup: true, NIAddByIoctl: true, LaxConnsPerPeerOption: true,
	NoLNDTimeoutTOSShow: true, LNDTunablesInTunables: true, ShowTCPBonding: true, NoFatalErrorShow: true, NoHealthPingShow: true,
	MapOnDemandAsSet: true, ImportBadMRTerse: true, NoLnetctlFault: true, FaultRuleTypeForm: true,
	NoFaultDropAllLocalNID: true, PeerCmdsByNIDList: true, PeerNIsInAttachOrder: true, BareDiscoveryHandOff: true, GatewayPrimaryStays: true, NoAddPeerForceMerge: true, PushWhilePushing: true, ForcePushFirst: true, ModuleDialect: ModuleDialect{ScanfTCPNIDs: true, ScanfO2IBNIDs: true, NoAnyNIDText: true,
		NoKfiNames: true, NoEfaBxi3fNames: true, PrefixInterfaceDup: true, IP2NetsSkipDupNets: true}}

// profile216 is 2.16; 2.15 adds LU-16563's and the send, notify and recovery rules below.
var profile216 = Profile{SingleRailNoLocalHealth: true, DeadlineFromTransactionTimeout: true,
	RouteNeedsGatewayHealth: true, RecoveryFailureKeepsHealth: true, NoNIStatusFromHealth: true,
	NotifyDownFromAnyNI: true, GatewayOwnSensitivity: true, ImmediateRoutingSwitch: true,
	MRForwardByDestination: true, NoFailRtrHealthInc: true, NoFailSockConn: true, NoFailO2IBFMRMapShort: true, NoNIDMetadata: true,
	SmallMaxInterfaces: true, BackupLNDTimeout: true, NoLatencyStats: true, LaxConnsPerPeerOption: true, ImportNetRaw: true, ImportNoIP2Nets: true,
	FaultRuleTypeForm: true, NoNetSetLNDTimeout: true, NoAddPeerForceMerge: true, AddPeerStopsOnError: true, MapOnDemandAsSet: true,
	NonRouterNIStatusUp: true, ForcePushFirst: true, FatalClearLeavesStatus: true, NoResendStatsShow: true, UDSPShowNA: true,
	ModuleDialect: ModuleDialect{ScanfO2IBNIDs: true, NoEfaBxi3fNames: true}}

// profile215 is 2.15.
var profile215 = withPre216LNet(withDiscoveryStatusNoHealth(profile216))

// withPre216LNet adds the send, notify, recovery and ping rules 2.16 changed (LU-16303,
// LU-14955, LU-17855, LU-14979, LU-16290, LU-17854), the route state of 2.15's router
// discovery (LU-15595), discovery's push while one is in flight (LU-14810), lnetctl's net
// add --nid (LU-13642),
// udsp del --all (LU-16574), the Netlink NI add and its LND tunables (--tos, timeout and tos
// shown), and lnetctl's ioctl ping and discover (PingByIoctl) to a 2.13+ profile.
func withPre216LNet(p Profile) Profile {
	p.NoDropPastDeadline, p.FatalNINeverUsed, p.NotifyByHealth = true, true, true
	p.RouteStateFromReplyWithoutDiscovery = true
	p.FixedMaxRecoveryInterval, p.PingWaitsAfterSendFailure = true, true
	p.ShowByIoctl, p.ImportByIoctl, p.GlobalShowKeys = true, true, 12
	p.NoFailDelayMsgForward = true
	p.NoNetNIDOption, p.NoPeerLockPrimary, p.NoDebugPeer, p.NoLnetctlFault = true, true, true, true
	p.PingByIoctl = true
	p.NIAddByIoctl, p.NoLNDTimeoutTOSShow = true, true
	p.LegacyUDSPDel = true
	p.NoAnyNIDText, p.NoKfiNames, p.PrefixInterfaceDup = true, true, true
	p.ImportNetRaw = false        // liblnetconfig reads the net section (ImportByIoctl)
	p.ImportNoIP2Nets = false     // and the ip2nets section
	p.NonRouterNIStatusUp = false // LU-16563 came in 2.15.55
	p.PushWhilePushing = true     // LU-14810's PUSH_SENT check came in 2.15.65
	return p
}

// profile217 is 2.17: master but for LU-20379, LU-19827, LU-19563, LU-20426, LU-20398, LU-20439
// and LU-20400.
var profile217 = Profile{NotifyDownFromAnyNI: true, MRForwardByDestination: true, NoFailRtrHealthInc: true,
	NoFailSockConn: true, NoFailO2IBFMRMapShort: true, SmallMaxInterfaces: true, NoLatencyStats: true,
	LaxConnsPerPeerOption: true, NoAddPeerForceMerge: true, FatalClearLeavesStatus: true, ModuleDialect: ModuleDialect{ScanfO2IBNIDs: true}}

func withDiscoveryStatusNoHealth(p Profile) Profile {
	p.DiscoveryStatusNoHealth = true
	p.FatalNotAdvertised = true
	return p
}

var (
	defaults2120 = ReleaseDefaults{TransactionTimeout: 50, RetryCount: 0, HealthSensitivity: 0}
	defaults2123 = ReleaseDefaults{TransactionTimeout: 10, RetryCount: 3, HealthSensitivity: 100}
	defaults2124 = ReleaseDefaults{TransactionTimeout: 50, RetryCount: 2, HealthSensitivity: 100}
	defaults216  = ReleaseDefaults{TransactionTimeout: 150, RetryCount: 2, HealthSensitivity: 100}
)

// releases lists the known releases in the order they are reported. 2.12.0-2.12.2 ship with
// health off (LU-11816 sets 100/3/10 s in 2.12.3), LU-13145 sets retry 2 and 50 s in 2.12.4;
// 2.16 raises transaction_timeout to 150 s (LU-15288); 2.17 fixes ko2iblnd timeout at 50 s
// (LU-18566).
var releases = []Release{
	{"2.12.0", defaults2120, profile212}, {"2.12.1", defaults2120, profile212},
	{"2.12.2", defaults2120, profile212}, {"2.12.3", defaults2123, profile212},
	{"2.12.4", defaults2124, profile212}, {"2.12.5", defaults2124, profile212},
	{"2.12.6", defaults2124, profile212}, {"2.12.7", defaults2124, profile212},
	{"2.12.8", defaults2124, profile212}, {"2.12.9", defaults2124, profile212},
	{"2.12", defaults2124, profile212},
	{"2.15", defaults2124, profile215},
	{"2.16", defaults216, profile216},
	{"2.17", withO2IBTimeout(defaults216, 50), profile217},
	{"master", withO2IBTimeout(defaults216, 50), Profile{}},
}

func withO2IBTimeout(d ReleaseDefaults, s int) ReleaseDefaults {
	d.O2IBTimeout = s
	return d
}

// DefaultRelease is the release a node runs when the scenario names none.
const DefaultRelease = "master"

// LookupRelease returns the named release; an unknown name is an error listing the known
// ones.
func LookupRelease(name string) (Release, error) {
	for _, r := range releases {
		if r.Name == name {
			return r, nil
		}
	}
	return Release{}, fmt.Errorf("unknown release %q (known: %s)", name, strings.Join(KnownReleases(), ", "))
}

// KnownReleases lists the release names LookupRelease accepts.
func KnownReleases() []string {
	names := make([]string, len(releases))
	for i, r := range releases {
		names[i] = r.Name
	}
	return names
}

// Tunables returns the kernel's default tunables as this release has them, with its
// behaviour rules.
func (r Release) Tunables() Tunables {
	t := DefaultTunables()
	t.TransactionTimeout = r.Defaults.TransactionTimeout
	t.RetryCount = r.Defaults.RetryCount
	t.HealthSensitivity = r.Defaults.HealthSensitivity
	t.Profile = r.Profile
	t.MaxInterfaces = r.Profile.MaxInterfacesDefault()
	return t
}

// MaxInterfacesDefault is LNET_INTERFACES_MAX_DEFAULT as the release has it (SmallMaxInterfaces).
func (p Profile) MaxInterfacesDefault() int {
	if p.SmallMaxInterfaces {
		return 200
	}
	return 4096
}
