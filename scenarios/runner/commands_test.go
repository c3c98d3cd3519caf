package runner

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/scenarios"
)

// lnetctlCommands runs each modelled lnetctl command with the kernel's refusals on a client
// with two NIs, a server, a router and a server behind it.
const lnetctlCommands = `
name: commands
seed: 1
duration: 10s
nodes:
  client: {nis: [o2ib0, o2ib0]}
  rtr: {routing: true, nis: [o2ib0, o2ib1]}
  server: {nis: [o2ib0, o2ib0]}
  oss: {nis: [o2ib1]}
lnet:
  alive_router_check_interval: 1
  router_ping_timeout: 1
  routes:
    - {net: o2ib1, gateway: rtr, nodes: client}
    - {net: o2ib0, gateway: rtr, nodes: oss}
workload:
  - {name: w, type: brw, op: write, from: client, to: server, size: 4KiB, interval: 100ms}
faults:
  - {at: 1s, node: client, name: retry, lnetctl: "set retry_count 3"}
  - {at: 1s, node: client, name: tt-too-small, lnetctl: "set transaction_timeout 3"}
  - {at: 1s, node: client, name: sens-too-big, lnetctl: "set health_sensitivity 1001"}
  - {at: 1s, node: client, name: rt-too-big, lnetctl: "set response_tracking 4"}
  - {at: 1s, node: client, name: disc-off, lnetctl: "set discovery 0"}
  - {at: 2s, node: client, name: ni-health, lnetctl: "net set --nid 10.0.0.2@o2ib --health 300"}
  - {at: 2s, node: client, name: ni-health-none, lnetctl: "net set --nid 10.0.0.99@o2ib --health 300"}
  - {at: 2s, node: client, name: peer-health, lnetctl: "peer set --nid server:1 --health 400"}
  - {at: 2s, node: client, name: peer-health-none, lnetctl: "peer set --nid 10.0.0.99@o2ib --health 400"}
  - {at: 3s, node: client, name: del-gw, lnetctl: "peer del --prim_nid rtr:0"}
  - {at: 3s, node: client, name: del-unknown, lnetctl: "peer del --prim_nid 10.0.0.99@o2ib"}
  - {at: 3s, node: client, name: del-not-primary, lnetctl: "peer del --prim_nid server:1"}
  - {at: 3s, node: client, name: add-ghost, lnetctl: "peer add --prim_nid 10.0.0.50@o2ib --nid 10.0.0.51@o2ib"}
  - {at: 3s, node: client, name: add-ghost-nonmr, lnetctl: "peer add --prim_nid 10.0.0.50@o2ib --non_mr"}
  - {at: 3s, node: client, name: add-ghost-again, lnetctl: "peer add --prim_nid 10.0.0.51@o2ib"}
  - {at: 4s, node: client, name: del-ghost-ni, lnetctl: "peer del --prim_nid 10.0.0.50@o2ib --nid 10.0.0.51@o2ib"}
  - {at: 4s, node: client, name: del-ghost, lnetctl: "peer del --prim_nid 10.0.0.50@o2ib"}
  - {at: 4s, node: client, name: del-ghost-again, lnetctl: "peer del --prim_nid 10.0.0.50@o2ib"}
  - {at: 5s, node: rtr, name: routing-off, lnetctl: "set routing 0"}
  - {at: 6s, node: client, name: udsp-add, lnetctl: "udsp add --src o2ib0 --priority 1"}
  - {at: 6s, node: client, name: udsp-update, lnetctl: "udsp add --src o2ib0 --priority 2"}
  - {at: 6s, node: client, name: udsp-pref, lnetctl: "udsp add --dst server:1 --src client:0"}
  - {at: 6s, node: client, name: udsp-pref-again, lnetctl: "udsp add --dst server:1 --src client:0"}
  - {at: 7s, node: client, name: udsp-del-none, lnetctl: "udsp del --idx 5"}
  - {at: 7s, node: client, name: udsp-del, lnetctl: "udsp del --idx 0"}
  - {at: 7s, node: client, name: cpp, lnetctl: "net set --nid client:0 --conns-per-peer 2"}
  - {at: 7s, node: client, name: cpp-none, lnetctl: "net set --nid 10.0.0.99@o2ib --conns-per-peer 2"}
  - {at: 8s, node: client, name: add-for, lnetctl: "route add --net o2ib2 --gateway rtr:0", for: 1s}
  - {at: 8s, node: client, name: rc-for, lnetctl: "set retry_count 0", for: 1s}
expect:
  - {check: command, fault: retry, status: ok}
  - {check: command, fault: tt-too-small, status: EINVAL}
  - {check: command, fault: sens-too-big, status: EINVAL}
  - {check: command, fault: rt-too-big, status: EINVAL}
  - {check: command, fault: disc-off, status: ok}
  - {check: command, fault: ni-health, status: ok}
  - {check: health, at: 2s, ni: "client:1", eq: 300}
  - {check: command, fault: ni-health-none, status: ok}
  - {check: command, fault: peer-health, status: ok}
  - {check: health, at: 2s, node: client, peer_ni: "server:1", eq: 400}
  - {check: command, fault: peer-health-none, status: ok}
  - {check: command, fault: del-gw, status: EBUSY}
  - {check: command, fault: del-unknown, status: ENOENT}
  - {check: command, fault: del-not-primary, status: ENODEV}
  - {check: command, fault: add-ghost, status: ok}
  - {check: command, fault: add-ghost-nonmr, status: EPERM}
  - {check: command, fault: add-ghost-again, status: EEXIST}
  - {check: command, fault: del-ghost-ni, status: ok}
  - {check: command, fault: del-ghost, status: ok}
  - {check: command, fault: del-ghost-again, status: ENOENT}
  - {check: command, fault: routing-off, status: ok}
  - {check: command, fault: udsp-add, status: ok}
  - {check: command, fault: udsp-update, status: ok}
  - {check: command, fault: udsp-pref, status: ok}
  - {check: command, fault: udsp-pref-again, status: EALREADY}
  - {check: command, fault: udsp-del-none, status: ENOENT}
  - {check: command, fault: udsp-del, status: ok}
  - {check: command, fault: cpp, status: ok}
  - {check: command, fault: cpp-none, status: ENOENT}
  - {check: lnetctl, at: 8500ms, node: client, command: route show -v, present: {route: [{net: o2ib2, gateway: 10.0.0.3@o2ib}]}}
  - {check: lnetctl, at: 9500ms, node: client, command: route show -v, absent: {route: [{net: o2ib2}]}}
  - {check: command, fault: add-for, status: ok}
  - {check: lnetctl, at: 8500ms, node: client, command: global show, present: {global: {retry_count: 0}}}
  - {check: lnetctl, at: 9500ms, node: client, command: global show, present: {global: {retry_count: 3}}}
  - {check: lnetctl, at: 6500ms, node: client, command: udsp show, equal: {udsp: [{idx: 0, src: o2ib0, action: {priority: 2}}, {idx: 1, src: 10.0.0.1@o2ib, dst: 10.0.0.5@o2ib}]}}
  - {check: lnetctl, at: 8s, node: client, command: udsp show, equal: {udsp: [{idx: 0, src: 10.0.0.1@o2ib, dst: 10.0.0.5@o2ib}]}}
  - {check: route, at: 9s, node: client, net: o2ib1, gateway: "rtr:0", state: down}
`

