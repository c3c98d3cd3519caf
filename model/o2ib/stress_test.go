package o2ib

import (
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"

	"github.com/lnetsim/lnetsim/sim"
)

// Random PUTs and GETs of random sizes between three two-rail nodes while links flap: no
// panic, credits stay in range, and once the faults stop every message is finalized and
// every tx descriptor is back in its pool. TestStressFlapsBulkRead runs it on a read net.
func TestStressFlaps(t *testing.T) { stressFlaps(t, DefaultParams(), 6) }

// TestStressFlapsBulkRead is TestStressFlaps with bulk: read (PUT_RDREQ, READs failing and
// flushed under the flaps, PUT_RDDONE), three seeds.
func TestStressFlapsBulkRead(t *testing.T) { stressFlaps(t, readParams(0), 3) }

func stressFlaps(t *testing.T, p Params, seeds uint64) {
	for seed := uint64(1); seed <= seeds; seed++ {
		c := newCluster(t, clusterOpt{nodes: 3, rails: 2, noTrace: true, seed: seed, params: p})
		rng := c.k.Rand("test.stress")
		sizes := []int{0, 8, 1000, 3976, 3977, 70000, 1 << 20}
		var issue func()
		sent := 0
		issue = func() {
			if c.k.Now() > 20*sim.Second {
				return
			}
			a := 1 + int(rng.Uint64()%3)
			b := 1 + int(rng.Uint64()%3)
			if a == b {
				b = 1 + b%3
			}
			size := sizes[rng.Uint64()%uint64(len(sizes))]
			if rng.Uint64()%3 == 0 {
				c.get(t, a, b, size)
			} else {
				c.put(t, a, b, size)
			}
			sent++
			c.k.AfterFunc(sim.Time(rng.Uint64()%2000)*sim.Microsecond, issue)
		}
		issue()
		links := c.f.Links()
		var flap func()
		flap = func() {
			if c.k.Now() > 15*sim.Second {
				for _, l := range links {
					if !l.Up() {
						l.LinkUp()
					}
				}
				return
			}
			l := links[rng.Uint64()%uint64(len(links))]
			if l.Up() {
				l.LinkDown()
			} else {
				l.LinkUp()
			}
			c.k.AfterFunc(sim.Time(rng.Uint64()%500)*sim.Millisecond, flap)
		}
		c.k.AfterFunc(100*sim.Millisecond, flap)
		for i := 0; i < 400; i++ {
			c.run(t, sim.Second)
			if err := c.lnd.checkInvariants(); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		}
		// LNet's recovery pings go on after the faults stop: a tx whose deadline is still
		// ahead is in flight, anything older leaked.
		pending := 0
		for _, x := range c.lnd.txs {
			if x.net == nil {
				continue
			}
			if x.deadline > c.k.Now() {
				pending++
				continue
			}
			t.Errorf("seed %d: leaked tx %s q=%d queued=%v waiting=%v sending=%d deadline %v", seed, x.msg.typ, x.q, x.queued, x.waiting, x.sending, x.deadline)
		}
		alloc := 0
		for _, n := range c.nodes {
			alloc += int(n.Stats().MsgsAlloc)
		}
		if alloc > pending {
			t.Errorf("seed %d: %d messages not finalized, %d txs in flight", seed, alloc, pending)
		}
		t.Logf("seed %d: %d operations, stats %+v", seed, sent, c.lnd.Stats())
	}
}

// An HCA fails and recovers (a fresh device): its NI is fatal meanwhile, and afterwards the
// device's region and listener are rebuilt, so PUTs in both directions work again. Node 2's
// pushes of its ping buffer (DOWN at the failure, UP at the recovery) reach node 1 when the
// HCA is back, but node 1's ACK of the second leaves on its stale connection and is lost
// (-EIO at 3.4 s): node 2's discovery of node 1 waits for that push's response tracker, and
// pings node 1 again at 226 s, before anything else is sent to node 1, so the PUTs are sent
// at 240 s.
func TestHCARecover(t *testing.T) {
	c := newCluster(t, clusterOpt{})
	c.put(t, 1, 2, 1<<20)
	c.run(t, sim.Second)
	h := c.ibn[1].HCAs()[0]
	h.HCAFatal()
	c.run(t, sim.Second)
	if !c.nodes[1].NIs()[0].Fatal() {
		t.Fatal("NI not fatal")
	}
	h.Recover()
	c.run(t, 238*sim.Second) // the survivor's conn times out meanwhile
	if c.nodes[1].NIs()[0].Fatal() {
		t.Fatal("NI still fatal")
	}
	c.put(t, 1, 2, 1<<20)
	c.put(t, 2, 1, 1<<20)
	c.run(t, 60*sim.Second)
	for i := 0; i < 2; i++ {
		if ack := c.src[i].last(lnet.EventACK); ack == nil || ack.Status != 0 || ack.Time < 240*sim.Second {
			t.Fatalf("node %d ACK %+v", i+1, ack)
		}
	}
}
