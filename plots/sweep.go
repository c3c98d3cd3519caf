package plots

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
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
	t, err := readTable(aggregate)
	if err != nil {
		return err
	}
	if err := t.need("point", "metric", "n", "mean", "ci95_low", "ci95_high", x); err != nil {
		return err
	}
	// Parameter columns are those between "point" and "metric".
	var params []string
	for c, i := range t.cols {
		if i > t.cols["point"] && i < t.cols["metric"] && c != x {
			params = append(params, c)
		}
	}
	sort.Slice(params, func(a, b int) bool { return t.cols[params[a]] < t.cols[params[b]] })
	type pt struct{ x, y, lo, hi float64 }
	series := map[string][]pt{}
	var keys []string
	for i, row := range t.rows {
		if t.str(row, "metric") != metric {
			continue
		}
		xv, err := strconv.ParseFloat(strings.TrimSuffix(t.str(row, x), "s"), 64)
		if err != nil || math.IsNaN(xv) || math.IsInf(xv, 0) {
			return fmt.Errorf("%s:%d: %s = %q is not a number: choose a numeric axis for x", aggregate, i+2, x, t.str(row, x))
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
			return err
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
		return fmt.Errorf("%s: no rows for metric %q", aggregate, metric)
	}
	sort.Strings(keys)
	xLabel := x
	if xUnit != "" {
		xLabel += " (" + xUnit + ")"
	}
	p := newPlot(title, xLabel, metric+" (mean, 95% CI over seeds)")
	p.Legend.Left = true
	for i, k := range keys {
		pts := series[k]
		sort.Slice(pts, func(a, b int) bool { return pts[a].x < pts[b].x })
		e := errPoints{XYs: make(plotter.XYs, len(pts)), lo: make([]float64, len(pts)), hi: make([]float64, len(pts))}
		for j, q := range pts {
			e.XYs[j] = plotter.XY{X: q.x, Y: q.y}
			e.lo[j], e.hi[j] = q.lo, q.hi
		}
		if err := addLine(p, k, e.XYs, i, false); err != nil {
			return fmt.Errorf("%s: %w", aggregate, err)
		}
		bars, err := plotter.NewYErrorBars(e)
		if err != nil {
			return fmt.Errorf("%s: %w", aggregate, err)
		}
		bars.Color = palette[i%len(palette)]
		bars.CapWidth = vg.Points(6)
		p.Add(bars)
		sc, err := plotter.NewScatter(e.XYs)
		if err != nil {
			return fmt.Errorf("%s: %w", aggregate, err)
		}
		sc.Color = palette[i%len(palette)]
		p.Add(sc)
	}
	return save(p, out, aggregate)
}
