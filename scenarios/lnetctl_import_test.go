package scenarios

import (
	"strconv"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// TestImportExpands: an import's document becomes the single verbs lnetctl's handlers call,
// in the document's section order (route before peer here, as written), each entry checked
// as its verb is; --del deletes a peer whose list holds its primary NID whole, sets
// numa_range 0 and leaves the buffers (lustre_yaml_del has no handler for them). The node
// runs master, whose Netlink import adds every peer Multi-Rail (TestImportPeerMultiRail).
func TestImportExpands(t *testing.T) {
	src := `duration: 5s
nodes:
  client: {nis: [o2ib0]}
faults:
  - at: 1s
    node: client
    lnetctl: import
    yaml:
      route: [{net: o2ib1, gateway: 10.0.0.5@o2ib, hop: 2}]
      peer:
        - {primary nid: 10.0.0.9@o2ib, peer ni: [{nid: 10.0.0.9@o2ib}, {nid: 10.0.1.9@o2ib}]}
        - {primary nid: 10.0.0.8@o2ib, Multi-Rail: False}
      routing: {enable: 1}
      numa: {range: 3}
      buffers: {large: 5, tiny: 17}
  - {at: 2s, node: client, lnetctl: import --del, yaml: {peer: [{primary nid: 10.0.0.9@o2ib, peer ni: [{nid: 10.0.1.9@o2ib}, {nid: 10.0.0.9@o2ib}]}], routing: {enable: 1}, numa: {range: 3}, buffers: {tiny: 1}}}
`
	s, err := Load("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Faults {
		for _, c := range f.Cmd.Sub {
			got = append(got, c.Verb+" "+c.Prim+c.Net+" "+strings.Join(c.NIDs, ",")+" "+strings.Join(c.Operands, ",")+" hop="+strconv.Itoa(c.Hop)+" mr="+strconv.FormatBool(!c.NonMR))
		}
	}
	want := []string{
		"route add o2ib1 10.0.0.5@o2ib  hop=2 mr=true",
		"peer add 10.0.0.9@o2ib 10.0.1.9@o2ib  hop=0 mr=true",
		"peer add 10.0.0.8@o2ib   hop=0 mr=true",
		"set routing   1 hop=0 mr=true",
		"set numa_range   3 hop=0 mr=true",
		"set large_buffers   5 hop=0 mr=true",
		"set tiny_buffers   17 hop=0 mr=true",
		"peer del 10.0.0.9@o2ib   hop=0 mr=true",
		"set routing   0 hop=0 mr=true",
		"set numa_range   0 hop=0 mr=true",
	}
	checkLines(t, got, want)
}

// TestImportRefusals: what lnetctl refuses before calling the kernel is refused at load, at
// the entry's line and column, with the fix.
func TestImportRefusals(t *testing.T) {
	for _, tc := range []struct{ fault, want string }{
		{`{at: 1s, node: client, lnetctl: import, yaml: {peer: [{peer ni: [{nid: 10.0.0.9@o2ib}]}]}}`,
			`t.yaml:4:59: faults[0].yaml.peer[0]: import: the 'primary nid' must be specified`},
		{`{at: 1s, node: client, lnetctl: import, yaml: {route: [{net: o2ib1}]}}`,
			`t.yaml:4:60: faults[0].yaml.route[0]: route add: missing mandatory parameter: --gateway`},
		{`{at: 1s, node: client, lnetctl: import, yaml: {peer: [{primary nid: 10.0.0.9@o2ib, peer ni: [{nid: 10.0.0.x@o2ib}]}]}}`,
			`t.yaml:4:59: faults[0].yaml.peer[0]: unable to parse nidlist from: 10.0.0.x@o2ib`},
		{`{at: 1s, node: client, lnetctl: import, yaml: {udsp: []}}`,
			`t.yaml:4:58: faults[0].yaml.udsp: import: section udsp is not modelled at run time (net, ip2nets, route, peer, routing, buffers, numa and global are; ping and discover with --exec)`},
		{`{at: 1s, node: client, lnetctl: import --show, yaml: {peer: []}}`,
			`t.yaml:4:37: faults[0].lnetctl: import: --show is not modelled`},
		{`{at: 1s, node: client, lnetctl: import}`,
			`t.yaml:4:5: faults[0].yaml: import needs yaml`},
		{`{at: 1s, node: client, lnetctl: import, yaml: }`,
			`t.yaml:4:51: faults[0].yaml: import needs yaml, and it is empty`},
		{`{at: 1s, node: client, lnetctl: "peer add --prim_nid 10.0.0.9@o2ib", yaml: {peer: []}}`,
			`faults[0].yaml`},
	} {
		src := "duration: 5s\nnodes: {client: {nis: [o2ib0]}}\nfaults:\n  - " + tc.fault + "\n"
		_, err := Load("t.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.fault, err, tc.want)
		}
	}
}

// TestImportNet: from 2.17 each net entry is one rule (handle_net_config_sequence): an NI
// per interface of its local NIs (none: the node's first interface), added with the
// entry's tunables, those written last winning whether the net's or an NI's, and its CPT
// lists merged; --del deletes an NI per interface.
func TestImportNet(t *testing.T) {
	src := `duration: 5s
nodes:
  client: {nis: [{net: o2ib0, hca: 0}, {net: o2ib0, hca: 1}]}
faults:
  - at: 1s
    node: client
    lnetctl: import
    yaml:
      net:
        - net type: o2ib1
          tunables: {peer_timeout: 100, peer_credits: 16}
          local NI(s):
            - {interfaces: {0: ib1, 1: ib0}, tunables: {peer_credits: 32, credits: -1}, CPT: "[0]"}
            - {interfaces: {0: ib0}, lnd tunables: {conns_per_peer: 4, tos: 104}, CPT: [0-1/1]}
        - net type: o2ib2
          local NI(s): [{nid: 10.0.0.1@o2ib2}]
  - {at: 2s, node: client, lnetctl: import --del, yaml: {net: [{net type: o2ib1, local NI(s): [{interfaces: {0: ib1}}]}]}}
`
	got := netImportLines(t, src, false, false)
	want := []string{
		"net add 10.0.0.2@o2ib1 --if ib1 --peer-timeout 100 --peer-credits 32 --conns-per-peer 4 --tos 104 --cpt [0,0-1/1]",
		"net add 10.0.0.1@o2ib1 --if ib0 --peer-timeout 100 --peer-credits 32 --conns-per-peer 4 --tos 104 --cpt [0,0-1/1]",
		"net add 10.0.0.1@o2ib1 --if ib0 --peer-timeout 100 --peer-credits 32 --conns-per-peer 4 --tos 104 --cpt [0,0-1/1]",
		"net add 10.0.0.1@o2ib2 --if ib0",
		"net del 10.0.0.2@o2ib1 --if ib1",
	}
	checkLines(t, got, want)
}

// netImportLines loads src and writes each net command its imports run as one line: the
// verb, the net when withNet, the NIDs, the options the net section can give, then, when
// withFail, how the command fails.
func netImportLines(t *testing.T, src string, withNet, withFail bool) []string {
	t.Helper()
	s, err := Load("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Faults {
		for _, c := range f.Cmd.Sub {
			line := c.Verb + " "
			if withNet {
				line += c.Net + " "
			}
			line += strings.Join(c.NIDs, ",")
			for _, k := range []string{"if", "peer-timeout", "peer-credits", "credits", "conns-per-peer", "tos", "cpt"} {
				if v, ok := c.Args[k]; ok {
					line += " --" + k + " " + v
				}
			}
			if withFail && c.Fail != nil {
				line += " fails " + c.Fail.Text
			}
			got = append(got, line)
		}
	}
	return got
}

// TestImportNetIoctl: up to 2.15 (liblnetconfig's handle_yaml_config_ni) a net entry adds
// every interface of its local NIs with the net's tunables only: a key written 0 is the
// default, the net's lnd tunables give conns_per_peer 1 when they do not write it, the
// CPT in the net's tunables is kept when it parses, the local NIs' own tunables and CPT are
// not read; the loopback net is skipped; --del of an entry without interfaces deletes the
// whole net.
func TestImportNetIoctl(t *testing.T) {
	src := `duration: 5s
lnet: {release: "2.15"}
nodes:
  client: {nis: [{net: o2ib0, hca: 0}, {net: o2ib0, hca: 1}]}
faults:
  - at: 1s
    node: client
    lnetctl: import
    yaml:
      net:
        - net type: lo
          local NI(s): [{nid: 0@lo}]
        - net type: o2ib1
          local NI(s):
            - {interfaces: {0: ib1}, tunables: {peer_credits: 32}, CPT: "[1-0]"}
            - {interfaces: {0: ib0}, lnd tunables: {conns_per_peer: 4}}
          tunables: {peer_timeout: 0, peer_credits: 16, CPT: "[0]"}
          lnd tunables: {tos: 5}
  - {at: 2s, node: client, lnetctl: import --del, yaml: {net: [{net type: o2ib1, local NI(s): [{nid: 10.0.0.1@o2ib1}]}]}}
`
	checkLines(t, netImportLines(t, src, true, false), []string{
		"net add o2ib1 10.0.0.2@o2ib1 --if ib1 --peer-credits 16 --conns-per-peer 1 --cpt [0]",
		"net add o2ib1 10.0.0.1@o2ib1 --if ib0 --peer-credits 16 --conns-per-peer 1 --cpt [0]",
		"net del o2ib1 ",
	})
}

// TestImportNetRefusals: lnetctl's refusals of a net section (2.17: net type not first, an
// unparsable CPT as sanity-lnet test 265 writes them; up to 2.15: no local NI(s), no
// interface to add), the loopback net from 2.17, the section on 2.16 and the lnd tunables
// of a 2.12 import are refused at load.
func TestImportNetRefusals(t *testing.T) {
	for _, tc := range []struct{ release, yaml, want string }{
		{"master", `{net: [{local NI(s): [{interfaces: {0: ib0}}], net type: o2ib1}]}`, "t.yaml:5:72: faults[0].yaml.net[0].local NI(s): import: Malformed input. Expect 'net type' found 'local NI(s)' (write net type first)"},
		{"master", `{net: [{net type: o2ib1x}]}`, "faults[0].yaml.net[0].net type: import: Invalid network ID 'o2ib1x'"},
		{"master", `{net: [{net type: lo}]}`, "import: the loopback net is not modelled at run time"},
		{"master", `{net: [{net type: o2ib1, local NI(s): [{interfaces: {0: ib7}}]}]}`, "net add: client has no interface ib7"},
		{"master", `{net: [{net type: o2ib1, local NI(s): [{interfaces: {0: ib0}, CPT: "[1-0]"}]}]}`, `import: unable to parse CPT '[1-0]'`},
		{"master", `{net: [{net type: o2ib1, local NI(s): [{interfaces: {0: ib0}, CPT: [1-0]}]}]}`, `import: unable to parse CPT '1-0'`},
		{"master", `{net: [{net type: o2ib1, local NI(s): [{interfaces: {0: ib0}, CPT: "[]"}]}]}`, `import: unable to parse CPT '[]'`},
		{"master", `{net: [{net type: o2ib1, local NI(s): [{interfaces: {0: ib0}, CPT: []}]}]}`, `import: missing CPT configuration`},
		{"2.16", `{net: [{net type: o2ib1, local NI(s): [{interfaces: {0: ib0}}]}]}`, "import: section net is not modelled at run time on client (2.16's lnetctl hands it to the kernel as written)"},
		{"2.15", `{net: [{net type: o2ib1, local NI(s): [{nid: 10.0.0.1@o2ib1}]}]}`, "faults[0].yaml.net[0].local NI(s): import: no interface name provided"},
		{"2.15", `{net: [{net type: o2ib1}]}`, "faults[0].yaml.net[0]: import: the entry has no local NI(s)"},
		{"2.12", `{net: [{net type: o2ib1, local NI(s): [{interfaces: {0: ib0}}], tunables: {peer_credits: 16}, lnd tunables: {conns_per_peer: 2}}]}`, "import: the lnd tunables of a 2.12 import are not modelled at run time"},
	} {
		src := "duration: 5s\nlnet: {release: \"" + tc.release + "\"}\nnodes: {client: {nis: [o2ib0]}}\nfaults:\n  - {at: 1s, node: client, lnetctl: import, yaml: " + tc.yaml + "}\n"
		_, err := Load("t.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s on %s:\n got %v\nwant %s", tc.yaml, tc.release, err, tc.want)
		}
	}
}

