package scenarios

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// TestLnetctlGrammar: options as getopt_long reads them (long, --opt=value, short letters,
// -xVALUE, an unambiguous prefix, an alias) resolve to the same command.
func TestLnetctlGrammar(t *testing.T) {
	want := &Command{Verb: "route add", Net: "o2ib1", NIDs: []string{"10.0.0.3@o2ib", "10.0.0.4@o2ib", "10.0.0.6@o2ib"}, Hop: 2, Priority: 1, node: "client"}
	for _, line := range []string{
		"route add --net o2ib1 --gateway 10.0.0.[3-4,6]@o2ib --hop 2 --priority 1",
		"lnetctl route add --net=o2ib1 --gate=10.0.0.[3-4]@o2ib,10.0.0.6@o2ib --hop-count 2 -p1",
		"route add -n o2ib1 -g '10.0.0.3@o2ib 10.0.0.[4-6/2]@o2ib' -c 2 --prio 1",
	} {
		src := "duration: 5s\nnodes:\n  client: {nis: [o2ib0]}\nfaults:\n  - {at: 1s, node: client, lnetctl: " + strconv.Quote(line) + "}\n"
		s, err := Load("t.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		got := *s.Faults[0].Cmd
		got.Args, got.Operands, got.shorts = nil, nil, nil
		if !reflect.DeepEqual(&got, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", line, got, *want)
		}
		if s.Faults[0].Action != "route add" || s.Faults[0].Name != "cmd0" {
			t.Errorf("%s: action %q name %q", line, s.Faults[0].Action, s.Faults[0].Name)
		}
	}
}

// TestKernelConfigForms: what lnetctl accepts in a configuration loads: peer_timeout -1 (the
// o2ib module's value), o2ib timeout 0 (the global LND timeout), a gateway NID range (one
// route per NID) and a gateway NID no node has (accepted; unreachable when run).
func TestKernelConfigForms(t *testing.T) {
	src := `
duration: 5s
nodes:
  client: {nis: [o2ib0]}
  rtr: {count: 2, routing: true, nis: [o2ib0, o2ib1]}
  oss: {nis: [o2ib1]}
o2ib:
  o2ib0: {timeout: 0, peer_timeout: 100}
lnet:
  nets:
    o2ib0: {peer_timeout: -1, peer_credits: -1}
  routes:
    - {net: o2ib1, gateway: "10.0.0.[2-3]@o2ib", nodes: client}
    - {net: o2ib1, gateway: "10.0.0.77@o2ib", nodes: client}
    - {net: o2ib0, gateway: rtr0, nodes: oss}
`
	s, err := Load("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if nt := s.LNet.Nets["o2ib0"]; nt.PeerTimeout != 100*sim.Second || nt.PeerCredits != 8 {
		t.Errorf("o2ib0 tunables %+v, want the o2ib module's peer_timeout 100s and peer_credits 8", *nt)
	}
	var gws []string
	for _, r := range s.Member("client").Routes {
		gws = append(gws, r.Gateway.String())
	}
	if want := []string{"10.0.0.2@o2ib", "10.0.0.3@o2ib", "10.0.0.77@o2ib"}; !reflect.DeepEqual(gws, want) {
		t.Errorf("client gateways %v, want %v", gws, want)
	}
}

// FuzzLnetctlCommand: any lnetctl text on the timeline loads or is refused with located
// errors, never a panic (the word splitter, getopt reading, NID list expansion, checks).
func FuzzLnetctlCommand(f *testing.F) {
	for _, s := range []string{"route add --net o2ib1 --gateway 10.0.0.[2-3/1,9]@o2ib --hop 2", "route del -n o2ib1 -g client:0",
		"set retry_count 3", "net add --net o2ib1 --if ib0 --peer-credits -1", "net add --net o2ib3 --if ib1 --tos 104 --conns-per-peer 3 --cpt [0-1/1,*]", "peer add --prim_nid 10.0.0.5@o2ib --nid 10.0.0.[6-7]@o2ib --non_mr",
		"ping 10.0.0.2@o2ib --source 10.0.0.1@o2ib --timeout 3", "ping 0@lo", "discover 0@lo,[0-1]@lo", "udsp add --src o2ib0 --priority 1", "lnet unconfigure", "'\"--",
		"fault drop add -s *@o2ib -d client:0 -m GET -m put -e local_timeout -p 0x3 -r 2 -o 10.0.0.1@o2ib", "fault delay add -s * -d * --interval 2 -l 1",
		"fault drop del -a", "fault delay reset x", "fault reset ''", "fault drop"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		src := "duration: 5s\nnodes:\n  client: {nis: [o2ib0, o2ib1]}\n  rtr: {routing: true, nis: [o2ib0, o2ib2]}\nfaults:\n  - {at: 1s, node: client, lnetctl: " + strconv.Quote(cmd) + "}\n"
		s, err := Load("f.yaml", []byte(src))
		if err == nil && (s.Faults[0].Cmd == nil || LookupAction(s.Faults[0].Action) == nil) {
			t.Fatalf("%q loaded without a command", cmd)
		}
	})
}