// TestLnetctlCommands: set (a value the kernel accepts, its EINVAL refusals), net set and
// peer set --health (the health they set; an unknown NID succeeds and changes nothing, as the kernel's void setters do), peer del (EBUSY for a
// route's gateway, ENOENT unknown, ENODEV not the primary), peer add (EPERM for a Multi-Rail
// mismatch, EEXIST for another peer's NID), peer del of one NID then of the peer, set routing
// 0 on the router (its route goes down at the client's next router check). Exact outcomes are
// in commands.csv.
func TestLnetctlCommands(t *testing.T) {
	runExpecting(t, lnetctlCommands, BackendIdeal, "commands.csv")
	csv := string(runExpecting(t, lnetctlCommands, BackendO2IB, "commands.csv"))
	wantCommands(t, csv, "2000000000,client,peer-health,peer set --nid server:1 --health 400,ok,,10.0.0.5@o2ib: ok\n")
}

const lnetctlPing = `
name: ping
seed: 1
duration: 10s
nodes:
  client: {nis: [o2ib0, o2ib0]}
  server: {nis: [o2ib0, o2ib0]}
faults:
  - {at: 1s, node: client, name: p-ok, lnetctl: "ping server:1"}
  - {at: 1s, node: client, name: p-src, lnetctl: "ping 10.0.0.4@o2ib --source 10.0.0.2@o2ib"}
  - {at: 1s, node: client, name: p-badsrc, lnetctl: "ping 10.0.0.4@o2ib --source 10.0.0.9@o2ib"}
  - {at: 1s, node: client, name: p-ghost, lnetctl: "ping 10.0.0.99@o2ib"}
  - {at: 3s, action: link_down, ni: "server:0"}
  - {at: 4s, node: client, name: p-down, lnetctl: "ping server:0 --timeout 5"}
  - {at: 4s, node: client, name: disc, lnetctl: "discover server:1"}
  - {at: 4s, node: client, name: disc-ghost, lnetctl: "discover 10.0.0.98@o2ib"}
expect:
  - {check: command, at: 2s, fault: p-ok, status: ok, answered_by: "server:1"}
  - {check: command, at: 2s, fault: p-src, status: ok, answered_by: 10.0.0.4@o2ib}
  - {check: command, fault: p-badsrc, status: EINVAL}
  - {check: command, fault: p-down, status: EHOSTUNREACH}
  - {check: command, fault: p-ghost, status: EHOSTUNREACH}
  # the ping at 1s discovered the server's peer, whose primary NID became the server's first
  # NI, the first NID its ping buffer lists after 0@lo (lnet_peer_data_present)
  - {check: command, fault: disc, status: ok, answered_by: 10.0.0.3@o2ib}
  - {check: command, fault: disc-ghost, status: EHOSTUNREACH}
`

