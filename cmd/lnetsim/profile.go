package main

import (
	"fmt"
	"runtime"
	"runtime/pprof"

	"github.com/lnetsim/lnetsim/internal/atomicfile"
)

// profiler writes the Go runtime profiles --cpuprofile and --memprofile ask for, each
// atomically (a reader never sees half a profile). They profile the simulator itself, for
// anyone finding out where a large scenario spends its time or memory (go tool pprof FILE);
// they do not change a run's results.
type profiler struct {
	cpu    *atomicfile.File
	memOut string
}

// startProfiles starts the CPU profile (if cpuOut is set) and remembers where the heap
// profile goes.
func startProfiles(cpuOut, memOut string) (*profiler, error) {
	p := &profiler{memOut: memOut}
	if cpuOut == "" {
		return p, nil
	}
	f, err := atomicfile.Create(cpuOut)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Abort()
		return nil, fmt.Errorf("--cpuprofile: %v", err)
	}
	p.cpu = f
	return p, nil
}

// atEnd is called at the end of each scenario's simulation, its cluster still live: it
// writes the heap profile there, so inuse_space is what the simulated cluster holds and
// alloc_space everything the process allocated so far. With several scenarios the last
// one's profile is what remains.
func (p *profiler) atEnd() error {
	if p.memOut == "" {
		return nil
	}
	runtime.GC() // the heap profile is as of the last collection
	f, err := atomicfile.Create(p.memOut)
	if err != nil {
		return fmt.Errorf("--memprofile: %v", err)
	}
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Abort()
		return fmt.Errorf("--memprofile: %v", err)
	}
	if err := f.Commit(); err != nil {
		return fmt.Errorf("--memprofile: %v", err)
	}
	return nil
}

// stop ends the CPU profile and puts its file in place.
func (p *profiler) stop() error {
	if p.cpu == nil {
		return nil
	}
	pprof.StopCPUProfile()
	err := p.cpu.Commit()
	p.cpu = nil
	if err != nil {
		return fmt.Errorf("--cpuprofile: %v", err)
	}
	return nil
}
