package sim

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Stream is a named, seeded random number generator. Every random draw in a run comes from a
// Stream obtained through Kernel.Rand, so results depend only on the run seed and the names.
type Stream struct {
	*rand.Rand
	name string
	src  *rand.PCG
}

// Rand returns the stream called name, creating it on first use. A stream's sequence is a
// function of the run seed and a fixed hash of its name only (FNV-1a, not hash/maphash, so it
// is stable across processes and Go releases): adding a stream never changes another one.
// Calling Rand twice with one name returns the same stream.
func (k *Kernel) Rand(name string) *Stream {
	if s, ok := k.streams[name]; ok {
		return s
	}
	s := NewStream(k.seed, name)
	k.streams[name] = s
	return s
}

// NewStream returns the stream a kernel seeded with seed would hand out for name.
func NewStream(seed uint64, name string) *Stream {
	src := rand.NewPCG(seed, StreamHash(name))
	return &Stream{Rand: rand.New(src), name: name, src: src}
}

// StreamHash is the 64-bit FNV-1a hash of name, finished with a splitmix64 mix so that names
// differing in one byte give unrelated PCG stream selectors.
func StreamHash(name string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return SplitMix64(&h)
}

// SplitMix64 advances state and returns the next splitmix64 output.
func SplitMix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	z := *state
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Name returns the name the stream was created with.
func (s *Stream) Name() string { return s.name }

// Source returns the stream's generator for use as a gonum distuv Src. Distributions built
// by the helpers below always have it set, so gonum never falls back to a global source.
func (s *Stream) Source() rand.Source { return s.src }

// Uniform returns a float64 drawn uniformly from [lo, hi).
func (s *Stream) Uniform(lo, hi float64) float64 { return lo + (hi-lo)*s.Float64() }

// Exp returns an exponentially distributed float64 with the given mean.
func (s *Stream) Exp(mean float64) float64 { return s.ExpFloat64() * mean }

// ExpTime returns an exponentially distributed virtual time with the given mean, truncated
// to whole nanoseconds.
func (s *Stream) ExpTime(mean Time) Time { return clampTime(s.ExpFloat64() * float64(mean)) }

// UniformTime returns a virtual time drawn uniformly from [lo, hi]; lo when hi <= lo.
func (s *Stream) UniformTime(lo, hi Time) Time {
	if hi <= lo {
		return lo
	}
	return lo + Time(s.Uint64N(uint64(hi-lo)+1))
}

// Normal returns a normally distributed float64 with mean mu and standard deviation sigma.
func (s *Stream) Normal(mu, sigma float64) float64 { return mu + sigma*s.NormFloat64() }

// Bernoulli reports true with probability p (clamped to [0, 1]).
func (s *Stream) Bernoulli(p float64) bool {
	switch {
	case p <= 0:
		return false
	case p >= 1:
		return true
	}
	return s.Float64() < p
}

// Exponential returns a gonum exponential distribution of the given rate drawing from s.
func (s *Stream) Exponential(rate float64) distuv.Exponential {
	return distuv.Exponential{Rate: rate, Src: s.src}
}

// LogNormal returns a gonum log-normal distribution drawing from s.
func (s *Stream) LogNormal(mu, sigma float64) distuv.LogNormal {
	return distuv.LogNormal{Mu: mu, Sigma: sigma, Src: s.src}
}

// Weibull returns a gonum Weibull distribution (shape k, scale lambda) drawing from s.
func (s *Stream) Weibull(k, lambda float64) distuv.Weibull {
	return distuv.Weibull{K: k, Lambda: lambda, Src: s.src}
}

// clampTime converts a float number of nanoseconds to Time, saturating at the bounds.
func clampTime(ns float64) Time {
	switch {
	case ns <= 0 || math.IsNaN(ns):
		return 0
	case ns >= float64(MaxTime):
		return MaxTime
	}
	return Time(ns)
}

// SampleTime draws from d (in nanoseconds) and converts the result to a non-negative Time.
func SampleTime(d interface{ Rand() float64 }) Time { return clampTime(d.Rand()) }