// TestSanityLnet99aRefusedAtLoad: sanity-lnet test 99a's invalid `lnetctl peer add` and
// `peer del` forms, each of which lnetctl refuses before calling the kernel, are refused when
// the scenario loads, located at the command (the forms the kernel refuses, `peer del` of a
// peer that does not exist and `route add` through a gateway on a net the node lacks, are
// catalogue sanity-lnet-99a).
func TestSanityLnet99aRefusedAtLoad(t *testing.T) {
	for _, tc := range []struct{ cmd, msg string }{
		{"peer add --prim_nid foobar", `"foobar" is neither a NID nor an NI of the scenario`},
		{"peer del --prim_nid foobar", `"foobar" is neither a NID nor an NI of the scenario`},
		{"peer del --nid 1.1.1.1@tcp", `peer del: lnetctl sends no peer without --prim_nid, which the kernel refuses (lnet_peer_ni_cmd: ENOMSG, "no configuration") (add --prim_nid NID)`},
		{"peer add --nid 1.1.1.1@tcp", `peer add: lnetctl sends no peer without --prim_nid, which the kernel refuses (lnet_peer_ni_cmd: ENOMSG, "no configuration") (add --prim_nid NID)`},
		{"peer add", "peer add: lnetctl prints its usage and fails (check_cmd: -1): --prim_nid is mandatory (add --prim_nid NID)"},
		{"peer add --prim_nid 1.1.1.1@tcp --nid foobar", `"foobar" is neither a NID nor an NI of the scenario`},
		{"peer add --prim_nid 1.1.1.1@tcp --nid 1.1.1.[2-255]@tcp", "specifies more than the 128 NIDs allowed by this operation"},
		{"peer add --prim_nid 1@foo", `invalid net "foo"`},
		{"peer add --prim_nid 1@tcp", "unable to parse nidlist from: 1@tcp"},
		{"peer add --prim_nid 1@o2ib", "unable to parse nidlist from: 1@o2ib"},
		{"peer add --prim_nid 1.1.1.1@gni", `"1.1.1.1" is not a number`},
		{"peer add --prim_nid 1.1.1.1@tcp --nid [2-1]@gni", "range 2-1 runs backwards"},
		{"peer add --prim_nid 1.1.1.1@tcp --nid [a-f/x]@gni", `bad step "x"`},
		{"peer add --prim_nid 1.1.1.1@tcp --nid 256.256.256.256@tcp", `"256" is not an address octet`},
		{"peer add --prim_nid 1.1.1.1@tcp --nid 1.1.1.1.[2-5/f]@tcp", "unable to parse nidlist from: 1.1.1.1.[2-5/f]@tcp"},
		{"peer add --prim_nid 1.1.1.1@tcp --nid 1.]2[.3.4@o2ib", `"]2[" is not an address octet`},
		{"peer add --prim_nid 1.1.1.1@tcp --nid 1.[2-4,[5-6],7-8].1.1@tcp", `"[5" is not an address octet`},
	} {
		src := "duration: 5s\nnodes:\n  client: {nis: [o2ib0]}\nfaults:\n  - {at: 1s, node: client, lnetctl: " + strconv.Quote(tc.cmd) + "}\n"
		_, err := Load("t.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), "t.yaml:5:37:") || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s: %v, want t.yaml:5:37: ... %s", tc.cmd, err, tc.msg)
		}
	}
}

// TestPeerPrimRefusalsByRelease: peer add or del without --prim_nid, or with one that is not
// one NID, fails as the node's release's lnetctl fails it: up to 2.15 liblnetconfig's own
// refusal (-1), from 2.16 the kernel's (ENOMSG: the request holds no peer; EINVAL: the NID
// does not parse); with no option at all, the usage.
func TestPeerPrimRefusalsByRelease(t *testing.T) {
	for _, tc := range []struct{ release, cmd, msg string }{
		{"2.15", "peer add --nid 1.1.1.1@tcp", "t.yaml:6:37: faults[0].lnetctl: peer add: lnetctl fails (errno -1): --prim_nid must be specified (add --prim_nid NID)"},
		{"2.12", "peer del --nid 1.1.1.1@tcp", "t.yaml:6:37: faults[0].lnetctl: peer del: lnetctl fails (errno -2): Primary nid is not provided (add --prim_nid NID)"},
		{"2.12", "peer add --non_mr", "t.yaml:6:37: faults[0].lnetctl: peer add: neither --prim_nid nor --nid: lnetctl adds nothing and succeeds (client runs 2.12) (add --prim_nid NID)"},
		{"2.12", "peer del --prim_nid foobar", `t.yaml:6:37: faults[0].lnetctl: peer del: lnetctl fails (errno -1): bad key NID: 'foobar' ("foobar" is neither a NID nor an NI of the scenario) (a NID (10.0.0.5@o2ib) or node:index)`},
		{"2.16", "peer add --non_mr", `t.yaml:6:37: faults[0].lnetctl: peer add: lnetctl sends no peer without --prim_nid, which the kernel refuses (lnet_peer_ni_cmd: ENOMSG, "no configuration") (add --prim_nid NID)`},
		{"2.15", "peer del", "t.yaml:6:37: faults[0].lnetctl: peer del: lnetctl prints its usage and fails (check_cmd: -1): --prim_nid is mandatory (add --prim_nid NID)"},
		{"2.15", "peer add --prim_nid foobar", `t.yaml:6:37: faults[0].lnetctl: peer add: lnetctl fails (errno -1): badly formatted primary NID: foobar ("foobar" is neither a NID nor an NI of the scenario) (a NID (10.0.0.5@o2ib) or node:index)`},
		{"master", "peer del --prim_nid foobar", `t.yaml:6:37: faults[0].lnetctl: peer del: the kernel refuses the primary NID foobar (lnet_peer_ni_cmd: EINVAL, "unsupported primary NID"; "foobar" is neither a NID nor an NI of the scenario) (a NID (10.0.0.5@o2ib) or node:index)`},
		{"2.16", "peer add --prim_nid 10.0.0.[1-2]@o2ib", `t.yaml:6:37: faults[0].lnetctl: peer add: the kernel refuses the primary NID 10.0.0.[1-2]@o2ib (lnet_peer_ni_cmd: EINVAL, "unsupported primary NID"; a list of 2 NIDs) (a NID (10.0.0.5@o2ib) or node:index)`},
		{"2.12", "peer add --prim_nid 1@tcp", "t.yaml:6:37: faults[0].lnetctl: peer add: lnetctl fails (errno -2): bad primary NID: '1@tcp' (unable to parse nidlist from: 1@tcp"},
	} {
		if _, err := loadCommandOn(tc.release, tc.cmd); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s on %s: %v, want %s", tc.cmd, tc.release, err, tc.msg)
		}
	}
	// 2.12's lustre_lnet_config_peer_nid makes the first --nid the primary NID.
	s, err := loadCommandOn("2.12", "peer add --nid 1.1.1.1@tcp,2.2.2.2@tcp")
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Faults[0].Cmd; c.Prim != "1.1.1.1@tcp" || len(c.NIDs) != 1 || c.NIDs[0] != "2.2.2.2@tcp" {
		t.Errorf("2.12 peer add --nid: prim %q nids %v, want 1.1.1.1@tcp [2.2.2.2@tcp]", c.Prim, c.NIDs)
	}
}