// TestImportGlobalByRelease: the global section is one set per key, in the document's order
// from 2.16 and in handle_yaml_config_global_settings' order (without
// max_recovery_ping_interval) up to 2.15; --del resets numa_range, max_interfaces and
// discovery, and up to 2.15 drop_asym_route.
func TestImportGlobalByRelease(t *testing.T) {
	src := `duration: 5s
nodes:
  new: {nis: [o2ib0]}
  old: {nis: [o2ib0], release: "2.15"}
faults:
  - {at: 1s, node: new, lnetctl: import, yaml: &g {global: {transaction_timeout: 30, retry_count: 4, max_intf: 50, lnd_timeout: 10, max_recovery_ping_interval: 64}}}
  - {at: 1s, node: old, lnetctl: import, yaml: *g}
  - {at: 2s, node: new, lnetctl: import --del, yaml: &d {global: {discovery: 0, drop_asym_route: 1, max_interfaces: 50, numa_range: 2, retry_count: 1}}}
  - {at: 2s, node: old, lnetctl: import --del, yaml: *d}
`
	s, err := Load("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Faults {
		var sets []string
		for _, c := range f.Cmd.Sub {
			sets = append(sets, c.Verb[len("set "):]+"="+strconv.Itoa(c.Value))
		}
		got = append(got, f.Node+": "+strings.Join(sets, " "))
	}
	want := []string{
		"new: transaction_timeout=30 retry_count=4 max_interfaces=50 max_recovery_ping_interval=64",
		"old: max_interfaces=50 retry_count=4 transaction_timeout=30",
		"new: discovery=1 max_interfaces=4096 numa_range=0",
		"old: max_interfaces=200 numa_range=0 discovery=1 drop_asym_route=0",
	}
	checkLines(t, got, want)
}