// TestLnetctlPing: lnetctl ping as lnet_ping: the REPLY's NID and round trip; --source must be
// a local NID (EINVAL); without a REPLY by the timeout the ping ends when its GET does: a NID
// no node has at 6s (o2iblnd's address resolution fails, EHOSTUNREACH) although the
// timeout is 1s, a downed port's NI at 9s (timeout 5s). lnetctl discover ends with the
// peer's discovery (its ping, then the push of the client's buffer and its ACK): its primary
// NID and NIDs, or the errno (EHOSTUNREACH for a NID no node has, at 9s).
func TestLnetctlPing(t *testing.T) {
	got := string(runExpecting(t, lnetctlPing, BackendO2IB, "commands.csv"))
	want := `time_ns,node,name,command,result,answered_by,detail
1000000000,client,p-badsrc,ping 10.0.0.4@o2ib --source 10.0.0.9@o2ib [10.0.0.4@o2ib],EINVAL,,source 10.0.0.9@o2ib is not a local NID
1000170630,client,p-ok,ping server:1 [10.0.0.4@o2ib],ok,10.0.0.4@o2ib,"after 170.63us; NIDs 10.0.0.3@o2ib,10.0.0.4@o2ib"
1000170649,client,p-src,ping 10.0.0.4@o2ib --source 10.0.0.2@o2ib [10.0.0.4@o2ib],ok,10.0.0.4@o2ib,"after 170.649us; NIDs 10.0.0.3@o2ib,10.0.0.4@o2ib"
4000001265,client,disc,discover server:1 [10.0.0.4@o2ib],ok,10.0.0.3@o2ib,"after 1.265us; NIDs 10.0.0.3@o2ib,10.0.0.4@o2ib"
6000000000,client,p-ghost,ping 10.0.0.99@o2ib [10.0.0.99@o2ib],EHOSTUNREACH,,send failed
9000000000,client,p-down,ping server:0 --timeout 5 [10.0.0.3@o2ib],EHOSTUNREACH,,send failed
9000000000,client,disc-ghost,discover 10.0.0.98@o2ib [10.0.0.98@o2ib],EHOSTUNREACH,,discovery failed
`
	if got != want {
		t.Errorf("commands.csv:\n%s\nwant:\n%s", got, want)
	}
}

