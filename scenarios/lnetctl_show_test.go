package scenarios

import (
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// TestParseShowCommand: the show forms sanity-lnet uses, in any order, long and short, and
// what each resolves to.
func TestParseShowCommand(t *testing.T) {
	def := func(verb string) ShowCommand { return ShowCommand{Verb: verb, Hop: -1, Priority: -1} }
	with := func(c ShowCommand, f func(*ShowCommand)) ShowCommand { f(&c); return c }
	for _, tc := range []struct {
		cmd  string
		want ShowCommand
	}{
		{"net show", def("net show")},
		{"lnetctl net show", def("net show")},
		{"net show -v", with(def("net show"), func(c *ShowCommand) { c.Detail = 1 })},
		{"net show --verbose", with(def("net show"), func(c *ShowCommand) { c.Detail = 1 })},
		{"net show -v 0", def("net show")},
		{"net show -v 3", with(def("net show"), func(c *ShowCommand) { c.Detail = 3 })},
		{"net show -v 4", with(def("net show"), func(c *ShowCommand) { c.Detail = 4 })},
		{"net show --net tcp", with(def("net show"), func(c *ShowCommand) { c.Net = "tcp0" })},
		{"net show -v 2 --net o2ib1", with(def("net show"), func(c *ShowCommand) { c.Detail, c.Net = 2, "o2ib1" })},
		{"net show --net o2ib -v 1", with(def("net show"), func(c *ShowCommand) { c.Detail, c.Net = 1, "o2ib0" })},
		{"net show -v -n o2ib", with(def("net show"), func(c *ShowCommand) { c.Detail, c.Net = 1, "o2ib0" })},
		{"net show --verb 2 --ne=o2ib", with(def("net show"), func(c *ShowCommand) { c.Detail, c.Net = 2, "o2ib0" })},
		{"net show -no2ib", with(def("net show"), func(c *ShowCommand) { c.Net = "o2ib0" })},
		{"net show -v 1 -v 2", with(def("net show"), func(c *ShowCommand) { c.Detail = 2 })},
		{"peer show", def("peer show")},
		{"peer show -v", with(def("peer show"), func(c *ShowCommand) { c.Detail = 1 })},
		{"peer show -v 2", with(def("peer show"), func(c *ShowCommand) { c.Detail = 2 })},
		{"peer show -v 4 --nid 1.1.1.1@tcp", with(def("peer show"), func(c *ShowCommand) { c.Detail, c.NID = 4, "1.1.1.1@tcp" })},
		{"peer show --nid 10.0.0.2@o2ib0", with(def("peer show"), func(c *ShowCommand) { c.NID = "10.0.0.2@o2ib" })},
		{"peer show --nid 10.0.0.2@o2ib -v 2", with(def("peer show"), func(c *ShowCommand) { c.Detail, c.NID = 2, "10.0.0.2@o2ib" })},
		{"peer show -v --nid 10.0.0.2@o2ib", with(def("peer show"), func(c *ShowCommand) { c.Detail, c.NID = 1, "10.0.0.2@o2ib" })},
		{"route show", def("route show")},
		{"route show -v", with(def("route show"), func(c *ShowCommand) { c.Detail = 1 })},
		{"route show --net o2ib1 --gateway 10.0.0.2@o2ib", with(def("route show"), func(c *ShowCommand) { c.Net, c.Gateway = "o2ib1", "10.0.0.2@o2ib" })},
		{"route show -g 10.0.0.2@o2ib -n o2ib1 -c 2 -p 1", with(def("route show"), func(c *ShowCommand) {
			c.Net, c.Gateway, c.Hop, c.Priority = "o2ib1", "10.0.0.2@o2ib", 2, 1
		})},
		{"route show --h 2 --hop-count 3 --priority=-1", with(def("route show"), func(c *ShowCommand) { c.Hop = 3 })},
	} {
		got, err := ParseShowCommand(tc.cmd)
		if err != nil {
			t.Errorf("%q: %v", tc.cmd, err)
			continue
		}
		if !reflect.DeepEqual(*got, tc.want) {
			t.Errorf("%q = %+v, want %+v", tc.cmd, *got, tc.want)
		}
	}
}

// TestParseShowCommandRefused: the forms lnetctl refuses, or reads otherwise than they say,
// are refused with the fix.
func TestParseShowCommandRefused(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"net show -v2", "write -v 2: lnetctl does not read a level joined to -v"},
		{"peer show -v2", "write -v 2: lnetctl does not read a level joined to -v"},
		{"net show --verbose=2", "write --verbose 2: lnetctl ignores a level joined by '=' and shows level 1"},
		{"net show -v two", `-v level "two": give 0 to 4 (lnetctl would take the word and show level 1)`},
		{"peer show -v 5", `-v level "5": give 0 to 4`},
		{"net show -v -1", "invalid option -- '1'"},
		{"route show -v 2", `unexpected argument "2": route show -v takes no level`},
		{"route show --verbose=1", "option '--verbose' doesn't allow an argument"},
		{"net show o2ib", `unexpected argument "o2ib": a level goes right after -v (-v 2)`},
		{"peer show 10.0.0.2@o2ib", `unexpected argument "10.0.0.2@o2ib"`},
		{"net show --net", "option '--net' requires an argument"},
		{"net show --net foo", "cannot parse net foo"},
		{"net show --nid 10.0.0.1@o2ib", "unrecognized option '--nid'"},
		{"peer show --nid 10.0.0.[2-3]@o2ib", "--nid takes one NID"},
		{"peer show --nid 10.0.0.2@o2ib,10.0.0.3@o2ib", "--nid takes one NID"},
		{"route show --gateway o2ib1", "--gateway takes one NID"},
		{"route show --hop x", `--hop "x": give a number (-1: any; lnetctl would ignore it silently)`},
		{"route show --priority -2", `--priority "-2": give a number`},
		{"peer show -h", "invalid option -- 'h'"},
		{"net show 'o2ib", "unterminated ' quote"},
		{"net show -- -v", `unexpected argument "-v": a level goes right after -v (-v 2)`},
		{"route show -1", "invalid option -- '1'"},
	} {
		_, err := ParseShowCommand(tc.cmd)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.cmd, err, tc.want)
		}
	}
}

