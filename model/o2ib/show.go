package o2ib

import "github.com/lnetsim/lnetsim/model/lnet"

// TunablesShow is an o2ib NI's `lnd tunables:` block as `lnetctl net show -v` prints it
// (liblnetconfig's o2ib printer; 2.16 adds timeout and tos: WithoutTimeoutTOS).
type TunablesShow struct {
	PeerCreditsHiw  int  `yaml:"peercredits_hiw"`
	MapOnDemand     any  `yaml:"map_on_demand"` // the number; a boolean as the Netlink dump prints it (Netlink)
	ConcurrentSends int  `yaml:"concurrent_sends"`
	FMRPoolSize     int  `yaml:"fmr_pool_size"`
	FMRFlushTrigger int  `yaml:"fmr_flush_trigger"`
	FMRCache        int  `yaml:"fmr_cache"`
	NTX             int  `yaml:"ntx"`
	ConnsPerPeer    int  `yaml:"conns_per_peer"`
	Timeout         *int `yaml:"timeout,omitempty"` // nil in a backup export from 2.17 (WithoutTimeout)
	TOS             *int `yaml:"tos,omitempty"`     // nil up to 2.15 (WithoutTimeoutTOS)
}

// ShowTunables returns ni's tunables as kiblnd_tunables_setup settled them (peercredits_hiw
// and concurrent_sends clamped), conns_per_peer as `net set` last changed it, and a timeout
// of 0 shown as the lnd_timeout the NI then uses (as the kernel shows it); false when
// o2iblnd does not run ni.
func (l *LND) ShowTunables(ni *lnet.NI) (TunablesShow, bool) {
	n, _ := ni.LNDData.(*kibNet)
	if n == nil || n.l != l {
		return TunablesShow{}, false
	}
	t := n.tun
	timeout := t.Timeout
	if timeout == 0 {
		timeout = int(ni.LNDTimeout().WholeSeconds())
	}
	return TunablesShow{PeerCreditsHiw: t.hiw, MapOnDemand: t.MapOnDemand, ConcurrentSends: t.concurrentSends,
		FMRPoolSize: t.FMRPoolSize, FMRFlushTrigger: t.FMRFlushTrigger, FMRCache: t.FMRCache, NTX: t.NTx,
		ConnsPerPeer: t.ConnsPerPeer, Timeout: &timeout, TOS: &t.TOS}, true
}

// WithoutTimeoutTOS is the block as lnetctl up to 2.15 prints it (liblnetconfig's ioctl
// printer, lustre_o2iblnd_show_tun): without timeout and tos.
func (t TunablesShow) WithoutTimeoutTOS() any {
	t.Timeout, t.TOS = nil, nil
	return t
}

// Netlink is the block as the Netlink dump prints it (kiblnd_nl_get, from 2.16), where
// map_on_demand is a flag lnetctl prints true or false: true when the NI's map_on_demand is
// not 0 with asSet (2.16), always true without it (LU-19179, from 2.17, reports it set
// whatever was configured).
func (t TunablesShow) Netlink(asSet bool) any {
	v, _ := t.MapOnDemand.(int)
	t.MapOnDemand = !asSet || v != 0
	return t
}

// WithoutTimeout is the block as `lnetctl export --backup` writes it from 2.17 (LU-19194,
// kiblnd_nl_get): without the timeout, which is read-only.
func (t TunablesShow) WithoutTimeout() any {
	t.Timeout = nil
	return t
}
