package modparam

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
)

// TestMatchIP2Nets: lnet_match_networks' rules on a node with addresses 10.0.0.1 and
// 192.168.1.5, each case the networks= text the kernel builds, or its refusal.
func TestMatchIP2Nets(t *testing.T) {
	addrs := []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("192.168.1.5")}
	for _, c := range []struct{ in, want, err string }{
		// sanity-lnet 208's forms: one NID; two nets; one net twice (LU-13734); the
		// interface list form with lists in every part.
		{in: "tcp(eth0) 10.0.0.1", want: "tcp(eth0)"},
		{in: "tcp(eth0) 10.0.0.1; tcp1(eth1) 192.168.1.5", want: "tcp(eth0),tcp1(eth1)"},
		{in: "tcp(eth0) 10.0.0.1; tcp(eth1) 192.168.1.5", want: "tcp(eth0),tcp(eth1)"},
		{in: "tcp(eth0,eth1) [10,192].[0,168].[0,1].[1,5]", want: "tcp(eth0,eth1)"},
		// any pattern of an entry matching any address; entries in order; comments,
		// newlines, blanks; an entry without pattern never matches.
		{in: "o2ib0(ib0) 172.16.*.* 192.168.1.[1-9/2]\n# c\n o2ib1 ;o2ib2(ib1) *.*.*.* # all", want: "o2ib0(ib0),o2ib2(ib1)"},
		// a blank ends the nets: what follows is read as a pattern.
		{in: "o2ib1,tcp(eth0, eth1),o2ib2 10.0.0.1", err: "Error parsing 'ip2nets=\"o2ib1,tcp(eth0, eth1),o2ib2 10.0.0.1\"' [16+11] \"eth1),o2ib2\" is not four dot-separated parts"},
		{in: "o2ib1,tcp(eth0,eth1),o2ib2 10.0.0.1", want: "o2ib1,tcp(eth0,eth1),o2ib2"},
		// what the kernel refuses: a bad pattern (even in an entry that would not match, or
		// after a matching one), a step of 0, a net named twice in an entry, a list not
		// followed by a comma, not a net; nothing matching.
		{in: "tcp 10.0.0.1; o2ib 10.0.0.300", err: "Error parsing 'ip2nets=\"o2ib 10.0.0.300\"' [19+10]"},
		{in: "tcp 10.0.0.[1-9/0]", err: "Error parsing 'ip2nets=\"tcp 10.0.0.[1-9/0]\"' [4+14] \"10.0.0.[1-9/0]\": part 4 \"[1-9/0]\": \"1-9/0\": a step of 0"},
		{in: "tcp(eth0),o2ib,tcp 10.0.0.1", err: "Error parsing 'ip2nets=\"tcp(eth0),o2ib,tcp 10.0.0.1\"' [15+3] net tcp is named twice in the entry"},
		{in: "tcp(eth0)x,o2ib 10.0.0.1", err: "Error parsing 'ip2nets=\"tcp(eth0)x,o2ib 10.0.0.1\"' [3+12] the interface list is not followed by a comma"},
		{in: "foo 10.0.0.1", err: "Error parsing 'ip2nets=\"foo 10.0.0.1\"' [0+3] \"foo\" is not a net"},
		{in: "foo 10.0.0.2", err: "ip2nets does not match any local IP interfaces [0+12] LNet does not start (-ENOENT)"},
	} {
		m, err := Dialect{}.MatchIP2Nets(c.in, addrs)
		if c.err != "" {
			if !strings.HasPrefix(errText(err), c.err) {
				t.Errorf("%q: error %q, want %q...", c.in, errText(err), c.err)
			}
			continue
		}
		if err != nil || m.Networks != c.want {
			t.Errorf("%q: %q, %v; want %q", c.in, m.Networks, err, c.want)
		}
	}
	if _, err := (Dialect{}).MatchIP2Nets("tcp *.*.*.*", nil); errText(err) != "No local IP interfaces for ip2nets to match [0+11] LNet does not start (-ENOENT)" {
		t.Errorf("no address: %s", errText(err))
	}
}

// TestIP2NetsDialects: up to 2.13.55 an entry whose net an earlier match gave is skipped.
func TestIP2NetsDialects(t *testing.T) {
	addrs := []netip.Addr{netip.MustParseAddr("10.0.0.1")}
	for _, c := range []struct {
		d    Dialect
		want string
	}{{Dialect{}, "o2ib(ib0),o2ib(ib1),tcp1,tcp"}, {Dialect{IP2NetsSkipDupNets: true}, "o2ib(ib0),tcp"}} {
		m, err := c.d.MatchIP2Nets("o2ib(ib0) 10.0.0.1; o2ib(ib1),tcp1 10.0.0.*; tcp 10.*.*.*", addrs)
		if err != nil || m.Networks != c.want {
			t.Errorf("%+v: %q, %v; want %q", c.d, m.Networks, err, c.want)
		}
	}
}

// TestIP2NetsOffsets: an offset in the networks text maps back to where the option writes it.
func TestIP2NetsOffsets(t *testing.T) {
	in := "o2ib(ib0) 10.*.*.*;  tcp(eth0),o2ib1 10.0.0.1"
	m, err := Dialect{}.MatchIP2Nets(in, []netip.Addr{netip.MustParseAddr("10.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ off int }{{0}, {5}, {10}, {20}} {
		o := m.OptionOffset(c.off)
		if m.Networks[c.off] != in[o] {
			t.Errorf("networks %q offset %d -> %d (%q), want the same character", m.Networks, c.off, o, in[o])
		}
	}
	got := fmt.Sprint(Dialect{}.IP2NetsInterfaces("o2ib(ib0) 10.*.*.*; tcp(eth0),o2ib1(ib0,ib1) 1.2.3.4; tcp2 *.*.*.*; bad( 1.1.1.1"))
	if want := "[{o2ib0 ib0} {tcp0 eth0} {o2ib1 ib1} {tcp2 }]"; got != want {
		t.Errorf("IP2NetsInterfaces: %s, want %s", got, want)
	}
}
