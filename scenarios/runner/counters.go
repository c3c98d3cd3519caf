package runner

import (
	"strconv"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// counters returns each node's state in the shapes lnetctl prints: `lnetctl stats show`
// (statistics), `lnetctl net show -v` (net), `lnetctl peer show -v` (peer), `lnetctl
// global show` (global), on a router `lnetctl routing show` (routing) and on a node with
// rules `lnetctl udsp show` (udsp), as model/lnet
// renders them (yaml.v3 writes map keys sorted).
func counters(c *cluster) map[string]any {
	out := map[string]any{}
	for _, n := range c.nodes {
		m := map[string]any{
			"statistics": n.ln.Stats(),
			"net":        n.ln.ShowNets(),
			"peer":       n.ln.ShowPeers(),
			"global":     n.ln.ShowGlobal(),
		}
		if r := routing(n.ln); r != nil {
			m["routing"] = r
		}
		if u := n.ln.UDSPs(); len(u) > 0 {
			m["udsp"] = u
		}
		out[n.name] = m
	}
	return out
}

// routing renders a router's `lnetctl routing show` (the buffer pools of each CPT and
// enable), plus the routing counters lnetctl has no name for (forwarded, expired by the
// opt-in expiry policy, dropped otherwise); nil on a node that never enabled routing.
func routing(ln *lnet.Node) map[string]any {
	cpts := ln.RouterPoolsCPT()
	if cpts == nil {
		return nil
	}
	enable := 0
	if ln.Routing() {
		enable = 1
	}
	st := ln.RouterStats()
	out := map[string]any{
		"enable":    enable,
		"forwarded": st.Forwarded,
		"expired":   st.Expired,
		"dropped":   st.Dropped,
	}
	for c, pools := range cpts {
		cpt := map[string]any{}
		for i, name := range []string{"tiny", "small", "large"} {
			if i < len(pools) {
				cpt[name] = pools[i]
			}
		}
		out["cpt["+strconv.Itoa(c)+"]"] = cpt
	}
	return out
}

// routerCounter reads a router counter lnetctl has no name for (stats checks):
// router_expired_count (RouterStats.Expired, the opt-in expiry policy's drops) and
// router_dropped_count (RouterStats.Dropped).
func routerCounter(s lnet.RouterStats, name string) (int64, bool) {
	switch name {
	case "router_expired_count":
		return int64(s.Expired), true
	case "router_dropped_count":
		return int64(s.Dropped), true
	}
	return 0, false
}
