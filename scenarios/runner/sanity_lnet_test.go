package runner

import (
	"slices"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/scenarios"
)

// TestSanityLnetCanFail shows each sanity-lnet translation able to fail: with the behaviour
// it re-expresses broken (through --set), exactly the named expectations fail; the
// catalogue runs themselves (all passing) are TestGolden's.
func TestSanityLnetCanFail(t *testing.T) {
	// A router that stops routing (before the pings) breaks every assertion of tests 220
	// and 221.
	stopRouter := []string{"faults=[{at: 1s, action: router_down, node: rtr}, {at: 3s, node: client, name: ping-server, lnetctl: 'ping server:0'}, {at: 3s, node: server, name: ping-client, lnetctl: 'ping client:0'}]"}
	routerDown := []string{"the client's route is up (check_route_aliveness)", "the server's route is up", "the client pings the server", "the server pings the client",
		"lst rw 4k writes", "lst rw 4k reads", "lst rw 1M writes", "lst rw 1M reads", "no message fails", "the router forwarded the traffic"}
	for _, c := range []struct {
		scenario string
		set      []string
		fail     []string
	}{
		// Peer configuration (tests 1-13, 19-25): a peer added non-multi-rail, a range one NID
		// longer, or the whole peer deleted where the test deletes some of its NIDs.
		{"sanity-lnet-1", []string{"faults[0].lnetctl=peer add --prim_nid 1.1.1.1@tcp --non_mr"}, []string{"after peer add at 1s, the export's peers"}},
		{"sanity-lnet-2", []string{"faults[0].lnetctl=peer add --prim_nid 2.2.2.2@o2ib --non_mr"}, []string{"after peer add at 1s, the export's peers"}},
		{"sanity-lnet-3", []string{"faults[0].lnetctl=peer add --prim_nid 3.3.3.3@tcp"}, []string{"after peer add at 1s, the export's peers"}},
		{"sanity-lnet-4", []string{"faults[1].lnetctl=peer add --prim_nid 4.4.4.4@tcp --nid 4.4.4.[1-5]@tcp"}, []string{"after peer add at 2s, the export's peers"}},
		{"sanity-lnet-5", []string{"faults[2].lnetctl=peer add --prim_nid 5.5.5.5@o2ib --nid 5.5.5.[1-6]@o2ib"}, []string{"after peer add at 3s, the export's peers"}},
		{"sanity-lnet-6", []string{"faults[0].lnetctl=peer add --prim_nid 6.6.6.6@tcp"}, []string{"after peer add at 1s, the export's peers"}},
		{"sanity-lnet-7", []string{"faults[1].at=2600ms"}, []string{"after peer del at 2s, the export's peers (none, as before)"}},
		{"sanity-lnet-8", []string{"faults[1].lnetctl=peer del --prim_nid 8.8.8.8@tcp"}, []string{"after peer del at 2s, the export's peers"}},
		{"sanity-lnet-9", []string{"faults[1].lnetctl=peer del --prim_nid 9.9.9.9@tcp"}, []string{"after peer del at 2s, the export's peers"}},
		{"sanity-lnet-10", []string{"faults[1].lnetctl=peer del --prim_nid 10.10.10.10@tcp"}, []string{"after peer del at 2s, the export's peers"}},
		{"sanity-lnet-11", []string{"faults[1].lnetctl=peer del --prim_nid 11.11.11.11@tcp"}, []string{"after peer del at 2s, the export's peers"}},
		{"sanity-lnet-12", []string{"faults[1].lnetctl=peer del --prim_nid 12.12.12.12@o2ib"}, []string{"after peer del at 2s, the export's peers"}},
		{"sanity-lnet-13", []string{"faults[1].lnetctl=peer del --prim_nid 13.13.13.13@o2ib"}, []string{"after peer del at 2s, the export's peers"}},
		// Import (tests 14-17): import --del replaced by a second import leaves the peers.
		{"sanity-lnet-14", []string{"faults[1].lnetctl=import"}, []string{"after import --del, no peer"}},
		{"sanity-lnet-15", []string{"faults[1].lnetctl=import"}, []string{"after import --del, no peer"}},
		{"sanity-lnet-16", []string{"faults[1].lnetctl=import"}, []string{"after import --del, no peer"}},
		{"sanity-lnet-17", []string{"faults[1].lnetctl=import"}, []string{"after import --del, no peer"}},
		// Import --del of a subset (tests 18a, 18b): an import in its place deletes nothing.
		{"sanity-lnet-18a", []string{"faults[1].lnetctl=import"}, []string{"after import --del, the peer keeps its primary NID and 4.4.4.4@tcp"}},
		// A valid Multi-Rail (the anchor gives every node the document); the Netlink import
		// read the 2.15 way.
		{"sanity-lnet-99b", []string{"faults[0].yaml.peer[0].Multi-Rail=True"}, []string{"the import fails (invalid MR flag param)", "export --backup is unchanged (the primary NID added is deleted again)",
			"2.15 - the import fails (LUSTRE_CFG_RC_BAD_PARAM)", "2.15 - export --backup is unchanged", "2.12 - the import fails (Bad MR value)", "2.12 - export --backup is unchanged"}},
		{"sanity-lnet-99b", []string{"nodes.client.release=2.15"}, []string{"the import fails (invalid MR flag param)"}},
		// A reset lnetctl has; the first step's rule on PUTs rather than GETs (lnetctl's form
		// of 204's drop rules).
		{"sanity-lnet-410", []string{"faults[2].lnetctl=fault delay reset x"}, []string{"fault reset with an empty word fails"}},
		{"sanity-lnet-204-lnetctl", []string{"faults[1].lnetctl=fault drop add -s 10.0.0.1@o2ib -d 10.0.0.2@o2ib -m PUT -e local_interrupt -r 1"},
			[]string{"local_interrupt - the ping fails EINVAL (the simulated post failure)", "local_interrupt - local NI client:0 health 900"}},
		{"sanity-lnet-18b", []string{"faults[1].lnetctl=import"}, []string{"after import --del, each peer keeps its primary NID and one other"}},
		// Import of the exported global section (test 0): one value changed.
		{"sanity-lnet-0", []string{"faults[0].yaml={global: {retry_count: 3}}"}, []string{"after the import, the export's global section is unchanged"}},
		// Import of routing and buffers (test 50): smaller buffers are not applied at once.
		{"sanity-lnet-50", []string{"faults[2].yaml={routing: {enable: 1}, buffers: {tiny: 15, small: 7, large: 3}}"}, []string{"after the third import, routing is on with the grown buffers"}},
		// Import of numa (test 51): a range of 2 instead.
		{"sanity-lnet-51", []string{"faults[0].yaml={numa: {range: 2}}"}, []string{"after the import, numa_range is 1"}},
		// Import --exec (test 350): without --exec the discover section is skipped.
		{"sanity-lnet-350", []string{"faults[1].lnetctl=import"}, []string{"the discovery succeeds", "peer show lists the node itself"}},
		{"sanity-lnet-19", []string{"faults[0].lnetctl=peer add --prim_nid 19@gni --non_mr"}, []string{"after peer add at 1s, the export's peers"}},
		{"sanity-lnet-20", []string{"faults[0].lnetctl=peer add --prim_nid 20@gni"}, []string{"after peer add at 1s, the export's peers"}},
		{"sanity-lnet-21", []string{"faults[1].lnetctl=peer add --prim_nid 21@gni --nid [21-26]@gni"}, []string{"after peer add at 2s, the export's peers"}},
		{"sanity-lnet-22", []string{"faults[1].lnetctl=peer del --prim_nid 22@gni"}, []string{"after peer del at 2s, the export's peers"}},
		{"sanity-lnet-23", []string{"faults[1].lnetctl=peer del --prim_nid 23@gni"}, []string{"after peer del at 2s, the export's peers"}},
		{"sanity-lnet-24", []string{"faults[1].lnetctl=peer del --prim_nid 24@gni"}, []string{"after peer del at 2s, the export's peers"}},
		{"sanity-lnet-25", []string{"faults[1].lnetctl=peer del --prim_nid 25@gni"}, []string{"after peer del at 2s, the export's peers"}},
		// Peers added without --lock_prim are deleted by a plain peer del.
		{"sanity-lnet-26", []string{"faults[0].lnetctl=peer add --prim_nid 1.1.1.1@tcp", "faults[1].lnetctl=peer add --prim_nid 2.2.2.2@tcp --nid 2.2.2.3@tcp"}, []string{"the peer state has the locked-primary bit", "peer del --force succeeds", "after peer del the locked peer is still listed", "the second keeps its primary NID only"}},
		// The second NID joins the first peer: one peer listed.
		// 2.17 (before LU-20439) leaves the reachable NID's existing peer apart.
		{"sanity-lnet-40", []string{"lnet.release=2.17"}, []string{"after add_uuid the reachable NID is merged into the primary's peer", "one peer is listed"}},
		{"sanity-lnet-28", []string{"faults[1].lnetctl=peer add --prim_nid 1.1.1.1@tcp --nid 7.7.7.8@tcp"}, []string{"peer list shows the two primary NIDs"}},
		{"sanity-lnet-100", []string{"faults[0].lnetctl=route add --net o2ib1 --gateway 10.0.0.2@o2ib --priority 1"}, []string{"export --backup after route add is test 100's expected YAML", "the route is up once the router checker has pinged the gateway"}},
		{"sanity-lnet-101", []string{"faults[0].lnetctl=route add --net o2ib1 --gateway 10.0.0.[2-5]@o2ib"}, []string{"export --backup after route add is test 101's expected YAML", "and the five gateways as peers, in the order added"}},
		{"sanity-lnet-102", []string{"faults[1].lnetctl=route del --net o2ib1 --gateway 10.0.0.3@o2ib"}, []string{"after route del the export lists the gateways it listed before (none)"}},
		{"sanity-lnet-103", []string{"faults[1].lnetctl=route del --net o2ib103 --gateway 10.0.0.[2-5/2]@o2ib"}, []string{"after route del the export lists no gateway, as before"}},
		// The peer add before the route: it succeeds, and the gateway's configured peer takes
		// no NID from its ping buffer (lnet_peer_add_nid, -EPERM), so the single-hop route has
		// no peer net on o2ib1 and is down (lnet_is_route_alive).
		{"sanity-lnet-105", []string{"faults[0].at=3s"}, []string{"peer add of the gateway fails", "the route is still there"}},
		{"sanity-lnet-106", []string{"faults[0].at=3s"}, []string{"peer del of the gateway fails"}},
		// Interface tests: the delete after the check, a second net instead of a second NI,
		// another net for the repeated add.
		{"sanity-lnet-107", []string{"faults[3].at=4500ms"}, []string{"the first NI is left, up"}},
		// 2.16 compares whole interface names: the shorter name is added, and is there when
		// added again.
		// The module removed is one the node does not use: LNet configures with tcp.
		{"sanity-lnet-280", []string{"faults[1].lnd=ko2iblnd"}, []string{"lnet configure -a fails (the LND cannot be loaded)", "LNet is still not configured after it", "with lo only",
			"net add of a tcp NI fails the same way", "and adds nothing"}},
		{"sanity-lnet-109", []string{"nodes.old.release=2.16"}, []string{"2.15 - the shorter name is taken by the longer one", "2.15 - the net has the longer name's NI only", "2.15 - tcp on the shorter name first"}},
		{"sanity-lnet-108", []string{"faults[2].lnetctl=net add --net tcp1 --if eth1"}, []string{"net show is that plus the second interface's NI"}},
		{"sanity-lnet-301", []string{"faults[2].lnetctl=net add --net o2ib1 --if ib0"}, []string{"the same net add again fails", "after the refused add, one NI", "after net del, none"}},
		// net del --nid after the check: the NI is still there; net add --nid of a net the
		// test does not expect.
		{"sanity-lnet-110", []string{"faults[2].at=4s"}, []string{"after net del --nid, net show lists only the loopback"}},
		{"sanity-lnet-112", []string{"faults[2].lnetctl=net add --net o2ib3 --if ib0"}, []string{"net show -v 3 shows lnd tunables for both nets"}},
		// Up to 2.16 export --backup writes the timeout (no LU-19194).
		{"sanity-lnet-245", []string{"lnet.release=2.16", "o2ib.o2ib0.timeout=50"}, []string{"export --backup leaves it out"}},
		{"sanity-lnet-111", []string{"faults[498].lnetctl=route add -n o2ib501 -g 10.0.0.2@o2ib"}, []string{"the export lists exactly the 499 routes, in the order added", "route show lists o2ib2 and o2ib500 through the gateway", "and nothing else", "LNetDist reaches o2ib500 through the gateway at distance 2"}},
		// 2.15 charges no local health on a single-rail node (SingleRailNoLocalHealth). Its
		// set_ltt_node sets no LND timeout (no --lnd-timeout): the o2ib timeout stays 0, the
		// derived (10 - 1) / (2 + 1).
		{"sanity-lnet-204", []string{"lnet.release=2.15", "o2ib.o2ib0.timeout=0"}, []string{"local_interrupt - local NI client:0 health 900", "local_dropped - local NI client:0 health 900", "local_aborted - local NI client:0 health 900", "local_no_route - local NI client:0 health 900", "local_timeout - local NI client:0 health 900", "local_error - local NI client:0 health 900"}},
		// A node that routes health-tracks even a one-NI peer.
		{"sanity-lnet-206", []string{"nodes.client.routing=true"}, []string{"remote_dropped - peer NI server:0 health 1000", "remote_error - peer NI server:0 health 1000", "remote_timeout - peer NI server:0 health 1000"}},
		{"sanity-lnet-207", []string{"lnet.retry_count=0"}, []string{"remote_dropped - resent retry_count (2) times", "remote_dropped - one failed resend", "remote_dropped - peer NI server:0 health 800", "remote_dropped - peer NI server:1 health 900"}},
		// Without the discovery beforehand the peer is not known multi-rail.
		{"sanity-lnet-209", []string{"faults[1].at=2s"}, []string{"MR setup discovery", "MR peer NI charged"}},
		// The server's discovery after the held ping failed: no push is merged while the
		// ping is out, so none goes out beside it.
		{"sanity-lnet-212", []string{"faults[9].at=8s"}, []string{"the client merges the server's push with its ping out and pushes at once"}},
		// The delay rules deleted at 9.5 s (one deletion takes both: the same source and
		// destination, as lnet_delay_rule_del matches them), the push held past 9 s: no ACK has queued the peer for discovery again by then.
		{"sanity-lnet-212", []string{"faults[10].at=9500ms", "faults[11].at=9500ms"}, []string{"the push's ACK queues the peer again, whose discovery pings and completes"}},
		// The capped interval on the other node: b's pings go 1, 3, 7, 15 s.
		{"sanity-lnet-210", []string{"faults[8].node=a"}, []string{"b - ping_count 4 after the fourth ping (11 s, intervals capped at 4 s)"}},
		// Without recovery_limit the peer NI never ages out.
		{"sanity-lnet-211", []string{"faults[2].lnetctl=set recovery_limit 0"}, []string{"a - aged out after the ping at 16 s (recovery_limit 10)",
			"a - ping_count reset to 0 when it aged out", "a - successful pings bring it to 1000 by 34 s", "a - and the next pass takes it off the queue"}},
		// A rate-3 rule drops a random one of every three: here the ping's first try passes.
		{"sanity-lnet-233", []string{"faults[1].rule.rate=3", "faults[2].rule.rate=3"}, []string{"local_interrupt - one successful resend"}},
		// Up to 2.16 an NI's status does not follow its health, nor does a failed recovery
		// ping lower it.
		{"sanity-lnet-234", []string{"lnet.release=2.16"}, []string{"health 0 - the status is down"}},
		{"sanity-lnet-235", []string{"lnet.release=2.16"}, []string{"the failed recovery ping takes health to 0", "and the status to down"}},
		// 2.15 sends a message past its deadline (no LU-16303). Its lnetctl has no
		// --lnd-timeout, so set_ltt_node leaves the o2ib timeout 0 (derived: (10 - 1) / (0 + 1))
		// and its restore is transaction_timeout alone (2.15's 50).
		{"sanity-lnet-253", []string{"lnet.release=2.15", "o2ib.o2ib0.timeout=0", "faults[5].lnetctl=set transaction_timeout 50", "faults[6].lnetctl=set transaction_timeout 50"}, []string{"the queued ping is never answered", "one GET dropped past its deadline"}},
		{"sanity-lnet-254", []string{"lnet.release=2.15", "o2ib.o2ib0.timeout=0", "o2ib.o2ib1.timeout=0", "faults[7].lnetctl=set transaction_timeout 50", "faults[8].lnetctl=set transaction_timeout 50"}, []string{"the queued ping is never answered", "one GET dropped past its deadline"}},
		// One gateway fewer in the routes= range: four routes and four peers.
		{"sanity-lnet-255", []string{"nodes.client.module.routes=o2ib 10.0.0.[2-5]"}, []string{"export --backup lists the five routes of the range", "and its net and the five gateways as peers are test 255's expected YAML"}},
		// lnet configure --all reads the module's options again: the routes are back at once.
		{"sanity-lnet-255", []string{"faults[1].lnetctl=lnet configure --all"}, []string{"reinitialized without the module's options, the node has no route"}},
		// The other interface's link goes down.
		{"sanity-lnet-214", []string{"faults[1].ni=client:0"}, []string{"the downed interface's NI is down, the others up"}},
		// Up to 2.15 lnetctl ping waits for its timeout after a failed send (before LU-16290).
		{"sanity-lnet-252", []string{"lnet.release=2.15"}, []string{"the ping fails within a second"}},
		{"sanity-lnet-215", []string{"faults[2].lnetctl=ping 10.0.0.2@o2ib1"}, []string{"25 more from nid1 - only nid1's NI counts them", "50 pings of nid2 - both NIs count", "50 more from nid2 - only nid2's NI counts them"}},
		// lnet configure --all: the node has its o2ib NI, and its own buffer gives the peer
		// of 0@lo that NID as primary.
		{"sanity-lnet-217", []string{"faults[1].lnetctl=lnet configure --all"}, []string{"net show lists one NID, the loopback's", "the peer of 0@lo keeps 0@lo alone"}},
		{"sanity-lnet-219", []string{"faults[2].lnetctl=ping 10.0.0.2@o2ib1"}, []string{"both NIDs are listed under one peer"}},
		{"sanity-lnet-220", stopRouter, routerDown},
		{"sanity-lnet-221", stopRouter, routerDown},
		// Without fail_loc 0xe004 the peer's replies restore its first NI's health; 2.17 has
		// neither that check point nor forwarding for a merely unhealthy NI.
		{"sanity-lnet-237", []string{"faults[3].fail_loc=0"}, []string{"after the 50 pings, 52 more to the second NI (post_sends), the first NI still at health 0"}},
		{"sanity-lnet-237", []string{"lnet.release=2.17"}, []string{"after the 50 pings, 52 more to the second NI (post_sends), the first NI still at health 0"}},
		// A client with discovery on is multi-rail to the router (and its discovery of the
		// peer pushes through the router, so the counts before differ too); 2.16 forwards for
		// any known originator (the destination's multi-rail flag stands in for it).
		{"sanity-lnet-238", []string{"faults[0].lnetctl=set discovery 1"}, []string{"the router shows the client as not multi-rail", "before the pings, the router's sends to the peer's NIs (pre_sends)", "after the 50 pings, 53 more to the first NI, 2 more to the second (post_sends)"}},
		{"sanity-lnet-238", []string{"lnet.release=2.16"}, []string{"after the 50 pings, 53 more to the first NI, 2 more to the second (post_sends)"}},
		// Without fail_loc 0xe002 (and on 2.15, which has no such check point) the delay
		// holds the GETs in lnet_parse: the ninth ping times out on the client (the router
		// drops nothing either way). 2.15's lnetctl has no --lnd-timeout: set_ltt_node leaves
		// the o2ib timeout 0 (derived) and its restore on the router is transaction_timeout
		// alone (2.15's 50).
		{"sanity-lnet-256", []string{"faults[2].fail_loc=0"}, []string{"the ninth, queued past its deadline, succeeds",
			"the ninth waited on the router's tx credit queue for the peer, with the REPLY to the peer's 5 s router check",
			"no message fails"}},
		{"sanity-lnet-256", []string{"lnet.release=2.15", "o2ib.o2ib0.timeout=0", "o2ib.o2ib1.timeout=0", "faults[7].lnetctl=set transaction_timeout 50", "faults[8].lnetctl=set transaction_timeout 50"}, []string{"the ninth, queued past its deadline, succeeds",
			"the ninth waited on the router's tx credit queue for the peer, with the REPLY to the peer's 5 s router check",
			"no message fails"}},
		// avoid_asym_router_failure flipped: the asymmetric route is up (222, 223) or down
		// (224, 225).
		{"sanity-lnet-222", []string{"lnet.avoid_asym_router_failure=false"}, []string{"the client's route is down (avoid_asym_router_failure)", "the client's ping still fails", "the peer's route goes down", "the peer's ping fails"}},
		{"sanity-lnet-223", []string{"lnet.avoid_asym_router_failure=false"}, []string{"the client's route is down (avoid_asym_router_failure)", "the client's ping still fails", "the peer's route goes down", "the peer's ping fails"}},
		{"sanity-lnet-224", []string{"lnet.avoid_asym_router_failure=true"}, []string{"the client's route is up all the same (avoid_asym_router_failure=0)", "the peer's route stays up"}},
		{"sanity-lnet-225", []string{"lnet.avoid_asym_router_failure=true"}, []string{"the client's route is up all the same (avoid_asym_router_failure=0)", "the peer's route stays up"}},
		// 2.16 judges a gateway by its health too: at 500 the routes go down.
		{"sanity-lnet-228", []string{"lnet.release=2.16"}, []string{"the routes stay up with the gateways at health 500", "every lst write completes", "every lst read completes", "no message fails"}},
		// Up to 2.16 a local NI's status does not follow its health: it stays up at 0.
		{"sanity-lnet-236", []string{"lnet.release=2.16"}, []string{"the first NI is down, the second up", "the router sees the first down, the second up"}},
		// 2.16 switches routing at once: messages on their way to the router are dropped (with
		// discovery's pushes in the round robin, the one dropped at the stop is a read's).
		{"sanity-lnet-257", []string{"lnet.release=2.16"}, []string{"every read of the first run completes",
			"the first router drops nothing while it stops", "the first router drops nothing when it starts again",
			"the client's route through it is still down while the router is starting (it advertises routing after 10 s)"}},
		{"sanity-lnet-226", []string{"faults[1].node=client", "faults[1].lnetctl=route del --net o2ib1 --gateway 10.0.0.[2-3]@o2ib"},
			[]string{"the server has one route back after route del", "ping 1 after the delete succeeds", "ping 2 after the delete succeeds", "ping 3 after the delete succeeds",
				"ping 4 after the delete succeeds", "the client's messages after the delete (the pings and router checks) alternate: rtr0", "... and rtr1", "no message fails"}},
		{"sanity-lnet-230", []string{"faults[0].lnetctl=net set --all --health 1000"}, []string{"net show -v shows conns_per_peer 4"}},
		{"sanity-lnet-230", []string{"faults[13].lnetctl=net add --net o2ib --if ib0"}, []string{"net show -v shows conns_per_peer 5"}},
		// A timeout of 48 where the test sets 0 (not the global lnd_timeout); the o2ib net's
		// own timeout 52 at load (the module's value is 50 before the first set).
		{"sanity-lnet-241", []string{"faults[1].lnetctl=net set --net o2ib --lnd-timeout 48"}, []string{"lnd-timeout 0 shows the global lnd_timeout"}},
		{"sanity-lnet-241", []string{"o2ib.o2ib0.timeout=52"}, []string{"the timeout before is ko2iblnd's default, 50"}},
		{"sanity-lnet-400", []string{"faults[0].lnetctl=udsp add --src o2ib --priority 3"}, []string{"udsp show lists the rule", "the NI shows net priority 0"}},
		{"sanity-lnet-400", []string{"faults[1].lnetctl=udsp del --idx 1"}, []string{"udsp del succeeds", "udsp show is empty after the delete"}},
		{"sanity-lnet-401", []string{"faults[0].lnetctl=udsp add --dst o2ib --prio 2"}, []string{"its NI has the rule's net priority"}},
		{"sanity-lnet-402", []string{"faults[0].lnetctl=udsp add --dst o2ib8 --priority 0"}, []string{"the new peer's NI has the rule's priority", "udsp show lists the rule"}},
		{"sanity-lnet-403", []string{"faults[2].lnetctl=udsp add --src 1.1.1.2@o2ib --prio 1"}, []string{"udsp add --src 1.1.1.1@o2ib shows as the test expects"}},
		{"sanity-lnet-403", []string{"faults[7].lnetctl=udsp del --idx 1"}, []string{"udsp show is empty after deleting the --dst 1.1.1.1@o2ib rule"}},
		{"sanity-lnet-404", []string{"faults[0].lnetctl=udsp add --src o2ib2 --prio 1"}, []string{"src rule - local NI priorities"}},
		// Up to 2.15 a node that does not route keeps a fatal NI's status out of its ping
		// buffer (FatalNotAdvertised): the server never sees it DOWN. The other link going
		// down leaves tcp99 up.
		{"sanity-lnet-303", []string{"lnet.release=2.15"}, []string{"the server's peer NI health"}},
		{"sanity-lnet-303", []string{"faults[2].ni=client:0"}, []string{"the NI is down", "the server's peer NI health"}},
		// The reset after the first step to 900 rather than 1000 (501); --all where the test
		// names one NID, which sets the server's second NI too (502).
		{"sanity-lnet-501", []string{"faults[3].lnetctl=peer set --health 900 --all"}, []string{"0-nid - the health is back to the maximum", "0-all - the health before is the maximum"}},
		{"sanity-lnet-502", []string{"faults[2].lnetctl=peer set --health 0 --all"}, []string{"0-nid - the health is set"}},
		// The first NI degraded just before the ping leaves the failing NI the one
		// selection prefers: its notification takes the route down (the router checker
		// revives it), and the router is not stopped.
		{"sanity-lnet-550", []string{"faults[7].at=12050ms", "faults[7].node=client", "faults[7].lnetctl=net set --health 800 --nid 10.0.0.1@tcp"},
			[]string{"the route is still up just after the failed send", "the route goes down once the gateway is gone"}},
		// 2.17 has no CFS_FAIL_O2IBLND_FMR_MAP_SHORT check (LU-20400 in master): nothing fails
		// and the requests go the first time. fail_val 12: the first write's request fails
		// eleven times, more than its ten resends, so that write fails (the twelfth check
		// spends it on the next write's request, which goes), and the server moves one
		// write's bulk and reply fewer.
		{"sanity-lnet-180", []string{"lnet.release=2.17"}, []string{"nine maps fail on the client", "the client's requests that failed to map", "no other message fails"}},
		{"sanity-lnet-180", []string{"faults[1].fail_val=12"}, []string{"every write completes", "no write fails", "nine maps fail on the client",
			"the client's requests that failed to map", "the client's maps: its discovery push, 64 requests and 64 bulk sources", "each given back at the tx's end",
			"the server's: its ping reply and push, 64 bulk sinks and 64 replies", "the client's PUTs that went: 64 requests and the push", "the client's bulk REPLYs", "no other message fails"}},
		// response_tracking 4 accepted, or the import of 2 read as 3.
		{"sanity-lnet-104", []string{"faults[4].lnetctl=set response_tracking 0"}, []string{"set 4 fails", "and leaves 3"}},
		{"sanity-lnet-104", []string{"nodes.imp2.lnetctl.global.response_tracking=3"}, []string{"import 2"}},
		{"sanity-lnet-310", []string{"o2ib.o2ib0.timeout=64"}, []string{"ko2iblnd timeout=65 - every o2ib NI shows timeout 65"}},
		{"sanity-lnet-310", []string{"socklnd.tcp0.sock_timeout=0"}, []string{"ksocklnd sock_timeout=65 - every tcp NI shows timeout 65"}},
		// The first net add with a peer_timeout of its own; -1 (the LND's 180) where the
		// test adds 0.
		{"sanity-lnet-231", []string{"faults[0].lnetctl=net add --net o2ib231 --if ib0 --peer-timeout 60"}, []string{"net add without options - the export's peer_timeout is the LND's (180)"}},
		{"sanity-lnet-231", []string{"faults[4].lnetctl=net add --net o2ib231 --if ib0 --peer-timeout -1"}, []string{"net add --peer-timeout 0 - the export shows 0"}},
		// A 5 s delay holds the first push past 3 s: neither failed nor resent when LNet stops.
		{"sanity-lnet-500", []string{"faults[1].rule.latency=5"}, []string{"the held push failed local_timeout and was resent", "no health charge once LNet stops"}},
		// A ping where the second stats reset was: the samples and counters stay.
		{"sanity-lnet-302", []string{"faults[2].at=150ms"}, []string{"debug peer of the pinged NID succeeds"}},
		// CONFIGURED left set: the discovered peer cannot take the configured peer's NID
		// (lnet_peer_add_nid: -EEXIST), and the two stay apart.
		{"sanity-lnet-304", []string{"faults[1].lnetctl=peer set --nid 10.0.0.3@o2ib --state 1048585"}, []string{"with CONFIGURED cleared it is 1048577", "the two peers are consolidated, nid2 primary", "with DISCOVERED and NIDS_UPTODATE added, 1048849"}},
		// No fail_loc, or a 2.16 node (no CFS_FAIL_TEST_PING_MD): the ping succeeds with no
		// metadata fetched or logged.
		{"sanity-lnet-270", []string{"faults[2].fail_loc=0"}, []string{"the metadata reply is logged before the ping", "one metadata entry: the tcp NI's", "the entry is the tcp NID's"}},
		{"sanity-lnet-270", []string{"nodes.client.release=2.16"}, []string{"the metadata reply is logged before the ping", "one metadata entry: the tcp NI's", "the entry is the tcp NID's"}},
		// The other node's host name where the test pings its own: another NID answers.
		{"sanity-lnet-305", []string{"faults[1].lnetctl=ping old@tcp"}, []string{"pinging its own host name succeeds"}},
		{"sanity-lnet-305", []string{"faults[2].lnetctl=ping client@tcp"}, []string{"2.15 - pinging its own host name succeeds"}},
		// The master node on 2.16 (one socket on every address, LU-18812 not there), or
		// accept_port_bulk left at accept_port's 988: no socket on 989.
		{"sanity-lnet-290", []string{"nodes.client.release=2.16"}, []string{"at start the acceptor listens on each NI's address", "one of them eth0's", "explicit binding found for the fake address and accept_port"}},
		{"sanity-lnet-291", []string{"lnet.accept_port_bulk=988"}, []string{"the acceptor listens on accept_port and accept_port_bulk", "one of them 989", "one bulk connection on port 989", "one control connection on port 988"}},
		{"sanity-lnet-291", []string{"nodes.client.release=2.16"}, []string{"the acceptor listens on accept_port and accept_port_bulk", "one of them 989", "one bulk connection on port 989", "one control connection on port 988"}},
		{"sanity-lnet-475", []string{"faults[11].lnetctl=ping client:0"}, []string{"after the reset the self peer NI has no sample", "nor has the local NI", "and the global counters are 0"}},
		{"sanity-lnet-525", []string{"faults[1].lnetctl=net del --net o2ib2"}, []string{"the o2ib net is gone", "and nid2 answers on the remaining net"}},
		// ko2iblnd loaded with tos=96 for the net: the NI added without --tos, or with -1,
		// shows 96; --tos 104 left out of the third add.
		{"sanity-lnet-232", []string{"o2ib.o2ib232.tos=96"}, []string{"net add without --tos - net show -v 1 shows tos -1 (the module's, inherited)", "net add --tos -1 - net show -v 1 shows tos -1"}},
		{"sanity-lnet-232", []string{"faults[4].lnetctl=net add --net o2ib232 --if ib0"}, []string{"net add --tos 104 - net show -v 1 shows tos 104"}},
		// An import of one interface (ib1): the export has one NI, and --del of both finds
		// no NI on ib0, which ends its request before ib1.
		{"sanity-lnet-450", []string{"faults[0].yaml={net: [{net type: o2ib450, local NI(s): [{interfaces: {0: ib1}}]}]}"}, []string{"after the import, export --backup shows an NI on each interface", "import --del succeeds", "after import --del, the net is gone"}},
		// CPT [0] where the test's list is invalid: the import succeeds and configures the NI.
		{"sanity-lnet-265", []string{`faults[2].yaml={net: [{net type: o2ib265, local NI(s): [{interfaces: {0: ib0}, CPT: "[0]"}]}]}`}, []string{"import with CPT [1] on a one-CPT node fails", "and configures no NI"}},
		// ip2nets (tests 150-156, 162): a pattern that misses the interface's address (or, for
		// the tests that must fail, one that matches it); in 151 the one-interface rule first,
		// which configures the net and masks the two-interface rule; in 152 a first rule that
		// does not match, so that the rule naming ib1 applies.
		{"sanity-lnet-150", []string{"faults[0].yaml={ip2nets: [{net-spec: o2ib150, interfaces: {0: ib0}, ip-range: {0: 10.0.0.2}}]}"}, []string{"the import succeeds", "after the import, export --backup shows the NI on ib0"}},
		{"sanity-lnet-151", []string{"faults[2].yaml={ip2nets: [{net-spec: o2ib151, interfaces: {0: ib0}}, {net-spec: o2ib151, interfaces: {0: ib0, 1: ib1}, ip-range: {0: 10.0.0.1, 1: 10.0.0.2}}]}"}, []string{"and configure the same", "import --del of them deletes both NIs"}},
		{"sanity-lnet-152", []string{"faults[6].yaml={ip2nets: [{net-spec: o2ib152, interfaces: {0: ib0}, ip-range: {0: 10.0.0.2}}, {net-spec: o2ib152, interfaces: {0: ib0, 1: ib1}}]}"}, []string{"and masks the later rules (no NI on ib1)"}},
		{"sanity-lnet-153", []string{`faults[0].yaml={ip2nets: [{net-spec: o2ib153, interfaces: {0: ib0}, ip-range: {0: "10.0.0.[6-9]"}}]}`}, []string{"the range imports", "and adds the NI on ib0"}},
		{"sanity-lnet-154", []string{`faults[0].yaml={ip2nets: [{net-spec: o2ib154, interfaces: {0: ib0}, ip-range: {0: "10.0.0.[2-9/2]"}}]}`}, []string{"the stepped range imports", "and adds the NI on ib0"}},
		{"sanity-lnet-155", []string{"faults[0].yaml={ip2nets: [{net-spec: o2ib155, interfaces: {0: ib0}, ip-range: {0: 10.0.0.1}}]}"}, []string{"the import fails", "and adds no NI"}},
		{"sanity-lnet-156", []string{`faults[0].yaml={ip2nets: [{net-spec: o2ib156, interfaces: {0: ib0}, ip-range: {0: "10.0.0.[7,9,11,13]"}}]}`}, []string{"the list imports", "and adds the NI on ib0"}},
		{"sanity-lnet-162", []string{"faults[0].yaml={ip2nets: [{net-spec: o2ib162, interfaces: {0: ib0}, ip-range: {0: 10.0.0.1}}]}"}, []string{"the import fails", "and adds no NI"}},
		// IPv6 (tests 158-162): an address or prefix the interface does not have, where the
		// test's matches (in 160 the fake interface's; in 161 a /32 and a /8 whose bits
		// differ from the address's); one that ib0 has where 162's must not match; in 160 the
		// one-interface rule first, which configures the net and masks the two-interface rule.
		{"sanity-lnet-158", []string{`faults[0].yaml={ip2nets: [{net-spec: tcp158, interfaces: {0: eth0}, ip-range: {0: "2001:db8:0:158::6"}}]}`}, []string{"the import succeeds", "after the import, export --backup shows the NI on eth0"}},
		{"sanity-lnet-159", []string{`faults[0].yaml={ip2nets: [{net-spec: tcp159, interfaces: {0: eth0}, ip-range: {0: "2001:db8:0:159::6/128"}}]}`}, []string{"the import succeeds", "after the import, export --backup shows the NI on eth0"}},
		{"sanity-lnet-160", []string{`faults[0].yaml={ip2nets: [{net-spec: tcp160, interfaces: {0: eth0, 1: eth1}, ip-range: {0: "2001:db8:0:160::5", 1: "2001:db8:0:f102::1"}}]}`}, []string{"the two-interface rule imports", "the rule adds an NI on each interface"}},
		{"sanity-lnet-160", []string{`faults[4].yaml={ip2nets: [{net-spec: tcp160, interfaces: {0: eth0}}, {net-spec: tcp160, interfaces: {0: eth0, 1: eth1}, ip-range: {0: "2001:db8:0:160::5", 1: "2001:db8:0:f101::1"}}]}`}, []string{"and configure the same", "import --del of them deletes both NIs"}},
		{"sanity-lnet-161", []string{`faults[3].yaml={ip2nets: [{net-spec: tcp161, interfaces: {0: eth0}, ip-range: {0: "2001:db9:0:161::5/32"}}]}`}, []string{"/32 imports", "/32 adds the NI as net add does"}},
		{"sanity-lnet-161", []string{`faults[7].yaml={ip2nets: [{net-spec: tcp161, interfaces: {0: eth0}, ip-range: {0: "2101:db8:0:161::5/8"}}]}`}, []string{"/8 imports", "/8 adds the NI as net add does"}},
		{"sanity-lnet-162", []string{`faults[0].yaml={ip2nets: [{net-spec: o2ib162, interfaces: {0: ib0}, ip-range: {0: "2001:db8:0:162::5"}}]}`}, []string{"the import fails", "and adds no NI"}},
		// lnet_legacy2yaml round trip (test 617): a modprobe pattern that misses the
		// interface's address converts to a rule that applies nowhere.
		{"sanity-lnet-617", []string{`faults[0].yaml={ip2nets: [{net-spec: o2ib617, interfaces: {0: ib0}, ip-range: {0: "192.168.2.*"}}]}`}, []string{"the import succeeds", "after the import, export --backup shows the NI on ib0"}},
		// ip2nets= (test 208): the second entry's pattern misses its interface; a 2.12 kernel
		// skips an entry for a net an earlier match gave (before LU-13734).
		{"sanity-lnet-208", []string{"nodes.n2.module.ip2nets=tcp(eth0) 10.0.0.2; tcp1(eth1) 10.1.0.9"}, []string{"two entries - two NIDs on two nets"}},
		{"sanity-lnet-208", []string{"nodes.n3.release=2.12"}, []string{"two entries for tcp - two NIDs on one net"}},
		// conns_per_peer 4 in the NI's lnd tunables; the net's tunables left out.
		{"sanity-lnet-170", []string{"faults[0].yaml={net: [{net type: o2ib170, local NI(s): [{interfaces: {0: ib0}, lnd tunables: {conns_per_peer: 4}}]}]}"}, []string{"lnd_tunables not read if no tunables - the export has conns_per_peer 5"}},
		{"sanity-lnet-170", []string{"faults[1].yaml={net: [{net type: o2ib170, local NI(s): [{interfaces: {0: ib0}}, {interfaces: {0: ib1}}]}]}"}, []string{"tunables can be set directly in the net - both NIs have peer_timeout 182 and conns_per_peer 3"}},
		// An interface added twice (test 199): the second add on another net succeeds.
		{"sanity-lnet-199", []string{"faults[1].lnetctl=net add --net o2ib198 --if ib0"}, []string{"adding the interface again fails"}},
		{"sanity-lnet-199", []string{"faults[5].lnetctl=net add --net o2ib198 --if ib0"}, []string{"2.12 - adding the interface again fails"}},
		// Invalid input (test 99a): a peer that exists, a gateway on the node's own net.
		{"sanity-lnet-99a", []string{"faults[0].lnetctl=peer add --prim_nid 1.1.1.1@o2ib"}, []string{"deleting a peer that does not exist fails", "no peer and no route"}},
		{"sanity-lnet-99a", []string{"faults[5].lnetctl=route add --net tcp --gateway 10.0.0.9@o2ib"}, []string{"2.12 - route add through a gni gateway fails", "2.12 - no peer and no route"}},
		// CPT parsing (test 266): a node of one CPT, where [0-1] names a CPT it lacks (the
		// kernel's ERANGE); a sequence naming CPT 2.
		{"sanity-lnet-266", []string{"lnet.cpts=1"}, []string{"the NI added spans both CPTs", "the import with the CPT string succeeds", "its export is the same",
			"the import with the CPT sequence succeeds", "its export is the same too"}},
		{"sanity-lnet-266", []string{`faults[4].yaml={net: [{net type: o2ib266, local NI(s): [{interfaces: {0: ib0}, tunables: {peer_timeout: 180, peer_credits: 8, peer_buffer_credits: 0, credits: 256}, CPT: [2]}]}]}`},
			[]string{"the import with the CPT sequence succeeds", "its export is the same too"}},
	} {
		var ovs []scenarios.Override
		for _, s := range c.set {
			o, err := scenarios.ParseSet(s)
			if err != nil {
				t.Fatal(err)
			}
			ovs = append(ovs, o)
		}
		s, err := scenarios.LoadBuiltin(c.scenario, ovs...)
		if err != nil {
			t.Fatalf("%s: %v", c.scenario, err)
		}
		res, err := Run(s, Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.scenario, err)
		}
		var failed []string
		for _, e := range res.Summary.Expectations {
			if !e.Passed {
				failed = append(failed, e.Name)
			}
		}
		if !slices.Equal(failed, c.fail) {
			t.Errorf("%s with %v: failed %q\nwant %q", c.scenario, c.set, failed, c.fail)
		}
	}
}

