package sim

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

func (c *Checksum) add(v uint64) {
	h := c.sum
	for i := 0; i < 8; i++ {
		h ^= v & 0xff
		h *= 1099511628211
		v >>= 8
	}
	c.sum = h
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