// TestSendRateAfterNewInstance: an NI's send rate sample after lnet configure (a new LNet
// instance whose counters start from 0) is what the new instance sent, not the unsigned
// difference with the old instance's count (1.48e20 b/s before the fix).
func TestSendRateAfterNewInstance(t *testing.T) {
	s, err := scenarios.LoadBuiltin("router-lnet-unconfigure")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "run")
	if _, err := Run(s, Options{Out: out}); err != nil {
		t.Fatal(err)
	}
	ts, err := os.ReadFile(filepath.Join(out, "timeseries.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\n15000000000,rtr0,ni_tx_bps,10.0.0.3@o2ib,0\n", "\n15000000000,rtr0,ni_tx_bps,10.1.0.2@o2ib1,0\n"} {
		if !strings.Contains(string(ts), want) {
			t.Errorf("timeseries.csv lacks %q", want)
		}
	}
}

const lnetctlNet = `
name: netadd
seed: 1
duration: 12s
nodes:
  client: {nis: [o2ib0]}
  server: {nis: [o2ib0]}
workload:
  - {name: w0, type: brw, op: write, from: client, to: server, size: 4KiB, interval: 100ms}
faults:
  - {at: 1s, node: server, name: add-srv, lnetctl: "net add --net o2ib1 --if ib0"}
  - {at: 1s, node: client, name: add-cli, lnetctl: "net add --net o2ib1 --if ib0 --peer-credits 16"}
  - {at: 1s, node: client, name: add-again, lnetctl: "net add --net o2ib1 --if ib0"}
  - {at: 2s, node: client, name: ping1, lnetctl: "ping 10.0.0.2@o2ib1"}
  - {at: 5s, node: server, name: del-srv, lnetctl: "net del --net o2ib1"}
  - {at: 5s, node: server, name: del-again, lnetctl: "net del --net o2ib1"}
  - {at: 6s, node: client, name: ping2, lnetctl: "ping 10.0.0.2@o2ib1 --timeout 2"}
  - {at: 10s, action: node_crash, node: server}
  - {at: 11s, node: server, name: on-crashed, lnetctl: "set retry_count 1"}
expect:
  - {check: command, fault: add-srv, status: ok}
  - {check: command, fault: add-cli, status: ok}
  - {check: command, fault: add-again, status: EEXIST}
  - {check: command, fault: ping1, status: ok, answered_by: 10.0.0.2@o2ib1}
  - {check: command, fault: del-srv, status: ok}
  - {check: command, fault: del-again, status: ENOENT}
  - {check: lnetctl, at: 3s, node: client, command: net show -v, present: {net: [{net type: o2ib1, local NI(s): [{nid: 10.0.0.1@o2ib1}]}]}}
  - {check: messages, workload: w0, status: failed, at: 10s, eq: 0}
`

// TestLnetctlNet: net add of a second net on an interface that carries one (its NI shares
// the port and address: 10.0.0.1@o2ib1 beside 10.0.0.1@o2ib), reachable at once (a ping
// answered by 10.0.0.2@o2ib1, whose buffer lists both NIDs, over the connection the pushes
// of the two new ping targets opened at 1 s), while traffic on o2ib0 goes on
// unharmed; EEXIST for an NI that exists; net del of the whole net, then ENOENT; a ping to
// the deleted NI is refused by the server's o2iblnd (ECONNREFUSED at 6.00017 s: the failed
// send ends the ping at once, LU-16290).
func TestLnetctlNet(t *testing.T) {
	got := string(runExpecting(t, lnetctlNet, BackendO2IB, "commands.csv"))
	want := `time_ns,node,name,command,result,answered_by,detail
1000000000,server,add-srv,net add --net o2ib1 --if ib0,ok,,
1000000000,client,add-cli,net add --net o2ib1 --if ib0 --peer-credits 16,ok,,
1000000000,client,add-again,net add --net o2ib1 --if ib0,EEXIST,,NI 10.0.0.1@o2ib1 exists (EEXIST)
2000000631,client,ping1,ping 10.0.0.2@o2ib1 [10.0.0.2@o2ib1],ok,10.0.0.2@o2ib1,"after 631ns; NIDs 10.0.0.2@o2ib,10.0.0.2@o2ib1"
5000000000,server,del-srv,net del --net o2ib1,ok,,
5000000000,server,del-again,net del --net o2ib1,ENOENT,,no local net o2ib1 (ENOENT)
6000170000,client,ping2,ping 10.0.0.2@o2ib1 --timeout 2 [10.0.0.2@o2ib1],ECONNREFUSED,,send failed
11000000000,server,on-crashed,set retry_count 1,not_run,,the node is down
`
	if got != want {
		t.Errorf("commands.csv:\n%s\nwant:\n%s", got, want)
	}
}

