package scenarios

import (
	"strings"
	"testing"
)

// ip2netsLines loads src and writes each command its imports run as netImportLines does,
// with an entry's failure.
func ip2netsLines(t *testing.T, src string) []string {
	t.Helper()
	return netImportLines(t, src, true, true)
}

// ip2netsNode has interfaces ib0 (10.0.0.1) and ib1 (10.0.0.2), the addresses of its NIDs.
const ip2netsNode = "duration: 5s\nnodes:\n  client: {release: %s, nis: [{net: o2ib0, hca: 0}, {net: o2ib0, hca: 1}]}\nfaults:\n"

// TestImportIP2Nets: from 2.17 (handle_net_config_sequence) a rule applies when every
// interface it names exists and matches a pattern (the first rule: ib0 does not) (none named: the interfaces that match;
// nothing: the first interface), a later rule for a configured net is skipped, the rule's
// tunables, lnd tunables and CPT go with each NI, an import where no rule applies fails
// with "No ip2nets rules applied", and under --exec the rules add as well (jt_import hands
// them to handle_net_config_sequence whatever the command).
func TestImportIP2Nets(t *testing.T) {
	src := strings.Replace(ip2netsNode, "%s", "master", 1) + `  - at: 1s
    node: client
    lnetctl: import
    yaml:
      ip2nets:
        - {net-spec: o2ib1, interfaces: {0: ib1, 1: ib0}, ip-range: {0: "10.0.0.[2-9/2]"}}
        - {net-spec: o2ib1, interfaces: {0: ib1}, ip-range: {0: "10.0.0.[2-9/2]"}}
        - {net-spec: o2ib1, interfaces: {0: ib0}, ip-range: {0: "10.0.0.[1-9/2]"}}
        - {net-spec: o2ib1, ip-range: {0: 10.0.*.*}}
        - {net-spec: o2ib2, ip-range: {0: 10.0.*.*}, tunables: {peer_credits: 16}, lnd tunables: {conns_per_peer: 2}, CPT: "[0]"}
        - {net-spec: o2ib3}
        - {net-spec: o2ib4, interfaces: {0: ib2}}
        - {net-spec: o2ib5, ip-range: {0: "2001:db8::/32"}}
  - {at: 2s, node: client, lnetctl: import --del, yaml: {ip2nets: [{net-spec: o2ib3, interfaces: {0: ib1}}]}}
  - {at: 3s, node: client, lnetctl: import, yaml: {ip2nets: [{net-spec: o2ib6, ip-range: {0: 10.1.*.*}}, {net-spec: o2ib6, interfaces: {0: eth0}}]}}
  - {at: 4s, node: client, lnetctl: import --exec, yaml: {ip2nets: [{net-spec: o2ib7, interfaces: {0: ib1}}]}}
`
	checkLines(t, ip2netsLines(t, src), []string{
		"net add o2ib1 10.0.0.2@o2ib1 --if ib1",
		"net add o2ib2 10.0.0.1@o2ib2 --if ib0 --peer-credits 16 --conns-per-peer 2 --cpt [0]",
		"net add o2ib2 10.0.0.2@o2ib2 --if ib1 --peer-credits 16 --conns-per-peer 2 --cpt [0]",
		"net add o2ib3 10.0.0.1@o2ib3 --if ib0",
		"net del o2ib3 10.0.0.2@o2ib3 --if ib1",
		"net add   fails No ip2nets rules applied",
		"net add o2ib7 10.0.0.2@o2ib7 --if ib1",
	})
}

