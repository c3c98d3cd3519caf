package runner

import (
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/scenarios"
)

// TestNetAddLNDOptions: net add's --tos and --conns-per-peer reach the NI's LND: o2iblnd
// shows them and opens conns_per_peer connections to a peer; socklnd shows them; 0 or
// -1 is the module's value (the net's o2ib or socklnd entry, which a net added only at run
// time may have); 2.16's kernel fails a conns_per_peer above 127 with ERANGE, and every
// kernel a --cpt naming a CPT the node lacks; a 2.15 node prints its lnd tunables without
// timeout and tos.
func TestNetAddLNDOptions(t *testing.T) {
	csv := string(runExpecting(t, netAddLND, BackendO2IB, "commands.csv"))
	wantCommands(t, csv, "net add --net o2ib2 --if ib0 --conns-per-peer 128,ERANGE")
	// The client's ping over o2ib1 opens its conns_per_peer (3) connections to the server,
	// each created on both sides; nothing else connects.
	s, err := scenarios.Load("t.yaml", []byte(netAddLND))
	if err != nil {
		t.Fatal(err)
	}
	p, err := prepare(s, s.Seed, "")
	if err != nil {
		t.Fatal(err)
	}
	p.ws.start()
	p.faults.schedule()
	if err := runCapped(p.c.k, s.Duration, DefaultMaxEvents, DefaultMaxEventsPerInstant, nil); err != nil {
		t.Fatal(err)
	}
	if got := p.c.fab.lnd.Stats().ConnsCreated; got != 6 {
		t.Errorf("o2iblnd created %d connections, want 6", got)
	}
}

const netAddLND = `
name: net-add-lnd
seed: 1
duration: 4s
nodes:
  client: {nis: [{net: o2ib, nid: 10.0.0.1@o2ib}, {net: tcp, nid: 10.9.0.1@tcp}]}
  server: {nis: [{net: o2ib, nid: 10.0.0.2@o2ib}, {net: tcp, nid: 10.9.0.2@tcp}]}
  c216: {release: "2.16", nis: [o2ib]}
  c215: {release: "2.15", nis: [o2ib]}
o2ib:
  o2ib1: {tos: 96, conns_per_peer: 2}
socklnd:
  tcp0: {tos: 8, conns_per_peer: 3}
faults:
  - {at: 1s, node: client, name: o2ib1, lnetctl: "net add --net o2ib1 --if ib0 --tos 104 --conns-per-peer 3"}
  - {at: 1s, node: server, name: o2ib1-s, lnetctl: "net add --net o2ib1 --if ib0 --conns-per-peer 0"}
  - {at: 1s, node: client, name: o2ib3, lnetctl: "net add --net o2ib3 --if ib0 --conns-per-peer 4"}
  - {at: 1s, node: c216, name: big, lnetctl: "net add --net o2ib2 --if ib0 --conns-per-peer 128"}
  - {at: 1100ms, node: client, name: ping, lnetctl: "ping 10.0.0.2@o2ib1"}
  - {at: 1s, node: client, name: cpt, lnetctl: "net add --net o2ib4 --if ib0 --cpt [0-1]"}
  - {at: 2s, node: client, name: del, lnetctl: "net del --net tcp"}
  - {at: 2100ms, node: client, name: tcp, lnetctl: "net add --nid 10.9.0.1@tcp --tos -1 --conns-per-peer 6"}
expect:
  - {name: the adds succeed, check: command, fault: o2ib1, status: ok}
  - {check: command, fault: o2ib1-s, status: ok}
  - {check: command, fault: o2ib3, status: ok}
  - {name: 2.16 fails conns_per_peer 128, check: command, fault: big, status: ERANGE}
  - {check: command, fault: ping, status: ok}
  - {name: CPT 1 on a one-CPT node, check: command, fault: cpt, status: ERANGE}
  - name: --tos 104 --conns-per-peer 3; on o2ib3 (no entry) the default tos -1 with conns_per_peer 4
    check: lnetctl
    node: client
    at: 1500ms
    command: net show -v
    present: {net: [{net type: o2ib1, local NI(s): [{lnd tunables: {tos: 104, conns_per_peer: 3}}]}, {net type: o2ib3, local NI(s): [{lnd tunables: {tos: -1, conns_per_peer: 4}}]}]}
  - name: no --tos and --conns-per-peer 0 - the net's tos 96 and conns_per_peer 2
    check: lnetctl
    node: server
    at: 1500ms
    command: net show --net o2ib1 -v
    present: {net: [{net type: o2ib1, local NI(s): [{lnd tunables: {tos: 96, conns_per_peer: 2}}]}]}
  - {check: command, fault: tcp, status: ok}
  - name: tcp --tos -1 (the net's 8) with conns_per_peer 6
    check: lnetctl
    node: client
    at: 2500ms
    command: net show --net tcp -v
    present: {net: [{net type: tcp, local NI(s): [{lnd tunables: {tos: 8, conns_per_peer: 6}}]}]}
  - name: 2.15 prints no timeout nor tos
    check: lnetctl
    node: c215
    at: 1500ms
    command: net show -v
    absent: {net: [{net type: o2ib, local NI(s): [{lnd tunables: {tos: -1}}]}]}
`

