package socklnd

import "github.com/lnetsim/lnetsim/model/lnet"

// TunablesShow is a tcp NI's `lnd tunables:` block as `lnetctl net show -v` prints it
// (liblnetconfig's lustre_socklnd_show_tun: conns_per_peer, timeout, tos).
type TunablesShow struct {
	ConnsPerPeer int `yaml:"conns_per_peer"`
	Timeout      int `yaml:"timeout"`
	TOS          int `yaml:"tos"`
}

// ShowTunables returns ni's tunables as socklnd settled them: conns_per_peer resolved from
// the link speed when 0 (ksocknal_startup), the timeout ksocknal_timeout gives (sock_timeout,
// or lnd_timeout when 0) and tos; false when socklnd does not run ni.
func (l *LND) ShowTunables(ni *lnet.NI) (TunablesShow, bool) {
	n, _ := ni.LNDData.(*ksockNet)
	if n == nil || n.l != l {
		return TunablesShow{}, false
	}
	return TunablesShow{ConnsPerPeer: n.tun.connsPerPeer, Timeout: int(n.timeout().WholeSeconds()), TOS: n.tun.TOS}, true
}