// TestNetNIDOption: from 2.16 (LU-13642) `net add` and `net del` name an NI by its NID alone,
// the net taken from the NID; --net beside --nid is refused as lnetctl refuses it, and a
// node of 2.15 or older has no --nid option.
func TestNetNIDOption(t *testing.T) {
	load := loadCommandOn
	for _, cmd := range []string{"net add --nid 10.0.0.1@o2ib1", "net del --nid 10.0.0.1@o2ib1"} {
		s, err := load("master", cmd)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if c := s.Faults[0].Cmd; c.Net != "o2ib1" || !reflect.DeepEqual(c.NIDs, []string{"10.0.0.1@o2ib1"}) {
			t.Errorf("%s: net %q NIDs %v, want o2ib1 [10.0.0.1@o2ib1]", cmd, c.Net, c.NIDs)
		}
	}
	for _, tc := range []struct{ release, cmd, msg string }{
		{"master", "net add --net o2ib1 --nid 10.0.0.1@o2ib1", "t.yaml:6:37: faults[0].lnetctl: net add: --net is invalid with --nid option (remove --net: the NID names the net)"},
		{"2.16", "net del --nid 10.0.0.1@o2ib --net o2ib", "net del: --net is invalid with --nid option"},
		{"2.15", "net add --nid 10.0.0.1@o2ib1", "net add: unrecognized option '--nid' (client runs 2.15) (name the NI by --net and --if (lnetctl has --nid from 2.16, LU-13642))"},
		{"2.12", "net del --nid 10.0.0.1@o2ib", "net del: unrecognized option '--nid' (client runs 2.12)"},
		{"master", "net add --nid 10.0.0.1", "net add: invalid NID"},
		{"master", "net add --if ib0", "net add: missing mandatory parameter: --net"},
	} {
		_, err := load(tc.release, tc.cmd)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s on %s: %v, want %s", tc.cmd, tc.release, err, tc.msg)
		}
	}
}