// TestImportIP2NetsIoctl: up to 2.15 (handle_yaml_config_ip2nets) the interfaces a rule names
// that are missing or do not match are dropped, an interface is added once per pattern it
// matches, rules are not checked for repeated nets, a rule that adds nothing succeeds, the
// tunables are read as a net entry's, and --del skips the section.
func TestImportIP2NetsIoctl(t *testing.T) {
	src := strings.Replace(ip2netsNode, "%s", "2.15", 1) + `  - at: 1s
    node: client
    lnetctl: import
    yaml:
      ip2nets:
        - {net-spec: o2ib1, interfaces: {0: ib1, 1: ib0, 2: ib7}, ip-range: {0: "10.0.0.[2-9/2]"}}
        - {net-spec: o2ib1, interfaces: {0: ib0}}
        - {net-spec: o2ib2, ip-range: {0: 10.0.0.*, 1: "10.0.0.[2-3]"}, tunables: {peer_credits: 16, credits: 0}}
        - {net-spec: o2ib3}
        - {net-spec: o2ib4, ip-range: {0: 10.1.*.*}}
  - {at: 2s, node: client, lnetctl: import --del, yaml: {ip2nets: [{net-spec: o2ib3}]}}
`
	checkLines(t, ip2netsLines(t, src), []string{
		"net add o2ib1 10.0.0.2@o2ib1 --if ib1",
		"net add o2ib1 10.0.0.1@o2ib1 --if ib0",
		"net add o2ib2 10.0.0.1@o2ib2 --if ib0 --peer-credits 16",
		"net add o2ib2 10.0.0.2@o2ib2 --if ib1 --peer-credits 16",
		"net add o2ib2 10.0.0.2@o2ib2 --if ib1 --peer-credits 16",
		"net add o2ib3 10.0.0.1@o2ib3 --if ib0",
	})
}

// TestImportIP2NetsRefusals: what lnetctl refuses before it reads the node's interfaces, and
// 2.16's lnetctl, which has no ip2nets section, refused at load at the key.
func TestImportIP2NetsRefusals(t *testing.T) {
	for _, c := range []struct{ rel, yaml, want string }{
		{"master", `{ip2nets: [{interfaces: {0: ib0}, net-spec: o2ib}]}`, "t.yaml:5:75: faults[0].yaml.ip2nets[0].interfaces: import: Malformed input. Expect 'net-spec' found 'interfaces'"},
		{"2.15", `{ip2nets: [{interfaces: {0: ib0}}]}`, "faults[0].yaml.ip2nets[0]: import: the ip2nets rule has no net-spec"},
		{"master", `{ip2nets: [{net-spec: o2ib, local NI(s): [{interfaces: {0: ib0}}]}]}`, "ip2nets[0].local NI(s): import: local NI(s)' not valid for ip2nets"},
		{"master", `{ip2nets: [{net-spec: o2ib9x}]}`, "ip2nets[0].net-spec: import: Invalid network ID 'o2ib9x'"},
		{"master", `{ip2nets: [{net-spec: o2ib, ip-range: {0: "10.0.0.[1-5/0]"}}]}`, "ip2nets[0].ip-range.0: import: Failed to parse ip-range list rc = -1"},
		{"2.15", `{ip2nets: [{net-spec: o2ib, ip-range: {0: "2001:db8::1"}}]}`, "ip2nets[0].ip-range.0: import: ip2nets: bad ip-range"},
		{"master", `{ip2nets: [{net-spec: o2ib, interfaces: {0: "ib0[1]"}}]}`, "ip2nets[0].interfaces.0: import: an interface's CPT list (ib0[1]) is not modelled"},
		{"2.16", `{ip2nets: [{net-spec: o2ib}]}`, "faults[0].yaml.ip2nets: import: invalid key 'ip2nets'"},
		{"master", `{ip2nets: [{net-spec: lo}]}`, "ip2nets[0].net-spec: import: the loopback net is not modelled"},
	} {
		src := strings.Replace(ip2netsNode, "%s", c.rel, 1) + "  - {at: 1s, node: client, lnetctl: import, yaml: " + c.yaml + "}\n"
		_, err := Load("t.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v\nwant %s", c.rel, c.yaml, err, c.want)
		}
	}
	src := "duration: 5s\nnodes:\n  client: {nis: [o2ib0], lnetctl: {ip2nets: [{net-spec: o2ib1}]}}\n"
	if _, err := Load("t.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), "nodes.client.lnetctl.ip2nets: ip2nets in a node's configuration is not modelled") {
		t.Errorf("node configuration: %v", err)
	}
}