// TestImportExecForms: import --exec reads ping and discover in the node's release's form:
// the Netlink mapping from 2.16 (one command for all its NIDs), lustre_yaml_exec's entries up
// to 2.15 (timeout in ms, rounded up to lnetctl ping's seconds; source_nid; force); the
// other sections are skipped there.
func TestImportExecForms(t *testing.T) {
	src := `duration: 5s
nodes:
  new: {nis: [o2ib0]}
  old: {nis: [o2ib0], release: "2.15"}
faults:
  - {at: 1s, node: new, lnetctl: import -e, yaml: {ping: {nids: {0: 10.0.0.9@o2ib, 1: old:0}}, discover: {nids: [10.0.0.9@o2ib]}}}
  - {at: 1s, node: old, lnetctl: import --exec, yaml: {route: [], ping: [{primary nid: 10.0.0.9@o2ib, timeout: 1500, source_nid: old:0}], discover: [{primary nid: 10.0.0.9@o2ib, force: 1}]}}
  - {at: 2s, node: new, lnetctl: import, yaml: {ping: {nids: [10.0.0.9@o2ib]}}}
`
	s, err := Load("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Faults {
		for _, c := range f.Cmd.Sub {
			got = append(got, f.Node+": "+c.Verb+" "+strings.Join(c.NIDs, ",")+" timeout="+strconv.Itoa(c.Value)+" source="+c.Prim+" force="+strconv.FormatBool(c.Force))
		}
	}
	want := []string{
		"new: ping 10.0.0.9@o2ib,10.0.0.2@o2ib timeout=0 source= force=false",
		"new: discover 10.0.0.9@o2ib timeout=0 source= force=false",
		"old: ping 10.0.0.9@o2ib timeout=2 source=10.0.0.2@o2ib force=false",
		"old: discover 10.0.0.9@o2ib timeout=0 source= force=true",
	}
	checkLines(t, got, want)
}

