package scenarios

import (
	"fmt"
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

// ip2netsV6Node has interfaces ib0 (10.0.0.1; 2001:db8:0:1::5/64 and fe80::1/64) and ib1
// (10.0.0.2; 2001:db8:0:2::7/64), a group of its own per release.
const ip2netsV6Node = `duration: 5s
nodes:
  client:
    release: %s
    nis: [{net: o2ib0, hca: 0}, {net: o2ib0, hca: 1}]
    interfaces:
      ib0: {ipv6: ["2001:db8:0:1::5/64", "fe80::1/64"]}
      ib1: {ipv6: ["2001:db8:0:2::7/64"]}
faults:
`

// TestImportIP2NetsIPv6: from 2.17 (lustre_lnet_match_ip_to_intf, LU-19444) a rule's IPv6
// patterns match any IPv6 address of an interface, an exact address being a /128 and a
// prefix comparing its leading bits only (the pattern's address need not be the network's);
// a named interface matches when any of its addresses, IPv4 or IPv6, matches any pattern;
// without named interfaces the interfaces matched by an IPv4 address come first, then those
// matched by an IPv6 one, an interface once per address that matches (ib0's IPv4 and IPv6
// addresses both: listed twice, the second NI the kernel's to refuse at run time); a
// link-local address is matched as any other; and a rule that matches nothing is skipped.
func TestImportIP2NetsIPv6(t *testing.T) {
	src := strings.Replace(ip2netsV6Node, "%s", "master", 1) + `  - at: 1s
    node: client
    lnetctl: import
    yaml:
      ip2nets:
        - {net-spec: o2ib1, interfaces: {0: ib0}, ip-range: {0: "2001:db8:0:1::5"}}
        - {net-spec: o2ib2, interfaces: {0: ib0}, ip-range: {0: "2001:db8:0:1::5/128"}}
        - {net-spec: o2ib3, interfaces: {0: ib0}, ip-range: {0: "2001:db8:0:1::6/128"}}
        - {net-spec: o2ib3, interfaces: {0: ib1}, ip-range: {0: "2001:db8:0:2::ffff/64"}}
        - {net-spec: o2ib3, interfaces: {0: ib1, 1: ib0}, ip-range: {0: "2001:db8::/47", 1: 10.9.9.9}}
        - {net-spec: o2ib9, interfaces: {0: ib1, 1: ib0}, ip-range: {0: "2001:db8::/47", 1: 10.9.9.9}}
        - {net-spec: o2ib4, interfaces: {0: ib1, 1: ib0}, ip-range: {0: "2001:db8:0:2::/63", 1: 10.0.0.1}}
        - {net-spec: o2ib5, ip-range: {0: "2001:db8:0:2::/64", 1: 10.0.0.1}}
        - {net-spec: o2ib6, ip-range: {0: "2000::/3", 1: 10.0.0.*}}
        - {net-spec: o2ib7, ip-range: {0: "fe80::/10"}}
        - {net-spec: o2ib8, ip-range: {0: "2001:db8:0:3::/64"}}
`
	checkLines(t, ip2netsLines(t, src), []string{
		"net add o2ib1 10.0.0.1@o2ib1 --if ib0",
		"net add o2ib2 10.0.0.1@o2ib2 --if ib0",
		"net add o2ib3 10.0.0.2@o2ib3 --if ib1",
		"net add o2ib9 10.0.0.2@o2ib9 --if ib1",
		"net add o2ib9 10.0.0.1@o2ib9 --if ib0",
		"net add o2ib4 10.0.0.2@o2ib4 --if ib1",
		"net add o2ib4 10.0.0.1@o2ib4 --if ib0",
		"net add o2ib5 10.0.0.1@o2ib5 --if ib0",
		"net add o2ib5 10.0.0.2@o2ib5 --if ib1",
		"net add o2ib6 10.0.0.1@o2ib6 --if ib0",
		"net add o2ib6 10.0.0.2@o2ib6 --if ib1",
		"net add o2ib6 10.0.0.1@o2ib6 --if ib0",
		"net add o2ib6 10.0.0.2@o2ib6 --if ib1",
		"net add o2ib7 10.0.0.1@o2ib7 --if ib0",
	})
	// An IPv6 pattern matching nothing, alone: the import fails.
	src = strings.Replace(ip2netsV6Node, "%s", "master", 1) +
		`  - {at: 1s, node: client, lnetctl: import, yaml: {ip2nets: [{net-spec: o2ib1, interfaces: {0: ib1}, ip-range: {0: "2001:db8:0:1::5"}}]}}` + "\n"
	checkLines(t, ip2netsLines(t, src), []string{"net add   fails No ip2nets rules applied"})
	// Up to 2.15 the walk reads IPv4 addresses only (and the patterns are IPv4): the
	// interfaces' IPv6 addresses change nothing.
	src = strings.Replace(ip2netsV6Node, "%s", "2.15", 1) +
		`  - {at: 1s, node: client, lnetctl: import, yaml: {ip2nets: [{net-spec: o2ib1, ip-range: {0: "10.0.0.*"}}]}}` + "\n"
	checkLines(t, ip2netsLines(t, src), []string{
		"net add o2ib1 10.0.0.1@o2ib1 --if ib0",
		"net add o2ib1 10.0.0.2@o2ib1 --if ib1",
	})
}

// TestInterfaceAddrs: a node's interfaces' IPv6 addresses as its members have them (a
// group's counted up by member index, the prefix length kept, /128 when none is written),
// and what is refused at load, located at the key or address.
func TestInterfaceAddrs(t *testing.T) {
	s, err := Load("t.yaml", []byte(`duration: 1s
nodes:
  c: {count: 2, nis: [{net: o2ib}, {net: tcp}], interfaces: {eth1: {ipv6: [2001:db8::ff/64]}, ib0: {ipv6: ["2001:db8::1:0", "fe80::1/64"]}}}
`))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range s.Members {
		for _, mi := range m.Interfaces {
			got = append(got, fmt.Sprint(m.Name, " ", mi.Name, " ", mi.IPv6))
		}
	}
	checkLines(t, got, []string{
		"c0 eth1 [2001:db8::ff/64]",
		"c0 ib0 [2001:db8::1:0/128 fe80::1/64]",
		"c1 eth1 [2001:db8::100/64]",
		"c1 ib0 [2001:db8::1:1/128 fe80::2/64]",
	})
	for _, c := range []struct{ ifs, want string }{
		{`{ib2: {ipv6: ["2001:db8::1"]}}`, `t.yaml:3:68: nodes.c.interfaces.ib2: node "c" has no interface "ib2": an interface is that of an NI (nis[].interface, ib<i> or eth<i> by default) (name an interface one of the node's NIs is on (ib0, ib1))`},
		{`{ib0: {}}`, `t.yaml:3:68: nodes.c.interfaces.ib0: interface ib0 gives no address`},
		{`{ib0: {ipv6: ["10.0.0.9"]}}`, `t.yaml:3:76: nodes.c.interfaces.ib0.ipv6[0]: "10.0.0.9" is an IPv4 address`},
		{`{ib0: {ipv6: ["2001:db8::g"]}}`, `t.yaml:3:76: nodes.c.interfaces.ib0.ipv6[0]: "2001:db8::g" is not an IPv6 address`},
		{`{ib0: {ipv6: ["2001:db8::1/129"]}}`, `nodes.c.interfaces.ib0.ipv6[0]: "2001:db8::1/129" is not an IPv6 address`},
		{`{ib0: {ipv6: ["fe80::1%ib0"]}}`, `nodes.c.interfaces.ib0.ipv6[0]: "fe80::1%ib0": an interface's address has no zone`},
		{`{ib0: {ipv6: ["ff02::1"]}}`, `"ff02::1" is not a unicast address an interface can have`},
		{`{ib0: {ipv6: ["::1"]}}`, `"::1" is not a unicast address an interface can have`},
		{`{ib0: {ipv6: ["2001:db8::1", "2001:db8::1/64"]}, ib1: {ipv6: ["2001:db8::2"]}}`, `t.yaml:3:91: nodes.c.interfaces.ib0.ipv6[1]: 2001:db8::1 is given twice to c0's ib0 (give each interface addresses of its own (member k of a group has each address plus k))`},
		{`{ib0: {ipv6: ["2001:db8::1"]}, ib1: {ipv6: ["2001:db8::2"]}}`, `t.yaml:3:76: nodes.c.interfaces.ib0.ipv6[0]: 2001:db8::2 is both c0's ib1 and c1's ib0 address`},
		{`{ib0: {ipv6: ["feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"]}}`, `nodes.c.interfaces.ib0.ipv6[0]: a group of 2 runs past the unicast addresses (into ff00::/8)`},
	} {
		src := "duration: 1s\nnodes:\n  c: {count: 2, nis: [{net: o2ib}, {net: o2ib}], interfaces: " + c.ifs + "}\n"
		_, err := Load("t.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %s", c.ifs, err, c.want)
		}
	}
}
