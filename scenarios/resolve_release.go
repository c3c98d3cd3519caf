package scenarios

import (
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/model/o2ib"
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

// o2iblnd's rules per release (o2ib.Profile: each field names its boundary and ticket).
// 2.12.9 has none of 2.14's and 2.16's changes but LU-14536's backport; 2.12.7 and 2.12.8
// reconnect on "no listener" at most retry_count times (LU-13972), earlier releases as
// long as txs wait; 2.12.0-2.12.2 return credits at peer_credits_hiw whatever the queue
// depth (LU-12569 in 2.12.3); 2.15 lacks only 2.16's (LU-17480, LU-16184, LU-15828);
// 2.16 on are master.
var (
	o2ib2129 = o2ib.Profile{LocalConnFailureStatus: true, RefusedLocalDropped: true,
		NoConnreqTimeout: true, WaitingTxStaleDeadline: true, CreditsHighwaterMin: true}
	o2ib2127 = withNoListenerReconnect(o2ib2129, false)
	o2ib2123 = withNoListenerReconnect(o2ib2129, true)
	o2ib2120 = withCreditsHighwaterFixed(o2ib2123)
	o2ib215  = o2ib.Profile{NoConnreqTimeout: true, WaitingTxStaleDeadline: true, CreditsHighwaterMin: true}
)

func withNoListenerReconnect(p o2ib.Profile, unlimited bool) o2ib.Profile {
	p.NoListenerReconnect, p.NoListenerUnlimited = true, unlimited
	return p
}

func withCreditsHighwaterFixed(p o2ib.Profile) o2ib.Profile {
	p.CreditsHighwaterFixed = true
	return p
}

// O2IBProfile returns the o2iblnd rules of a release as lnet.LookupRelease names it ("" or
// an unknown name: master's, the zero Profile).
func O2IBProfile(release string) o2ib.Profile {
	switch release {
	case "2.12.0", "2.12.1", "2.12.2":
		return o2ib2120
	case "2.12.3", "2.12.4", "2.12.5", "2.12.6":
		return o2ib2123
	case "2.12.7", "2.12.8":
		return o2ib2127
	case "2.12.9", "2.12":
		return o2ib2129
	case "2.15":
		return o2ib215
	}
	return o2ib.Profile{}
}