// TestSanityLnet104RefusedAtLoad: sanity-lnet test 104's values out of 0..3, which the
// catalogue's sanity-lnet-104 cannot hold: `set response_tracking -1` and imports of -10
// and 10 are refused when the scenario loads, at the value, with the valid range.
func TestSanityLnet104RefusedAtLoad(t *testing.T) {
	for _, c := range []struct{ node, at, msg string }{
		{"client: {nis: [o2ib0]}\nfaults:\n  - {at: 1s, node: client, lnetctl: \"set response_tracking -1\"}", "t.yaml:5:37:", "set response_tracking: -1 is negative"},
		{"client: {nis: [o2ib0], lnetctl: {global: {response_tracking: -10}}}", "t.yaml:3:64:", "must be from 0 to 3, got -10"},
		{"client: {nis: [o2ib0], lnetctl: {global: {response_tracking: 10}}}", "t.yaml:3:64:", "must be from 0 to 3, got 10"},
	} {
		_, err := scenarios.Load("t.yaml", []byte("duration: 5s\nnodes:\n  "+c.node+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.at) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %s ... %s", c.node, err, c.at, c.msg)
		}
	}
}

// TestSanityLnet232RefusedAtLoad: sanity-lnet test 232's last step, `net add --tos 300`,
// which lnetctl refuses before the kernel sees it (jt_add_ni: "Invalid ToS argument"), is
// refused when the scenario loads, at the command.
func TestSanityLnet232RefusedAtLoad(t *testing.T) {
	src := "duration: 5s\nnodes:\n  client: {nis: [o2ib0]}\nfaults:\n  - {at: 1s, node: client, lnetctl: \"net add --net o2ib232 --if ib0 --tos 300\"}\n"
	_, err := scenarios.Load("t.yaml", []byte(src))
	if err == nil || !strings.Contains(err.Error(), "t.yaml:5:37: faults[0].lnetctl: net add: Invalid ToS argument: --tos 300") {
		t.Fatalf("--tos 300: %v", err)
	}
}

