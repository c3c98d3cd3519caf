package runner

import (
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/scenarios"
)

// lnetUser reports whether a node runs a workload (sends or serves one): such a user holds
// its own reference on LNet (LNetNIInit), as Lustre and lnet_selftest do.
func (c *cluster) lnetUser(n *node) bool {
	for i := range c.s.Workload {
		w := &c.s.Workload[i]
		for _, m := range c.members(append(append([]string{}, w.From...), w.To...)) {
			if m == n {
				return true
			}
		}
	}
	return false
}

// lnetUnconfigure is lnetctl lnet unconfigure (lnet_unconfigure): lnetctl drops its own
// reference on LNet; LNet stops (LNetNIFini: every NI shut down, o2iblnd closing its
// connections and, its last net on a device gone, its listener) only when no other user
// holds one. A node running a workload holds one, so there the command fails with EBUSY and
// LNet keeps running, as in the kernel. The HCA stays up: peers connecting find no listener.
// With undo (for:) it is lnet configure.
func lnetUnconfigure(f *faultState, n *node, c *scenarios.Command, undo bool) (int, string) {
	if undo {
		return lnetConfigure(f, n, c, false)
	}
	if f.c.lnetUser(n) {
		return lnet.EBUSY, "a workload uses LNet on this node"
	}
	if n.unconfigured {
		return 0, "already unconfigured"
	}
	n.ln.Shutdown()
	n.unconfigured = true
	return 0, ""
}

// lnetConfigure is lnetctl lnet configure (lnet_configure, LNetNIInit): on a node whose LNet
// was unconfigured, a new LNet instance starts with the node's configuration (its NIs as the
// module parameters name them, its routes, peers and policies, as an import would restore
// them); on a running one it does nothing.
func lnetConfigure(f *faultState, n *node, _ *scenarios.Command, _ bool) (int, string) {
	if !n.unconfigured {
		return 0, "already configured"
	}
	c := f.c
	fresh, err := c.newLNet(&c.s.Members[n.idx])
	if err == nil {
		n.ln = fresh
		err = c.start(n)
	}
	if err != nil {
		return lnet.EINVAL, err.Error()
	}
	n.unconfigured = false
	return 0, ""
}