// TestNetAddLNDOptions: net add's --tos (2.16+, LU-12452) is -1..255, and lnetctl refuses
// another value; --conns-per-peer (2.14+, LU-12815) is refused by master's lnetctl when it
// is a word or above 127 (LU-20398), handed to the kernel by 2.16 and 2.17 (which fails it
// at run time), and not modelled above 127 on 2.15 (the ioctl path takes it unchecked);
// --cpt must be a CPT list lnetctl parses (it would drop another silently); the options of
// kfilnd stay refused, each with its reason, as does --ip2net beside --net.
func TestNetAddLNDOptions(t *testing.T) {
	for _, tc := range []struct{ release, cmd string }{
		{"master", "net add --net o2ib1 --if ib0 --tos -1"},
		{"master", "net add --net o2ib1 --if ib0 --tos 255 --conns-per-peer 127"},
		{"master", "net add --net o2ib1 --if ib0 --conns-per-peer -3"},
		{"2.16", "net add --net o2ib1 --if ib0 --tos 0 --conns-per-peer 128"},
		{"2.17", "net add --net o2ib1 --if ib0 --conns-per-peer 1000"},
		{"2.15", "net add --net o2ib1 --if ib0 --conns-per-peer 127"},
		{"2.15", "net add --net o2ib1 --if ib0 --skip-mr-route-setup"},
		{"2.12", "net add --net o2ib1 --if ib0 --cpt [0,2-6/2]"},
		{"master", "net add --net o2ib1 --if ib0 --cpt *"},
	} {
		if _, err := loadCommandOn(tc.release, tc.cmd); err != nil {
			t.Errorf("%s on %s: %v", tc.cmd, tc.release, err)
		}
	}
	for _, tc := range []struct{ release, cmd, msg string }{
		{"master", "net add --net o2ib1 --if ib0 --tos 256", "t.yaml:6:37: faults[0].lnetctl: net add: Invalid ToS argument: --tos 256 (a ToS from -1 (the module's) to 255)"},
		{"master", "net add --net o2ib1 --if ib0 --tos -2", "net add: Invalid ToS argument: --tos -2"},
		{"2.16", "net add --net o2ib1 --if ib0 --tos high", "net add: Invalid ToS argument: --tos high"},
		{"2.15", "net add --net o2ib1 --if ib0 --tos 104", "net add: unrecognized option '--tos' (client runs 2.15) (remove it (lnetctl has --tos from 2.16, LU-12452))"},
		{"master", "net add --net o2ib1 --if ib0 --conns-per-peer 128", "net add: invalid conns-per-peer value (valid range 0-127): 128"},
		{"master", "net add --net o2ib1 --if ib0 --conns-per-peer foo", "net add: invalid conns-per-peer value (valid range 0-127): foo"},
		{"2.17", "net add --net o2ib1 --if ib0 --conns-per-peer foo", `net add: --conns-per-peer "foo" is not a number (lnetctl would ignore the option silently)`},
		{"2.15", "net add --net o2ib1 --if ib0 --conns-per-peer 128", "net add: conns-per-peer 128 is not modelled (client hands it to the kernel unchecked)"},
		{"2.12", "net add --net o2ib1 --if ib0 --conns-per-peer 2", "net add: unrecognized option '--conns-per-peer' (client runs 2.12)"},
		{"2.12", "net add --net o2ib1 --if ib0 --skip-mr-route-setup", "net add: unrecognized option '--skip-mr-route-setup' (client runs 2.12) (remove it (lnetctl net add has --skip-mr-route-setup from 2.15, LU-14662))"},
		{"master", "net add --net o2ib1 --if ib0 --cpt [1-0]", "net add: --cpt: unable to parse CPT '[1-0]' (a CPT list such as [0,1] (lnetctl would ignore it silently))"},
		{"2.12", "net add --net o2ib1 --if ib0 --cpt []", "net add: --cpt: unable to parse CPT '[]'"},
		{"master", "net add --net o2ib1 --if ib0 --ip2net o2ib1(ib0)", "net add: --net with --ip2net is not modelled (lnetctl uses one of them and ignores the other) (give --ip2net alone"},
		{"master", "net add --net o2ib1 --if ib0 --auth-key 3", "net add: --auth-key is not modelled at run time (it is kfilnd's"},
	} {
		_, err := loadCommandOn(tc.release, tc.cmd)
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s on %s: %v, want %s", tc.cmd, tc.release, err, tc.msg)
		}
	}
}

// TestPeerLockPrimOptions: `peer add --lock_prim` and `peer del --force` (LU-14668) are
// lnetctl options from 2.16; a node of an older release refuses them at load.
func TestPeerLockPrimOptions(t *testing.T) {
	load := loadCommandOn
	s, err := load("2.16", "peer add --prim_nid 1.1.1.1@tcp --lock_prim")
	if err != nil || !s.Faults[0].Cmd.LockPrim {
		t.Fatalf("2.16 peer add --lock_prim: %v", err)
	}
	s, err = load("master", "peer del --prim_nid 1.1.1.1@tcp --force")
	if err != nil || !s.Faults[0].Cmd.Force {
		t.Fatalf("master peer del --force: %v", err)
	}
	for _, tc := range []struct{ release, cmd, msg string }{
		{"2.15", "peer add --prim_nid 1.1.1.1@tcp --lock_prim", "t.yaml:6:37: faults[0].lnetctl: peer add: unrecognized option '--lock_prim' (client runs 2.15) (remove it (lnetctl has it from 2.16, LU-14668))"},
		{"2.12", "peer del --prim_nid 1.1.1.1@tcp --force", "peer del: unrecognized option '--force' (client runs 2.12)"},
	} {
		if _, err := load(tc.release, tc.cmd); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s on %s: %v, want %s", tc.cmd, tc.release, err, tc.msg)
		}
	}
}

// TestStatsResetRelease: lnetctl stats reset exists from 2.14 (LU-13299): 2.15 on accept it,
// 2.12 refuses it at load as lnetctl would, naming the position and the fix; it takes no
// argument.
func TestStatsResetRelease(t *testing.T) {
	load := func(release, cmd string) error {
		_, err := loadCommandOn(release, cmd)
		return err
	}
	for _, rel := range []string{"2.15", "2.16", "2.17", "master"} {
		if err := load(rel, "stats reset"); err != nil {
			t.Errorf("%s: %v", rel, err)
		}
	}
	for _, tc := range []struct{ release, cmd, msg string }{
		{"2.12", "stats reset", "t.yaml:6:37: faults[0].lnetctl: stats reset: no such command in lnetctl (client runs 2.12) (remove it (lnetctl has it from 2.14, LU-13299: 2.15 and later))"},
		{"master", "stats reset now", "stats reset"},
	} {
		if err := load(tc.release, tc.cmd); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s on %s: %v, want %s", tc.cmd, tc.release, err, tc.msg)
		}
	}
}

