package runner

import (
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/lnetsim/lnetsim/scenarios"
)

// BenchmarkBigFanIn runs testdata/big-fanin.yaml (1000 clients, 4 servers, radix-64 fat
// tree, 5 s with a link fault) writing its results directory, as lnetsim run does. It reports
// simulated events per wall second and the heap the live cluster holds at the end of the
// simulation (after a collection): the figures ARCHITECTURE.md's Scale note quotes.
//
//	go test -run '^$' -bench BigFanIn -benchmem -benchtime 1x ./scenarios/runner/
func BenchmarkBigFanIn(b *testing.B) {
	s, err := scenarios.LoadFile("testdata/big-fanin.yaml")
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	var live uint64
	var events uint64
	var simTime time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		paused := time.Duration(0)
		atEnd := func() {
			t0 := time.Now()
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			live = ms.HeapAlloc
			paused += time.Since(t0)
		}
		res, err := Run(s, Options{Out: filepath.Join(dir, "run"), Version: "bench", AtEnd: atEnd})
		if err != nil {
			b.Fatal(err)
		}
		if res.Failed > 0 {
			b.Fatalf("%d expectations failed", res.Failed)
		}
		events += res.Summary.Events
		simTime += time.Since(start) - paused
	}
	b.ReportMetric(float64(events)/simTime.Seconds(), "events/s")
	b.ReportMetric(float64(live)/(1<<20), "live-MiB")
}
