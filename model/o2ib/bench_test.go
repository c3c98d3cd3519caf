package o2ib

import (
	"runtime"
	"testing"

	"github.com/lnetsim/lnetsim/model/ib"
	"github.com/lnetsim/lnetsim/sim"
)

// benchPut measures full-stack PUT+ACK (LNet selection and credits, o2iblnd messages,
// credits and completions, IB QPs, links and switches) between two nodes with two EDR rails
// each, 16 PUTs in flight.
func benchPut(b *testing.B, size int, cfg ib.Config) {
	c := newCluster(b, clusterOpt{rails: 2, noTrace: true, cfg: cfg})
	c.lnd.SetObserver(nil)
	for _, n := range c.nodes {
		n.SetTracer(nil)
	}
	c.sink[1].log = nil
	u := &pumper{c: c, size: size, ack: true, remaining: 64, tb: b}
	for i := 0; i < 16; i++ {
		u.next()
	}
	c.run(b, sim.Second) // connect, discover, warm the pools
	c.sink[1].evs = nil
	u.remaining = b.N
	u.done = 0
	b.ReportAllocs()
	b.ResetTimer()
	t0, e0 := c.k.Now(), c.k.Fired()
	for i := 0; i < 16; i++ {
		u.next()
	}
	for u.done < b.N {
		if err := c.k.RunUntil(c.k.Now() + sim.Millisecond); err != nil {
			b.Fatal(err)
		}
		c.sink[1].evs = c.sink[1].evs[:0]
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "PUTs/s")
	b.ReportMetric(float64(c.k.Fired()-e0)/float64(b.N), "events/PUT")
	b.ReportMetric(float64(b.N)*float64(size)*8/(c.k.Now()-t0).Seconds()/1e9, "sim-Gb/s")
}

// BenchmarkPut1MiB is the speed figure: 1 MiB PUT with ACK, default fabric chunks
// (16 packets of 4 KiB).
func BenchmarkPut1MiB(b *testing.B) { benchPut(b, 1<<20, ib.Config{}) }

// BenchmarkPut1MiBCoarse is the same with 1 MiB fabric chunks: every LND message, work
// completion and credit return is still its own step; only the IB transport's granularity
// of the bulk data changes.
func BenchmarkPut1MiBCoarse(b *testing.B) { benchPut(b, 1<<20, ib.Config{ChunkPackets: 256}) }

// BenchmarkPut1MiBAdaptive is the same with adaptive granularity (ib.GranularityAdaptive):
// 16 PUTs in flight share each rail, so the bulk moves in coarse chunks only when a QP is
// alone on its port.
func BenchmarkPut1MiBAdaptive(b *testing.B) {
	benchPut(b, 1<<20, ib.Config{Granularity: ib.GranularityAdaptive})
}

// BenchmarkPutImmediate is the small-message figure: 1 KiB PUT (IMMEDIATE) with ACK.
func BenchmarkPutImmediate(b *testing.B) { benchPut(b, 1024, ib.Config{}) }

// BenchmarkConnStorm is the connection storm of a routed cluster in small: 64 clients each
// PUT 512 bytes (IMMEDIATE, with ACK) to 16 servers at once, so 1024 o2iblnd connections come
// up together (CM handshakes, QPs, CQs, receive buffers) and carry one message each way. It
// reports the bytes and allocations per conn (both ends counted: 2048 conns) and the heap
// each keeps once established (live-B/conn, after a collection), LNet's peers included.
func BenchmarkConnStorm(b *testing.B) {
	const clients, servers = 64, 16
	b.ReportAllocs()
	var live, bytes, allocs uint64
	conns := 0
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		c := newCluster(b, clusterOpt{nodes: clients + servers, noTrace: true})
		c.lnd.SetObserver(nil)
		for _, n := range c.nodes {
			n.SetTracer(nil)
		}
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		b.StartTimer()
		for s := clients + 1; s <= clients+servers; s++ {
			for h := 1; h <= clients; h++ {
				c.put(b, h, s, 512)
			}
		}
		c.run(b, 100*sim.Millisecond)
		b.StopTimer()
		runtime.GC()
		runtime.ReadMemStats(&m1)
		live += m1.HeapAlloc - m0.HeapAlloc
		bytes += m1.TotalAlloc - m0.TotalAlloc
		allocs += m1.Mallocs - m0.Mallocs
		conns = int(c.lnd.stats.ConnsCreated)
		for h := 1; h <= clients; h++ {
			if got := len(c.src[h-1].evs); got != 2*servers { // SEND and ACK per PUT
				b.Fatalf("client %d: %d events, want %d", h, got, 2*servers)
			}
		}
		runtime.KeepAlive(c)
		b.StartTimer()
	}
	b.StopTimer()
	if conns != 2*clients*servers {
		b.Fatalf("%d conns created, want %d", conns, 2*clients*servers)
	}
	per := float64(b.N) * float64(conns)
	b.ReportMetric(float64(live)/per, "live-B/conn")
	b.ReportMetric(float64(bytes)/per, "B/conn")
	b.ReportMetric(float64(allocs)/per, "allocs/conn")
}