// TestDebugPeerRelease: lnetctl debug peer --nid NID exists from 2.16 (LU-15234): 2.16 on
// accept it, 2.12 and 2.15 refuse it at load; without --nid, or with more than one NID,
// lnetctl refuses it before asking the kernel. Its short -k takes no value (short_opts "k"),
// so `-k NID` leaves the NID out, which lnetctl refuses as it refuses no --nid.
func TestDebugPeerRelease(t *testing.T) {
	load := func(release, cmd string) error {
		_, err := loadCommandOn(release, cmd)
		return err
	}
	for _, rel := range []string{"2.16", "2.17", "master"} {
		for _, cmd := range []string{"debug peer --nid client:0", "debug peer --nid 10.0.0.9@o2ib"} {
			if err := load(rel, cmd); err != nil {
				t.Errorf("%s on %s: %v", cmd, rel, err)
			}
		}
	}
	for _, tc := range []struct{ release, cmd, msg string }{
		{"2.15", "debug peer --nid client:0", "t.yaml:6:37: faults[0].lnetctl: debug peer: no such command in lnetctl (client runs 2.15) (remove it (lnetctl has it from 2.16, LU-15234))"},
		{"2.12", "debug peer --nid client:0", "debug peer: no such command in lnetctl (client runs 2.12)"},
		{"master", "debug peer", "t.yaml:6:37: faults[0].lnetctl: debug peer: --nid must be specified (add --nid NID)"},
		{"master", "debug peer --nid 10.0.0.[1-2]@o2ib", "debug peer: badly formatted primary NID: 10.0.0.[1-2]@o2ib (give one NID)"},
		{"2.16", "debug peer -k 10.0.0.9@o2ib", `t.yaml:6:37: faults[0].lnetctl: debug peer: lnetctl's getopt gives -k no value (its short options hold "k"), which leaves --nid out: write --nid`},
	} {
		if err := load(tc.release, tc.cmd); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s on %s: %v, want %s", tc.cmd, tc.release, err, tc.msg)
		}
	}
}

// loadCommandOn loads a scenario whose one node, client (one o2ib0 NI), runs release and the
// lnetctl command cmd at 1 s (line 6, column 37 in t.yaml).
func loadCommandOn(release, cmd string) (*Scenario, error) {
	src := "duration: 5s\nlnet: {release: \"" + release + "\"}\nnodes:\n  client: {nis: [o2ib0]}\nfaults:\n  - {at: 1s, node: client, lnetctl: " + strconv.Quote(cmd) + "}\n"
	return Load("t.yaml", []byte(src))
}

// TestPeerPrimNIDShortOption: peer add's and peer del's --prim_nid is -k in lnetctl's getopt
// (short_opts "k:..." in every release); -p is no option of theirs (lnetctl would print the
// usage and succeed without a peer), so it is refused.
func TestPeerPrimNIDShortOption(t *testing.T) {
	for _, tc := range []struct{ cmd, prim, err string }{
		{"peer add -k 1.1.1.1@tcp", "1.1.1.1@tcp", ""},
		{"peer del -k 1.1.1.1@tcp -n 2.2.2.2@tcp", "1.1.1.1@tcp", ""},
		{"peer add -p 1.1.1.1@tcp", "", "t.yaml:5:37: faults[0].lnetctl: peer add: invalid option -- 'p' (lnetctl peer add takes --prim_nid, --nid, --non_mr, --lock_prim)"},
		{"peer del -p 1.1.1.1@tcp", "", "t.yaml:5:37: faults[0].lnetctl: peer del: invalid option -- 'p' (lnetctl peer del takes --prim_nid, --nid, --force)"},
	} {
		src := "duration: 5s\nnodes:\n  client: {nis: [o2ib0]}\nfaults:\n  - {at: 1s, node: client, lnetctl: " + strconv.Quote(tc.cmd) + "}\n"
		s, err := Load("t.yaml", []byte(src))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.cmd, err)
		case tc.err == "" && s.Faults[0].Cmd.Prim != tc.prim:
			t.Errorf("%s: prim %q, want %q", tc.cmd, s.Faults[0].Cmd.Prim, tc.prim)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want %s", tc.cmd, err, tc.err)
		}
	}
}

// TestShortLetterTakesValue: where lnetctl's short option string gives a letter a value that
// its long name does not take, the letter takes the next word: net add's -k (every release
// with --skip-mr-route-setup) and, from 2.16 (LU-14668's "k:m:n:f:l"), peer add's -m. Both
// are refused with the long name to write; 2.15's -m is --non_mr.
func TestShortLetterTakesValue(t *testing.T) {
	for _, tc := range []struct{ release, cmd, err string }{
		{"", "net add --net o2ib1 --if ib0 -k", `t.yaml:5:37: faults[0].lnetctl: net add: lnetctl's getopt gives -k a value (its short options hold "k:"), which takes the next word: write --skip-mr-route-setup`},
		{"", "net add --net o2ib1 --if ib0 --skip-mr-route-setup", ""},
		{"", "peer add --prim_nid 1.1.1.1@tcp -m", `t.yaml:5:37: faults[0].lnetctl: peer add: client runs master, whose lnetctl gives -m a value (short options "k:m:n:f:l", LU-14668), which takes the next word (write --non_mr)`},
		{"", "peer add --prim_nid 1.1.1.1@tcp --non_mr", ""},
		{"2.15", "peer add --prim_nid 1.1.1.1@tcp -m", ""},
	} {
		rel := ""
		if tc.release != "" {
			rel = "release: \"" + tc.release + "\", "
		}
		src := "duration: 5s\nnodes:\n  client: {" + rel + "nis: [o2ib0]}\nfaults:\n  - {at: 1s, node: client, lnetctl: " + strconv.Quote(tc.cmd) + "}\n"
		s, err := Load("t.yaml", []byte(src))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s %s: %v", tc.release, tc.cmd, err)
		case tc.err == "" && strings.HasPrefix(tc.cmd, "peer add") && !s.Faults[0].Cmd.NonMR:
			t.Errorf("%s %s: not non-MR", tc.release, tc.cmd)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s %s:\n got %v\nwant %s", tc.release, tc.cmd, err, tc.err)
		}
	}
}