// TestImportPeerMultiRail: a peer entry's Multi-Rail as each release's lnetctl import reads
// it. Up to 2.15 only the words True and False count (cYAML gives true, false and numbers
// such as -1.5e3 no string value), another word fails the entry before the kernel (2.12's
// words "Bad MR value") and --del ignores it; from 2.16 every peer is added Multi-Rail, a word
// yaml_fill_scalar_data does not send as a number (-1.5e3 is not: digits and '-' only) fails
// with EINVAL after the primary NID written before it was added, which is deleted again, and
// --del fails too, having run nothing.
func TestImportPeerMultiRail(t *testing.T) {
	words := []string{"True", "False", "true", "false", "0", "-1.5e3", "yes", "N", "0x1", "Foobar"}
	for _, tc := range []struct {
		release string
		del     bool
		want    []string
	}{
		{"2.12", false, []string{"True: mr", "False: non-mr", "true: mr", "false: mr", "0: mr", "-1.5e3: mr",
			`yes: EPERM "Bad MR value"`, `N: EPERM "Bad MR value"`, `0x1: EPERM "Bad MR value"`, `Foobar: EPERM "Bad MR value"`}},
		{"2.15", false, []string{"True: mr", "False: non-mr", "true: mr", "false: mr", "0: mr", "-1.5e3: mr",
			`yes: EPERM "Multi-Rail must be set to \"True\" or \"False\" found \"yes\""`,
			`N: EPERM "Multi-Rail must be set to \"True\" or \"False\" found \"N\""`,
			`0x1: EPERM "Multi-Rail must be set to \"True\" or \"False\" found \"0x1\""`,
			`Foobar: EPERM "Multi-Rail must be set to \"True\" or \"False\" found \"Foobar\""`}},
		{"2.15", true, []string{"True: del", "False: del", "true: del", "false: del", "0: del", "-1.5e3: del", "yes: del", "N: del", "0x1: del", "Foobar: del"}},
		{"2.16", false, []string{"True: mr undo", "False: mr undo", "true: mr undo", "false: mr undo", "0: mr undo",
			`-1.5e3: mr undo EINVAL "invalid MR flag param" after the verb`,
			"yes: mr undo", "N: mr undo", `0x1: mr undo EINVAL "invalid MR flag param" after the verb`, `Foobar: mr undo EINVAL "invalid MR flag param" after the verb`}},
		{"master", true, []string{"True: del", "False: del", "true: del", "false: del", "0: del", `-1.5e3: del EINVAL "invalid MR flag param"`, "yes: del", "N: del",
			`0x1: del EINVAL "invalid MR flag param"`, `Foobar: del EINVAL "invalid MR flag param"`}},
	} {
		var got []string
		for _, w := range words {
			verb := "import"
			if tc.del {
				verb = "import --del"
			}
			src := "duration: 5s\nnodes:\n  client: {release: \"" + tc.release + "\", nis: [o2ib0]}\nfaults:\n  - {at: 1s, node: client, lnetctl: " + verb +
				", yaml: {peer: [{primary nid: 10.0.0.8@o2ib, Multi-Rail: \"" + w + "\", peer ni: [{nid: 10.0.0.8@o2ib}, {nid: 10.0.1.8@o2ib}]}]}}\n"
			s, err := Load("t.yaml", []byte(src))
			if err != nil {
				t.Fatalf("%s %s: %v", tc.release, w, err)
			}
			c := s.Faults[0].Cmd.Sub[0]
			line := w + ": "
			switch {
			case tc.del:
				line += "del"
			case c.Fail != nil && !c.Fail.Run && !c.UndoPrim: // refused before any kernel call
			case c.NonMR:
				line += "non-mr"
			default:
				line += "mr"
			}
			if c.UndoPrim {
				line += " undo"
			}
			if f := c.Fail; f != nil {
				line = strings.TrimSuffix(line, " ") + " " + lnet.ErrnoName(f.Errno) + " " + strconv.Quote(f.Text)
				if f.Run {
					line += " after the verb"
				}
			}
			got = append(got, line)
		}
		t.Run(tc.release, func(t *testing.T) { checkLines(t, got, tc.want) })
	}
}

