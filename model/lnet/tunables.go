package lnet

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/lnetsim/lnetsim/sim"
)

// MaxHealth is LNET_MAX_HEALTH_VALUE.
const MaxHealth = 1000

// Tunables are LNet's global module parameters (`lnetctl set`, `lnetctl global show`) that the
// model uses, under the kernel's names. Times are whole seconds, as the kernel has them.
type Tunables struct {
	TransactionTimeout      int  `yaml:"transaction_timeout"`         // lnet_transaction_timeout, s
	RetryCount              int  `yaml:"retry_count"`                 // lnet_retry_count
	HealthSensitivity       int  `yaml:"health_sensitivity"`          // lnet_health_sensitivity, 0..1000
	RecoveryInterval        int  `yaml:"recovery_interval"`           // deprecated: stored, unused
	RecoveryLimit           int  `yaml:"recovery_limit"`              // s; 0 = recover peer NIs forever
	MaxRecoveryPingInterval int  `yaml:"max_recovery_ping_interval"`  // s
	ResponseTracking        int  `yaml:"response_tracking"`           // 0 none, 1 GET, 2 PUT, 3 both
	DropAsymRoute           bool `yaml:"drop_asym_route"`             // routing
	Discovery               bool `yaml:"discovery"`                   // !lnet_peer_discovery_disabled
	NUMARange               int  `yaml:"numa_range"`                  // lnet_numa_range
	MaxInterfaces           int  `yaml:"max_interfaces"`              // lnet_interfaces_max
	LockPrimNID             bool `yaml:"lock_prim_nid"`               // lock_prim_nid
	AutoDown                bool `yaml:"auto_down"`                   // honour LND "peer down" notifications
	RouterSensitivity       int  `yaml:"router_sensitivity"`          // deprecated: stored, unused
	AliveRouterCheckInt     int  `yaml:"alive_router_check_interval"` // s (routing)
	RouterPingTimeout       int  `yaml:"router_ping_timeout"`         // s: routers' NI status, routing start/stop (not a ping timeout)
	AvoidAsymRouterFailure  bool `yaml:"avoid_asym_router_failure"`   // routing
	CheckRoutersBeforeUse   bool `yaml:"check_routers_before_use"`    // routing
	PeerBufferCredits       int  `yaml:"peer_buffer_credits"`         // module-wide router credits per peer
	TinyRouterBuffers       int  `yaml:"tiny_router_buffers"`         // routing: 0-page pool total
	SmallRouterBuffers      int  `yaml:"small_router_buffers"`        // routing: 1-page pool total
	LargeRouterBuffers      int  `yaml:"large_router_buffers"`        // routing: LNET_MTU pool total
	// CPTs is the number of CPU partitions (libcfs cpu_npartitions, LNET_CPT_NUMBER); 0
	// means 1. The model partitions router buffer pools and NI tx credit queues by it (see
	// cpt.go, ni.go); lnetctl global show does not print it.
	CPTs int `yaml:"-"`
	// RouterMsgExpiry is an experimental policy the kernel does not have (see ARCHITECTURE.md): a
	// router drops a routed message still queued past the deadline it got on arrival.
	// Off by default; off, routers behave as the kernel's.
	RouterMsgExpiry bool `yaml:"router_msg_expiry"`
	// Profile is the node's release behaviour rules (profile.go); the zero value is master.
	Profile Profile `yaml:"-" json:"-"`
}

// DefaultTunables returns the kernel's defaults (master, see the reference section a).
func DefaultTunables() Tunables {
	return Tunables{
		TransactionTimeout:      150,
		RetryCount:              2,
		HealthSensitivity:       100,
		RecoveryInterval:        1,
		RecoveryLimit:           0,
		MaxRecoveryPingInterval: 900,
		ResponseTracking:        3,
		Discovery:               true,
		MaxInterfaces:           4096,
		LockPrimNID:             true,
		AutoDown:                true,
		RouterSensitivity:       100,
		AliveRouterCheckInt:     60,
		RouterPingTimeout:       50,
		AvoidAsymRouterFailure:  true,
		TinyRouterBuffers:       2048,
		SmallRouterBuffers:      16384,
		LargeRouterBuffers:      1024,
	}
}

