package sim

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Time is a point in, or a span of, virtual time: a count of nanoseconds since the start of a
// run. It is never derived from the wall clock.
type Time int64

// Units of virtual time.
const (
	Nanosecond  Time = 1
	Microsecond Time = 1000 * Nanosecond
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
	Minute      Time = 60 * Second
	Hour        Time = 60 * Minute
)

// MaxTime is the largest representable virtual time (about 292 years).
const MaxTime Time = math.MaxInt64

// Seconds returns t as a floating-point number of seconds, for reports and plots.
func (t Time) Seconds() float64 { return float64(t) / float64(Second) }

// WholeSeconds returns t in whole seconds rounded down, the unit most kernel tunables use.
func (t Time) WholeSeconds() int64 { return int64(t / Second) }

// unitTable lists the unit suffixes ParseTime accepts (matched whole).
var unitTable = []struct {
	suffix string
	unit   Time
}{
	{"ns", Nanosecond},
	{"us", Microsecond},
	{"µs", Microsecond},
	{"ms", Millisecond},
	{"s", Second},
	{"m", Minute},
	{"min", Minute},
	{"h", Hour},
}

// ErrTimeSyntax is wrapped by every ParseTime error.
var ErrTimeSyntax = errors.New("invalid duration")

// ParseTime reads a human duration such as "50s", "4.096us", "1.5ms", "100ns", "2m" or "1h"
// into an exact number of nanoseconds. A unit is required except for "0". Fractions are exact
// (decimal arithmetic, no floating point); a fraction finer than a nanosecond, a negative
// value or a value beyond MaxTime is an error.
func ParseTime(s string) (Time, error) {
	in := strings.TrimSpace(s)
	if in == "0" {
		return 0, nil
	}
	if in == "" {
		return 0, fmt.Errorf("%w: empty (write a number and a unit, e.g. 50s or 4.096us)", ErrTimeSyntax)
	}
	// Split the number from its unit.
	i := 0
	for i < len(in) && (in[i] >= '0' && in[i] <= '9' || in[i] == '.') {
		i++
	}
	num, suffix := in[:i], strings.TrimSpace(in[i:])
	if strings.HasPrefix(in, "-") {
		return 0, fmt.Errorf("%w %q: negative durations are not allowed", ErrTimeSyntax, s)
	}
	if num == "" {
		return 0, fmt.Errorf("%w %q: expected a number first, e.g. 50s", ErrTimeSyntax, s)
	}
	if suffix == "" {
		return 0, fmt.Errorf("%w %q: missing unit (ns, us, ms, s, m or h)", ErrTimeSyntax, s)
	}
	var unit Time
	for _, u := range unitTable {
		if suffix == u.suffix {
			unit = u.unit
			break
		}
	}
	if unit == 0 {
		return 0, fmt.Errorf("%w %q: unknown unit %q (use ns, us, ms, s, m or h)", ErrTimeSyntax, s, suffix)
	}
	return scaleDecimal(num, int64(unit), s)
}

// scaleDecimal multiplies the decimal string num by unit exactly, failing on overflow or on a
// remainder finer than one nanosecond.
func scaleDecimal(num string, unit int64, orig string) (Time, error) {
	intPart, frac, hasDot := strings.Cut(num, ".")
	if strings.Contains(frac, ".") || (intPart == "" && frac == "") || (hasDot && frac == "") {
		return 0, fmt.Errorf("%w %q: malformed number", ErrTimeSyntax, orig)
	}
	var whole int64
	if intPart != "" {
		v, err := strconv.ParseInt(intPart, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%w %q: number out of range", ErrTimeSyntax, orig)
		}
		whole = v
	}
	if whole > math.MaxInt64/unit {
		return 0, fmt.Errorf("%w %q: longer than the longest representable time (%s)", ErrTimeSyntax, orig, MaxTime)
	}
	total := whole * unit
	// Each fractional digit scales the unit down by ten; it must stay a whole nanosecond.
	scale := unit
	for _, c := range frac {
		d := int64(c - '0')
		if scale%10 != 0 {
			if d != 0 {
				return 0, fmt.Errorf("%w %q: finer than one nanosecond", ErrTimeSyntax, orig)
			}
			continue
		}
		scale /= 10
		if total > math.MaxInt64-d*scale {
			return 0, fmt.Errorf("%w %q: longer than the longest representable time", ErrTimeSyntax, orig)
		}
		total += d * scale
	}
	return Time(total), nil
}

// String formats t in the largest unit (s, ms, us, ns) that keeps it at least 1, with as many
// decimals as needed to be exact: 50s, 4.096us, 1.5ms, 0. ParseTime reads it back unchanged.
func (t Time) String() string {
	if t == 0 {
		return "0"
	}
	neg := t < 0
	v := uint64(t)
	if neg {
		v = uint64(-t)
	}
	var unit uint64
	var name string
	switch {
	case v >= uint64(Second):
		unit, name = uint64(Second), "s"
	case v >= uint64(Millisecond):
		unit, name = uint64(Millisecond), "ms"
	case v >= uint64(Microsecond):
		unit, name = uint64(Microsecond), "us"
	default:
		unit, name = 1, "ns"
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	b.WriteString(strconv.FormatUint(v/unit, 10))
	if rem := v % unit; rem != 0 {
		digits := strconv.FormatUint(rem+unit, 10)[1:] // zero-padded to the unit's width
		b.WriteByte('.')
		b.WriteString(strings.TrimRight(digits, "0"))
	}
	b.WriteString(name)
	return b.String()
}
