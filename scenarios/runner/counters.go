package runner

// counters returns each node's state in the shapes lnetctl prints: `lnetctl stats show`
// (statistics), `lnetctl net show -v` (net), `lnetctl peer show -v` (peer) and `lnetctl
// global show` (global), as model/lnet renders them (yaml.v3 writes map keys sorted).
func counters(c *cluster) map[string]any {
	out := map[string]any{}
	for _, n := range c.nodes {
		out[n.name] = map[string]any{
			"statistics": n.ln.Stats(),
			"net":        n.ln.ShowNets(),
			"peer":       n.ln.ShowPeers(),
			"global":     n.ln.ShowGlobal(),
		}
	}
	return out
}
