package plots

import (
	"fmt"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// A legend at the top of a linear axis gets headroom that grows with its rows; one at the
// bottom, or over a log axis, leaves the range alone.
func TestLegendRoom(t *testing.T) {
	mk := func(rows int, top, logY bool) *plot.Plot {
		p := newPlot("t", "x", "y")
		p.Legend.Top = top
		for i := 0; i < rows; i++ {
			if err := addLine(p, fmt.Sprintf("series %d", i), plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 10}}, i, false); err != nil {
				t.Fatal(err)
			}
		}
		if logY {
			p.Y.Scale = plot.LogScale{}
		}
		return p
	}
	one, four := mk(1, true, false), mk(4, true, false)
	legendRoom(one)
	legendRoom(four)
	if !(one.Y.Max > 10) || !(four.Y.Max > one.Y.Max) {
		t.Fatalf("top legend headroom: 1 row -> Y.Max %v, 4 rows -> %v; want both above 10, growing", one.Y.Max, four.Y.Max)
	}
	for _, p := range []*plot.Plot{mk(4, false, false), mk(4, true, true)} {
		legendRoom(p)
		if p.Y.Max != 10 {
			t.Fatalf("Y.Max %v, want 10 unchanged (bottom legend or log axis)", p.Y.Max)
		}
	}
}