// Validate applies the kernel's rules for the global tunables, reporting every violation.
// Setting health_sensitivity to 0 forces retry_count to 0 in the kernel; Validate rejects the
// inconsistent pair instead, and Normalize applies the kernel's forcing.
func (t *Tunables) Validate() error {
	var errs []error
	bad := func(f string, a ...any) { errs = append(errs, fmt.Errorf(f, a...)) }
	if t.TransactionTimeout < 1 {
		bad("transaction_timeout must be > 0 (got %d)", t.TransactionTimeout)
	}
	if t.RetryCount < 0 {
		bad("retry_count must be >= 0 (got %d)", t.RetryCount)
	}
	if t.RetryCount > t.TransactionTimeout {
		bad("retry_count (%d) cannot exceed transaction_timeout (%d)", t.RetryCount, t.TransactionTimeout)
	}
	if t.HealthSensitivity < 0 || t.HealthSensitivity > MaxHealth {
		bad("health_sensitivity must be in 0..%d (got %d)", MaxHealth, t.HealthSensitivity)
	}
	if t.HealthSensitivity == 0 && t.RetryCount > 0 {
		bad("retry_count (%d) must be 0 while health_sensitivity is 0", t.RetryCount)
	}
	if t.MaxRecoveryPingInterval < 1 {
		bad("max_recovery_ping_interval must be > 0 (got %d)", t.MaxRecoveryPingInterval)
	}
	if t.ResponseTracking < 0 || t.ResponseTracking > 3 {
		bad("response_tracking must be 0..3 (got %d)", t.ResponseTracking)
	}
	if t.RecoveryLimit < 0 {
		bad("recovery_limit must be >= 0 (got %d)", t.RecoveryLimit)
	}
	if t.NUMARange < 0 {
		bad("numa_range must be >= 0 (got %d)", t.NUMARange)
	}
	if t.MaxInterfaces < 16 {
		bad("max_interfaces must be >= 16 (got %d)", t.MaxInterfaces)
	}
	if t.CPTs < 0 || t.CPTs > MaxCPTs {
		bad("cpts must be from 1 to %d (got %d)", MaxCPTs, t.CPTs)
	}
	// Router buffers: negative is invalid when routing is enabled (lnet_nrb_*_calculate).
	for _, b := range []struct {
		name string
		v    int
	}{{"tiny_router_buffers", t.TinyRouterBuffers}, {"small_router_buffers", t.SmallRouterBuffers},
		{"large_router_buffers", t.LargeRouterBuffers}, {"peer_buffer_credits", t.PeerBufferCredits},
		{"router_ping_timeout", t.RouterPingTimeout}} {
		if b.v < 0 {
			bad("%s must be >= 0 (got %d)", b.name, b.v)
		}
	}
	return errors.Join(errs...)
}

// Normalize applies the kernel's side effects: health_sensitivity 0 forces retry_count 0.
func (t *Tunables) Normalize() {
	if t.HealthSensitivity == 0 {
		t.RetryCount = 0
	}
}

// LNDTimeout is the global lnet_lnd_timeout, max((transaction_timeout-1)/(retry_count+1), 1)
// seconds (models lnet_set_lnd_timeout), or the profile's fixed value (2.12). An LND whose
// own timeout parameter is 0 uses it.
func (t *Tunables) LNDTimeout() sim.Time {
	if f := t.Profile.FixedLNDTimeout; f > 0 {
		return sim.Time(f) * sim.Second
	}
	v := (t.TransactionTimeout - 1) / (t.RetryCount + 1)
	if v < 1 {
		v = 1
	}
	return sim.Time(v) * sim.Second
}

// maxRecoveryPingCount is lnet_max_recovery_ping_count, floor(log2(max_recovery_ping_interval)).
func maxRecoveryPingCount(interval int) int {
	if interval < 1 {
		return 0
	}
	return bits.Len(uint(interval)) - 1
}

// recoveryInterval is the recovery-ping backoff for a ping count: 2^count seconds while count
// <= lnet_max_recovery_ping_count, else max_recovery_ping_interval (models
// lnet_get_next_recovery_ping); recovery_interval whatever the count under a 2.12 profile,
// whose monitor thread recovers every recovery_interval; under FixedMaxRecoveryInterval
// (2.15, before LU-14979) the cap is 900 s whatever max_recovery_ping_interval says.
func (t *Tunables) recoveryInterval(count int) sim.Time {
	if t.Profile.FixedRecoveryInterval {
		return sim.Time(max(t.RecoveryInterval, 1)) * sim.Second
	}
	maxInterval := t.MaxRecoveryPingInterval
	if t.Profile.FixedMaxRecoveryInterval {
		maxInterval = recoveryIntervalMax
	}
	if count <= maxRecoveryPingCount(maxInterval) {
		return sim.Time(1<<uint(count)) * sim.Second
	}
	return sim.Time(maxInterval) * sim.Second
}

// recoveryIntervalMax is LNET_RECOVERY_INTERVAL_MAX, the fixed cap before LU-14979.
const recoveryIntervalMax = 900

// NetTunables are a net's common tunables (`tunables:` in lnetctl YAML, lib-lnet.h defaults).
type NetTunables struct {
	PeerTimeout       int `yaml:"peer_timeout"`        // s
	PeerCredits       int `yaml:"peer_credits"`        // tx credits per peer NI
	PeerBufferCredits int `yaml:"peer_buffer_credits"` // router credits per peer NI (0: see kernel rule)
	Credits           int `yaml:"credits"`             // tx credits per NI
}

// DefaultNetTunables returns DEFAULT_PEER_TIMEOUT 180, DEFAULT_PEER_CREDITS 8, credits 256,
// peer_buffer_credits 0.
func DefaultNetTunables() NetTunables {
	return NetTunables{PeerTimeout: 180, PeerCredits: 8, Credits: 256}
}

// Validate checks a net's tunables.
func (t *NetTunables) Validate() error {
	var errs []error
	if t.PeerCredits < 1 {
		errs = append(errs, fmt.Errorf("peer_credits must be >= 1 (got %d)", t.PeerCredits))
	}
	if t.Credits < 1 {
		errs = append(errs, fmt.Errorf("credits must be >= 1 (got %d)", t.Credits))
	}
	if t.Credits < t.PeerCredits {
		errs = append(errs, fmt.Errorf("credits (%d) must be >= peer_credits (%d)", t.Credits, t.PeerCredits))
	}
	if t.PeerTimeout < 0 {
		errs = append(errs, fmt.Errorf("peer_timeout must be >= 0 (got %d)", t.PeerTimeout))
	}
	if t.PeerBufferCredits < 0 {
		errs = append(errs, fmt.Errorf("peer_buffer_credits must be >= 0 (got %d)", t.PeerBufferCredits))
	}
	return errors.Join(errs...)
}