// TestNetSetLNDTimeout: net set --net NET --lnd-timeout S (2.17+, LU-18566; short -i and -l)
// resolves the net and the timeout; lnetctl's own refusals are made at load in its words, as
// are what it would ignore or misread (a word atoi reads as a number, --net alone, another
// option beside them), an LND without a timeout (lo) and nets lnetsim lacks; a node before
// 2.17 refuses both options. From 2.17 --all beside --nid fails (EINVAL) whatever the state;
// net set --conns-per-peer is lnetctl's from 2.14 (refused on 2.12), and 2.15's short -a
// takes a value.
func TestNetSetLNDTimeout(t *testing.T) {
	for _, tc := range []struct {
		release, cmd, net string
		value             int
	}{
		{"master", "net set --net o2ib --lnd-timeout 51", "o2ib0", 51},
		{"2.17", "net set -i o2ib1 -l 0", "o2ib1", 0},
		{"master", "net set --lnd-timeout 7 --net tcp", "tcp0", 7},
		{"2.16", "net set --all --nid 10.0.0.1@o2ib --health 900", "", 900},
		{"2.15", "net set --nid 10.0.0.1@o2ib --conns-per-peer 4", "", 4},
		{"2.12", "net set -a -t 500", "", 500},
	} {
		s, err := loadCommandOn(tc.release, tc.cmd)
		if err != nil {
			t.Errorf("%s on %s: %v", tc.cmd, tc.release, err)
			continue
		}
		if c := s.Faults[0].Cmd; c.Net != tc.net || c.Value != tc.value {
			t.Errorf("%s on %s: net %q value %d, want %q %d", tc.cmd, tc.release, c.Net, c.Value, tc.net, tc.value)
		}
	}
	for _, tc := range []struct{ release, cmd, msg string }{
		{"2.16", "net set --net o2ib --lnd-timeout 51", "t.yaml:6:37: faults[0].lnetctl: net set: unrecognized option '--net' (client runs 2.16) (set the net's timeout in the scenario's o2ib or socklnd section (lnetctl net set has --lnd-timeout from 2.17, LU-18566))"},
		{"2.15", "net set --lnd-timeout 51", "net set: unrecognized option '--lnd-timeout' (client runs 2.15)"},
		{"master", "net set --lnd-timeout 51", "t.yaml:6:37: faults[0].lnetctl: net set: Specified --lnd-timeout without --net option (add --net NET: the net whose LND's timeout to set)"},
		{"master", "net set --net o2ib --lnd-timeout -1", "net set: Invalid LND timeout value '-1', must be >= 0"},
		{"2.17", "net set --net o2ib --lnd-timeout 5s", `net set: --lnd-timeout "5s" is not a number (lnetctl's atoi would read 5) (whole seconds, 0 for the LND to use lnet_lnd_timeout)`},
		{"master", "net set --net foo --lnd-timeout 5", "net set: Invalid network type: foo (a net such as o2ib1 or tcp)"},
		{"master", "net set --net lo --lnd-timeout 5", "net set: lnetctl fails (errno -22): Failed to set LND timeout for net lo (lolnd has no timeout)"},
		{"master", "net set --net gni --lnd-timeout 5", "net set: --net gni: the timeout of its LND is not modelled (lnetsim models o2iblnd and socklnd)"},
		{"master", "net set --net o2ib", "net set: --net alone sets nothing (add --lnd-timeout SECONDS (lnetctl ignores --net without it and sets nothing))"},
		{"master", "net set --net o2ib --lnd-timeout 5 --health 900", "net set: --health beside --lnd-timeout is not modelled (lnetctl ignores it, or fails --all with --nid)"},
		{"2.17", "net set --all --nid 10.0.0.1@o2ib --health 900", "t.yaml:6:37: faults[0].lnetctl: net set: lnetctl fails (errno -22): --all with --nid (yaml_lnet_config_ni_value sets no NI for both) (give --nid or --all)"},
		{"2.12", "net set --all --conns-per-peer 4", "net set: unrecognized option '--conns-per-peer' (client runs 2.12) (set conns_per_peer in the scenario's o2ib or socklnd section (lnetctl net set has --conns-per-peer from 2.14, LU-12815))"},
		{"master", "net set --all --conns-per-peer 128", "t.yaml:6:37: faults[0].lnetctl: net set: invalid conns-per-peer value (valid range 0-127): 128 (1 to 127 (below 0: no change))"},
		{"master", "net set --all --conns-per-peer foo", "net set: invalid conns-per-peer value (valid range 0-127): foo"},
		{"2.17", "net set --all --conns-per-peer 128", "net set: the kernel refuses conns-per-peer 128 (ERANGE: the LND tunables take 0 to 127)"},
		{"2.16", "net set --all --conns-per-peer foo", `net set: --conns-per-peer "foo" is not a number (lnetctl would ignore the option silently)`},
		{"2.15", "net set --all --conns-per-peer 200", "net set: conns-per-peer 200 is not modelled (client hands it to the kernel unchecked)"},
		{"master", "net set --all --conns-per-peer 0", "net set: conns-per-peer 0 is not modelled (an NI opens at least one connection per peer)"},
		{"2.15", "net set -a --health 500", `net set: client runs 2.15, whose lnetctl gives -a a value (short options "a:m:n:t:", LU-12815), which takes the next word (write --all)`},
	} {
		if _, err := loadCommandOn(tc.release, tc.cmd); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s on %s:\n got %v\nwant %s", tc.cmd, tc.release, err, tc.msg)
		}
	}
}