// TestImportNetlinkMRKeyOrder: from 2.16 what a failing Multi-Rail undoes depends on the keys
// before it: written before `primary nid`, nothing was added and nothing is deleted; after
// `peer ni`, the peer's NIs were added too (the entry's verb runs whole before it fails).
func TestImportNetlinkMRKeyOrder(t *testing.T) {
	src := `duration: 5s
nodes:
  client: {nis: [o2ib0]}
faults:
  - {at: 1s, node: client, lnetctl: import, yaml: {peer: [{Multi-Rail: Foobar, primary nid: 10.0.0.8@o2ib}]}}
  - {at: 1s, node: client, lnetctl: import, yaml: {peer: [{primary nid: 10.0.0.8@o2ib, Multi-Rail: Foobar, peer ni: [{nid: 10.0.1.8@o2ib}]}]}}
  - {at: 1s, node: client, lnetctl: import, yaml: {peer: [{primary nid: 10.0.0.8@o2ib, peer ni: [{nid: 10.0.1.8@o2ib}], Multi-Rail: Foobar}]}}
  - {at: 1s, node: client, lnetctl: import --del, yaml: {peer: [{primary nid: 10.0.0.8@o2ib, peer ni: [{nid: 10.0.1.8@o2ib}, {nid: 10.0.0.8@o2ib}, {nid: 10.0.2.8@o2ib}], Multi-Rail: Foobar}]}}
`
	s, err := Load("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range s.Faults {
		c := f.Cmd.Sub[0]
		got = append(got, c.Verb+" "+c.Prim+" "+strings.Join(c.NIDs, ",")+" run="+strconv.FormatBool(c.Fail.Run)+" undo="+strconv.FormatBool(c.UndoPrim))
	}
	want := []string{
		"peer add 10.0.0.8@o2ib  run=false undo=false",
		"peer add 10.0.0.8@o2ib  run=true undo=true",
		"peer add 10.0.0.8@o2ib 10.0.1.8@o2ib run=true undo=true",
		"peer del 10.0.0.8@o2ib 10.0.1.8@o2ib run=true undo=false",
	}
	checkLines(t, got, want)
}

