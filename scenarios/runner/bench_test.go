package runner

import (
	"path/filepath"
	"testing"

	"github.com/lnetsim/lnetsim/scenarios"
)

// flapSeed is the seed of the first run of sweeps/flapping-rail.sweep.yaml (retry_count 0,
// transaction_timeout 10, replicate 0): a run with the sweep's typical load (~188k messages,
// ~7M events).
const flapSeed = 12248711317166774388

// benchScenario loads sweeps/flapping-rail.yaml, the base scenario of the sweep the issue's
// speed target is measured on.
func benchScenario(b *testing.B) *scenarios.Scenario {
	b.Helper()
	s, err := scenarios.LoadFile("../../sweeps/flapping-rail.yaml")
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkFlappingRailRun is one run of the sweep's scenario writing its results directory,
// as a sweep worker does. allocs/op and B/op are what the garbage collector has to chase while
// the other workers run:
//
//	go test -run '^$' -bench FlappingRail -benchmem -benchtime 1x -count 6 ./scenarios/runner/
func BenchmarkFlappingRailRun(b *testing.B) {
	s := benchScenario(b)
	dir := b.TempDir()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(s, Options{Seed: flapSeed, Out: filepath.Join(dir, "run"), Version: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFlappingRailNoOut is the same run without a results directory: the simulation alone,
// so that the difference to BenchmarkFlappingRailRun is the cost of recording.
func BenchmarkFlappingRailNoOut(b *testing.B) {
	s := benchScenario(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(s, Options{Seed: flapSeed, Version: "bench"}); err != nil {
			b.Fatal(err)
		}
	}
}
