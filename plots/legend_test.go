package plots

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/lnetsim/lnetsim/record"
)

// The legend goes below the axes, the figure growing by its rows, so it never covers data:
// a figure without legend keeps the base size.
func TestLegendBelowData(t *testing.T) {
	heights := map[int]int{}
	for _, rows := range []int{0, 1, 4} {
		p := newPlot("t", "x", "y")
		for i := range rows {
			if err := addLine(p, fmt.Sprintf("series %d", i), plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 10}}, i, rows, false); err != nil {
				t.Fatal(err)
			}
		}
		wt, err := render(p, "png")
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := wt.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatal(err)
		}
		heights[rows] = img.Bounds().Dy()
	}
	if heights[0] != 432 || heights[1] != 462 || heights[4] != 502 {
		t.Fatalf("figure heights by legend rows: %v", heights)
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

// Series past the palette's colours get a dash pattern: the first 24 all differ. Each fault
// kind has its own marker style and legend entry: the first 18 all differ.
func TestStylesDiffer(t *testing.T) {
	for _, st := range []struct {
		what  string
		n     int
		style func(int) (color.Color, []vg.Length)
	}{
		{"series", len(palette) * len(lineDashes), seriesStyle},
		{"fault kind", len(faultDashes) * len(faultGreys), faultStyle},
	} {
		seen := map[string]int{}
		for i := range st.n {
			c, d := st.style(i)
			key := fmt.Sprint(c, d)
			if j, ok := seen[key]; ok {
				t.Fatalf("%s %d looks like %s %d (%s)", st.what, i, st.what, j, key)
			}
			seen[key] = i
		}
	}
}
