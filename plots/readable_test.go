package plots

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// A sweep curve marks the x axis at the swept values, pads both axes so the end points and
// error bars are drawn whole, and spreads curves whose points coincide (here retry_count 1
// and 2 have the same means and intervals) so that each stays visible.
func TestSweepCurveReadable(t *testing.T) {
	agg := filepath.Join(t.TempDir(), "aggregate.csv")
	csv := "point,lnet.retry_count,lnet.transaction_timeout,metric,n,mean,sd,ci95_low,ci95_high\n"
	for _, rc := range []int{0, 1, 2} {
		for _, tt := range []int{10, 50, 150} {
			m := float64(tt) / float64(min(rc, 1)+1)
			csv += fmt.Sprintf("p%d%d,%d,%d,latency,5,%g,1,%g,%g\n", rc, tt, rc, tt, m, m-3, m+3)
		}
	}
	if err := os.WriteFile(agg, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := sweepPlot(agg, "lnet.transaction_timeout", "s", "latency", "t")
	if err != nil {
		t.Fatal(err)
	}
	ticks := p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max)
	if fmt.Sprint(ticks) != "[{10 10} {50 50} {150 150}]" {
		t.Errorf("x ticks %v, want the swept values", ticks)
	}
	// Dodge step 0.3 x 40 / 2 = 6; x pad 0.06 x 140 + 6 = 14.4; y padded by 6% of its range.
	if p.X.Min != 10-14.4 || p.X.Max != 150+14.4 {
		t.Errorf("x axis [%v, %v], want [-4.4, 164.4]", p.X.Min, p.X.Max)
	}
	lo, hi := 2.0, 153.0 // the lowest interval end (5 - 3) and the highest (150 + 3)
	if pad := 0.06 * (hi - lo); p.Y.Min != lo-pad || p.Y.Max != hi+pad {
		t.Errorf("y axis [%v, %v], want [%v, %v]", p.Y.Min, p.Y.Max, lo-pad, hi+pad)
	}
	// Three curves at swept values 40 apart: drawn 6 apart (together 30% of the gap), the
	// middle one at the value.
	if step := dodgeStep([]float64{10, 50, 150}, 3); step != 6 {
		t.Errorf("dodge step %v, want 6", step)
	}
	if step := dodgeStep([]float64{10, 50, 150}, 1); step != 0 {
		t.Errorf("one curve dodged by %v", step)
	}
}