// checkLines fails t unless got and want hold the same lines, printing both.
func checkLines(t *testing.T, got, want []string) {
	t.Helper()
	if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
		t.Errorf("got\n%s\nwant\n%s", g, w)
	}
}

// TestLoadLnetctlMultiRail: a node's load-time lnetctl export reads a peer's Multi-Rail as a
// boolean (True, false, 1, ...); a word that is none is refused at the value, where an import
// accepts it and fails at run time as the node's release does.
func TestLoadLnetctlMultiRail(t *testing.T) {
	load := func(v string) (*Scenario, error) {
		src := "duration: 5s\nnodes:\n  server: {nis: [o2ib0]}\n  client:\n    nis: [o2ib0]\n    lnetctl: {peer: [{primary nid: 10.0.0.2@o2ib, Multi-Rail: " + v + "}]}\n"
		return Load("t.yaml", []byte(src))
	}
	for v, want := range map[string]bool{"True": true, "false": false, "0": false, "yes": true} {
		s, err := load(v)
		if err != nil {
			t.Fatalf("%s: %v", v, err)
		}
		if got := s.Members[0].Peers[0].MultiRail; got != want {
			t.Errorf("Multi-Rail: %s gives %v, want %v", v, got, want)
		}
	}
	if _, err := load("Foobar"); err == nil || !strings.Contains(err.Error(), `t.yaml:6:63: nodes.client.lnetctl.peer[0].Multi-Rail: expected true or false (or 1/0 as lnetctl prints), got "Foobar"`) {
		t.Errorf("Multi-Rail: Foobar at load: %v", err)
	}
}

// TestSanityLnet27RefusedAtLoad: sanity-lnet test 27 ("Import bad config should fail
// gracefully", LU-17895): lnetctl import of a document with a key that is no section or
// global parameter ("invalid key"), a global key without a value ("no value") and one whose
// value is no number ("invalid value") fails before the kernel sees it; lnetsim refuses each
// at load, at the key, in lnetctl's words. A global section's unknown key is lnetctl's
// "invalid key" too.
func TestSanityLnet27RefusedAtLoad(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"{foobar: }", "t.yaml:4:52: faults[0].yaml.foobar: import: invalid key 'foobar' (lnetctl from 2.16 fails with EINVAL; up to 2.15 it skips the key) (sections: buffers, discover, global, ip2nets, net, numa, peer, ping, route, routing, udsp)"},
		{"{global: {discovery: }}", "t.yaml:4:72: faults[0].yaml.global.discovery: import: no value specified for key 'discovery' (give the value, or remove the key)"},
		{"{global: {discovery: foo}}", "t.yaml:4:72: faults[0].yaml.global.discovery: import: invalid value 'foo' for key 'discovery' (a number, as lnetctl export prints it)"},
		{"{global: {discovery: true}}", "t.yaml:4:72: faults[0].yaml.global.discovery: import: invalid value 'true' for key 'discovery' (a number, as lnetctl export prints it)"},
		{"{global: {transaction_timeout: 50s}}", "t.yaml:4:82: faults[0].yaml.global.transaction_timeout: import: invalid value '50s' for key 'transaction_timeout' (a number, as lnetctl export prints it)"},
		{"{global: {foobar: 1}}", "t.yaml:4:61: faults[0].yaml.global.foobar: import: invalid key 'foobar' (lnetctl from 2.16 fails with EINVAL)"},
		{"{discovery: 0}", "t.yaml:4:52: faults[0].yaml.discovery: import: discovery outside the global section is not modelled (write it under global: (lnetctl from 2.16 also reads it at the top))"},
	} {
		src := "duration: 5s\nnodes: {client: {nis: [o2ib0]}}\nfaults:\n  - {at: 1s, node: client, lnetctl: import, yaml: " + tc.doc + "}\n"
		_, err := Load("t.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.doc, err, tc.want)
		}
	}
}

