package socklnd

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/lnetsim/lnetsim/sim"
)

// Params are socklnd's module parameters (socklnd_modparams.c) under the kernel's names, with
// its defaults from DefaultParams. As for o2ib they are set per net; the kernel has one set per
// module. credits, peer_credits, peer_buffer_credits and peer_timeout are only the defaults of
// the net's LNet tunables (ksocknal_tunables_setup fills what lnetctl left unset). Times are
// whole seconds or milliseconds, as the kernel has them.
type Params struct {
	SockTimeout       int `yaml:"sock_timeout"`        // s, dead socket timeout (0: LNet's lnd_timeout)
	Credits           int `yaml:"credits"`             // concurrent sends per NI (LNet's credits)
	PeerCredits       int `yaml:"peer_credits"`        // concurrent sends to one peer
	PeerBufferCredits int `yaml:"peer_buffer_credits"` // router buffer credits per peer
	PeerTimeout       int `yaml:"peer_timeout"`        // s, router peer aliveness
	NScheds           int `yaml:"nscheds"`             // stored; the model has no scheduler threads
	NConnds           int `yaml:"nconnds"`             // connection daemons at start
	NConndsMax        int `yaml:"nconnds_max"`         // stored, unused
	MinReconnectms    int `yaml:"min_reconnectms"`     // ms, first reconnect interval
	MaxReconnectms    int `yaml:"max_reconnectms"`     // ms, reconnect interval cap
	EagerAck          int `yaml:"eager_ack"`           // stored; TCP ACK timing is model/tcp's
	TypedConns        int `yaml:"typed_conns"`         // 1: CONTROL, BULK_IN, BULK_OUT sockets; 0: one ANY
	MinBulk           int `yaml:"min_bulk"`            // bytes, smallest message sent on a bulk socket
	TxBufferSize      int `yaml:"tx_buffer_size"`      // bytes, socket send buffer (0: system default)
	RxBufferSize      int `yaml:"rx_buffer_size"`      // bytes, socket receive buffer (0: system default)
	Nagle             int `yaml:"nagle"`               // 1: leave Nagle on (0 sets TCP_NODELAY)
	RoundRobin        int `yaml:"round_robin"`         // tie-break equally loaded conns by last post
	Keepalive         int `yaml:"keepalive"`           // s idle before a keepalive NOOP (V3+; 0: off)
	KeepaliveIdle     int `yaml:"keepalive_idle"`      // s, TCP_KEEPIDLE
	KeepaliveCount    int `yaml:"keepalive_count"`     // TCP_KEEPCNT
	KeepaliveIntvl    int `yaml:"keepalive_intvl"`     // s, TCP_KEEPINTVL
	EnableCsum        int `yaml:"enable_csum"`         // stored, unused (no checksums in the model)
	NonblkZcack       int `yaml:"nonblk_zcack"`        // ZC-ACKs go on the BULK_IN (ACK) socket
	ZcMinPayload      int `yaml:"zc_min_payload"`      // bytes, smallest payload sent zero-copy
	ZcRecv            int `yaml:"zc_recv"`             // stored, unused
	ZcRecvMinNfrags   int `yaml:"zc_recv_min_nfrags"`  // stored, unused
	ConnsPerPeer      int `yaml:"conns_per_peer"`      // bulk sockets per type (0: from link speed)
	TOS               int `yaml:"tos"`                 // stored, unused (-1: off)
}

// DefaultParams returns the kernel's defaults (master: socklnd_modparams.c, lib-lnet.h).
func DefaultParams() Params {
	return Params{
		SockTimeout:       50,
		Credits:           256,
		PeerCredits:       8,
		PeerBufferCredits: 0,
		PeerTimeout:       180,
		NScheds:           0,
		NConnds:           4,
		NConndsMax:        64,
		MinReconnectms:    1000,
		MaxReconnectms:    60000,
		EagerAck:          0,
		TypedConns:        1,
		MinBulk:           1 << 10,
		TxBufferSize:      0,
		RxBufferSize:      0,
		Nagle:             0,
		RoundRobin:        1,
		Keepalive:         30,
		KeepaliveIdle:     30,
		KeepaliveCount:    5,
		KeepaliveIntvl:    5,
		EnableCsum:        0,
		NonblkZcack:       1,
		ZcMinPayload:      16 << 10,
		ZcRecv:            0,
		ZcRecvMinNfrags:   16,
		ConnsPerPeer:      0,
		TOS:               -1,
	}
}

