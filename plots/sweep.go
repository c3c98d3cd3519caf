package plots

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// errPoints are points with asymmetric Y errors (distance below and above Y).
type errPoints struct {
	plotter.XYs
	lo, hi []float64
}

func (e errPoints) YError(i int) (float64, float64) { return e.lo[i], e.hi[i] }

// SweepCurve draws metric against the swept parameter x from a sweep's aggregate.csv: one
// line per combination of the other swept parameters, each point the mean over seeds with its
// 95% confidence interval as an error bar. x must be numeric (a tunable such as
// lnet.transaction_timeout or lnet.retry_count); xUnit, if not empty, labels its axis.
func SweepCurve(aggregate, x, xUnit, metric, title, out string) error {
	p, err := sweepPlot(aggregate, x, xUnit, metric, title)
	if err != nil {
		return err
	}
	return save(p, out, aggregate)
}

// sweepPlot builds SweepCurve's figure.
func sweepPlot(aggregate, x, xUnit, metric, title string) (*plot.Plot, error) {
	t, err := readTable(aggregate)
	if err != nil {
		return nil, err
	}
	if err := t.need("point", "metric", "n", "mean", "ci95_low", "ci95_high", x); err != nil {
		return nil, err
	}
	// Parameter columns are those between "point" and "metric".
	var params []string
	for c, i := range t.cols {
		if i > t.cols["point"] && i < t.cols["metric"] && c != x {
			params = append(params, c)
		}
	}
	sort.Slice(params, func(a, b int) bool { return t.cols[params[a]] < t.cols[params[b]] })
	params = varying(t, params, metric)
	type pt struct{ x, y, lo, hi float64 }
	series := map[string][]pt{}
	xLabels := map[float64]string{} // each swept value as written in aggregate.csv
	var keys []string
	for i, row := range t.rows {
		if t.str(row, "metric") != metric {
			continue
		}
		xv, err := strconv.ParseFloat(strings.TrimSuffix(t.str(row, x), "s"), 64)
		if err != nil || math.IsNaN(xv) || math.IsInf(xv, 0) {
			return nil, fmt.Errorf("%s:%d: %s = %q is not a number: choose a numeric axis for x", aggregate, i+2, x, t.str(row, x))
		}
		if _, ok := xLabels[xv]; !ok {
			xLabels[xv] = t.str(row, x)
		}
		var label []string
		for _, p := range params {
			label = append(label, p+"="+t.str(row, p))
		}
		key := strings.Join(label, " ")
		if key == "" {
			key = metric
		}
		mean, err := t.num(row, "mean", i)
		if err != nil {
			return nil, err
		}
		lo, errLo := t.num(row, "ci95_low", i)
		hi, errHi := t.num(row, "ci95_high", i)
		if errLo != nil || errHi != nil { // NaN: one replicate, no interval
			lo, hi = mean, mean
		}
		if _, ok := series[key]; !ok {
			keys = append(keys, key)
		}
		series[key] = append(series[key], pt{xv, mean, mean - lo, hi - mean})
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("%s: no rows for metric %q", aggregate, metric)
	}
	sort.Strings(keys)
	xLabel := x
	if xUnit != "" {
		xLabel += " (" + xUnit + ")"
	}
	p := newPlot(title, xLabel, metric+" (mean, 95% CI over seeds)")
	xs := slices.Sorted(maps.Keys(xLabels))
	step := dodgeStep(xs, len(keys))
	for i, k := range keys {
		pts := series[k]
		sort.Slice(pts, func(a, b int) bool { return pts[a].x < pts[b].x })
		off := (float64(i) - float64(len(keys)-1)/2) * step
		e := errPoints{XYs: make(plotter.XYs, len(pts)), lo: make([]float64, len(pts)), hi: make([]float64, len(pts))}
		for j, q := range pts {
			e.XYs[j] = plotter.XY{X: q.x + off, Y: q.y}
			e.lo[j], e.hi[j] = q.lo, q.hi
		}
		if err := addCurve(p, k, e, i); err != nil {
			return nil, fmt.Errorf("%s: %w", aggregate, err)
		}
	}
	padSweepAxes(p, xs, step*float64(len(keys)-1)/2)
	if len(xs) <= maxValueTicks {
		ticks := make(plot.ConstantTicks, len(xs))
		for i, x := range xs {
			ticks[i] = plot.Tick{Value: x, Label: xLabels[x]}
		}
		p.X.Tick.Marker = ticks
	}
	return p, nil
}

// maxValueTicks is the most swept values the x axis marks one by one (ticks at the values).
const maxValueTicks = 16

// curveGlyphs are the point shapes of the sweep curves, series by series, so that curves
// whose points coincide are still told apart.
var curveGlyphs = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.PyramidGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}}

// addCurve draws series i of a sweep: the line through its means, their error bars and
// points, each in the series' colour, named in the legend by line and point shape.
func addCurve(p *plot.Plot, name string, e errPoints, i int) error {
	l, err := seriesLine(e.XYs, i, 1, false)
	if err != nil {
		return err
	}
	bars, err := plotter.NewYErrorBars(e)
	if err != nil {
		return err
	}
	bars.Color = l.Color
	bars.CapWidth = vg.Points(6)
	sc, err := plotter.NewScatter(e.XYs)
	if err != nil {
		return err
	}
	sc.Color = l.Color
	sc.Shape = curveGlyphs[i%len(curveGlyphs)]
	sc.Radius = vg.Points(3.5)
	p.Add(l, bars, sc)
	p.Legend.Add(name, l, sc)
	return nil
}

// dodgeStep is how far apart along x the points of n curves at the same swept value are
// drawn, so that coinciding points and error bars stay visible: together they span 30% of
// the smallest gap between swept values (of the value itself, or 1, when there is one).
func dodgeStep(xs []float64, n int) float64 {
	if n < 2 || len(xs) == 0 {
		return 0
	}
	gap := math.Max(math.Abs(xs[0]), 1)
	if len(xs) > 1 {
		gap = math.Inf(1)
		for i := 1; i < len(xs); i++ {
			gap = math.Min(gap, xs[i]-xs[i-1])
		}
	}
	return 0.3 * gap / float64(n-1)
}

// padSweepAxes widens the x axis beyond the first and last swept values (by 6% of their span
// plus the dodge, half so), and the y axis by 6% of its range, so that points and error bars
// at the ends are drawn whole, not clipped by the frame.
func padSweepAxes(p *plot.Plot, xs []float64, dodge float64) {
	span := xs[len(xs)-1] - xs[0]
	pad := 0.06*span + dodge
	if span == 0 {
		pad = math.Max(math.Abs(xs[0])*0.1, 1) + dodge
	}
	p.X.Min, p.X.Max = xs[0]-pad, xs[len(xs)-1]+pad
	if yspan := p.Y.Max - p.Y.Min; yspan > 0 && !math.IsInf(yspan, 0) {
		p.Y.Min, p.Y.Max = p.Y.Min-0.06*yspan, p.Y.Max+0.06*yspan
	}
}

// varying keeps the parameters that take more than one value in metric's rows: one held
// constant (an axis of a single value) would only lengthen every legend label.
func varying(t *table, params []string, metric string) []string {
	var out []string
	for _, p := range params {
		first, rows := "", 0
		for _, row := range t.rows {
			if t.str(row, "metric") != metric {
				continue
			}
			if v := t.str(row, p); rows == 0 {
				first = v
			} else if v != first {
				out = append(out, p)
				break
			}
			rows++
		}
	}
	return out
}
