package runner

import (
	"math"
	"slices"
	"testing"
)

// TestHistQuantile checks percentiles against the exact ones of the same values: within the
// histogram's 1/64 relative bucket width above 128, exact below, never above the maximum.
func TestHistQuantile(t *testing.T) {
	cases := []struct {
		name string
		vals []int64
	}{
		{"empty", nil},
		{"one", []int64{5_000_000}},
		{"small exact", []int64{0, 1, 2, 3, 127, 64, 64}},
		{"negative clamps to zero", []int64{-5, 10}},
		{"spread", func() (v []int64) {
			for i := int64(1); i <= 5000; i++ {
				v = append(v, i*i*37%10_000_000+i)
			}
			return v
		}()},
		{"huge", []int64{math.MaxInt64, 1 << 40, 3}},
	}
	for _, c := range cases {
		var h hist
		for _, v := range c.vals {
			h.add(v)
		}
		sorted := slices.Clone(c.vals)
		slices.Sort(sorted)
		for _, p := range []float64{0.1, 1, 50, 90, 99, 99.9, 100} {
			got := h.quantile(p)
			if len(sorted) == 0 {
				if got != 0 {
					t.Errorf("%s: p%v of nothing = %d, want 0", c.name, p, got)
				}
				continue
			}
			rank := max(int(math.Ceil(p/100*float64(len(sorted)))), 1)
			want := max(sorted[rank-1], 0)
			tol := int64(0)
			if want >= 128 {
				tol = want/64 + 1
			}
			if got < want || got-want > tol || got > max(sorted[len(sorted)-1], 0) {
				t.Errorf("%s: p%v = %d, want %d (+%d)", c.name, p, got, want, tol)
			}
		}
	}
}
