package runner

import (
	"fmt"
	"testing"
)

// fabric.chunk_packets, fabric.switch_buffer and fabric.switch_arbitration reach the IB
// model: eight clients write and read 1 MiB in a closed loop from one server (contended at
// the server's switch port) for 5 ms. Packet level takes 7.4 times the events of 16-packet
// chunks; with round-robin arbitration 16-packet chunks complete as many operations as
// packet level does, with FIFO outputs two fewer of each kind.
func TestFabricGranularityKnobs(t *testing.T) {
	const src = `
name: chunks
duration: 5ms
fabric: {%s}
nodes:
  client: {count: 8, nis: [o2ib0]}
  server: {nis: [o2ib0]}
workload:
  - {name: w, type: brw, op: write, from: client, to: server, size: 1MiB, concurrency: 1, distribution: 1:n}
  - {name: r, type: brw, op: read, from: client, to: server, size: 1MiB, concurrency: 1, distribution: 1:n}
`
	var got string
	for _, fab := range []string{"", "chunk_packets: 1", "chunk_packets: 1, switch_buffer: 16488", "chunk_packets: 32", "switch_arbitration: round-robin"} {
		res := runPassing(t, fmt.Sprintf(src, fab))
		m := res.Summary.Metrics
		got += fmt.Sprintf("%-40s events %6d writes %3.0f %6.2f Gb/s reads %3.0f %6.2f Gb/s\n", "{"+fab+"}", res.Summary.Events,
			m["w.ops_completed"], m["w.throughput_gbps"], m["r.ops_completed"], m["r.throughput_gbps"])
	}
	const want = `{}                                       events   4452 writes  30  50.33 Gb/s reads  54  90.60 Gb/s
{chunk_packets: 1}                       events  31379 writes  32  53.69 Gb/s reads  56  93.95 Gb/s
{chunk_packets: 1, switch_buffer: 16488} events  33060 writes  32  53.69 Gb/s reads  56  93.95 Gb/s
{chunk_packets: 32}                      events   3596 writes  30  50.33 Gb/s reads  54  90.60 Gb/s
{switch_arbitration: round-robin}        events   6045 writes  32  53.69 Gb/s reads  56  93.95 Gb/s
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
