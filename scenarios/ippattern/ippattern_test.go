package ippattern

import (
	"net/netip"
	"testing"
)

// TestMatch: each form of the syntax, against addresses it must and must not match.
func TestMatch(t *testing.T) {
	for _, c := range []struct {
		pat      string
		ipv6     bool
		yes, not []string
	}{
		{"10.0.0.1", false, []string{"10.0.0.1"}, []string{"10.0.0.2", "2001:db8::1"}},
		{"10.0.*.*", false, []string{"10.0.0.1", "10.0.255.0"}, []string{"10.1.0.1"}},
		{"*.*.*.*", false, []string{"0.0.0.0", "255.255.255.255"}, []string{"::1"}},
		{"10.0.0.[1-5]", false, []string{"10.0.0.1", "10.0.0.5"}, []string{"10.0.0.0", "10.0.0.6"}},
		{"10.0.0.[2-10/2]", false, []string{"10.0.0.2", "10.0.0.10"}, []string{"10.0.0.3", "10.0.0.12"}},
		{"10.0.0.[1,3,7-8]", false, []string{"10.0.0.3", "10.0.0.8"}, []string{"10.0.0.2", "10.0.0.9"}},
		{" 10 . 0x0a . 010 . [ 1 - 3 ] ", false, []string{"10.10.8.2"}, []string{"10.10.10.2"}},
		{"10.0.0.[*]", false, []string{"10.0.0.77"}, nil},
		{"2001:db8::1", true, []string{"2001:db8::1"}, []string{"2001:db8::2", "10.0.0.1"}},
		{"2001:db8::1/128", true, []string{"2001:db8::1"}, []string{"2001:db8::2"}},
		{"2001:db8::77/64", true, []string{"2001:db8::1", "2001:db8::ffff:1"}, []string{"2001:db9::1"}},
		{"2001:db8::/0x10", true, []string{"2001:ffff::1"}, []string{"2002::1"}},
	} {
		p, err := Parse(c.pat, c.ipv6)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.pat, err)
			continue
		}
		if p.IPv6() != c.ipv6 || p.String() != c.pat {
			t.Errorf("Parse(%q): IPv6 %v, text %q", c.pat, p.IPv6(), p.String())
		}
		for _, a := range c.yes {
			if !p.Match(netip.MustParseAddr(a)) {
				t.Errorf("%q does not match %s", c.pat, a)
			}
		}
		for _, a := range c.not {
			if p.Match(netip.MustParseAddr(a)) {
				t.Errorf("%q matches %s", c.pat, a)
			}
		}
	}
}

// TestRefused: what cfs_ip_addr_parse (and 2.17's IPv6 reading) refuses, and a step of 0.
func TestRefused(t *testing.T) {
	for _, c := range []struct {
		pat  string
		ipv6 bool
	}{
		{"10.0.0", false}, {"10.0.0.1.2", false}, {"10.0..1", false}, {"10.0.0.", false},
		{"10.0.0.256", false}, {"10.0.0.1-5", false}, {"10.0.0.[5-1]", false}, {"10.0.0.[1-5/0]", false},
		{"10.0.0.[]", false}, {"10.0.0.[1,]", false}, {"10.0.0.-1", false}, {"10.0.0.08", false},
		{"10.0.0.0x", false}, {"10.0.0.a", false}, {"2001:db8::1", false},
		{"2001:db8::1/0", true}, {"2001:db8::1/129", true}, {"2001:db8::g", true}, {"fe80::1%eth0", true},
		{"10.0.0.1:5", true},
	} {
		if p, err := Parse(c.pat, c.ipv6); err == nil {
			t.Errorf("Parse(%q, %v) = %+v, want an error", c.pat, c.ipv6, p)
		}
	}
}

// FuzzParse: Parse never panics, and a pattern it accepts matches without dividing by 0.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"10.0.0.[1-5/2]", "*.*.*.*", "2001:db8::/64", "1.2.3.[4,5-6/0]", " 0x1 . 01 . [ 2 ] . *"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, v6 := range []bool{false, true} {
			p, err := Parse(s, v6)
			if err != nil {
				continue
			}
			p.Match(netip.MustParseAddr("10.1.2.3"))
			p.Match(netip.MustParseAddr("2001:db8::1"))
		}
	})
}