// TestImportNetRequest: a net entry of an import is one Netlink request: the NI the kernel
// refuses (ib0 a second time: EEXIST) ends it, and the entry's NIs after it are not run;
// the next entry is a request of its own.
func TestImportNetRequest(t *testing.T) {
	csv := string(runExpecting(t, `
name: import-net-request
seed: 1
duration: 2s
nodes:
  client: {nis: [{net: o2ib, hca: 0}, {net: o2ib, hca: 1}]}
faults:
  - at: 1s
    node: client
    name: import
    lnetctl: import
    yaml:
      net:
        - net type: o2ib5
          local NI(s): [{interfaces: {0: ib0, 1: ib0, 2: ib1}}]
        - net type: o2ib6
          local NI(s): [{interfaces: {0: ib1}}]
expect:
  - {check: command, fault: import, status: EEXIST}
`, BackendO2IB, "commands.csv"))
	want := "net add o2ib5 10.0.0.1@o2ib5: ok; net add o2ib5 10.0.0.1@o2ib5: EEXIST"
	if !strings.Contains(csv, want) || !strings.Contains(csv, "net add o2ib5 10.0.0.2@o2ib5: not run; net add o2ib6 10.0.0.2@o2ib6: ok") {
		t.Errorf("commands.csv:\n%s\nwant %q, then ib1 not run and o2ib6 added", csv, want)
	}
}

// TestImportNetIoctl: a 2.15 node's import (liblnetconfig) adds every interface of the entry
// with the net's tunables (peer_timeout 0: the default 180; peer_credits 16) and
// conns_per_peer 1 (lnd tunables without it), skips the loopback net, and --del of the
// same document deletes both NIs; a CPT the node lacks fails the ioctl's add with EINVAL;
// `net add --peer-timeout 0` gives the default 180 (lnet_set_tune_defaults).
func TestImportNetIoctl(t *testing.T) {
	csv := string(runExpecting(t, `
name: import-net-ioctl
seed: 1
duration: 4s
nodes:
  client: {release: "2.15", nis: [{net: o2ib, hca: 0}, {net: o2ib, hca: 1}]}
faults:
  - at: 1s
    node: client
    name: import
    lnetctl: import
    yaml: &n
      net:
        - net type: lo
          local NI(s): [{nid: 0@lo}]
        - net type: o2ib7
          local NI(s):
            - {interfaces: {0: ib0}, tunables: {peer_timeout: 99}, CPT: "[1-0]"}
            - {interfaces: {0: ib1}}
          tunables: {peer_timeout: 0, peer_credits: 16, CPT: "[0]"}
          lnd tunables: {tos: 5}
  - {at: 2s, node: client, name: del, lnetctl: import --del, yaml: *n}
  - {at: 2s, node: client, name: pto0, lnetctl: "net add --net o2ib9 --if ib1 --peer-timeout 0"}
  - at: 3s
    node: client
    name: cpt1
    lnetctl: import
    yaml: {net: [{net type: o2ib8, local NI(s): [{interfaces: {0: ib0}}], tunables: {CPT: "[1]"}}]}
expect:
  - {check: command, fault: import, status: ok}
  - name: both NIs, the net's peer_credits, the default peer_timeout, conns_per_peer 1
    check: lnetctl
    node: client
    at: 1500ms
    command: export --backup
    present: {net: [{net type: o2ib7, local NI(s): [{interfaces: {0: ib0}, tunables: {peer_timeout: 180, peer_credits: 16}, lnd tunables: {conns_per_peer: 1}}, {interfaces: {0: ib1}, tunables: {peer_timeout: 180, peer_credits: 16}}]}]}
  - {check: command, fault: del, status: ok}
  - {check: lnetctl, node: client, at: 2500ms, command: export --backup, absent: {net: [{net type: o2ib7}]}}
  - {check: command, fault: cpt1, status: EINVAL}
  - name: net add --peer-timeout 0 by ioctl is the default 180
    check: lnetctl
    node: client
    at: 2500ms
    command: export --backup
    present: {net: [{net type: o2ib9, local NI(s): [{interfaces: {0: ib1}, tunables: {peer_timeout: 180}}]}]}
`, BackendO2IB, "commands.csv"))
	wantCommands(t, csv, "net del o2ib7 10.0.0.1@o2ib7: ok; net del o2ib7 10.0.0.2@o2ib7: ok")
}

