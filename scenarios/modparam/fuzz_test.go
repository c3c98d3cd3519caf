package modparam

import (
	"net/netip"
	"strings"
	"testing"
)

// FuzzParse: ParseRoutes, ParseNetworks and MatchIP2Nets never panic and stay bounded (the kernel's text
// buffers cap what a routes= option may expand to), an error points inside the option, and
// what a route entry holds is consistent (nets and gateways, hop count 1..255 or undefined).
func FuzzParse(f *testing.F) {
	for _, s := range []string{"o2ib 10.0.0.[2-6]", "o2ib1 2 10.0.0.[1-9/2]@o2ib:3; tcp1 1.2.3.4 # c\n o2ib[1,2] <?>",
		"o2ib1 10.0.[0-255].[0-255]@o2ib", "o2ib1 10.0.0.[0-2147483647/2147483647]@o2ib", "o2ib1 10.0.0.[1-1/0]@o2ib",
		"o2ib0(ib0),tcp(eth0, eth1)", "o2ib(ib0", "lo,o2ib1(ib0)[1]", "o2ib ( ib0 , ) ", "o2ib1 0x0x1f@gni:[1-2]",
		"tcp(eth0,eth1) [10,192].[0,168].*.[1-9/2]; o2ib1 10.0.0.1 # c", "tcp(eth0)x,o2ib 10.*.*.*"} {
		f.Add(s)
	}
	addrs := []netip.Addr{netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("192.168.1.5")}
	f.Fuzz(func(t *testing.T, s string) {
		for _, d := range []Dialect{{}, {ScanfTCPNIDs: true, ScanfO2IBNIDs: true, NoAnyNIDText: true, NoKfiNames: true, NoEfaBxi3fNames: true, PrefixInterfaceDup: true}} {
			es, err := d.ParseRoutes(s)
			checkErr(t, "ParseRoutes", s, err)
			routes := 0
			for _, e := range es {
				if len(e.Nets) == 0 || len(e.Gateways) == 0 || e.Hops != UndefinedHops && (e.Hops < 1 || e.Hops > 255) {
					t.Fatalf("ParseRoutes(%q): bad entry %+v", s, e)
				}
				if e.Off < 0 || e.Off+len(e.Text) > len(s) {
					t.Fatalf("ParseRoutes(%q): entry %q at %d is outside the option", s, e.Text, e.Off)
				}
				routes += len(e.Nets) * len(e.Gateways)
			}
			if len(es) > maxTextBufs/(textBufHeader+2) || routes > (maxTextBufs/(textBufHeader+2))*(maxTextBufs/(textBufHeader+2)) {
				t.Fatalf("ParseRoutes(%q): %d entries, %d routes: beyond the text buffers", s, len(es), routes)
			}
			m, err := d.MatchIP2Nets(s, addrs)
			checkErr(t, "MatchIP2Nets", s, err)
			if err == nil {
				if m.Networks == "" {
					t.Fatalf("MatchIP2Nets(%q): no error and no net", s)
				}
				for i := range m.Networks {
					if o := m.OptionOffset(i); o < 0 || o >= len(s) {
						t.Fatalf("MatchIP2Nets(%q): networks offset %d maps outside the option (%d)", s, i, o)
					}
				}
			}
			nets, err := d.ParseNetworks(s)
			checkErr(t, "ParseNetworks", s, err)
			for _, n := range nets {
				if len(n.NIs) == 0 {
					t.Fatalf("ParseNetworks(%q): net %v without NI", s, n.ID)
				}
				for _, ni := range n.NIs {
					if ni.Interface != "" && !strings.HasPrefix(s[ni.Off:], ni.Interface) {
						t.Fatalf("ParseNetworks(%q): interface %q is not at %d", s, ni.Interface, ni.Off)
					}
				}
			}
		}
	})
}

func checkErr(t *testing.T, what, s string, err *Error) {
	if err == nil {
		return
	}
	if err.Off < 0 || err.Width < 0 || err.Off+err.Width > len(s) {
		t.Fatalf("%s(%q): error %q at %d+%d is outside the option", what, s, err.Error(), err.Off, err.Width)
	}
}
