package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// ShowCommand is an `lnetctl net|peer|route show` an lnetctl check reads, parsed with
// lnetctl's option grammar (jt_show_net, jt_show_peer, jt_show_route): options in any order,
// long or short, long names abbreviated as getopt_long allows.
type ShowCommand struct {
	// Verb is "net show", "peer show" or "route show".
	Verb string
	// Detail is the level -v gives (0 without -v, 1 for -v alone; route show has only 0 and
	// 1). lnetctl's levels: 1 adds statistics and tunables, 2 the per-type message counts and
	// the health stats, 3 a peer's state, 4 the UDSP info.
	Detail int
	// Net filters net show (--net) and route show (--net, the remote net): canonical, o2ib0.
	Net string
	// NID filters peer show (--nid): the peer that has this NID.
	NID string
	// Gateway filters route show (--gateway).
	Gateway string
	// Hop and Priority filter route show (--hop, --priority); -1: any.
	Hop, Priority int
}

// showSpecs are the show commands with levels and filters: their options as lnetctl
// declares them (verbose takes an optional level in net and peer show, none in route show).
var showSpecs = map[string]*cmdSpec{
	"net show":   {verb: "net show", opts: []cmdOpt{opt('n', "net"), levelOpt('v', "verbose")}},
	"peer show":  {verb: "peer show", opts: []cmdOpt{opt('n', "nid"), levelOpt('v', "verbose")}},
	"route show": {verb: "route show", opts: []cmdOpt{opt('n', "net"), opt('g', "gateway"), opt('c', "hop", "hop-count"), opt('p', "priority"), flagOpt('v', "verbose")}},
}

// routeShowIoctl is route show as lnetctl declares it up to 2.15 (ShowByIoctl: jt_show_route
// before LU-9680's Netlink route show, 4ccac8297d): the short options "n:g:h:p:v", whose -h
// takes a value the option loop has no case for, and the long --hop-count without --hop
// (which getopt_long still reads, as a prefix of it). From 2.16 it is showSpecs' "c:n:g:p:v"
// with --hop.
var routeShowIoctl = &cmdSpec{verb: "route show", opts: []cmdOpt{opt('n', "net"), opt('g', "gateway"),
	opt('h', "hop-count"), opt('p', "priority"), flagOpt('v', "verbose")}}

// IsShowCommand reports whether cmd is a net, peer or route show (with or without lnetctl
// before it), which ParseShowCommand reads.
func IsShowCommand(cmd string) bool {
	words, err := splitWords(cmd)
	if err != nil {
		return false
	}
	words = trimLnetctl(words)
	return len(words) >= 2 && showSpecs[words[0]+" "+words[1]] != nil
}

// ParseShowCommand parses a net, peer or route show with the grammar of the timeline's
// commands (cmdSpec.parse). Forms lnetctl would read differently from what they say are
// refused with the fix: a level not given as a separate number (-v2, --verbose=2: lnetctl
// shows level 1 or its help), a level that is not a number (lnetctl swallows the word and
// shows level 1), a level on route show (lnetctl ignores it) and words that are not options.
func ParseShowCommand(cmd string) (*ShowCommand, error) {
	words, err := splitWords(cmd)
	if err != nil {
		return nil, err
	}
	words = trimLnetctl(words)
	if len(words) < 2 || showSpecs[words[0]+" "+words[1]] == nil {
		return nil, fmt.Errorf("not a net, peer or route show: %q", cmd)
	}
	spec := showSpecs[words[0]+" "+words[1]]
	parsed, err := spec.parse(words[2:])
	var ua *unexpectedArgError
	switch {
	case errors.As(err, &ua) && spec.verb == "route show":
		return nil, fmt.Errorf("%v: route show -v takes no level", err)
	case errors.As(err, &ua):
		return nil, fmt.Errorf("%v: a level goes right after -v (-v 2)", err)
	case err != nil:
		return nil, err
	}
	c := &ShowCommand{Verb: spec.verb, Hop: -1, Priority: -1}
	if v, ok := parsed.Args["verbose"]; ok {
		c.Detail = 1
		if v != "" {
			c.Detail, _ = strconv.Atoi(v) // parse checked it
		}
	}
	return c, c.filters(parsed.Args)
}

// ParseShowCommandOf is ParseShowCommand as the lnetctl of a node of profile prof reads the
// command, refusing, with what that lnetctl does instead and its exit status, what it would
// not show: -h or --help alone (check_cmd prints the command's usage, exit 1), and the hop
// letter of the other releases. Up to 2.15 (ShowByIoctl) route show's short options are
// "n:g:h:p:v": -c is an invalid option (getopt's message and the usage, nothing shown, exit
// 0), and -h takes a value that jt_show_route's switch has no case for, so it returns 0
// before showing anything; from 2.16 they are "c:n:g:p:v" and -h, beside other options, is
// the invalid one. The forms it accepts read the same in every release.
func ParseShowCommandOf(cmd string, prof lnet.Profile) (*ShowCommand, error) {
	words, err := splitWords(cmd)
	if err != nil {
		return nil, err
	}
	words = trimLnetctl(words)
	if len(words) == 3 && (words[2] == "-h" || words[2] == "--help") && showSpecs[words[0]+" "+words[1]] != nil {
		return nil, fmt.Errorf("%s %s: lnetctl prints the command's usage and exits 1 (check_cmd): nothing to compare", words[0]+" "+words[1], words[2])
	}
	if len(words) < 2 || words[0]+" "+words[1] != "route show" {
		return ParseShowCommand(cmd)
	}
	if !prof.ShowByIoctl {
		sc, err := ParseShowCommand(cmd)
		if err != nil && err.Error() == "invalid option -- 'h'" {
			return nil, fmt.Errorf("%v: lnetctl from 2.16 (route show's short options \"c:n:g:p:v\") prints it and the usage, shows nothing and exits 0", err)
		}
		return sc, err
	}
	parsed, err := routeShowIoctl.parse(words[2:])
	switch {
	case err != nil && err.Error() == "invalid option -- 'c'":
		return nil, fmt.Errorf("%v: lnetctl up to 2.15 (route show's short options \"n:g:h:p:v\") prints it and the usage, shows nothing and exits 0", err)
	case err != nil && err.Error() == "option '--hop-count' requires an argument" && !slices.Contains(words, "--hop-count"):
		return nil, fmt.Errorf("-h requires an argument up to 2.15 (route show's short options \"n:g:h:p:v\"): lnetctl prints it and the usage, shows nothing and exits 0")
	case err != nil:
		return ParseShowCommand(cmd) // the same refusal in every release
	case slices.Contains(parsed.shorts, "hop-count"):
		return nil, fmt.Errorf("-h: lnetctl up to 2.15 gives it a value (route show's short options \"n:g:h:p:v\") but has no case for it: it returns before showing anything and exits 0")
	}
	return ParseShowCommand(cmd)
}