// Kernel limits.
const (
	minZcPayload     = 2 << 10 // ksocknal_tunables_init raises zc_min_payload to 2 KiB
	connCountMaxBits = 8       // SOCKNAL_CONN_COUNT_MAX_BITS: conns_per_peer is capped at 255
	// MaxRetries is SOCKNAL_MAX_RETRIES: lost races before a conn cb stops asking for more.
	MaxRetries = 3
)

// Validate reports parameters the kernel would refuse to load with.
func (p *Params) Validate() error {
	var errs []error
	bad := func(f string, a ...any) { errs = append(errs, fmt.Errorf(f, a...)) }
	if p.SockTimeout < 0 {
		bad("sock_timeout must be >= 0 (got %d)", p.SockTimeout)
	}
	if p.Credits < 1 {
		bad("credits must be >= 1 (got %d)", p.Credits)
	}
	if p.PeerCredits < 1 {
		bad("peer_credits must be >= 1 (got %d)", p.PeerCredits)
	}
	if p.MinReconnectms < 1000 {
		// The kernel keeps the interval in whole seconds (min_reconnectms/1000): below 1000 it
		// would be 0, which ksocknal_connect asserts against.
		bad("min_reconnectms must be >= 1000 (got %d)", p.MinReconnectms)
	}
	if p.MaxReconnectms < p.MinReconnectms {
		bad("max_reconnectms must be >= min_reconnectms (got %d < %d)", p.MaxReconnectms, p.MinReconnectms)
	}
	if p.TypedConns != 0 && p.TypedConns != 1 {
		bad("typed_conns must be 0 or 1 (got %d)", p.TypedConns)
	}
	if p.MinBulk < 0 || p.ZcMinPayload < 0 || p.TxBufferSize < 0 || p.RxBufferSize < 0 {
		bad("min_bulk, zc_min_payload, tx_buffer_size and rx_buffer_size must be >= 0")
	}
	if p.ConnsPerPeer < 0 {
		bad("conns_per_peer must be >= 0 (got %d)", p.ConnsPerPeer)
	}
	if p.Keepalive < 0 || p.KeepaliveIdle < 0 || p.KeepaliveCount < 0 || p.KeepaliveIntvl < 0 {
		bad("keepalive, keepalive_idle, keepalive_count and keepalive_intvl must be >= 0")
	}
	if p.TOS < -1 || p.TOS > 0xff {
		bad("tos must be in -1..255 (got %d)", p.TOS)
	}
	return errors.Join(errs...)
}

// tunables are the effective per-net values after ksocknal_tunables_init/_setup.
type tunables struct {
	Params
	zcMinPayload int // zc_min_payload raised to 2 KiB
	connsPerPeer int // conns_per_peer resolved from the link speed when 0, capped at 255
}

// setup models ksocknal_tunables_init (zc_min_payload at least 2 KiB) and, for conns_per_peer,
// ksocknal_startup's ksocklnd_lookup_conns_per_peer: 0 means "from the Ethernet link speed"
// (speedMbps, 0 when unknown gives 1).
func (p Params) setup(speedMbps int) tunables {
	t := tunables{Params: p, zcMinPayload: max(p.ZcMinPayload, minZcPayload)}
	cpp := p.ConnsPerPeer
	if cpp == 0 {
		cpp = 1
		if speedMbps > 0 {
			cpp = SpeedConnsPerPeer(speedMbps)
		}
	}
	t.connsPerPeer = min(cpp, 1<<connCountMaxBits-1)
	return t
}

// SpeedConnsPerPeer models ksocklnd_speed2cpp: ilog2(speed in Gb/s)/2 + 1, speeds under
// 1 Gb/s counting as 1 Gb/s (1 for 1-3 Gb/s, 2 for 4-15, 3 for 16-63: 25 GbE gives 3, 100 GbE 4).
func SpeedConnsPerPeer(speedMbps int) int {
	speed := max(speedMbps, 1000)
	return (bits.Len(uint(speed/1000))-1)/2 + 1
}

// Timeout models ksocknal_timeout: sock_timeout, or LNet's lnd_timeout when it is 0.
func (p Params) Timeout(lndTimeout sim.Time) sim.Time {
	if p.SockTimeout != 0 {
		return secs(p.SockTimeout)
	}
	return lndTimeout
}

// secs converts whole seconds to virtual time.
func secs(n int) sim.Time { return sim.Time(n) * sim.Second }
