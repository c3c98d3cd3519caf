package plots

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"github.com/lnetsim/lnetsim/record"
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

// A rule's hit-count row at the end of faults.csv is not drawn as a fault marker.
func TestFaultMarkersSkipHitCounts(t *testing.T) {
	dir := t.TempDir()
	csv := "time_ns,kind,target,detail,hits\n" +
		"30000000000,link_down,10.0.0.2@o2ib,,1\n" +
		"135000000000,drop_rule_add_hits,silent-loss,messages dropped or delayed by the rule,1\n"
	if err := os.WriteFile(filepath.Join(dir, record.FaultsFile), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	p := newPlot("t", "x", "y")
	if err := faultMarkers(p, dir, 0, 1); err != nil {
		t.Fatal(err)
	}
	if p.X.Min != 30 || p.X.Max != 30 {
		t.Fatalf("markers span x [%v, %v], want only the link_down at 30 s", p.X.Min, p.X.Max)
	}
}

// Series past the palette's colours get a dash pattern: the first 24 all differ.
func TestSeriesStylesDiffer(t *testing.T) {
	seen := map[string]int{}
	for i := 0; i < len(palette)*len(lineDashes); i++ {
		c, d := seriesStyle(i)
		key := fmt.Sprint(c, d)
		if j, ok := seen[key]; ok {
			t.Fatalf("series %d looks like series %d (%s)", i, j, key)
		}
		seen[key] = i
	}
}
