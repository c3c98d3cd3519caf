package scenarios

import (
	"fmt"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/model/o2ib"
	"github.com/lnetsim/lnetsim/model/socklnd"
	"github.com/lnetsim/lnetsim/sim"
)

// releaseFromExport is the group release value that takes the release from the group's
// lnetctl export (exportRelease).
const releaseFromExport = "export"

// releases resolves each group's release (nodes.G.release, else lnet.release, else master),
// refusing an unknown one at the key that names it; a group's `export` takes it from the
// group's lnetctl export.
func (r *resolver) releases() {
	r.rel = map[string]lnet.Release{}
	global := r.lookupRelease("lnet.release", r.s.LNet.Release)
	for _, g := range r.groups {
		rel := global
		path := join("nodes", g) + ".release"
		switch name := r.s.Nodes[g].Release; name {
		case "":
		case releaseFromExport:
			rel = r.exportRelease(path, g)
		default:
			rel = r.lookupRelease(path, name)
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
	switch {
	case err == nil:
	case name == releaseFromExport:
		r.errorAt(path, "write `release: export` in a group with an lnetctl export (nodes.NAME.release), or name a release", "release %q: only a node group can take its release from its lnetctl export", name)
	default:
		r.errorAt(path, "known releases: "+strings.Join(lnet.KnownReleases(), ", "), "unknown release %q", name)
	}
	if err != nil {
		rel, _ = lnet.LookupRelease(lnet.DefaultRelease)
	}
	return rel
}

// exportRelease is group g's release as its lnetctl export shows it (exportReleaseName);
// an export that does not show it is refused at path, naming what it does show.
func (r *resolver) exportRelease(path, g string) lnet.Release {
	name, why := exportReleaseName(r.d, join("nodes", g)+".lnetctl", r.s.Nodes[g].Lnetctl)
	if name == "" {
		r.errorAt(path, "name the release (known: "+strings.Join(lnet.KnownReleases(), ", ")+")", "%s: %s", releaseFromExport, why)
		name = lnet.DefaultRelease
	}
	rel, _ := lnet.LookupRelease(name)
	return rel
}

// exportReleaseName infers the release that printed an lnetctl export (at path lp) from what
// only some releases print, taking only what is certain among the known releases: o2ib
// tunables inside an NI's or net's `tunables:` are printed by 2.11 and 2.12 only, so 2.12
// (2.12.9: the 2.12.x defaults are not in the export); `global: max_recovery_ping_interval`
// by 2.16 on, which 2.17 and master print alike, so nothing; `global: health_sensitivity`
// or a route's `health_sensitivity` by 2.13 on, so (without the former) 2.15; a `global:`
// section without them by 2.12 (2.10 prints none). Otherwise, or for 2.16 on, it returns ""
// and why.
func exportReleaseName(d *decoder, lp string, e *LnetctlExport) (name, why string) {
	if e == nil {
		return "", "the group has no lnetctl export"
	}
	for _, n := range e.Net {
		if n.Tunables != nil && n.Tunables.LND != nil {
			return "2.12", ""
		}
		for _, ni := range n.LocalNIs {
			if ni.Tunables != nil && ni.Tunables.LND != nil {
				return "2.12", ""
			}
		}
	}
	gp := lp + ".global"
	routeSens := false
	for i := range e.Route {
		routeSens = routeSens || d.has(fmt.Sprintf("%s.route[%d].health_sensitivity", lp, i))
	}
	switch {
	case d.has(gp + ".max_recovery_ping_interval"):
		return "", "its global max_recovery_ping_interval says 2.16 or later, and 2.16, 2.17 and master print the same keys"
	case d.has(gp+".health_sensitivity") || routeSens:
		return "2.15", ""
	case e.Global != nil && d.has(gp):
		return "2.12", ""
	}
	return "", "it has no global section and no o2ib keys inside tunables:, which is all that tells releases apart"
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
	if unset("max_interfaces") && unset("max_intf") {
		glob.MaxInterfaces = rel.Profile.MaxInterfacesDefault()
	}
	if unset("retry_count") {
		glob.RetryCount = d.RetryCount
		if glob.HealthSensitivity == 0 {
			glob.RetryCount = 0
		}
	} else if glob.HealthSensitivity == 0 && glob.RetryCount > 0 && unset("health_sensitivity") {
		// A retry_count written for a release whose health_sensitivity default is 0: the
		// kernel's retry_count setter refuses it, as globals does when both are written.
		at := join("lnet", "retry_count")
		if r.d.has(join(lp, "retry_count")) {
			at = join(lp, "retry_count")
		}
		r.errorAt(at, "set health_sensitivity (e.g. 100) or retry_count: 0",
			"retry_count %d needs health_sensitivity > 0, and release %s defaults health_sensitivity to 0", glob.RetryCount, rel.Name)
	}
	// The kernel requires retry_count <= transaction_timeout; globals checks it when both are
	// written, this when the release's default supplies one of them.
	if tt := glob.TransactionTimeout.WholeSeconds(); glob.TransactionTimeout > 0 && int64(glob.RetryCount) > tt &&
		unset("transaction_timeout") != unset("retry_count") {
		f := "transaction_timeout"
		if unset(f) {
			f = "retry_count"
		}
		at := join("lnet", f)
		if r.d.has(join(lp, f)) {
			at = join(lp, f)
		}
		r.errorAt(at, "the kernel requires retry_count <= transaction_timeout",
			"retry_count %d is greater than transaction_timeout (%s) with release %s's default for the other", glob.RetryCount, glob.TransactionTimeout, rel.Name)
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
// long as txs wait; 2.12 copies an IMMEDIATE's payload (LU-14008 maps it from 2.15);
// 2.12.0-2.12.2 return credits at peer_credits_hiw whatever the queue
// depth (LU-12569 in 2.12.3); 2.15 lacks only 2.16's (LU-17480, LU-16184, LU-15828);
// 2.16 on are master.
var (
	o2ib2129 = o2ib.Profile{LocalConnFailureStatus: true, RefusedLocalDropped: true,
		NoConnreqTimeout: true, WaitingTxStaleDeadline: true, CreditsHighwaterMin: true,
		ImmediatePayloadCopied: true}
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

// SockLNDProfile returns the ksocklnd rules of a release as lnet.LookupRelease names it (""
// or an unknown name: master's, the zero Profile).
func SockLNDProfile(release string) socklnd.Profile {
	switch {
	case release == "2.12" || strings.HasPrefix(release, "2.12."):
		// as 2.15, and before LU-13783 (2.14.51)
		return socklnd.Profile{TimeoutLocalStatus: true, AcceptAnyAddress: true, NoAcceptPortBulk: true, NoStartupLinkState: true, BindReuseAddr: true}
	case release == "2.15":
		// before LU-17505 and LU-16836 (2.16), LU-18812 and LU-19139 (2.17)
		return socklnd.Profile{TimeoutLocalStatus: true, AcceptAnyAddress: true, NoAcceptPortBulk: true, NoStartupLinkState: true}
	case release == "2.16":
		return socklnd.Profile{AcceptAnyAddress: true, NoAcceptPortBulk: true} // before LU-18812 and LU-19139
	}
	return socklnd.Profile{}
}
