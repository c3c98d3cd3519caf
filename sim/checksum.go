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

// Observe folds ev into the digest; pass it to Kernel.SetObserver.
func (c *Checksum) Observe(ev Fired) {
	c.add(uint64(ev.Time))
	c.add(ev.Seq)
	c.add(uint64(ev.Kind))
	c.events++
}

// fnvPrime is FNV-1a's 64-bit prime; fnvPrimePow[k] is fnvPrime to the power k (mod 2^64).
const fnvPrime = 1099511628211

var fnvPrimePow = func() (p [9]uint64) {
	p[0] = 1
	for k := 1; k < len(p); k++ {
		p[k] = p[k-1] * fnvPrime
	}
	return p
}()

// add folds the eight little-endian bytes of v, as FNV-1a does byte by byte. A zero byte
// only multiplies by the prime, so the zero bytes above v's highest non-zero one (most of
// them: times, sequence numbers and kinds are small) fold into one multiplication by a
// power of the prime; the digest is the same as the byte loop's.
func (c *Checksum) add(v uint64) {
	h := c.sum
	n := (bits.Len64(v) + 7) >> 3
	for i := 0; i < n; i++ {
		h ^= v & 0xff
		h *= fnvPrime
		v >>= 8
	}
	c.sum = h * fnvPrimePow[8-n]
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
