package plots

import (
	"fmt"
	"slices"

	"gonum.org/v1/plot/plotter"
)

// HealthPerRun draws one line per run directory on one figure: the health series of that
// run that fell lowest (on a tie, the one that changed most), named "label: series", to
// out. compare-releases uses it to show one fault on several releases.
func HealthPerRun(dirs, labels []string, title, out string) error {
	if len(dirs) != len(labels) || len(dirs) == 0 {
		return fmt.Errorf("HealthPerRun: %d run directories, %d labels", len(dirs), len(labels))
	}
	p := newPlot(title, "virtual time (s)", "health value (0-1000)")
	p.Y.Min, p.Y.Max = 0, 1050
	drawn := 0
	for i, dir := range dirs {
		series, keys, _, err := healthSeries(dir)
		if err != nil {
			continue // a run without health changes has no line
		}
		slices.Sort(keys)
		worst := slices.MaxFunc(keys, func(a, b string) int {
			return fallScore(series[a]) - fallScore(series[b])
		})
		if err := addLine(p, labels[i]+": "+worst, series[worst], i, len(dirs), true); err != nil {
			return err
		}
		drawn++
	}
	if drawn == 0 {
		return fmt.Errorf("no health changes in any run: %w", ErrNothingToPlot)
	}
	return save(p, out, dirs[0])
}

// fallScore orders series by how low they fell, then by how often they changed.
func fallScore(xys plotter.XYs) int {
	low := 1000.0
	for _, p := range xys {
		low = min(low, p.Y)
	}
	return int(1000-low)*1_000_000 + len(xys)
}
