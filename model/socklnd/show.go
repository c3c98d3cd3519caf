package socklnd

import "github.com/lnetsim/lnetsim/model/lnet"

// TunablesShow is a tcp NI's `lnd tunables:` block as `lnetctl net show -v` prints it
// (liblnetconfig's lustre_socklnd_show_tun: conns_per_peer, timeout, tos).
type TunablesShow struct {
	ConnsPerPeer int  `yaml:"conns_per_peer"`
	Timeout      *int `yaml:"timeout,omitempty"` // nil in a backup export from 2.17 (WithoutTimeout)
	TOS          *int `yaml:"tos,omitempty"`     // nil up to 2.15 (WithoutTimeoutTOS)
}

// ShowTunables returns ni's tunables as socklnd settled them: conns_per_peer resolved from
// the link speed when 0 (ksocknal_startup), the timeout ksocknal_timeout gives (sock_timeout,
// or lnd_timeout when 0) and tos; false when socklnd does not run ni.
func (l *LND) ShowTunables(ni *lnet.NI) (TunablesShow, bool) {
	n, _ := ni.LNDData.(*ksockNet)
	if n == nil || n.l != l {
		return TunablesShow{}, false
	}
	timeout := int(n.timeout().WholeSeconds())
	tos := n.tun.TOS
	return TunablesShow{ConnsPerPeer: n.tun.connsPerPeer, Timeout: &timeout, TOS: &tos}, true
}

// WithoutTimeoutTOS is the block as lnetctl up to 2.15 prints it (liblnetconfig's ioctl
// printer, lustre_socklnd_show_tun): conns_per_peer only.
func (t TunablesShow) WithoutTimeoutTOS() any {
	t.Timeout, t.TOS = nil, nil
	return t
}

// WithoutTimeout is the block as `lnetctl export --backup` writes it from 2.17 (LU-19194,
// ksocknal_nl_get): without the timeout, which is read-only.
func (t TunablesShow) WithoutTimeout() any {
	t.Timeout = nil
	return t
}
