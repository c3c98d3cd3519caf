package legacy2yaml

import (
	"strings"
	"testing"
)

// convert runs one input through a Converter as the command does: kind is "arg", "stdin",
// "modprobe" or a Param's name (a file holding that parameter).
func convert(kind, in string) string {
	var c Converter
	var err error
	switch kind {
	case "arg":
		err = c.Inline(ArgumentSource, in)
	case "stdin":
		err = c.Inline(StdinSource, in)
	case "modprobe":
		err = c.Modprobe("m.conf", in)
	default:
		err = c.File(Param(kind), "f", in)
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return c.YAML()
}

// TestScriptGrammar pins the script's grammar where it is easy to get wrong; each expected
// document is what lnet_legacy2yaml (2.17.0) prints for the input, each refusal its message
// (with our position and fix).
func TestScriptGrammar(t *testing.T) {
	for _, tc := range []struct{ kind, in, want string }{
		// a ';' inside a comment still ends the rule; comments and empty rules are dropped
		{"arg", "tcp0 10.0.0.* # c; tcp1 1.2.3.4 ;; ", "ip2nets:\n  - net-spec: tcp0\n    ip-range:\n         0: 10.0.0.*\n  - net-spec: tcp1\n    ip-range:\n         0: 1.2.3.4\n"},
		{"arg", "#tcp 1.2.3.4", ""},
		// backslash-newline joins; the rule keeps its patterns in order
		{"arg", "tcp 1.2.3.4 \\\n 2.3.4.5", "ip2nets:\n  - net-spec: tcp\n    ip-range:\n         0: 1.2.3.4\n         1: 2.3.4.5\n"},
		// the loose pattern check: allowed characters and four non-empty parts
		{"arg", "tcp0 a.b.c.d", "ip2nets:\n  - net-spec: tcp0\n    ip-range:\n         0: a.b.c.d\n"},
		{"arg", "tcp0 1.2..3", "error: <argument>:1:6: Invalid-looking IP pattern token '1.2..3' in rule: 'tcp0 1.2..3' (write four dot-separated fields of digits, *, [a-b] ranges or lists, e.g. 192.168.[1-2].*)"},
		{"arg", "tcp0 1...2.3", "ip2nets:\n  - net-spec: tcp0\n    ip-range:\n         0: 1...2.3\n"},
		{"arg", "tcp0(,,) 10.0.0.*", "error: <argument>:1:6: Empty interface list in rule: 'tcp0(,,) 10.0.0.*' (name at least one interface between the parentheses, or drop them)"},
		{"arg", "tcp0(eth0 10.0.0.*", "error: <argument>:1:1: Cannot parse rule header: 'tcp0(eth0 10.0.0.*' (write a rule as NET[(IFACE,...)] IP-PATTERN..., e.g. tcp0(eth0) 10.0.0.*)"},
		// unquoted assignments end before the next NAME=, a ';' or the end; one per name,
		// and none for a name found quoted
		{"arg", "options lnet networks=tcp0 ip2nets=o2ib 1.2.3.4", "net:\n-     net type: tcp0\nip2nets:\n  - net-spec: o2ib\n    ip-range:\n         0: 1.2.3.4\n"},
		{"arg", "networks=tcp0(eth0), o2ib ; routes=x", "error: <argument>:1:36: routes: incomplete route specification 'x' (write a route as NET [HOP] GATEWAY[:PRIORITY], e.g. tcp0 1 10.0.0.1@o2ib0)"},
		{"arg", "ip2nets='tcp 1.2.3.4' ip2nets=\"o2ib 1.2.3.5\" ip2nets=o2ib2 1.1.1.1", "ip2nets:\n  - net-spec: tcp\n    ip-range:\n         0: 1.2.3.4\n  - net-spec: o2ib\n    ip-range:\n         0: 1.2.3.5\n"},
		{"arg", "networks=  \"tcp\"", "net:\n-     net type: tcp\n"},
		// a name may end a longer word; the priority loses its leading zeros
		{"arg", "xroutes='t 2 c@d:007'", "route:\n  - net: t\n    gateway: c@d\n    hop: 2\n    priority: 7\n"},
		{"arg", "routes='t 01 c@d'", "error: <argument>:1:14: routes: multiple gateway specifications found in single rule 't 01 c@d'. If you intended multiple routes, separate them with semicolons (;). Found gateways: 01, c@d (write one route per gateway, separated by ';')"},
		{"arg", "routes='t 256 c@d'", "error: <argument>:1:11: routes: hopcount 256 out of range 1-255 in 't 256 c@d' (give a hop count from 1 to 255, or none)"},
		{"arg", "routes='t 1'", "error: <argument>:1:12: routes: missing gateway specs in 't 1' (end the route with its gateway's NID, e.g. 10.0.0.1@o2ib0)"},
		// the alternative form: int() values, unknown and empty keys ignored, the last wins
		{"arg", "routes='t: { gateway: g, hop: +3, priority: -1_0 }'", "route:\n  - net: t\n    gateway: g\n    hop: 3\n    priority: -10\n"},
		{"arg", "routes='t: { gateway: g, , x, hop:2, hop: ٣, foo: 1 }'", "route:\n  - net: t\n    gateway: g\n    hop: 3\n"},
		{"arg", "routes='t: { gateway: g, hop: x }'", "error: <argument>:1:31: routes: invalid hop value 'x' in 't: { gateway: g, hop: x }' (give a hop count from 1 to 255, or none)"},
		{"arg", "routes='t: { gateway: g, hop: out of range }'", "error: <argument>:1:31: invalid literal for int() with base 10: 'out of range' (give a hop count from 1 to 255, or none)"},
		{"arg", "routes='t: { gateway: g } x'", "error: <argument>:1:14: routes: multiple gateway specifications found in single rule 't: { gateway: g } x'. If you intended multiple routes, separate them with semicolons (;). Found gateways: {, gateway:, g, }, x (write one route per gateway, separated by ';')"},
		// networks: commas inside parentheses do not separate
		{"arg", "networks='tcp(a,,b), ,o2ib'", "net:\n-     net type: tcp\n      local NI(s):\n      -     interfaces:\n                  0: a\n                  1: b\n-     net type: o2ib\n"},
		{"arg", "networks='tcp((a)),o2ib'", "error: <argument>:1:11: Invalid network specification: 'tcp((a))' (write NET or NET(IFACE,...), e.g. tcp0(eth0),o2ib(ib0))"},
		// files are read with universal newlines, standard input as given
		{"ip2nets", "tcp 1.2.3.4\r\no2ib 1.2.3.5\r", "ip2nets:\n  - net-spec: tcp\n    ip-range:\n         0: 1.2.3.4\n  - net-spec: o2ib\n    ip-range:\n         0: 1.2.3.5\n"},
		{"stdin", "networks=\r\n; x", ""},
		// modprobe: continuations, "options" lines naming lnet anywhere, comments
		{"modprobe", "# c\noptions lnet \\\n   networks=tcp0\noptions ko2iblnd ip2nets=\"o2ib 1.2.3.4\"\noptions lnetx routes=\"t 1 g\"\n", "net:\n-     net type: tcp0\nroute:\n  - net: t\n    gateway: g\n    hop: 1\n"},
		{"modprobe", "options lnet \\\n  routes=\"t 0 g\"", "error: m.conf:2:13: routes: hopcount 0 out of range 1-255 in 't 0 g' (give a hop count from 1 to 255, or none)"},
		{"routes", "\n\n  tcp0: { gateway: g, priority: p }", "error: f:3:33: routes: invalid priority value 'p' in 'tcp0: { gateway: g, priority: p }' (give the priority as a whole number)"},
		{"networks", "tcp\xff", "error: f:1:4: the input is not UTF-8 text (save it as UTF-8)"},
	} {
		if got := convert(tc.kind, tc.in); got != tc.want {
			t.Errorf("%s %q:\n got %q\nwant %q", tc.kind, tc.in, got, tc.want)
		}
	}
}

// TestDefaultHop: routes without a hop take it; outside 1-255 is refused.
func TestDefaultHop(t *testing.T) {
	var c Converter
	if err := c.Inline(ArgumentSource, "routes='a 2 g1; b g2'"); err != nil {
		t.Fatal(err)
	}
	if err := c.DefaultHop(256); err == nil || err.Error() != "--default-hop value 256 out of range (1-255)" {
		t.Fatalf("DefaultHop(256) = %v", err)
	}
	if err := c.DefaultHop(5); err != nil {
		t.Fatal(err)
	}
	if got, want := c.YAML(), "route:\n  - net: a\n    gateway: g1\n    hop: 2\n  - net: b\n    gateway: g2\n    hop: 5\n"; got != want {
		t.Fatalf("got %q want %q", got, want)
	}
}

// FuzzConvert: no input makes the converter panic, and every refusal is located inside its
// input.
func FuzzConvert(f *testing.F) {
	for _, s := range []string{"tcp0(eth0,eth1) 10.0.0.*; o2ib0 192.168.[1-2].*", "routes='tcp0 2 10.0.0.1@o2ib0:7'",
		"options lnet 'ip2nets=\"tcp0 10.0.0.*\" routes=\"tcp0 1 10.0.0.2@o2ib0\"'", "tcp7: { gateway: 10.3.3.[6-12]@tcp, priority: 20, hop: 8 }",
		"options lnet networks=tcp0(eth0),o2ib(ib0)", "options lnet \\\n  ip2nets=\"o2ib0 192.168.1.*\"\n", "tcp0: { gateway: 10.0.0.1@o2ib0, hop: 0 }"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lines := strings.Count(s, "\n") + strings.Count(s, "\r") + 1
		for _, kind := range []string{"arg", "stdin", "modprobe", "ip2nets", "routes", "networks"} {
			var c Converter
			var err error
			switch kind {
			case "arg":
				err = c.Inline(ArgumentSource, s)
			case "stdin":
				err = c.Inline(StdinSource, s)
			case "modprobe":
				err = c.Modprobe("m", s)
			default:
				err = c.File(Param(kind), "f", s)
			}
			if e, ok := err.(*Error); ok {
				if e.Line < 1 || e.Line > lines || e.Col < 1 || e.Col > len(s)+1 || e.Msg == "" || e.Fix == "" {
					t.Fatalf("%s %q: refusal %+v is not located in the input", kind, s, e)
				}
			} else if err != nil {
				t.Fatalf("%s %q: %v", kind, s, err)
			}
			_ = c.DefaultHop(1)
			_ = c.YAML()
		}
	})
}