// TestNetAddIP2NetRun: net add --ip2net at run time (lnet_handle_legacy_ip2nets): the NIs of
// the matching entries' nets start in order, the first refusal ending the command with the
// NIs before it kept (an interface the node lacks: EINVAL); no entry matching is ENOENT;
// up to 2.15 the rules' nets take the command's net tunables, from 2.16 the module's.
func TestNetAddIP2NetRun(t *testing.T) {
	csv := string(runExpecting(t, `
name: net-add-ip2net
seed: 1
duration: 3s
nodes:
  client: {nis: [{net: o2ib, hca: 0}, {net: o2ib, hca: 1}]}
  c215: {release: "2.15", nis: [o2ib]}
faults:
  - {at: 1s, node: client, name: two, lnetctl: 'net add --ip2net "o2ib7 10.*.*.*; o2ib8(ib1) 10.0.0.[1-9]" --peer-credits 16'}
  - {at: 1200ms, node: client, name: partial, lnetctl: 'net add --ip2net "o2ib9(ib0),o2ib10(ib5),o2ib11(ib0) 10.*.*.*"'}
  - {at: 1400ms, node: client, name: none, lnetctl: 'net add --ip2net "o2ib12 192.168.*.*"'}
  - {at: 1s, node: c215, name: tun, lnetctl: 'net add -p "o2ib7 10.*.*.*" --peer-credits 16'}
  - {at: 1400ms, node: c215, name: none-2.15, lnetctl: 'net add --ip2net "o2ib12 192.168.*.*"'}
expect:
  - {check: command, fault: two, status: ok}
  - {check: command, fault: partial, status: EINVAL}
  - {check: command, fault: none, status: ENOENT}
  - {check: command, fault: tun, status: ok}
  - {check: command, fault: none-2.15, status: ENOENT}
  - name: the rules' NIs, with the module's peer_credits from 2.16
    check: lnetctl
    node: client
    at: 2s
    command: export --backup
    present: {net: [{net type: o2ib7, local NI(s): [{interfaces: {0: ib0}, tunables: {peer_credits: 8}}]}, {net type: o2ib8, local NI(s): [{interfaces: {0: ib1}}]}, {net type: o2ib9, local NI(s): [{interfaces: {0: ib0}}]}]}
  - {check: lnetctl, node: client, at: 2s, command: export --backup, absent: {net: [{net type: o2ib11}]}}
  - name: 2.15 takes the command's peer_credits
    check: lnetctl
    node: c215
    at: 2s
    command: export --backup
    present: {net: [{net type: o2ib7, local NI(s): [{interfaces: {0: ib0}, tunables: {peer_credits: 16}}]}]}
`, BackendO2IB, "commands.csv"))
	wantCommands(t, csv,
		"net add o2ib7 10.0.0.2@o2ib7: ok; net add o2ib8 10.0.0.3@o2ib8: ok",
		"net add o2ib9 10.0.0.2@o2ib9: ok; net add ip2net: EINVAL (cannot setup ip2nets (o2ib10: failed to find UP interface ib5))\n",
		"net add ip2net: ENOENT (cannot setup ip2nets (ip2nets does not match any local IP interfaces))",
		"net add ip2net: ENOENT (cannot add network: No such file or directory (ip2nets does not match any local IP interfaces))",
	)
}