// TestShowCommandRefusedAtLoad: a bad show in an lnetctl check is refused with its position
// and the command's usage.
func TestShowCommandRefusedAtLoad(t *testing.T) {
	src := `duration: 5s
nodes:
  a: {nis: [o2ib]}
expect:
  - {check: lnetctl, node: a, command: net show -v2 --net o2ib, present: {net: []}}
  - {check: lnetctl, node: a, command: route show --net o2ib1 -v 1, present: {route: []}}
  - {check: lnetctl, node: a, command: peer show -v 4 --nid 10.0.0.2@o2ib, present: {peer: []}}
`
	_, err := Load("c.yaml", []byte(src))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		"c.yaml:5:40: expect[0].command: write -v 2: lnetctl does not read a level joined to -v (lnetctl net show [-v [0-4]] [--net NET])",
		`c.yaml:6:40: expect[1].command: unexpected argument "1": route show -v takes no level (lnetctl route show [-v] [--net NET] [--gateway NID] [--hop N] [--priority N])`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "expect[2]") {
		t.Errorf("peer show -v 4 --nid refused:\n%v", err)
	}
}

// FuzzShowCommand: any command of an lnetctl check loads or is refused with a located error,
// never a panic; a show that loads parses to a level of 0 to 4.
func FuzzShowCommand(f *testing.F) {
	for _, s := range []string{"net show -v 2 --net o2ib", "net show -v -n o2ib1", "peer show --nid 10.0.0.2@o2ib -v 4",
		"peer show -v", "route show --net o2ib1 --gateway 10.0.0.2@o2ib", "route show -v -c 2 -p=1", "net show --verbose=3", "lnetctl net show -v7"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		src := "duration: 5s\nnodes:\n  a: {nis: [o2ib0]}\nexpect:\n  - {check: lnetctl, node: a, command: " + strconv.Quote(cmd) + ", present: {net: []}}\n"
		s, err := Load("f.yaml", []byte(src))
		if err != nil || !IsShowCommand(s.Expect[0].Command) {
			return
		}
		sc, err := ParseShowCommand(s.Expect[0].Command)
		if err != nil || sc.Detail < 0 || sc.Detail > maxShowDetail {
			t.Fatalf("%q loaded as %+v, %v", cmd, sc, err)
		}
	})
}

// loadCheckOn loads an lnetctl check of cmd on a node of release.
func loadCheckOn(release, cmd string) (*Scenario, error) {
	src := "duration: 5s\nlnet: {release: \"" + release + "\"}\nnodes:\n  a: {nis: [o2ib0]}\nexpect:\n  - {check: lnetctl, node: a, command: " + strconv.Quote(cmd) + ", equal: {route: []}}\n"
	return Load("c.yaml", []byte(src))
}

