package scenarios

import (
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// releases resolves each group's release (nodes.G.release, else lnet.release, else master),
// refusing an unknown one at the key that names it.
func (r *resolver) releases() {
	r.rel = map[string]lnet.Release{}
	global := r.lookupRelease("lnet.release", r.s.LNet.Release)
	for _, g := range r.groups {
		rel := global
		if name := r.s.Nodes[g].Release; name != "" {
			rel = r.lookupRelease(join("nodes", g)+".release", name)
		}
		r.rel[g] = rel
	}
}

// lookupRelease returns the release named at path (master when name is empty or unknown,
// the latter reported).
func (r *resolver) lookupRelease(path, name string) lnet.Release {
	if name == "" {
		name = lnet.DefaultRelease
	}
	rel, err := lnet.LookupRelease(name)
	if err != nil {
		r.errorAt(path, "known releases: "+strings.Join(lnet.KnownReleases(), ", "), "unknown release %q", name)
		rel, _ = lnet.LookupRelease(lnet.DefaultRelease)
	}
	return rel
}

// releaseGlobals gives group g's globals its release's defaults where neither lnet nor the
// group's lnetctl global section wrote the tunable (lp: that section's path), then applies
// the kernel's rule that health_sensitivity 0 means no retries.
func (r *resolver) releaseGlobals(g, lp string, glob *Globals) {
	rel := r.rel[g]
	glob.Release = ""
	if rel.Name == lnet.DefaultRelease {
		return
	}
	glob.Release = rel.Name
	unset := func(f string) bool { return !r.d.has(join("lnet", f)) && !r.d.has(join(lp, f)) }
	d := rel.Defaults
	if unset("transaction_timeout") {
		glob.TransactionTimeout = sim.Time(d.TransactionTimeout) * sim.Second
	}
	if unset("health_sensitivity") {
		glob.HealthSensitivity = d.HealthSensitivity
	}
	if unset("retry_count") {
		glob.RetryCount = d.RetryCount
		if glob.HealthSensitivity == 0 {
			glob.RetryCount = 0
		}
	}
}

// releaseO2IB gives an NI of group g its release's ko2iblnd timeout default unless the
// o2ib section of its net (key) or the NI itself wrote one.
func (r *resolver) releaseO2IB(g, key string, ni *NISpec) {
	if r.rel[g].Name == lnet.DefaultRelease || r.d.has(join("o2ib", key)+".timeout") ||
		ni.lndPath != "" && r.d.has(ni.lndPath+".timeout") {
		return
	}
	ni.LND.Timeout = sim.Time(r.rel[g].Defaults.O2IBTimeout) * sim.Second
}