// TestSanityLnet265RefusedAtLoad: sanity-lnet test 265's CPT lists, "[1-0]" and "[]" as
// strings and as YAML sequences, which lnetctl refuses before the kernel sees them
// (handle_cpt_sequence), are refused when the scenario loads, at the CPT.
func TestSanityLnet265RefusedAtLoad(t *testing.T) {
	for _, c := range []struct{ cpt, msg string }{
		{`"[1-0]"`, "unable to parse CPT '[1-0]'"}, {"[1-0]", "unable to parse CPT '1-0'"},
		{`"[]"`, "unable to parse CPT '[]'"}, {"[]", "missing CPT configuration"},
	} {
		src := "duration: 5s\nnodes:\n  client: {nis: [o2ib0]}\nfaults:\n  - {at: 1s, node: client, lnetctl: import, yaml: {net: [{net type: o2ib, local NI(s): [{interfaces: {0: ib0}, CPT: " + c.cpt + "}]}]}}\n"
		_, err := scenarios.Load("t.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), "t.yaml:5:") || !strings.Contains(err.Error(), "CPT: import: "+c.msg) {
			t.Errorf("CPT %s: %v, want t.yaml:5:... import: %s", c.cpt, err, c.msg)
		}
	}
}

// TestSanityLnet157RefusedAtLoad: sanity-lnet test 157's ip2nets rule without net-spec,
// which lnetctl refuses before it reads the node's interfaces (handle_net_config_sequence:
// "Malformed input"; up to 2.15 handle_yaml_config_ip2nets fails it without a word), is
// refused when the scenario loads, at the rule.
func TestSanityLnet157RefusedAtLoad(t *testing.T) {
	for _, c := range []struct{ rel, msg string }{
		{"master", "t.yaml:5:75: faults[0].yaml.ip2nets[0].interfaces: import: Malformed input. Expect 'net-spec' found 'interfaces'"},
		{"2.15", "t.yaml:5:62: faults[0].yaml.ip2nets[0]: import: the ip2nets rule has no net-spec"},
	} {
		src := "duration: 5s\nnodes:\n  client: {release: " + c.rel + ", nis: [o2ib0]}\nfaults:\n  - {at: 1s, node: client, lnetctl: import, yaml: {ip2nets: [{interfaces: {0: ib0}, ip-range: {0: 192.168.1.1}}]}}\n"
		_, err := scenarios.Load("t.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %s", c.rel, err, c.msg)
		}
	}
}

