package scenarios

import (
	"fmt"
	"strconv"
	"strings"
)

// The lnetctl commands a timeline can run, with lnetctl's verbs and option names
// (lnet/utils/lnetctl.c) and liblnetconfig's checks (lnet/utils/lnetconfig/liblnetconfig.c):
// what those refuse is refused here at load; what the kernel refuses is recorded when the
// command runs.
func init() {
	for _, s := range []*cmdSpec{
		{verb: "route add", opts: []cmdOpt{opt('n', "net"), opt('g', "gateway"), opt('c', "hop", "hop-count"), opt('p', "priority")},
			check: checkRouteAdd, undo: "route del"},
		{verb: "route del", opts: []cmdOpt{opt('n', "net"), opt('g', "gateway")}, check: checkRoute},
	} {
		registerCommand(s)
	}
}

// cmdNIDs expands a NID list argument (NIDs, NID ranges, or lnetsim's NI references).
func (r *resolver) cmdNIDs(p, s string) []string {
	nids, err := expandNIDList(s, func(ref string) (string, error) {
		m, i, err := r.s.ResolveNI(ref)
		if err != nil {
			return "", fmt.Errorf("%q is neither a NID nor an NI of the scenario", ref)
		}
		return m.NIs[i].NID.String(), nil
	})
	if err != nil {
		r.errorAt(p, "a NID (10.0.0.5@o2ib), a range (10.0.0.[2-6]@o2ib), a list, or node:index", "%v", err)
	}
	return nids
}

// cmdNet reads a --net argument.
func (r *resolver) cmdNet(p string, c *Command, what string) {
	v, ok := c.Args["net"]
	if !ok {
		return
	}
	net, _, err := ParseNet(v)
	if err != nil {
		r.errorAt(p, "", "%s: cannot parse %snet %s: %v", c.Verb, what, v, err)
		return
	}
	c.Net = net
}

// cmdInt reads an integer option; it reports false when the option is absent or bad.
func (r *resolver) cmdInt(p string, c *Command, name string, v *int) bool {
	s, ok := c.Args[name]
	if !ok {
		return false
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		// lnetctl ignores an option whose value is not a number, silently: a typo would
		// change what the command does, so lnetsim refuses it.
		r.errorAt(p, "lnetctl would ignore the option silently", "%s: --%s %q is not a number", c.Verb, name, s)
		return false
	}
	*v = n
	return true
}

// missing reports lnetctl's "missing mandatory parameter" for the options not given.
func (r *resolver) missing(p string, c *Command, opts ...string) bool {
	var miss []string
	for _, o := range opts {
		if _, ok := c.Args[o]; !ok {
			miss = append(miss, "--"+o)
		}
	}
	if len(miss) > 0 {
		r.errorAt(p, "", "%s: missing mandatory parameter: %s", c.Verb, strings.Join(miss, ", "))
		return true
	}
	return false
}

// checkRoute checks what route add and del share (lustre_lnet_route_common): --net and
// --gateway are required; the gateway list expands as lustre_lnet_parse_nidstr does.
func checkRoute(r *resolver, p string, c *Command) {
	if r.missing(p, c, "net", "gateway") {
		return
	}
	r.cmdNet(p, c, "remote ")
	c.NIDs = r.cmdNIDs(p, c.Args["gateway"])
}

// checkRouteAdd: lustre_lnet_config_route's hop (1..255, default undefined) and priority
// (default 0) checks.
// -1 means the default for both.
func checkRouteAdd(r *resolver, p string, c *Command) {
	checkRoute(r, p, c)
	c.Hop, c.Priority = -1, 0
	if r.cmdInt(p, c, "hop", &c.Hop) && c.Hop != -1 && (c.Hop < 1 || c.Hop > 255) {
		r.errorAt(p, "", "route add: invalid hop count %d, must be between 1 and 255", c.Hop)
	}
	if r.cmdInt(p, c, "priority", &c.Priority) && c.Priority == -1 {
		c.Priority = 0
	} else if c.Priority < 0 {
		r.errorAt(p, "", "route add: invalid priority %d, must be greater than 0", c.Priority)
	}
}
