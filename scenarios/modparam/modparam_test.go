package modparam

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// routesText writes parsed entries compactly: "nets > gateways hops prio" per entry.
func routesText(es []RouteEntry) string {
	var out []string
	for _, e := range es {
		var nets, gws []string
		for _, n := range e.Nets {
			nets = append(nets, n.String())
		}
		for _, g := range e.Gateways {
			gws = append(gws, g.String())
		}
		out = append(out, fmt.Sprintf("%s > %s hops=%d prio=%d @%d", strings.Join(nets, ","), strings.Join(gws, ","), e.Hops, e.Priority, e.Off))
	}
	return strings.Join(out, "; ")
}

func errText(e *Error) string {
	if e == nil {
		return ""
	}
	return fmt.Sprintf("%s [%d+%d] %s", e.Msg, e.Off, e.Width, e.Why)
}

// TestParseRoutes: lnet_parse_routes' rules, each case what the kernel does with it.
func TestParseRoutes(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		// sanity-lnet 255's option: a gateway range without @net is on tcp0.
		{in: "o2ib 10.0.0.[2-6]", want: "o2ib0 > 10.0.0.2@tcp,10.0.0.3@tcp,10.0.0.4@tcp,10.0.0.5@tcp,10.0.0.6@tcp hops=-1 prio=0 @0"},
		{in: "o2ib1 10.0.0.2@o2ib", want: "o2ib1 > 10.0.0.2@o2ib hops=-1 prio=0 @0"},
		// a hop count is the second token when it reads as 1..255
		{in: "o2ib1 2 10.0.0.2@o2ib", want: "o2ib1 > 10.0.0.2@o2ib hops=2 prio=0 @0"},
		{in: "o2ib1 255 10.0.0.2@o2ib", want: "o2ib1 > 10.0.0.2@o2ib hops=255 prio=0 @0"},
		// 0 and 256 are not hop counts: read as gateways, which they are not
		{in: "o2ib1 0 10.0.0.2@o2ib", err: `Error parsing 'routes="o2ib1 0 10.0.0.2@o2ib"' [6+1] "0" is not a gateway NID`},
		{in: "o2ib1 256 10.0.0.2@o2ib", err: `Error parsing 'routes="o2ib1 256 10.0.0.2@o2ib"' [6+3] "256" is not a gateway NID`},
		// %u wraps: 2^32+1 is hop count 1
		{in: "o2ib1 4294967297 10.0.0.2@o2ib", want: "o2ib1 > 10.0.0.2@o2ib hops=1 prio=0 @0"},
		// with a hop count, a gateway is still required
		{in: "o2ib1 3", err: `Error parsing 'routes="o2ib1 3"' [6+1] an entry is a net, an optional hop count and at least one gateway`},
		{in: "  o2ib1", err: `Error parsing 'routes="o2ib1"' [2+5] an entry is a net, an optional hop count and at least one gateway`},
		// several nets and gateways; nets outer
		{in: "o2ib[1-2] 10.0.0.[2,4]@o2ib", want: "o2ib1,o2ib2 > 10.0.0.2@o2ib,10.0.0.4@o2ib hops=-1 prio=0 @0"},
		{in: "o2ib1 10.0.0.2@o2ib 10.0.0.9@o2ib", want: "o2ib1 > 10.0.0.2@o2ib,10.0.0.9@o2ib hops=-1 prio=0 @0"},
		// strides, and several lists expanded depth first
		{in: "tcp1 10.0.[1-2].[1-5/2]@tcp", want: "tcp1 > 10.0.1.1@tcp,10.0.1.3@tcp,10.0.1.5@tcp,10.0.2.1@tcp,10.0.2.3@tcp,10.0.2.5@tcp hops=-1 prio=0 @0"},
		{in: "o2ib1 10.0.0.[1-2,7]@o2ib", want: "o2ib1 > 10.0.0.1@o2ib,10.0.0.2@o2ib,10.0.0.7@o2ib hops=-1 prio=0 @0"},
		// a list item that is not a range is text
		{in: "o2ib[1,3x] 10.0.0.2@o2ib", err: `Error parsing 'routes="o2ib[1,3x] 10.0.0.2@o2ib"' [0+10] "o2ib3x" is not a remote net`},
		{in: "[o2ib1,tcp2] 10.0.0.2@o2ib", want: "o2ib1,tcp2 > 10.0.0.2@o2ib hops=-1 prio=0 @0"},
		// list errors
		{in: "o2ib1 10.0.0.[1-2@o2ib", err: `Error parsing 'routes="o2ib1 10.0.0.[1-2@o2ib"' [6+16] [ without ]`},
		{in: "o2ib1 10.0.0.[]@o2ib", err: `Error parsing 'routes="o2ib1 10.0.0.[]@o2ib"' [6+14] an empty item in []`},
		{in: "o2ib1 10.0.0.[1,]@o2ib", err: `Error parsing 'routes="o2ib1 10.0.0.[1,]@o2ib"' [6+16] an empty item in [1,]`},
		{in: "o2ib1 10.0.0.[5-2]@o2ib", err: `Error parsing 'routes="o2ib1 10.0.0.[5-2]@o2ib"' [6+17] the range "5-2" must run up from 0 or more, by a positive stride`},
		{in: "o2ib1 10.0.0.[1-4/2]@o2ib", err: `Error parsing 'routes="o2ib1 10.0.0.[1-4/2]@o2ib"' [6+19] the range "1-4/2" does not end on its stride`},
		{in: "o2ib1 10.0.0.[1-4x]@o2ib", err: `Error parsing 'routes="o2ib1 10.0.0.[1-4x]@o2ib"' [6+18] trailing characters after the range in "1-4x"`},
		{in: "o2ib1 10.0.0.[1-1/0]@o2ib", err: `Error parsing 'routes="o2ib1 10.0.0.[1-1/0]@o2ib"' [6+19] the stride of "1-1/0" is 0 (the kernel divides by it and crashes)`},
		{in: "o2ib1 10.0.[0-255].[0-255]@o2ib", err: `Error parsing 'routes="o2ib1 10.0.[0-255].[0-255]@o2ib"' [6+25] Too many text buffers`},
		// priorities: the entry takes its last gateway's
		{in: "o2ib1 10.0.0.2@o2ib:3", want: "o2ib1 > 10.0.0.2@o2ib hops=-1 prio=3 @0"},
		{in: "o2ib1 10.0.0.2@o2ib:3 10.0.0.3@o2ib", want: "o2ib1 > 10.0.0.2@o2ib,10.0.0.3@o2ib hops=-1 prio=0 @0"},
		{in: "o2ib1 10.0.0.2@o2ib 10.0.0.3@o2ib:7", want: "o2ib1 > 10.0.0.2@o2ib,10.0.0.3@o2ib hops=-1 prio=7 @0"},
		{in: "o2ib1 10.0.0.[2-3]@o2ib:[4-5]", want: "o2ib1 > 10.0.0.2@o2ib,10.0.0.2@o2ib,10.0.0.3@o2ib,10.0.0.3@o2ib hops=-1 prio=5 @0"},
		// a bad priority is reported from the character after the ':' (found in the
		// expanded text, counted in the token as written)
		{in: "o2ib1 10.0.0.2@o2ib:x", err: `Error parsing 'routes="o2ib1 10.0.0.2@o2ib:x"' [20+1] "x" is not a priority (an unsigned number)`},
		{in: "o2ib1 10.0.0.[2-3]@o2ib:x", err: `Error parsing 'routes="o2ib1 10.0.0.[2-3]@o2ib:x"' [20+5] "x" is not a priority (an unsigned number)`},
		{in: "o2ib1 10.0.0.2@o2ib:", err: `Error parsing 'routes="o2ib1 10.0.0.2@o2ib:"' [20+0] "" is not a priority (an unsigned number)`},
		// ';', newlines and comments separate entries; the offset is in the whole option
		{in: "o2ib1 10.0.0.2@o2ib; tcp1 10.0.0.2@o2ib # comment\n\to2ib2 1.2.3.4", want: "o2ib1 > 10.0.0.2@o2ib hops=-1 prio=0 @0; tcp1 > 10.0.0.2@o2ib hops=-1 prio=0 @21; o2ib2 > 1.2.3.4@tcp hops=-1 prio=0 @51"},
		{in: "o2ib1 10.0.0.2@o2ib; o2ib2 x", err: `Error parsing 'routes="o2ib2 x"' [27+1] "x" is not a gateway NID`},
		{in: "# only a comment;;\n", want: ""},
		// nets: lo is not a remote net; a number wraps into the type as LNET_MKNET packs it
		{in: "lo 10.0.0.2@o2ib", err: `Error parsing 'routes="lo 10.0.0.2@o2ib"' [0+2] "lo" is not a remote net`},
		{in: "o2ib262145 10.0.0.2@o2ib", want: "o2ib1 > 10.0.0.2@o2ib hops=-1 prio=0 @0"},
		{in: "o2ib01 10.0.0.2@o2ib", want: "o2ib1 > 10.0.0.2@o2ib hops=-1 prio=0 @0"},
		{in: "o2ib+1 10.0.0.2@o2ib", err: `Error parsing 'routes="o2ib+1 10.0.0.2@o2ib"' [0+6] "o2ib+1" is not a remote net`},
		{in: "gni3 10.0.0.2@o2ib", want: "gni3 > 10.0.0.2@o2ib hops=-1 prio=0 @0"},
		// gateways: 0@lo is not one, nor an address the net does not take
		{in: "o2ib1 0@lo", err: `Error parsing 'routes="o2ib1 0@lo"' [6+4] "0@lo" is not a gateway NID`},
		{in: "o2ib1 10.0.0.256@o2ib", err: `Error parsing 'routes="o2ib1 10.0.0.256@o2ib"' [6+15] "10.0.0.256@o2ib" is not a gateway NID`},
		{in: "o2ib1 12@gni", want: "o2ib1 > 12@gni hops=-1 prio=0 @0"},
		{in: "o2ib1 0x0x1f@gni", want: "o2ib1 > 31@gni hops=-1 prio=0 @0"},
		// "<?>" is LNET_ANY_NID from 2.16 (lnet_add_route then refuses it)
		{in: "o2ib1 <?>", want: "o2ib1 > * hops=-1 prio=0 @0"},
	} {
		got, err := Dialect{}.ParseRoutes(c.in)
		if errText(err) != c.err || err == nil && routesText(got) != c.want {
			t.Errorf("ParseRoutes(%q) = %q, %q; want %q, %q", c.in, routesText(got), errText(err), c.want, c.err)
		}
	}
}

