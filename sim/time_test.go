package sim

import (
	"errors"
	"strings"
	"testing"
)

func TestParseTime(t *testing.T) {
	tests := []struct {
		in   string
		want Time
		err  string // substring of the error, "" for success
	}{
		{"0", 0, ""},
		{"50s", 50 * Second, ""},
		{"4.096us", 4096, ""},
		{"4.096µs", 4096, ""},
		{"1.5ms", 1500 * Microsecond, ""},
		{"100ns", 100, ""},
		{"2m", 2 * Minute, ""},
		{"1h", Hour, ""},
		{" 7s ", 7 * Second, ""},
		{".5s", 500 * Millisecond, ""},
		{"0.000000001s", 1, ""},
		{"1.0ns", 1, ""},
		{"9223372036s", 9223372036 * Second, ""},
		{"", 0, "empty"},
		{"50", 0, "missing unit"},
		{"s", 0, "expected a number"},
		{"-1s", 0, "negative"},
		{"1.5ns", 0, "finer than one nanosecond"},
		{"0.0000000001s", 0, "finer than one nanosecond"},
		{"10parsecs", 0, "unknown unit"},
		{"1..2s", 0, "malformed"},
		{"1.s", 0, "malformed"},
		{"9223372037s", 0, "longest representable"},
		{"99999999999999999999s", 0, "out of range"},
	}
	for _, tc := range tests {
		got, err := ParseTime(tc.in)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("ParseTime(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrTimeSyntax) {
			t.Errorf("ParseTime(%q) error = %v; want one containing %q", tc.in, err, tc.err)
		}
	}
}

func TestTimeString(t *testing.T) {
	tests := []struct {
		in   Time
		want string
	}{
		{0, "0"},
		{1, "1ns"},
		{4096, "4.096us"},
		{50 * Second, "50s"},
		{1500 * Millisecond, "1.5s"},
		{90 * Second, "90s"},
		{1001 * Microsecond, "1.001ms"},
		{-3 * Millisecond, "-3ms"},
		{MaxTime, "9223372036.854775807s"},
	}
	for _, tc := range tests {
		if got := tc.in.String(); got != tc.want {
			t.Errorf("Time(%d).String() = %q, want %q", int64(tc.in), got, tc.want)
		}
	}
}

func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"50s", "4.096us", "0", "1.5ms", "-1s", "1e9s", ".5h", "9223372036.854775807s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseTime(s)
		if err != nil {
			if !errors.Is(err, ErrTimeSyntax) {
				t.Fatalf("error %v does not wrap ErrTimeSyntax", err)
			}
			return
		}
		if v < 0 {
			t.Fatalf("ParseTime(%q) = %d, negative", s, v)
		}
		// Whatever parses formats back to a string that parses to the same value.
		back, err := ParseTime(v.String())
		if err != nil || back != v {
			t.Fatalf("round trip of %q: %d -> %q -> %d, %v", s, v, v.String(), back, err)
		}
	})
}