// TestDiscoverForce: `lnetctl discover` of a peer already discovered pings it and pushes
// nothing (it has this node's buffer); `discover --force` (LNET_PEER_FORCE_PING and
// FORCE_PUSH, lnet_discover) pushes again: one more PUT of the ping buffer from the client.
func TestDiscoverForce(t *testing.T) {
	const src = `
name: discover-force
seed: 1
duration: 5s
nodes:
  client: {nis: [o2ib0]}
  server: {nis: [o2ib0]}
faults:
  - {at: 1s, node: client, name: first, lnetctl: "discover server:0"}
  - {at: 2s, node: client, name: again, lnetctl: "discover server:0"}
  - {at: 3s, node: client, name: forced, lnetctl: "discover --force server:0"}
expect:
  - {check: command, fault: first, status: ok}
  - {check: command, fault: again, status: ok}
  - {check: command, fault: forced, status: ok}
`
	msgs := string(runExpecting(t, src, BackendO2IB, "messages.csv"))
	var pushes [5]int // by the second the PUT started in
	for _, line := range strings.Split(msgs, "\n") {
		f := strings.Split(line, ",")
		if len(f) > 6 && f[1] == "PUT" && f[2] == "10.0.0.1@o2ib" {
			start, err := strconv.ParseInt(f[6], 10, 64)
			if err != nil {
				t.Fatalf("start_ns %q: %v", f[6], err)
			}
			pushes[start/1e9]++
		}
	}
	if pushes[1] != 1 || pushes[2] != 0 || pushes[3] != 1 {
		t.Errorf("client pushes by second %v, want 1 at 1 s, none at 2 s, 1 at 3 s:\n%s", pushes, msgs)
	}
}

// TestLnetctlReleaseCommands: on a 2.15 node udsp del of an index without a policy succeeds
// (lnet_udsp_del_policy reported nothing before LU-16574) and udsp del without --idx deletes
// policy 0; on master net set --lnd-timeout reaches the NIs net add and lnet configure start
// later (the module parameter stays written), each showing it in net show -v.
func TestLnetctlReleaseCommands(t *testing.T) {
	const src = `
name: release-commands
seed: 1
duration: 6s
nodes:
  old: {release: "2.15", nis: [o2ib0]}
  new: {nis: [o2ib0, {net: o2ib1, hca: 1}]}
faults:
  - {at: 1s, node: old, name: add0, lnetctl: "udsp add --src o2ib0 --priority 1"}
  - {at: 1s, node: old, name: add1, lnetctl: "udsp add --dst o2ib0 --priority 2"}
  - {at: 2s, node: old, name: del-none, lnetctl: "udsp del --idx 5"}
  - {at: 2s, node: old, name: del-default, lnetctl: "udsp del"}
  - {at: 1s, node: new, name: tmo, lnetctl: "net set --net o2ib1 --lnd-timeout 33"}
  - {at: 2s, node: new, name: del, lnetctl: "net del --net o2ib1"}
  - {at: 3s, node: new, name: add, lnetctl: "net add --net o2ib2 --if ib1"}
  - {at: 4s, node: new, name: unconf, lnetctl: "lnet unconfigure"}
  - {at: 5s, node: new, name: conf, lnetctl: "lnet configure"}
expect:
  - {check: command, fault: del-none, status: ok}
  - {check: command, fault: del-default, status: ok}
  - {check: lnetctl, at: 3s, node: old, command: udsp show, equal: {udsp: [{idx: 0, src: NA, dst: o2ib0, rte: NA, action: {priority: 2}}]}}
  - {check: lnetctl, at: 1500ms, node: new, command: net show -v, present: {net: [{net type: o2ib, local NI(s): [{lnd tunables: {timeout: 33}}]}, {net type: o2ib1, local NI(s): [{lnd tunables: {timeout: 33}}]}]}}
  - {check: command, fault: add, status: ok}
  - {check: lnetctl, at: 3500ms, node: new, command: net show -v, present: {net: [{net type: o2ib2, local NI(s): [{lnd tunables: {timeout: 33}}]}]}}
  - {check: command, fault: conf, status: ok}
  - {check: lnetctl, at: 5500ms, node: new, command: net show -v, present: {net: [{net type: o2ib, local NI(s): [{lnd tunables: {timeout: 33}}]}, {net type: o2ib1, local NI(s): [{lnd tunables: {timeout: 33}}]}]}}
`
	csv := string(runExpecting(t, src, BackendO2IB, "commands.csv"))
	wantCommands(t, csv, "2000000000,old,del-none,udsp del --idx 5,ok,,udsp: no policy at index 5 (reported to no one up to 2.15)\n")
}

