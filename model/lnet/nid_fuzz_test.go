package lnet

import (
	"strings"
	"testing"
)

// FuzzParseNIDs: ParseNID, ParseNet and ParseNIDPattern (fault rule targets, route nets and
// gateways of a scenario, `lnetctl` NIDs) never panic, give one-line errors, and what they
// accept is written back as text that parses to the same value. The one deliberate loss:
// String writes every lo net as "lo" (the kernel has only net 0 of lo), so "lo5" reads back
// as lo0.
func FuzzParseNIDs(f *testing.F) {
	for _, s := range []string{"10.0.0.1@o2ib", "10.0.1.1@o2ib1", "0@lo", "*", "*@o2ib1", "", "192.168.1.5@tcp",
		"5@gni3", "4294967295@kfi65535", "10.0.0.1@o2ib65536", "1.2.3@o2ib", "+1.2.3.4@o2ib", "1.2.3.4@lo",
		"0@lo5", " 10.0.0.1@o2ib ", "10.0.0.1@@o2ib", "o2ib", "o2ib01", "lo", "tcp9", "-1@lo", "256.0.0.1@o2ib"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		oneLine := func(what string, err error) {
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Fatalf("%s(%q): error is not one line: %q", what, s, err)
			}
		}
		canon := func(n NetID) NetID {
			if n.Type() == LOLND {
				return MakeNet(LOLND, 0)
			}
			return n
		}
		canonNID := func(n NID) NID {
			if n.IsAny() {
				return n
			}
			return MakeNID(canon(n.Net()), n.Addr())
		}
		n, err := ParseNID(s)
		oneLine("ParseNID", err)
		if err == nil {
			back, err := ParseNID(n.String())
			if err != nil || back != canonNID(n) {
				t.Fatalf("ParseNID(%q) = %v; reading %q back gives %v, %v", s, uint64(n), n.String(), back, err)
			}
		}
		net, err := ParseNet(s)
		oneLine("ParseNet", err)
		if err == nil {
			back, err := ParseNet(net.String())
			if err != nil || back != canon(net) {
				t.Fatalf("ParseNet(%q) = %v; reading %q back gives %v, %v", s, uint32(net), net.String(), back, err)
			}
		}
		p, err := ParseNIDPattern(s)
		oneLine("ParseNIDPattern", err)
		if err == nil {
			back, err := ParseNIDPattern(p.String())
			want := p
			want.NID, want.Net = canonNID(p.NID), p.Net
			if p.Net != 0 {
				want.Net = canon(p.Net)
			}
			if err != nil || back != want {
				t.Fatalf("ParseNIDPattern(%q) = %+v; reading %q back gives %+v, %v", s, p, p.String(), back, err)
			}
			// A pattern naming one NID matches it; "*@net" matches NIDs of that net only.
			if p.NID != AnyNID && !p.Match(p.NID) {
				t.Fatalf("pattern %q does not match its own NID", s)
			}
			if p.NID == AnyNID && p.Net != 0 && (!p.Match(MakeNID(p.Net, 7)) || p.Match(MakeNID(p.Net+1, 7))) {
				t.Fatalf("pattern %q matches the wrong nets", s)
			}
		}
		if h, ok := ParseHStatus(s); ok && h.String() != s {
			t.Fatalf("ParseHStatus(%q) = %v", s, h)
		}
	})
}