// TestRoutesDialects: what releases read differently.
func TestRoutesDialects(t *testing.T) {
	d212 := Dialect{ScanfTCPNIDs: true, ScanfO2IBNIDs: true, NoAnyNIDText: true, NoKfiNames: true, NoEfaBxi3fNames: true, PrefixInterfaceDup: true}
	d217 := Dialect{ScanfO2IBNIDs: true}
	for _, c := range []struct {
		d       Dialect
		in, err string
	}{
		// sscanf's %u wraps a 2^32 octet to 0; in4_pton refuses it
		{d212, "o2ib1 10.0.0.4294967296@o2ib", ""},
		{d217, "o2ib1 10.0.0.4294967296@o2ib", ""},
		{Dialect{}, "o2ib1 10.0.0.4294967296@o2ib", `Error parsing 'routes="o2ib1 10.0.0.4294967296@o2ib"' [6+22] "10.0.0.4294967296@o2ib" is not a gateway NID`},
		{d217, "o2ib1 10.0.0.4294967296", `Error parsing 'routes="o2ib1 10.0.0.4294967296"' [6+17] "10.0.0.4294967296" is not a gateway NID`},
		// rpc_pton4 takes at most 16 characters; sscanf any number of leading zeros
		{d212, "o2ib1 0010.000.000.0002", ""},
		{Dialect{}, "o2ib1 0010.000.000.0002", `Error parsing 'routes="o2ib1 0010.000.000.0002"' [6+17] "0010.000.000.0002" is not a gateway NID`},
		{d212, "o2ib1 <?>", `Error parsing 'routes="o2ib1 <?>"' [6+3] "<?>" is not a gateway NID`},
		{d212, "kfi1 10.0.0.2@o2ib", `Error parsing 'routes="kfi1 10.0.0.2@o2ib"' [0+4] "kfi1" is not a remote net`},
		{d217, "efa1 10.0.0.2@o2ib", ""},
	} {
		_, err := c.d.ParseRoutes(c.in)
		if errText(err) != c.err {
			t.Errorf("%+v ParseRoutes(%q): %q, want %q", c.d, c.in, errText(err), c.err)
		}
	}
}