// filters reads the filter options: nets and NIDs as lnetctl parses them (one NID each),
// hop and priority as numbers (lnetctl ignores a bad one silently; lnetsim refuses it).
func (c *ShowCommand) filters(args map[string]string) error {
	if v, ok := args["net"]; ok {
		net, _, err := ParseNet(v)
		if err != nil {
			return fmt.Errorf("cannot parse net %s: %v", v, err)
		}
		c.Net = net
	}
	for _, k := range []string{"nid", "gateway"} {
		v, ok := args[k]
		if !ok {
			continue
		}
		nid, err := ParseNID(v)
		if err != nil {
			return fmt.Errorf("--%s takes one NID: %v", k, err)
		}
		if k == "nid" {
			c.NID = nid.String()
		} else {
			c.Gateway = nid.String()
		}
	}
	for _, k := range []string{"hop", "priority"} {
		v, ok := args[k]
		if !ok {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < -1 {
			return fmt.Errorf("--%s %q: give a number (-1: any; lnetctl would ignore it silently)", k, v)
		}
		if k == "hop" {
			c.Hop = n
		} else {
			c.Priority = n
		}
	}
	return nil
}

// showUsage is the hint for a refused show command: its options.
func showUsage(cmd string) string {
	words, _ := splitWords(cmd)
	words = trimLnetctl(words)
	switch words[0] {
	case "net":
		return "lnetctl net show [-v [0-4]] [--net NET]"
	case "peer":
		return "lnetctl peer show [-v [0-4]] [--nid NID]"
	}
	return "lnetctl route show [-v] [--net NET] [--gateway NID] [--hop N] [--priority N]"
}

// udspShowSpec is lnetctl udsp show's one option (jt_show_udsp, "i:"), 2.15 and later.
var udspShowSpec = &cmdSpec{verb: "udsp show", opts: []cmdOpt{opt('i', "idx")}}

// IsUDSPShow reports whether cmd is an `lnetctl udsp show`, with or without options
// (ParseUDSPShow reads it).
func IsUDSPShow(cmd string) bool {
	words, err := splitWords(cmd)
	if err != nil {
		return false
	}
	words = trimLnetctl(words)
	return len(words) >= 2 && words[0] == "udsp" && words[1] == "show"
}

// ParseUDSPShow reads `udsp show [--idx|-i N]` as jt_show_udsp of a node of profile prof
// does, returning the index (-1: every policy). lustre_lnet_show_udsp then asks the kernel for
// the policy at that place in the list (lnet_udsp_get_policy), which finds none below 0 or
// past the end: ENOENT, which lnetctl shows as nothing (exit 0). From 2.16 (LU-16574,
// 9e6c0915bb) lnetctl refuses an index below -1 or not a number ("Invalid index", -EINVAL),
// refused here in its words; up to 2.15 (LegacyUDSPDel, the same commit's other half) it
// reads the index with atoi, so a word that is not a number (0 to atoi) is refused here, and
// an index below -1 shows nothing.
func ParseUDSPShow(cmd string, prof lnet.Profile) (int, error) {
	words, err := splitWords(cmd)
	if err != nil {
		return 0, err
	}
	words = trimLnetctl(words)
	if len(words) == 3 && (words[2] == "-h" || words[2] == "--help") {
		return 0, fmt.Errorf("udsp show %s: lnetctl prints the command's usage and exits 1 (check_cmd): nothing to compare", words[2])
	}
	c, err := udspShowSpec.parse(words[2:])
	var ua *unexpectedArgError
	switch {
	case errors.As(err, &ua):
		return 0, fmt.Errorf("udsp show: %v: lnetctl ignores it", err)
	case err != nil:
		return 0, fmt.Errorf("udsp show: %v", err)
	}
	v, ok := c.Args["idx"]
	if !ok {
		return -1, nil
	}
	n, err := strconv.Atoi(v)
	switch {
	case err != nil && prof.LegacyUDSPDel:
		return 0, fmt.Errorf("udsp show: --idx %q is not a number: lnetctl up to 2.15 reads it with atoi (a word is 0)", v)
	case err != nil || (n < -1 && !prof.LegacyUDSPDel):
		return 0, fmt.Errorf("udsp show: Invalid index \"%s\"", v)
	}
	return n, nil
}
