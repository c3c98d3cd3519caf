package scenarios

import (
	"strconv"
	"strings"
	"testing"
)

// subsOf lists an ip2net net add's entries: "NET NID" for an NI it starts (with its
// tunables), "FAIL ERRNO TEXT" for a refusal.
func subsOf(c *Command) string {
	var out []string
	for _, s := range c.Sub {
		if s.Fail != nil {
			out = append(out, "FAIL "+strconv.Itoa(s.Fail.Errno)+" "+s.Fail.Text)
			continue
		}
		x := s.Net + " " + strings.Join(s.NIDs, ",")
		for _, o := range NetAddTunables {
			if v, ok := s.Args[o]; ok {
				x += " " + o + "=" + v
			}
		}
		if s.Batch != 1 {
			x += " batch=" + strconv.Itoa(s.Batch)
		}
		out = append(out, x)
	}
	return strings.Join(out, "; ")
}

// TestNetAddIP2Net: `net add --ip2net RULES` is read as the kernel's
// lnet_handle_legacy_ip2nets reads it on every release (lnet_parse_ip2nets against the
// node's interface addresses, lnet_parse_networks): one NI per interface of each net the
// matching entries give, in order, in one batch; no match is ENOENT and a pattern that does
// not parse EINVAL, before any NI; an interface the node lacks fails with EINVAL after the
// NIs before it. lnetctl's words differ by release ("cannot add network: STRERROR" up to
// 2.15, "cannot setup ip2nets" from 2.16); the net tunables go with the rules up to 2.15
// only. The client's one interface is ib0, 10.0.0.1.
func TestNetAddIP2Net(t *testing.T) {
	for _, tc := range []struct{ release, cmd, want string }{
		{"master", `net add --ip2net "o2ib199 10.0.0.1"`, "o2ib199 10.0.0.1@o2ib199"},
		{"2.17", `net add --ip2net "o2ib1(ib0) 10.0.*.*"`, "o2ib1 10.0.0.1@o2ib1"},
		{"2.16", `net add -p "o2ib7 10.*.*.*; o2ib8(ib0),tcp(ib0) 10.0.0.[1-3]; o2ib9 192.168.*.*"`,
			"o2ib7 10.0.0.1@o2ib7; o2ib8 10.0.0.1@o2ib8; tcp0 10.0.0.1@tcp"},
		{"2.15", `net add --ip2net "o2ib2 10.*.*.*" --peer-credits 16 --credits 512`,
			"o2ib2 10.0.0.1@o2ib2 peer-credits=16 credits=512"},
		{"2.17", `net add --ip2net "o2ib2 10.*.*.*" --peer-credits 16`, "o2ib2 10.0.0.1@o2ib2"},
		{"2.12", `net add --ip2net "o2ib3(ib0) 10.*.*.*"`, "o2ib3 10.0.0.1@o2ib3"},
		{"master", `net add --ip2net "o2ib9 192.168.*.*"`,
			"FAIL 2 cannot setup ip2nets (ip2nets does not match any local IP interfaces)"},
		{"2.15", `net add --ip2net "o2ib9 192.168.*.*"`,
			"FAIL 2 cannot add network: No such file or directory (ip2nets does not match any local IP interfaces)"},
		{"2.16", `net add --ip2net "o2ib10(ib0),o2ib11(ib5) 10.*.*.*"`,
			"o2ib10 10.0.0.1@o2ib10; FAIL 22 cannot setup ip2nets (o2ib11: failed to find UP interface ib5)"},
		{"2.12", `net add --ip2net "o2ib10 10.x.*.*"`,
			`FAIL 22 cannot add network: Invalid argument (Error parsing 'ip2nets="o2ib10 10.x.*.*"': "10.x.*.*": part 2 "x": "x" is not a number from 0 to 255, * or a range [a-b] or [a-b/step])`},
	} {
		s, err := loadCommandOn(tc.release, tc.cmd)
		if err != nil {
			t.Errorf("%s on %s: %v", tc.cmd, tc.release, err)
			continue
		}
		if got := subsOf(s.Faults[0].Cmd); got != tc.want {
			t.Errorf("%s on %s:\n got %s\nwant %s", tc.cmd, tc.release, got, tc.want)
		}
	}
	for _, tc := range []struct{ release, cmd, msg string }{
		{"master", `net add --if ib0 --ip2net "o2ib1 10.*.*.*"`, "t.yaml:6:37: faults[0].lnetctl: net add: --if with --ip2net is not modelled"},
		{"2.17", `net add --nid 10.0.0.1@o2ib1 --ip2net "o2ib1 10.*.*.*"`, "net add: --nid with --ip2net is not modelled"},
		{"2.15", `net add --ip2net "o2ib1 10.0.0.1 ` + strings.Repeat("10.0.0.1 ", 13) + `"`, "net add: ip2net string too long 132"},
		{"master", `net add --ip2net "gni 10.*.*.*"`, "net add: --ip2net: net gni is not modelled"},
	} {
		if _, err := loadCommandOn(tc.release, tc.cmd); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s on %s: %v, want %s", tc.cmd, tc.release, err, tc.msg)
		}
	}
}

// TestNetAddIP2NetNets: a net only an --ip2net rule names, anywhere in an entry, may have its
// lnet.nets entry (netAddNets), which would otherwise be refused as a net no NI is on.
func TestNetAddIP2NetNets(t *testing.T) {
	src := "duration: 2s\nlnet: {nets: {o2ib8: {peer_credits: 16, credits: 256}}}\nnodes:\n  client: {nis: [o2ib]}\nfaults:\n" +
		"  - {at: 1s, node: client, lnetctl: 'net add --ip2net \"o2ib7(ib0),o2ib8(ib0) 10.*.*.*\"'}\n"
	if _, err := Load("t.yaml", []byte(src)); err != nil {
		t.Fatal(err)
	}
	src = strings.Replace(src, "--ip2net \"o2ib7(ib0),o2ib8(ib0) 10.*.*.*\"", "--net o2ib7 --if ib0", 1)
	if _, err := Load("t.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), "no node has an NI on net o2ib8") {
		t.Fatalf("without the rule: %v", err)
	}
}
