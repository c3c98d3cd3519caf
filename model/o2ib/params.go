package o2ib

import (
	"errors"
	"fmt"

	"github.com/lnetsim/lnetsim/sim"
)

// Params are o2iblnd's module parameters (o2iblnd_modparams.c) under the kernel's names, with
// its defaults from DefaultParams. They are settable per net (LND.SetParams) or per NI
// (SetNIParams); the kernel has one set per module (a deliberate difference: one LND value
// serves every node, and a per-NI set is a node loaded with other values). As in the kernel, peer_credits and
// credits here are only the defaults of the net's LNet tunables (lnet.NetTunables, what
// lnetctl sets per net): when the NI's net has them, those win. Wiring code should build
// lnet.NetTunables from these values unless the scenario sets them per net. Times are
// whole seconds, as the kernel has them.
type Params struct {
	Service           int `yaml:"service"`             // CM service (TCP port space) number
	Timeout           int `yaml:"timeout"`             // tx timeout, s (0: LNet's lnd_timeout)
	Keepalive         int `yaml:"keepalive"`           // idle seconds before a keepalive NOOP (0: off)
	NTx               int `yaml:"ntx"`                 // tx descriptors per net (pool size and growth step)
	Credits           int `yaml:"credits"`             // concurrent sends per NI (LNet's credits)
	PeerCredits       int `yaml:"peer_credits"`        // queue depth per connection
	PeerCreditsHiw    int `yaml:"peer_credits_hiw"`    // credit return high-water (0: peer_credits/2)
	PeerBufferCredits int `yaml:"peer_buffer_credits"` // router buffer credits per peer
	PeerTimeout       int `yaml:"peer_timeout"`        // s, router peer aliveness
	ConcurrentSends   int `yaml:"concurrent_sends"`    // posted sends per conn (0: peer_credits)
	ConnsPerPeer      int `yaml:"conns_per_peer"`      // connections per peer NI
	RetryCount        int `yaml:"retry_count"`         // RC QP retry_cnt given to rdma_connect
	RNRRetryCount     int `yaml:"rnr_retry_count"`     // RC QP rnr_retry given to rdma_connect/accept
	MapOnDemand       int `yaml:"map_on_demand"`       // stored; every RDMA is mapped (no global region; fmr.go)
	FMRPoolSize       int `yaml:"fmr_pool_size"`       // FastReg descriptors per NI, over its CPTs (fmr.go)
	FMRFlushTrigger   int `yaml:"fmr_flush_trigger"`   // stored, unused (FMR's, not FastReg's)
	FMRCache          int `yaml:"fmr_cache"`           // stored, unused (FMR's, not FastReg's)
	DevFailover       int `yaml:"dev_failover"`        // stored, unused (no HCA failover in the model)
	IBMTU             int `yaml:"ib_mtu"`              // stored; the fabric's path MTU applies
	WrqSGE            int `yaml:"wrq_sge"`             // stored, unused
	TOS               int `yaml:"tos"`                 // stored, unused
	Cksum             int `yaml:"cksum"`               // stored, unused
	UsePrivilegedPort int `yaml:"use_privileged_port"` // stored, unused
	// Bulk is how large PUT/REPLY payloads move: BulkWrite ("" or "write", the kernel's
	// RDMA WRITE by the sender) or BulkRead (the receiver pulls with RDMA READ; not in
	// the kernel, see bulkread.go).
	Bulk string `yaml:"bulk"`
	// ReadDepth is the RDMA READ depth a conn of a BulkRead net offers at connect, as both
	// initiator depth and responder resources (0: the conn's queue depth). Not a kernel
	// parameter.
	ReadDepth int `yaml:"read_depth"`

	// Profile is the release's o2iblnd rules (zero: master), not a module parameter.
	Profile Profile `yaml:"-"`
}

// Bulk values.
const (
	BulkWrite = "write" // the kernel's: PUT_REQ, PUT_ACK, RDMA WRITE + PUT_DONE
	BulkRead  = "read"  // the variant: PUT_RDREQ, RDMA READ by the receiver, PUT_RDDONE
)

// maxReadDepth is the largest ReadDepth: the model's device limit (max_qp_rd_atom and
// max_qp_init_rd_atom of ib.DefaultDeviceAttr, as ConnectX reports).
const maxReadDepth = 16