// TestConfiguredPeerLockPrim: a configured peer's `lock_prim: true` (lnet.peers) locks its
// primary NID as `peer add --lock_prim` does: `peer del` keeps the peer with that NID only;
// a node of 2.15 refuses the key at load.
func TestConfiguredPeerLockPrim(t *testing.T) {
	runExpecting(t, lockedPeer, BackendIdeal, "commands.csv")
	_, err := scenarios.Load("t.yaml", []byte(strings.Replace(lockedPeer, "lnet:\n", "lnet:\n  release: \"2.15\"\n", 1)))
	if err == nil || !strings.Contains(err.Error(), "client runs 2.15, which has no locked primary NIDs") {
		t.Fatalf("2.15 lock_prim: %v", err)
	}
}

const lockedPeer = `
name: locked-peer
seed: 1
duration: 3s
nodes:
  client: {nis: [o2ib0]}
  server: {nis: [o2ib0, o2ib0]}
lnet:
  peers:
    - {primary_nid: "server:0", lock_prim: true, nodes: [client]}
faults:
  - {at: 1s, node: client, name: del, lnetctl: "peer del --prim_nid server:0"}
expect:
  - {check: command, fault: del, status: ok}
  - name: the peer keeps its primary NID only
    check: lnetctl
    node: client
    at: 2s
    command: peer show --nid 10.0.0.2@o2ib
    equal: {peer: [{primary nid: 10.0.0.2@o2ib, Multi-Rail: true, peer ni: [{nid: 10.0.0.2@o2ib, state: NA}]}]}
`
