package sim

import "math/bits"

// Checksum is a 64-bit digest over fired events (time, sequence number, kind). Two runs of
// the same model with the same seed must produce the same checksum; it is the cheap
// determinism witness the tests and CI compare.
//
// Each event mixes two words into an accumulator with the round of xxHash64 (multiply the
// word by one prime, add, rotate, multiply by another): the event's time, then its sequence
// number rotated by 32 bits with its kind in the lower half. Both words enter through a multiplication and the
// rotation carries every bit of the accumulator into the next product, so any change of a
// time, a kind or the order of events changes the digest except with probability about
// 2^-64. Sum applies xxHash64's final avalanche. Two dependent rounds per event are a short
// serial chain of two multiplications, where byte-wise FNV-1a needed one per byte.
type Checksum struct {
	sum    uint64
	events uint64
}

// xxHash64's primes and seed-free initial accumulator.
const (
	xxPrime1 = 11400714785074694791
	xxPrime2 = 14029467366897019727
	xxPrime3 = 1609587929392839161
	xxInit   = xxPrime1 + xxPrime2 // mod 2^64, as xxHash64's first lane with seed 0
)

// NewChecksum returns an empty digest.
func NewChecksum() *Checksum { return &Checksum{sum: xxInit % (1 << 64)} }

// Observe folds ev into the digest; pass it to Kernel.SetObserver, or give the digest to
// Kernel.SetChecksum, which folds the same values without a call per event.
func (c *Checksum) Observe(ev Fired) {
	c.sum = mixEvent(c.sum, ev.Time, ev.Seq, ev.Kind)
	c.events++
}

// mixEvent returns accumulator h with one event folded in (see Checksum). The second word,
// the sequence number rotated by 32 bits xor the kind's 32 bits, is injective in either for a
// given value of the other.
func mixEvent(h uint64, at Time, seq uint64, kind int) uint64 {
	h = round(h, uint64(at))
	return round(h, bits.RotateLeft64(seq, 32)^uint64(uint32(kind)))
}

// round is xxHash64's accumulator round.
func round(h, v uint64) uint64 {
	return bits.RotateLeft64(h+v*xxPrime2, 31) * xxPrime1
}

// Sum returns the digest so far: the accumulator through xxHash64's final avalanche, so that
// every input bit reaches every output bit.
func (c *Checksum) Sum() uint64 {
	h := c.sum
	h ^= h >> 33
	h *= xxPrime2
	h ^= h >> 29
	h *= xxPrime3
	h ^= h >> 32
	return h
}

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
