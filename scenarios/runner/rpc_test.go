package runner

import (
	"strings"
	"testing"
)

const rpcScenario = `
name: rpc
seed: 2
duration: 10s
nodes:
  client: {nis: [o2ib0, o2ib0]}
  server: {nis: [o2ib0]}
lnet: {transaction_timeout: 2, retry_count: 0}
workload:
  - {name: io, type: rpc, from: client, to: server, bulk: get, bulk_size: 1MiB, concurrency: 2, interval: 10ms, timeout: 1s, max_resends: 2}
faults:
  # The client drops every PUT it receives from the server for 2s (LNet drop rules act on
  # receive): replies are lost, the RPCs time out and are resent.
  - {at: 3s, for: 2s, action: drop_rule_add, node: client, name: lose-replies, rule: {src: "server", dst: "*", rate: 1, message: [put]}}
expect:
  - {name: rpcs complete, check: messages, workload: io, type: get, status: ok, min: 500}
  - {name: nothing lost, check: nothing_lost}
`

func TestRPCWorkloadResendsAfterTimeout(t *testing.T) {
	res := runPassing(t, rpcScenario)
	m := res.Summary.Metrics
	if m["io.rpc_resends"] < 1 {
		t.Fatalf("no RPC was resent while replies were dropped: %v", m)
	}
	if m["io.ops_failed"] != 0 {
		t.Fatalf("RPCs failed although max_resends covers the outage: %v", m)
	}
	if m["io.ops_completed"] < 500 {
		t.Fatalf("too few RPCs: %v", m)
	}
	// Without resends, the RPCs caught by the outage fail.
	res, err := Run(load(t, strings.Replace(rpcScenario, "max_resends: 2", "max_resends: 0", 1)), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Metrics["io.ops_failed"] < 1 {
		t.Fatalf("max_resends 0: no RPC failed: %v", res.Summary.Metrics)
	}
}
