package runner

import (
	"github.com/lnetsim/lnetsim/scenarios"
)

// prepared is a scenario built and ready for its first event: the cluster, its workloads,
// faults and expectations, and the collector every node reports to.
type prepared struct {
	col    *collector
	ts     *tracerSet
	c      *cluster
	ws     *workloads
	faults *faultState
	ch     *checker
}

// prepare builds s with seed on backend as a run starts: every error a run can meet before
// its first event (outside its own output files) comes from here. Each part gets what it
// depends on through its constructor; wire then sets the back-pointers that close cycles.
func prepare(s *scenarios.Scenario, seed uint64, backend string) (*prepared, error) {
	p := &prepared{col: newCollector()}
	p.ts = &tracerSet{col: p.col}
	var err error
	if p.c, err = buildCluster(s, seed, p.ts, backend); err != nil {
		return nil, err
	}
	if p.ws, err = newWorkloads(p.c, s); err != nil {
		return nil, err
	}
	if p.faults, err = newFaults(p.c, s); err != nil {
		return nil, err
	}
	if p.ch, err = newChecker(p.c, s, p.ws, p.faults); err != nil {
		return nil, err
	}
	p.wire()
	return p, nil
}

// wire sets the only back-pointers assigned after construction, each closing a cycle: the
// collector is the cluster's tracer, so it exists before the cluster, workloads and checker
// it reports to; the cluster re-posts the workloads' buffers when a node restarts, and the
// workloads exist only once the cluster does; the workloads feed the checker, which is built
// from them.
func (p *prepared) wire() {
	p.col.cluster, p.col.workloads, p.col.checker = p.c, p.ws, p.ch
	p.col.keepAttempts = p.ch.readsPaths()
	p.c.workloads = p.ws
	p.ws.checker = p.ch
}

// Check builds s on backend as Run does and discards it without simulating anything: it
// fails exactly when Run would fail before its first event (its output files aside). lnetsim
// validate calls it, so validate and run cannot disagree.
func Check(s *scenarios.Scenario, backend string) error {
	_, err := prepare(s, s.Seed, backend)
	return err
}