// TestUDSPPingRelease: lnetctl's udsp commands are from 2.14.51 (LU-9121: refused on 2.12);
// udsp del's --all, and its refusals in lnetctl's words, from 2.15.57 (LU-16574: 2.16), where
// --idx -1 deletes every policy too; up to 2.15 udsp del without --idx deletes policy 0;
// ping --source is from 2.14.56 (LU-14939: refused on 2.12).
func TestUDSPPingRelease(t *testing.T) {
	for _, tc := range []struct {
		release, cmd string
		value        int
	}{
		{"2.15", "udsp add --src o2ib --priority 1", -1},
		{"2.15", "udsp del", 0},
		{"2.15", "udsp del --idx -1", -1},
		{"2.16", "udsp del --all", -1},
		{"master", "udsp del --idx -1", -1},
		{"master", "udsp del -i 2", 2},
		{"2.15", "ping 10.0.0.1@o2ib --source 10.0.0.1@o2ib", 0},
	} {
		s, err := loadCommandOn(tc.release, tc.cmd)
		if err != nil {
			t.Errorf("%s on %s: %v", tc.cmd, tc.release, err)
			continue
		}
		if v := s.Faults[0].Cmd.Value; v != tc.value {
			t.Errorf("%s on %s: value %d, want %d", tc.cmd, tc.release, v, tc.value)
		}
	}
	for _, tc := range []struct{ release, cmd, msg string }{
		{"2.12", "udsp add --src o2ib --priority 1", "t.yaml:6:37: faults[0].lnetctl: udsp add: no such command in lnetctl (client runs 2.12) (remove it (lnetctl has udsp from 2.14, LU-9121: 2.15 and later))"},
		{"2.12", "udsp del --idx 0", "udsp del: no such command in lnetctl (client runs 2.12)"},
		{"2.15", "udsp del --all", "t.yaml:6:37: faults[0].lnetctl: udsp del: unrecognized option '--all' (client runs 2.15) (write --idx -1 (lnetctl has udsp del --all from 2.16, LU-16574))"},
		{"2.15", "udsp del --idx x", `udsp del: --idx "x" is not a number (lnetctl would ignore the option silently)`},
		{"2.15", "udsp del --idx -2", "udsp del: index -2 is not modelled (lnetctl hands it to the kernel)"},
		{"master", "udsp del", "t.yaml:6:37: faults[0].lnetctl: udsp del: Must specify --idx or --all (add --idx N or --all)"},
		{"master", "udsp del --all --idx 1", "udsp del: Cannot combine --all with --idx (give --idx or --all)"},
		{"2.16", "udsp del --idx -2", `udsp del: Invalid index "-2" (an index, or -1 for every policy)`},
		{"2.17", "udsp del --idx one", `udsp del: Invalid index "one"`},
		{"2.12", "ping 10.0.0.1@o2ib --source 10.0.0.1@o2ib", "t.yaml:6:37: faults[0].lnetctl: ping: unrecognized option '--source' (client runs 2.12) (remove it: the node picks the source NI (lnetctl ping has --source from 2.15, LU-14939))"},
	} {
		if _, err := loadCommandOn(tc.release, tc.cmd); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s on %s:\n got %v\nwant %s", tc.cmd, tc.release, err, tc.msg)
		}
	}
}

// TestSetRelease: lnetctl's set subcommands follow the global parameters each release has
// (GlobalShowKeys): 2.12 has no router_sensitivity, response_tracking nor recovery_limit,
// 2.15 no max_recovery_ping_interval; an import on 2.12 whose global section writes one of
// them is refused at the key (its lnetctl skips it).
func TestSetRelease(t *testing.T) {
	for _, tc := range []struct{ release, cmd string }{
		{"2.12", "set recovery_interval 2"},
		{"2.12", "set tiny_buffers 1024"},
		{"2.15", "set recovery_limit 10"},
		{"2.16", "set max_recovery_ping_interval 4"},
	} {
		if _, err := loadCommandOn(tc.release, tc.cmd); err != nil {
			t.Errorf("%s on %s: %v", tc.cmd, tc.release, err)
		}
	}
	for _, tc := range []struct{ release, cmd, msg string }{
		{"2.12", "set router_sensitivity 50", "t.yaml:6:37: faults[0].lnetctl: set router_sensitivity: no such command in lnetctl (client runs 2.12) (remove it (lnetctl has set router_sensitivity from 2.12.55 (LU-11300; 2.15 and later)))"},
		{"2.12", "set response_tracking 1", "set response_tracking: no such command in lnetctl (client runs 2.12)"},
		{"2.12", "set recovery_limit 1", "set recovery_limit: no such command in lnetctl (client runs 2.12)"},
		{"2.15", "set max_recovery_ping_interval 4", "set max_recovery_ping_interval: no such command in lnetctl (client runs 2.15) (remove it (lnetctl has set max_recovery_ping_interval from 2.15.51 (LU-14979; 2.16 and later)))"},
	} {
		if _, err := loadCommandOn(tc.release, tc.cmd); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s on %s:\n got %v\nwant %s", tc.cmd, tc.release, err, tc.msg)
		}
	}
	src := "duration: 5s\nlnet: {release: \"2.12\"}\nnodes:\n  client: {nis: [o2ib0]}\nfaults:\n  - {at: 1s, node: client, lnetctl: import, yaml: {global: {retry_count: 1, recovery_limit: 5}}}\n"
	want := "t.yaml:6:93: faults[0].yaml.global.recovery_limit: import: client runs 2.12, whose lnetctl does not read recovery_limit (it skips the key) (remove the key)"
	if _, err := Load("t.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("2.12 import of recovery_limit:\n got %v\nwant %s", err, want)
	}
}

