package runner

// counters returns each node's counters in the shapes `lnetctl stats show`, `lnetctl net
// show -v` and `lnetctl peer show -v` print (yaml.v3 writes map keys sorted).
func counters(c *cluster) map[string]any {
	out := map[string]any{}
	for _, n := range c.nodes {
		var nis []any
		for _, ni := range n.ln.NIs() {
			avail, max, min := ni.TxCredits()
			nis = append(nis, map[string]any{
				"nid":          ni.NID().String(),
				"status":       ni.Status().String(),
				"statistics":   ni.Stats(),
				"health stats": map[string]any{"health value": ni.Health(), "counters": ni.HealthStats()},
				"tx credits":   map[string]int{"available": avail, "max": max, "min": min},
			})
		}
		var peers []any
		for _, p := range n.ln.Peers() {
			var lpnis []any
			for _, lpni := range p.NIs() {
				avail, max, min := lpni.TxCredits()
				lpnis = append(lpnis, map[string]any{
					"nid":          lpni.NID().String(),
					"state":        lpni.Status().String(),
					"statistics":   lpni.Stats(),
					"health stats": map[string]any{"health value": lpni.Health(), "counters": lpni.HealthStats()},
					"tx credits":   map[string]int{"available": avail, "max": max, "min": min},
				})
			}
			peers = append(peers, map[string]any{"primary nid": p.Primary().String(), "Multi-Rail": p.MultiRail(), "peer ni": lpnis})
		}
		out[n.name] = map[string]any{"statistics": n.ln.Stats(), "net": nis, "peer": peers}
	}
	return out
}
