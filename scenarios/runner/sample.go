package runner

import (
	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/sim"
)

// sampler records periodic samples of model state for timeseries.csv.
type sampler struct {
	c       *cluster
	ws      *workloads
	every   sim.Time
	hid     sim.HandlerID
	samples []record.Sample
	lastOps []int // per workload: ops counted at the previous sample
}

func newSampler(c *cluster, ws *workloads, every sim.Time) *sampler {
	s := &sampler{c: c, ws: ws, every: every, lastOps: make([]int, len(ws.list))}
	s.hid = c.k.Register(s)
	return s
}

func (s *sampler) start() { s.c.k.Schedule(0, s.hid, 1, 0) }

// Handle takes one sample: per NI health, tx credits and queue; per peer NI health; per
// workload the payload throughput since the previous sample.
func (s *sampler) Handle(int, uint64) {
	now := s.c.k.Now()
	for _, n := range s.c.nodes {
		for _, ni := range n.ln.NIs() {
			key := ni.NID().String()
			avail, _, _ := ni.TxCredits()
			s.samples = append(s.samples,
				record.Sample{Time: now, Node: n.name, Metric: "ni_health", Key: key, Value: float64(ni.Health())},
				record.Sample{Time: now, Node: n.name, Metric: "ni_tx_credits", Key: key, Value: float64(avail)},
				record.Sample{Time: now, Node: n.name, Metric: "ni_tx_queued", Key: key, Value: float64(ni.TxQueued())})
		}
		for _, p := range n.ln.Peers() {
			for _, lpni := range p.NIs() {
				s.samples = append(s.samples, record.Sample{Time: now, Node: n.name, Metric: "peer_ni_health", Key: lpni.NID().String(), Value: float64(lpni.Health())})
			}
		}
	}
	for i, w := range s.ws.list {
		var bytes float64
		for _, o := range w.ops[s.lastOps[i]:] {
			if o.done && o.status == 0 && o.end > now-s.every {
				bytes += float64(o.size)
			}
		}
		// Ops finish out of order: advance the mark only past the finished prefix.
		for s.lastOps[i] < len(w.ops) && w.ops[s.lastOps[i]].done {
			s.lastOps[i]++
		}
		if now > 0 {
			s.samples = append(s.samples, record.Sample{Time: now, Node: "", Metric: "throughput_bps", Key: w.spec.Name, Value: bytes * 8 / s.every.Seconds()})
		}
	}
	if next := now + s.every; next <= s.c.s.Duration {
		s.c.k.Schedule(next, s.hid, 1, 0)
	}
}
