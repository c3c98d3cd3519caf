package plots

import (
	"slices"
	"sort"

	"gonum.org/v1/plot/plotter"
)

// maxSeries bounds the lines a per-run figure draws: a 1000-client run has a thousand NIs,
// whose lines and legend would cover the figure. Past it the most telling series are drawn
// and the others folded into one mean line.
const maxSeries = 10

// foldSeries returns keys unchanged when there are at most limit of them. Otherwise it keeps
// the limit-1 that rank first by score (higher first, ties by name; returned in name order)
// and folds the rest into one step series: at every x where one of them has a point, the mean
// of their values there (each holding its last value; a series counts from its first point).
func foldSeries(keys []string, series map[string]plotter.XYs, score func(string) float64, limit int) (kept []string, other plotter.XYs, folded int) {
	if len(keys) <= limit {
		return keys, nil, 0
	}
	ranked := slices.Clone(keys)
	sort.SliceStable(ranked, func(a, b int) bool {
		sa, sb := score(ranked[a]), score(ranked[b])
		if sa != sb {
			return sa > sb
		}
		return ranked[a] < ranked[b]
	})
	kept = slices.Clone(ranked[:limit-1])
	sort.Strings(kept)
	rest := ranked[limit-1:]
	var xs []float64
	for _, k := range rest {
		for _, p := range series[k] {
			xs = append(xs, p.X)
		}
	}
	slices.Sort(xs)
	xs = slices.Compact(xs)
	next := make([]int, len(rest)) // per series: index of its first point beyond the current x
	for _, x := range xs {
		sum, n := 0.0, 0
		for i, k := range rest {
			s := series[k]
			for next[i] < len(s) && s[next[i]].X <= x {
				next[i]++
			}
			if next[i] > 0 {
				sum += s[next[i]-1].Y
				n++
			}
		}
		if n > 0 {
			other = append(other, plotter.XY{X: x, Y: sum / float64(n)})
		}
	}
	return kept, other, len(rest)
}
