package sim

import "math/bits"

// Checksum is an FNV-1a 64-bit digest over fired events (time, sequence number, kind). Two
// runs of the same model with the same seed must produce the same checksum; it is the cheap
// determinism witness the tests and CI compare.
type Checksum struct {
	sum    uint64
	events uint64
}

// NewChecksum returns an empty digest.
func NewChecksum() *Checksum { return &Checksum{sum: 14695981039346656037} }

// Observe folds ev into the digest; pass it to Kernel.SetObserver, or give the digest to
// Kernel.SetChecksum, which folds the same values without a call per event.
func (c *Checksum) Observe(ev Fired) {
	c.sum = fold(fold(fold(c.sum, uint64(ev.Time)), ev.Seq), uint64(ev.Kind))
	c.events++
}

// fnvPrime is FNV-1a's 64-bit prime; fnvPrimePow[k] is fnvPrime to the power k (mod 2^64).
const fnvPrime = 1099511628211

var fnvPrimePow = func() (p [9]uint64) { // powers 0 to 8
	p[0] = 1
	for k := 1; k < len(p); k++ {
		p[k] = p[k-1] * fnvPrime
	}
	return p
}()

// add folds the eight little-endian bytes of v into the digest (see fold).
func (c *Checksum) add(v uint64) { c.sum = fold(c.sum, v) }

// Powers of fnvPrime modulo 2^64, as constants for fold's unrolled cases.
const (
	fnvP2 = fnvPrime * fnvPrime % (1 << 64)
	fnvP3 = fnvP2 * fnvPrime % (1 << 64)
	fnvP4 = fnvP2 * fnvP2 % (1 << 64)
	fnvP5 = fnvP4 * fnvPrime % (1 << 64)
	fnvP6 = fnvP4 * fnvP2 % (1 << 64)
	fnvP7 = fnvP6 * fnvPrime % (1 << 64)
	fnvP8 = fnvP4 * fnvP4 % (1 << 64)
)

// fold returns digest h with the eight little-endian bytes of v folded in, as FNV-1a does
// byte by byte. A zero byte only multiplies by the prime, so the zero bytes above v's m
// lowest ones fold into one multiplication by a power of the prime, merged with the one
// that follows byte m (h ^= b; h *= prime is the same for b = 0). Values below 2^32 (kinds,
// sequence numbers, times up to 4.3 s) take a straight line of m steps; the digest is the
// same as the byte loop's.
func fold(h, v uint64) uint64 {
	switch {
	case v < 1<<8:
		return (h ^ v) * fnvP8
	case v < 1<<16:
		h = (h ^ v&0xff) * fnvPrime
		return (h ^ v>>8) * fnvP7
	case v < 1<<24:
		h = (h ^ v&0xff) * fnvPrime
		h = (h ^ v>>8&0xff) * fnvPrime
		return (h ^ v>>16) * fnvP6
	case v < 1<<32:
		h = (h ^ v&0xff) * fnvPrime
		h = (h ^ v>>8&0xff) * fnvPrime
		h = (h ^ v>>16&0xff) * fnvPrime
		return (h ^ v>>24) * fnvP5
	}
	return foldLong(h, v)
}

// foldLong is fold for values of five or more significant bytes.
func foldLong(h, v uint64) uint64 {
	n := (bits.Len64(v) + 7) >> 3
	for i := 1; i < n; i++ {
		h ^= v & 0xff
		h *= fnvPrime
		v >>= 8
	}
	return (h ^ v) * fnvPrimePow[9-n] // v is the highest non-zero byte now
}

// Sum returns the digest so far.
func (c *Checksum) Sum() uint64 { return c.sum }

// Events returns how many events were folded in.
func (c *Checksum) Events() uint64 { return c.events }

// Tee returns an observer that calls every non-nil observer in order.
func Tee(obs ...Observer) Observer {
	var list []Observer
	for _, o := range obs {
		if o != nil {
			list = append(list, o)
		}
	}
	switch len(list) {
	case 0:
		return nil
	case 1:
		return list[0]
	}
	return func(ev Fired) {
		for _, o := range list {
			o(ev)
		}
	}
}