func netsText(ns []Net) string {
	var out []string
	for _, n := range ns {
		var nis []string
		for _, ni := range n.NIs {
			nis = append(nis, fmt.Sprintf("%s@%d", ni.Interface, ni.Off))
		}
		out = append(out, fmt.Sprintf("%s(%s)@%d", n.ID, strings.Join(nis, ","), n.Off))
	}
	return strings.Join(out, " ")
}

// TestParseNetworks: lnet_parse_networks' rules.
func TestParseNetworks(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{in: "o2ib0(ib0)", want: "o2ib0(ib0@6)@0"},
		{in: "tcp(eth0)", want: "tcp0(eth0@4)@0"},
		{in: "o2ib", want: "o2ib0(@0)@0"},
		{in: " o2ib1 ( ib0 , ib1 ) , tcp ", want: "o2ib1(ib0@9,ib1@15)@1 tcp0(@0)@23"},
		// a net named twice is one net with the NIs of both
		{in: "o2ib(ib0),tcp(eth0),o2ib(ib1)", want: "o2ib0(ib0@5,ib1@25)@0 tcp0(eth0@14)@10"},
		// lo is implicit
		{in: "lo,o2ib(ib0)", want: "o2ib0(ib0@8)@3"},
		{in: "lo", want: ""},
		// text after a net up to the next comma is ignored
		{in: "o2ib ib0,tcp", want: "o2ib0(@0)@0 tcp0(@0)@9"},
		{in: "o2ib(ib0) junk", want: "o2ib0(ib0@5)@0"},
		// errors
		{in: "o2ib(ib0", err: `Error parsing 'networks="o2ib(ib0"' [5+3] ( without )`},
		{in: "o2ib()", err: `Error parsing 'networks="o2ib()"' [5+0] an empty interface name`},
		{in: "o2ib(ib0,)", err: `Error parsing 'networks="o2ib(ib0,)"' [9+0] an interface list ends with a comma`},
		{in: "o2ib(ib0 ib1)", err: `Error parsing 'networks="o2ib(ib0 ib1)"' [9+3] "i" is out of place`},
		{in: "o2ib(ib0):", err: `Error parsing 'networks="o2ib(ib0):"' [9+1] ":" is out of place`},
		{in: "o2ibx(ib0)", err: `Unrecognised network type; Error parsing 'networks="o2ibx(ib0)"' [0+5] "o2ibx" is not a net`},
		{in: "lo1", err: `Unrecognised network type; Error parsing 'networks="lo1"' [0+3] "lo1" is not a net`},
		{in: "o2ib(ib0,ib0)", err: `LNet does not start (EINVAL) [9+3] interface "ib0" is already an NI of this net (the kernel fails without a message)`},
		{in: "o2ib(ib0)[1]", err: `CPT lists are not modelled [9+3] lnetsim gives every NI all of its node's CPTs (lnet.cpts)`},
		{in: "o2ib(ib0[1])", err: `CPT lists are not modelled [8+3] lnetsim gives every NI all of its node's CPTs (lnet.cpts)`},
		{in: strings.Repeat(" ", 4097), err: `Can't parse networks: string too long [0+4097] the kernel takes at most 4096 characters`},
	} {
		got, err := Dialect{}.ParseNetworks(c.in)
		if errText(err) != c.err || err == nil && netsText(got) != c.want {
			t.Errorf("ParseNetworks(%q) = %q, %q; want %q, %q", c.in, netsText(got), errText(err), c.want, c.err)
		}
	}
	// Up to 2.15 an interface that an earlier one of the net starts with is a duplicate.
	if _, err := (Dialect{PrefixInterfaceDup: true}).ParseNetworks("o2ib(ib10,ib1)"); err == nil {
		t.Errorf("2.15: o2ib(ib10,ib1) accepted; lnet_ni_unique_net compares strlen(ib1) characters")
	}
	if _, err := (Dialect{}).ParseNetworks("o2ib(ib10,ib1)"); err != nil {
		t.Errorf("master: o2ib(ib10,ib1): %v", err)
	}
	if n, _ := (Dialect{}).Str2Net("o2ib1"); n != lnet.MakeNet(lnet.O2IBLND, 1) {
		t.Errorf("Str2Net(o2ib1) = %v", n)
	}
}
