package units

import (
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/sim"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want Size
		err  string
	}{
		{"4096", 4096, ""},
		{"0", 0, ""},
		{"1MiB", MiB, ""},
		{"4KiB", 4 * KiB, ""},
		{"1MB", 1000000, ""},
		{"1M", MiB, ""},
		{"1.5KiB", 1536, ""},
		{" 2 GiB ", 2 * GiB, ""},
		{"1kB", 1000, ""},
		{"0.5B", 0, "not a whole byte"},
		{"1Mb", 0, "not bits"},
		{"1XB", 0, `unknown unit "XB"`},
		{"MiB", 0, "expected a number"},
		{"", 0, "expected a number"},
		{"-1", 0, "expected a number"},
		{"1.2.3", 0, "malformed number"},
		{"1.", 0, "malformed number"},
		{"99999999999TiB", 0, "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSize(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseSize(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseSize(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
			}
			if back, err := ParseSize(got.String()); err != nil || back != got {
				t.Fatalf("round trip of %v: %v, %v", got, back, err)
			}
		})
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want Rate
		err  string
	}{
		{"100Gbps", 100 * Gbps, ""},
		{"12.5GB/s", 100 * Gbps, ""},
		{"EDR", 100 * Gbps, ""},
		{"4xEDR", 100 * Gbps, ""},
		{"1xEDR", 25 * Gbps, ""},
		{"edr", 100 * Gbps, ""},
		{"HDR", 200 * Gbps, ""},
		{"HDR100", 100 * Gbps, ""},
		{"NDR200", 200 * Gbps, ""},
		{"NDR", 400 * Gbps, ""},
		{"12xQDR", 96 * Gbps, ""},
		{"QDR", 32 * Gbps, ""},
		{"SDR", 8 * Gbps, ""},
		{"FDR", 54_545_454_544, ""},
		{"FDR10", 40 * Gbps, ""},
		{"1.5Mbps", 1_500_000, ""},
		{"1MiB/s", 8 << 20, ""},
		{"0Gbps", 0, "greater than zero"},
		{"100", 0, "missing unit"},
		{"100Gibps", 0, "unknown unit"},
		{"3xEDR", 0, "unknown unit"},
		{"0.1bps", 0, "not a whole bit"},
		{"99999999999Tbps", 0, "too large"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseRate(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseRate(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseRate(%q) = %v, %v; want %v", tt.in, int64(got), err, int64(tt.want))
			}
			if back, err := ParseRate(got.String()); err != nil || back != got {
				t.Fatalf("round trip of %v: %v, %v", got, back, err)
			}
		})
	}
}

func TestParseSeconds(t *testing.T) {
	tests := []struct {
		in   string
		want sim.Time
		err  string
	}{
		{"50", 50 * sim.Second, ""},
		{"0", 0, ""},
		{"50s", 50 * sim.Second, ""},
		{"1500ms", 1500 * sim.Millisecond, ""},
		{"-1", 0, "negative"},
		{"fifty", 0, "whole seconds"},
		{"99999999999999999999", 0, "too large"},
	}
	for _, tt := range tests {
		got, err := ParseSeconds(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseSeconds(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	if _, err := ParseDuration("20"); err == nil || !strings.Contains(err.Error(), "missing unit") {
		t.Errorf("ParseDuration(20): %v", err)
	}
	if d, err := ParseDuration("4.096us"); err != nil || d != 4096 {
		t.Errorf("ParseDuration(4.096us) = %v, %v", d, err)
	}
}

func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"1MiB", "4096", "1.5KiB", "1M", "0.5B", "99999999999TiB", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSize(s)
		if err == nil {
			if back, err := ParseSize(v.String()); err != nil || back != v {
				t.Fatalf("round trip of %q: %v -> %q -> %v, %v", s, v, v.String(), back, err)
			}
		}
	})
}

func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"100Gbps", "12.5GB/s", "EDR", "4xHDR", "HDR100", "1xFDR", "0.1bps"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseRate(s)
		if err == nil {
			if v <= 0 {
				t.Fatalf("ParseRate(%q) = %d, not positive", s, v)
			}
			if back, err := ParseRate(v.String()); err != nil || back != v {
				t.Fatalf("round trip of %q: %d -> %q -> %d, %v", s, v, v.String(), back, err)
			}
		}
	})
}

func FuzzParseSeconds(f *testing.F) {
	for _, s := range []string{"50", "50s", "1.5ms", "-1", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if v, err := ParseSeconds(s); err == nil && v < 0 {
			t.Fatalf("ParseSeconds(%q) = %v, negative", s, v)
		}
	})
}

// TestIBSpeedsFromModelIB: every InfiniBand speed name reads as model/ib's rate for it (one
// table): the 4x link in Mb/s, rounded down, is ib's, XDR and FDR10 included.
func TestIBSpeedsFromModelIB(t *testing.T) {
	for _, name := range []string{"SDR", "DDR", "QDR", "FDR10", "FDR", "EDR", "HDR", "NDR", "XDR"} {
		u, err := ParseRate(name)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ib.ParseRate(name)
		if err != nil {
			t.Fatal(err)
		}
		if int64(u/Mbps) != r.Mbps {
			t.Errorf("%s: units %v, ib %d Mb/s", name, u, r.Mbps)
		}
	}
	if u, _ := ParseRate("FDR"); u != 54_545_454_544 {
		t.Errorf("FDR = %d b/s, want 54545454544", int64(u))
	}
}