// TestRouteAddSensitivityRelease: route add --health_sensitivity is lnetctl's on 2.15 and
// 2.16 only (LU-11297; LU-18444 removes it), a long option: unknown on 2.12, 2.17 and master.
// -1 is lnetctl's "not given"; below 1 is liblnetconfig's refusal on 2.15 and the kernel's
// EINVAL on 2.16 (kept for the run); a word is one lnetctl ignores.
func TestRouteAddSensitivityRelease(t *testing.T) {
	const route = "route add --net o2ib1 --gateway 10.0.0.9@o2ib "
	for _, tc := range []struct {
		release, opt string
		want         int // 0: nil
	}{
		{"2.15", "--health_sensitivity 100", 100},
		{"2.15", "--health_sensitivity -1", 0},
		{"2.15", "--health_sensitivity=7", 7},
		{"2.16", "--health_sensitivity 1", 1},
		{"2.16", "--health_sensitivity 0", -1000}, // kept (-1000 stands for 0): EINVAL at run time
		{"2.16", "--health_sensitivity -3", -3},
		{"master", "--hop 2", 0},
	} {
		s, err := loadCommandOn(tc.release, route+tc.opt)
		if err != nil {
			t.Errorf("%s on %s: %v", tc.opt, tc.release, err)
			continue
		}
		got, want := s.Faults[0].Cmd.Sensitivity, tc.want
		if want == -1000 {
			want = 0
			if got == nil || *got != 0 {
				t.Errorf("%s on %s: sensitivity %v, want 0", tc.opt, tc.release, got)
			}
			continue
		}
		if (got == nil) != (want == 0) || got != nil && *got != want {
			t.Errorf("%s on %s: sensitivity %v, want %d", tc.opt, tc.release, got, want)
		}
	}
	for _, tc := range []struct{ release, opt, msg string }{
		{"2.12", "--health_sensitivity 5", "t.yaml:6:37: faults[0].lnetctl: route add: unrecognized option '--health_sensitivity' (client runs 2.12) (remove it (lnetctl route add has --health_sensitivity in 2.15 and 2.16 only: LU-11297, removed by LU-18444))"},
		{"2.17", "--health_sensitivity 5", "route add: unrecognized option '--health_sensitivity' (client runs 2.17)"},
		{"master", "--health_sensitivity 5", "route add: unrecognized option '--health_sensitivity' (client runs master)"},
		{"2.15", "--health_sensitivity 0", "t.yaml:6:37: faults[0].lnetctl: route add: invalid health sensitivity 0, must be 1 or greater (give 1 or more (-1: the default, 1))"},
		{"2.15", "--health_sensitivity -2", "route add: invalid health sensitivity -2, must be 1 or greater"},
		{"2.16", "--health_sensitivity x", `route add: --health_sensitivity "x" is not a number (lnetctl would ignore the option silently)`},
		{"2.16", "--health_sensitivity 4294967297", "route add: --health_sensitivity 4294967297 is not modelled: lnetctl truncates it to an int (give at most 2147483647)"},
	} {
		if _, err := loadCommandOn(tc.release, route+tc.opt); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s on %s:\n got %v\nwant %s", tc.opt, tc.release, err, tc.msg)
		}
	}
}

// TestRouteAddHopPrefixRelease: where route add has no --health_sensitivity (2.12, 2.17,
// master) getopt_long reads --h as --hop-count, its only match; on 2.15 and 2.16 --h is
// ambiguous (--hop-count, --health_sensitivity) and --he names the sensitivity.
func TestRouteAddHopPrefixRelease(t *testing.T) {
	const route = "route add --net o2ib1 --gateway 10.0.0.9@o2ib "
	for _, rel := range []string{"2.12", "2.17", "master"} {
		s, err := loadCommandOn(rel, route+"--h 3")
		if err != nil || s.Faults[0].Cmd.Hop != 3 {
			t.Errorf("--h 3 on %s: %v", rel, err)
		}
	}
	if _, err := loadCommandOn("2.16", route+"--h 3"); err == nil || !strings.Contains(err.Error(), "route add: option '--h' is ambiguous") {
		t.Errorf("--h 3 on 2.16: %v", err)
	}
	if s, err := loadCommandOn("2.15", route+"--he 3"); err != nil || s.Faults[0].Cmd.Sensitivity == nil || *s.Faults[0].Cmd.Sensitivity != 3 {
		t.Errorf("--he 3 on 2.15: %v", err)
	}
	if _, err := loadCommandOn("2.17", route+"--he 3"); err == nil || !strings.Contains(err.Error(), "route add: unrecognized option '--health_sensitivity' (client runs 2.17)") {
		t.Errorf("--he 3 on 2.17: %v", err)
	}
}
