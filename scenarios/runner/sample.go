package runner

import (
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/sim"
)

// sampler streams periodic samples of model state to timeseries.csv.
type sampler struct {
	cluster   *cluster
	workloads *workloads
	out       *record.Run
	every     sim.Time
	hid       sim.HandlerID
	lastSent  map[lnet.NID]uint64 // NI -> bytes sent at the previous sample (lookups only)
	names     nidNames
}

func newSampler(c *cluster, ws *workloads, out *record.Run, every sim.Time) *sampler {
	s := &sampler{cluster: c, workloads: ws, out: out, every: every, lastSent: map[lnet.NID]uint64{}}
	s.hid = c.k.Register(s)
	return s
}

func (s *sampler) add(x record.Sample) { s.out.Sample(x) }

// start schedules the first sample (none without a results directory).
func (s *sampler) start() {
	if s.out != nil {
		s.cluster.k.Schedule(0, s.hid, 1, 0)
	}
}

// Handle takes one sample: per NI health, tx credits and queue, and bytes sent per second
// since the previous sample; per peer NI health; per workload the payload throughput.
func (s *sampler) Handle(int, uint64) {
	now := s.cluster.k.Now()
	for _, n := range s.cluster.nodes {
		for _, ni := range n.ln.NIs() {
			key := s.names.nid(ni.NID())
			avail, _, _ := ni.TxCredits()
			s.add(record.Sample{Time: now, Node: n.name, Metric: "ni_health", Key: key, Value: float64(ni.Health())})
			s.add(record.Sample{Time: now, Node: n.name, Metric: "ni_tx_credits", Key: key, Value: float64(avail)})
			s.add(record.Sample{Time: now, Node: n.name, Metric: "ni_tx_queued", Key: key, Value: float64(ni.TxQueued())})
			sent := ni.Stats().SendLength
			delta := sent - s.lastSent[ni.NID()]
			if sent < s.lastSent[ni.NID()] {
				delta = sent // a new LNet instance (node_restart, lnet configure) counts from 0
			}
			if now > 0 {
				s.add(record.Sample{Time: now, Node: n.name, Metric: "ni_tx_bps", Key: key, Value: float64(delta) * 8 / s.every.Seconds()})
			}
			s.lastSent[ni.NID()] = sent
		}
		for _, p := range n.ln.Peers() {
			for _, lpni := range p.NIs() {
				s.add(record.Sample{Time: now, Node: n.name, Metric: "peer_ni_health", Key: s.names.nid(lpni.NID()), Value: float64(lpni.Health())})
			}
		}
	}
	for _, w := range s.workloads.list {
		if now > 0 {
			s.add(record.Sample{Time: now, Metric: "throughput_bps", Key: w.spec.Name, Value: float64(w.sampleBytes) * 8 / s.every.Seconds()})
		}
		w.sampleBytes = 0
	}
	if next := now + s.every; next <= s.cluster.scenario.Duration {
		s.cluster.k.Schedule(next, s.hid, 1, 0)
	}
}