// TestUDSPShowIndex: lnetctl udsp show --idx/-i N prints the one policy at place N of the
// list (lustre_lnet_show_udsp asks the kernel for that index only), nothing when there is
// none there (ENOENT, exit 0), every policy for -1; on 2.15, whose lnetctl reads the index
// with atoi, one below -1 shows nothing too. 2.15 prints NA for a descriptor a policy does
// not set (UDSPShowNA).
func TestUDSPShowIndex(t *testing.T) {
	src := `name: udsp-show-idx
seed: 1
duration: 3s
nodes:
  old: {release: "2.15", nis: [o2ib0]}
  new: {nis: [o2ib0, {net: o2ib1, hca: 1}]}
faults:
  - {at: 1s, node: old, lnetctl: "udsp add --src o2ib0 --priority 1"}
  - {at: 1s, node: old, lnetctl: "udsp add --dst o2ib0 --priority 2"}
  - {at: 1s, node: new, lnetctl: "udsp add --src o2ib1 --priority 0"}
  - {at: 1s, node: new, lnetctl: "udsp add --dst o2ib0 --priority 3"}
  - {at: 1s, node: new, lnetctl: "udsp add --src o2ib0 --dst o2ib0"}
expect:
  - {check: lnetctl, at: 2s, node: old, command: udsp show --idx 1, equal: {udsp: [{idx: 1, src: NA, dst: o2ib0, rte: NA, action: {priority: 2}}]}}
  - {check: lnetctl, at: 2s, node: old, command: udsp show -i 0, equal: {udsp: [{idx: 0, src: o2ib0, dst: NA, rte: NA, action: {priority: 1}}]}}
  - {check: lnetctl, at: 2s, node: old, command: udsp show -i 2, equal: {udsp: [], show: []}}
  - {check: lnetctl, at: 2s, node: old, command: udsp show --idx -3, equal: {udsp: [], show: []}}
  - {check: lnetctl, at: 2s, node: new, command: udsp show -i2, equal: {udsp: [{idx: 2, src: o2ib0, dst: o2ib0}]}}
  - {check: lnetctl, at: 2s, node: new, command: udsp show --idx=1, equal: {udsp: [{idx: 1, dst: o2ib0, action: {priority: 3}}]}}
  - {check: lnetctl, at: 2s, node: new, command: udsp show --idx -1, equal: {udsp: [{idx: 0, src: o2ib1, action: {priority: 0}}, {idx: 1, dst: o2ib0, action: {priority: 3}}, {idx: 2, src: o2ib0, dst: o2ib0}]}}
  - {check: lnetctl, at: 2s, node: new, command: udsp show --idx 3, equal: {udsp: [], show: []}}
  - {check: lnetctl, at: 500ms, node: new, command: udsp show -i 0, equal: {udsp: [], show: []}}
`
	runExpecting(t, src, BackendO2IB, "counters.yaml")
}
