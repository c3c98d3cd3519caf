package runner

import (
	"github.com/lnetsim/lnetsim/model/lnet"
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
// its first event (outside its own output files) comes from here.
func prepare(s *scenarios.Scenario, seed uint64, backend string) (*prepared, error) {
	p := &prepared{col: newCollector()}
	p.ts = &tracerSet{list: []lnet.Tracer{p.col}}
	var err error
	if p.c, err = buildCluster(s, seed, p.ts, backend); err != nil {
		return nil, err
	}
	p.col.c = p.c
	if p.ws, err = newWorkloads(p.c, s); err != nil {
		return nil, err
	}
	p.col.wl, p.c.ws = p.ws, p.ws
	if p.faults, err = newFaults(p.c, s); err != nil {
		return nil, err
	}
	if p.ch, err = newChecker(p.c, s, p.ws); err != nil {
		return nil, err
	}
	p.ch.f = p.faults
	p.col.ch, p.ws.ch = p.ch, p.ch
	return p, nil
}

// Check builds s on backend as Run does and discards it without simulating anything: it
// fails exactly when Run would fail before its first event (its output files aside). lnetsim
// validate calls it, so validate and run cannot disagree.
func Check(s *scenarios.Scenario, backend string) error {
	_, err := prepare(s, s.Seed, backend)
	return err
}