// TestRouteShowHopRelease: route show's hop letter per release. Up to 2.15 jt_show_route's
// short options are "n:g:h:p:v": -h takes a value its switch has no case for (lnetctl
// returns 0 having shown nothing), -c is invalid (its usage, exit 0); from 2.16 they are
// "c:n:g:p:v", where -h beside other options is the invalid one. --hop (a prefix of
// --hop-count up to 2.15) and --hop-count filter in every release; -h or --help alone is
// check_cmd's usage, exit 1.
func TestRouteShowHopRelease(t *testing.T) {
	for _, tc := range []struct {
		release, cmd string
		hop          int
	}{
		{"2.12", "route show --hop-count 2 -v", 2},
		{"2.15", "route show --hop 3 --net o2ib1", 3},
		{"2.15", "route show --hop-c=4 -n o2ib1", 4},
		{"2.16", "route show -c 5 -n o2ib1", 5},
		{"2.17", "route show --hop 6 -g 10.0.0.2@o2ib", 6},
		{"master", "route show -v -c 7 --net o2ib1", 7},
	} {
		s, err := loadCheckOn(tc.release, tc.cmd)
		if err != nil {
			t.Errorf("%s on %s: %v", tc.cmd, tc.release, err)
			continue
		}
		if h := s.Expect[0].Show.Hop; h != tc.hop {
			t.Errorf("%s on %s: hop %d, want %d", tc.cmd, tc.release, h, tc.hop)
		}
	}
	for _, tc := range []struct{ release, cmd, msg string }{
		{"2.12", "route show -c 2 -v", `c.yaml:6:40: expect[0].command: invalid option -- 'c': lnetctl up to 2.15 (route show's short options "n:g:h:p:v") prints it and the usage, shows nothing and exits 0 (lnetctl route show [-v] [--net NET] [--gateway NID] [--hop N] [--priority N])`},
		{"2.15", "route show -n o2ib1 -c 2", `invalid option -- 'c': lnetctl up to 2.15`},
		{"2.15", "route show -h 2 -v", `c.yaml:6:40: expect[0].command: -h: lnetctl up to 2.15 gives it a value (route show's short options "n:g:h:p:v") but has no case for it: it returns before showing anything and exits 0`},
		{"2.12", "route show -v -h", `-h requires an argument up to 2.15 (route show's short options "n:g:h:p:v"): lnetctl prints it and the usage, shows nothing and exits 0`},
		{"2.16", "route show -h 2 -v", `c.yaml:6:40: expect[0].command: invalid option -- 'h': lnetctl from 2.16 (route show's short options "c:n:g:p:v") prints it and the usage, shows nothing and exits 0`},
		{"master", "route show -n o2ib1 -h 2", `invalid option -- 'h': lnetctl from 2.16`},
		{"2.15", "route show -h", "route show -h: lnetctl prints the command's usage and exits 1 (check_cmd): nothing to compare"},
		{"master", "route show --help", "route show --help: lnetctl prints the command's usage and exits 1 (check_cmd): nothing to compare"},
	} {
		if _, err := loadCheckOn(tc.release, tc.cmd); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s on %s:\n got %v\nwant %s", tc.cmd, tc.release, err, tc.msg)
		}
	}
}

// TestUDSPShowIndexRelease: udsp show --idx/-i N (2.15+). From 2.16 lnetctl refuses an index
// below -1 or not a number ("Invalid index"); 2.15 reads it with atoi (a word refused here,
// below -1 shows nothing); 2.12 has no udsp.
func TestUDSPShowIndexRelease(t *testing.T) {
	for _, tc := range []struct {
		release, cmd string
		idx          int
	}{
		{"2.15", "udsp show", -1},
		{"2.15", "udsp show --idx 1", 1},
		{"2.15", "udsp show -i -4", -4},
		{"2.16", "udsp show -i 0", 0},
		{"master", "udsp show --idx=-1", -1},
		{"master", "lnetctl udsp show -i2", 2},
	} {
		if _, err := loadCheckOn(tc.release, tc.cmd); err != nil {
			t.Errorf("%s on %s: %v", tc.cmd, tc.release, err)
			continue
		}
		rel, _ := lnet.LookupRelease(tc.release)
		if idx, err := ParseUDSPShow(tc.cmd, rel.Profile); err != nil || idx != tc.idx {
			t.Errorf("%s on %s: index %d (%v), want %d", tc.cmd, tc.release, idx, err, tc.idx)
		}
	}
	for _, tc := range []struct{ release, cmd, msg string }{
		{"2.12", "udsp show", "c.yaml:6:40: expect[0].command: udsp show: no such command in lnetctl (a runs 2.12) (remove it (lnetctl has udsp from 2.14, LU-9121: 2.15 and later))"},
		{"2.12", "udsp show --idx 0", "udsp show: no such command in lnetctl"},
		{"2.15", "udsp show --idx x", `c.yaml:6:40: expect[0].command: udsp show: --idx "x" is not a number: lnetctl up to 2.15 reads it with atoi (a word is 0) (lnetctl udsp show [--idx N])`},
		{"2.16", "udsp show --idx -2", `c.yaml:6:40: expect[0].command: udsp show: Invalid index "-2" (lnetctl udsp show [--idx N])`},
		{"master", "udsp show -i one", `udsp show: Invalid index "one"`},
		{"master", "udsp show --all", `udsp show: unrecognized option '--all'`},
		{"master", "udsp show 1", `udsp show: unexpected argument "1": lnetctl ignores it`},
		{"2.16", "udsp show -h", "udsp show -h: lnetctl prints the command's usage and exits 1 (check_cmd): nothing to compare"},
	} {
		if _, err := loadCheckOn(tc.release, tc.cmd); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%s on %s:\n got %v\nwant %s", tc.cmd, tc.release, err, tc.msg)
		}
	}
}
