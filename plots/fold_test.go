package plots

import (
	"slices"
	"testing"

	"gonum.org/v1/plot/plotter"
)

func TestFoldSeries(t *testing.T) {
	series := map[string]plotter.XYs{
		"a": {{X: 0, Y: 10}},
		"b": {{X: 0, Y: 0}, {X: 2, Y: 4}},
		"c": {{X: 1, Y: 6}},
		"d": {{X: 0, Y: 100}},
	}
	score := map[string]float64{"a": 1, "b": 1, "c": 5, "d": 9}
	keys := []string{"a", "b", "c", "d"}
	kept, other, n := foldSeries(keys, series, func(k string) float64 { return score[k] }, 4)
	if !slices.Equal(kept, keys) || other != nil || n != 0 {
		t.Fatalf("at the limit: kept %v, other %v, folded %d; want all kept", kept, other, n)
	}
	// Limit 3: d and c rank first (kept in name order); a and b (tied, by name) are folded.
	kept, other, n = foldSeries(keys, series, func(k string) float64 { return score[k] }, 3)
	if !slices.Equal(kept, []string{"c", "d"}) || n != 2 {
		t.Fatalf("kept %v, folded %d; want [c d], 2", kept, n)
	}
	// The mean of a (10 from 0) and b (0 from 0, 4 from 2): 5 at 0, 7 at 2.
	want := plotter.XYs{{X: 0, Y: 5}, {X: 2, Y: 7}}
	if !slices.Equal(other, want) {
		t.Fatalf("folded mean %v, want %v", other, want)
	}
	// A series counts from its first point: folding c (from 1) with a gives 10 at 0, 8 at 1.
	_, other, _ = foldSeries([]string{"a", "c", "d"}, series, func(k string) float64 { return score[k] * map[string]float64{"a": 1, "c": 0, "d": 1}[k] }, 2)
	if want := (plotter.XYs{{X: 0, Y: 10}, {X: 1, Y: 8}}); !slices.Equal(other, want) {
		t.Fatalf("folded mean %v, want %v", other, want)
	}
}
