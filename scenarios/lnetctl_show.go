package scenarios

import (
	"errors"
	"fmt"
	"strconv"
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