// DefaultParams returns the kernel's defaults (master; lnet-reference.md section f).
func DefaultParams() Params {
	return Params{
		Service:           987,
		Timeout:           50,
		Keepalive:         100,
		NTx:               512,
		Credits:           256,
		PeerCredits:       8,
		PeerCreditsHiw:    0,
		PeerBufferCredits: 0,
		PeerTimeout:       180,
		ConcurrentSends:   0,
		ConnsPerPeer:      1,
		RetryCount:        5,
		RNRRetryCount:     6,
		MapOnDemand:       1,
		FMRPoolSize:       512,
		FMRFlushTrigger:   384,
		FMRCache:          1,
		DevFailover:       0,
		IBMTU:             0,
		WrqSGE:            2,
		TOS:               -1,
		Cksum:             0,
		UsePrivilegedPort: 1,
	}
}

// Kernel limits on the parameters.
const (
	minPeerCredits = 8   // IBLND_CREDITS_DEFAULT: o2ib clamps peer_credits up to it
	maxPeerCredits = 255 // IBLND_CREDITS_MAX (the wire field is one byte)
)

// Validate reports parameters the kernel would refuse to load with.
func (p *Params) Validate() error {
	var errs []error
	bad := func(f string, a ...any) { errs = append(errs, fmt.Errorf(f, a...)) }
	if p.Timeout < 0 {
		bad("timeout must be >= 0 (got %d)", p.Timeout)
	}
	if p.Keepalive < 0 {
		bad("keepalive must be >= 0 (got %d)", p.Keepalive)
	}
	if p.NTx < 1 {
		bad("ntx must be >= 1 (got %d)", p.NTx)
	}
	if p.PeerCredits < 1 {
		bad("peer_credits must be >= 1 (got %d)", p.PeerCredits)
	}
	if p.Credits < 1 {
		bad("credits must be >= 1 (got %d)", p.Credits)
	}
	if p.ConnsPerPeer < 1 || p.ConnsPerPeer > 127 {
		bad("conns_per_peer must be in 1..127 (got %d)", p.ConnsPerPeer)
	}
	if p.RetryCount < 0 || p.RetryCount > 7 {
		bad("retry_count must be in 0..7 (got %d)", p.RetryCount)
	}
	if p.RNRRetryCount < 0 || p.RNRRetryCount > 7 {
		bad("rnr_retry_count must be in 0..7 (got %d)", p.RNRRetryCount)
	}
	if p.ConcurrentSends < 0 || p.PeerCreditsHiw < 0 {
		bad("concurrent_sends and peer_credits_hiw must be >= 0")
	}
	switch p.Bulk {
	case "", BulkWrite, BulkRead:
	default:
		bad("bulk must be write or read (got %q)", p.Bulk)
	}
	if p.ReadDepth < 0 || p.ReadDepth > maxReadDepth {
		bad("read_depth must be in 0..%d (got %d)", maxReadDepth, p.ReadDepth)
	}
	return errors.Join(errs...)
}

// tunables are the effective per-net values after kiblnd_tunables_setup's clamping.
type tunables struct {
	Params
	peerCredits     int // queue depth asked for (lct_peer_tx_credits after clamping)
	hiw             int // peercredits_hiw after clamping
	concurrentSends int
	connreqTimeout  sim.Time
}

// setup models kiblnd_tunables_setup: peer_credits clamped to [8, 255] and to credits,
// peer_credits_hiw to [peer_credits/2, peer_credits-1], concurrent_sends defaulted to
// peer_credits and clamped to [peer_credits/2, 2*peer_credits].
func (p Params) setup() tunables {
	t := tunables{Params: p}
	pc := p.PeerCredits
	if pc < minPeerCredits {
		pc = minPeerCredits
	}
	if pc > maxPeerCredits {
		pc = maxPeerCredits
	}
	if pc > p.Credits {
		pc = p.Credits
	}
	t.peerCredits = pc
	hiw := p.PeerCreditsHiw
	if hiw < pc/2 {
		hiw = pc / 2
	}
	if hiw >= pc {
		hiw = pc - 1
	}
	t.hiw = hiw
	cs := p.ConcurrentSends
	if cs == 0 {
		cs = pc
	}
	if cs > 2*pc {
		cs = 2 * pc
	}
	if cs < pc/2 {
		cs = pc / 2
	}
	t.concurrentSends = cs
	return t
}

// secs converts whole seconds to virtual time.
func secs(n int) sim.Time { return sim.Time(n) * sim.Second }
