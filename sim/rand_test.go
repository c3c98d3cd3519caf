package sim

import (
	"math"
	"testing"
)

func draw(s *Stream, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = s.Uint64()
	}
	return out
}

func TestStreamsAreIndependentAndStable(t *testing.T) {
	k1 := New(42)
	a1 := draw(k1.Rand("o2ib.loss"), 8)

	// Creating other streams first, and drawing from them, changes nothing for "o2ib.loss".
	k2 := New(42)
	draw(k2.Rand("workload"), 100)
	draw(k2.Rand("faults"), 3)
	a2 := draw(k2.Rand("o2ib.loss"), 8)
	for i := range a1 {
		if a1[i] != a2[i] {
			t.Fatalf("stream changed when other streams were added: %v vs %v", a1, a2)
		}
	}
	if s1, s2 := k2.Rand("o2ib.loss"), k2.Rand("o2ib.loss"); s1 != s2 {
		t.Fatal("Rand returned two different streams for one name")
	}
	// Different names and different seeds give different sequences.
	if b := draw(New(42).Rand("o2ib.loss2"), 8); b[0] == a1[0] {
		t.Fatal("streams with different names start alike")
	}
	if c := draw(New(43).Rand("o2ib.loss"), 8); c[0] == a1[0] {
		t.Fatal("streams with different seeds start alike")
	}
	// The name hash is fixed forever: results files depend on it.
	if got := StreamHash("lnet"); got != 0x1b9f045b1a2ba3dd {
		t.Fatalf("StreamHash(\"lnet\") = %#x; changing it changes every run's results", got)
	}
}

func TestDistributionHelpers(t *testing.T) {
	s := New(7).Rand("dist")
	const n = 200_000
	var sumExp, sumNorm, sumWeib float64
	exp := s.Exponential(2) // mean 0.5
	weib := s.Weibull(1, 3) // shape 1: exponential with mean 3
	for range n {
		sumExp += exp.Rand()
		sumNorm += s.Normal(10, 2)
		sumWeib += weib.Rand()
	}
	check := func(name string, got, want float64) {
		if math.Abs(got-want) > 0.02*want {
			t.Errorf("%s mean = %.4f, want about %.4f", name, got, want)
		}
	}
	check("exponential", sumExp/n, 0.5)
	check("normal", sumNorm/n, 10)
	check("weibull", sumWeib/n, 3)
	if exp.Src == nil || weib.Src == nil {
		t.Fatal("gonum distribution without a source would fall back to a global generator")
	}
	for range 1000 {
		if v := s.UniformTime(5, 7); v < 5 || v > 7 {
			t.Fatalf("UniformTime out of range: %d", v)
		}
	}
	if s.Bernoulli(0) || !s.Bernoulli(1) {
		t.Fatal("Bernoulli(0/1) not certain")
	}
}

func TestChecksumDeterminism(t *testing.T) {
	run := func(seed uint64) uint64 {
		k := New(seed)
		c := NewChecksum()
		k.SetObserver(c.Observe)
		rng := k.Rand("model")
		var h *funcRecorder
		h = &funcRecorder{fn: func(kind int) {
			if k.Fired() < 5000 {
				k.After(Time(rng.Int64N(1000)), h.id, kind+1, 0)
			}
		}}
		h.id = k.Register(h)
		for i := range 10 {
			k.Schedule(Time(i), h.id, i, 0)
		}
		if err := k.Run(); err != nil {
			t.Fatal(err)
		}
		return c.Sum()
	}
	if a, b := run(1), run(1); a != b {
		t.Fatalf("same seed, different checksums: %x vs %x", a, b)
	}
	if a, b := run(1), run(2); a == b {
		t.Fatalf("different seeds, same checksum %x", a)
	}
}

type funcRecorder struct {
	id HandlerID
	fn func(kind int)
}

func (f *funcRecorder) Handle(kind int, _ uint64) { f.fn(kind) }