// TestImportGlobalWords: a global value is read as the node's release's lnetctl reads it:
// from 2.16 with parse_long (strtol in base 0, the whole word), up to 2.15 as cYAML's
// cy_valueint (true 1, false 0, numbers with a fraction or an exponent truncated, any other
// word 0).
func TestImportGlobalWords(t *testing.T) {
	for _, tc := range []struct{ release, word, want string }{
		{"", "0x3", "3"}, {"", "010", "8"}, {"", "+7", "7"}, {"", "7", "7"},
		{"2.15", "true", "1"}, {"2.15", "True", "0"}, {"2.15", "foo", "0"}, {"2.15", "0x3", "0"},
		{"2.15", "05", "5"}, {"2.15", "007", "0"}, {"2.15", "7.9", "7"}, {"2.15", "1e1", "10"}, {"2.15", "\"\"", "0"},
		{"2.12", "false", "0"}, {"2.12", "3", "3"},
	} {
		rel := ""
		if tc.release != "" {
			rel = "release: \"" + tc.release + "\", "
		}
		src := "duration: 5s\nnodes: {client: {" + rel + "nis: [o2ib0]}}\nfaults:\n  - {at: 1s, node: client, lnetctl: import, yaml: {global: {numa_range: " + tc.word + "}}}\n"
		s, err := Load("t.yaml", []byte(src))
		if err != nil {
			t.Errorf("%s %s: %v", tc.release, tc.word, err)
			continue
		}
		if sub := s.Faults[0].Cmd.Sub; len(sub) != 1 || sub[0].Verb != "set numa_range" || sub[0].Operands[0] != tc.want {
			t.Errorf("%s %s: %+v, want set numa_range %s", tc.release, tc.word, sub, tc.want)
		}
	}
}

// TestImportRouteSensitivity: a route entry's health_sensitivity (what export prints on 2.15
// and 2.16) is route add's --health_sensitivity on those releases (2.15's
// handle_yaml_config_route reads it, 2.16's kernel route handler too) and skipped on the
// others (2.12's handler and the Netlink handler of 2.17 and master do not read it); on 2.15
// a value below 1 is liblnetconfig's refusal, located at the entry.
func TestImportRouteSensitivity(t *testing.T) {
	src := `duration: 5s
nodes:
  a15: {nis: [o2ib0], release: "2.15"}
  a16: {nis: [o2ib0], release: "2.16"}
  a17: {nis: [o2ib0], release: "2.17"}
  a12: {nis: [o2ib0], release: "2.12"}
faults:
  - {at: 1s, node: a15, lnetctl: import, yaml: &r {route: [{net: o2ib1, gateway: 10.0.0.9@o2ib, hop: -1, priority: 0, health_sensitivity: 40}]}}
  - {at: 1s, node: a16, lnetctl: import, yaml: *r}
  - {at: 1s, node: a17, lnetctl: import, yaml: *r}
  - {at: 1s, node: a12, lnetctl: import, yaml: *r}
`
	s, err := Load("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{40, 40, 0, 0} {
		got := s.Faults[i].Cmd.Sub[0].Sensitivity
		if (got == nil) != (want == 0) || got != nil && *got != want {
			t.Errorf("%s: sensitivity %v, want %d", s.Faults[i].Node, got, want)
		}
	}
	bad := `duration: 5s
nodes:
  a15: {nis: [o2ib0], release: "2.15"}
faults:
  - {at: 1s, node: a15, lnetctl: import, yaml: {route: [{net: o2ib1, gateway: 10.0.0.9@o2ib, health_sensitivity: 0}]}}
`
	const want = "t.yaml:5:57: faults[0].yaml.route[0]: route add: invalid health sensitivity 0, must be 1 or greater"
	if _, err := Load("t.yaml", []byte(bad)); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
}
