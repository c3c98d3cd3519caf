package runner

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/scenarios"
)

// railFailure is a short rail-failure scenario: a 2-rail client writes to a 2-rail server,
// the client's second port is down from 5s to 10s.
const railFailure = `
name: rail-failure-short
seed: 3
duration: 20s
nodes:
  client: {nis: [o2ib0, o2ib0]}
  server: {nis: [o2ib0, o2ib0]}
lnet: {transaction_timeout: 10, retry_count: 2}
workload:
  - {name: writes, type: brw, op: write, from: client, to: server, size: 1MiB, concurrency: 4, interval: 2ms}
faults:
  - {at: 5s, action: link_down, ni: "client:1", for: 5s}
expect:
  - {name: down while the port is down, check: ni_status, at: 9s, ni: "client:1", state: down}
  - {name: up again, check: ni_status, ni: "client:1", state: up}
  - {name: traffic moves to rail 0, check: path, workload: writes, from: 5500ms, at: 9s, via: ["client:0", "server:0"], min: 100}
  - {name: nothing uses rail 1 meanwhile, check: path, workload: writes, from: 5500ms, at: 9s, via: ["client:1", "server:1"], eq: 0}
  - {name: rail 1 carries traffic again, check: path, workload: writes, from: 12s, via: ["client:1", "server:1"], min: 100}
  - {name: no write fails, check: messages, workload: writes, type: put, status: failed, eq: 0}
  - {name: nothing lost, check: nothing_lost}
`

func load(t *testing.T, src string) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRailFailureExpectations(t *testing.T) {
	res := runPassing(t, railFailure)
	if res.Summary.Metrics["writes.ops_completed"] < 1000 {
		t.Fatalf("too little traffic: %v", res.Summary.Metrics)
	}
}

// TestInvertedExpectationFails proves the checks can fail: the same run with the key
// expectation inverted reports a failure.
func TestInvertedExpectationFails(t *testing.T) {
	src := strings.Replace(railFailure, `via: ["client:1", "server:1"], eq: 0}`, `via: ["client:1", "server:1"], min: 1}`, 1)
	src = strings.Replace(src, "state: down}", "state: up}", 1)
	res, err := Run(load(t, src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 2 {
		for _, e := range res.Summary.Expectations {
			t.Logf("%v %s: %s", e.Passed, e.Name, e.Detail)
		}
		t.Fatalf("%d expectations failed, want the 2 inverted ones", res.Failed)
	}
}

// TestResultsAreByteIdentical runs the scenario twice into two directories: every file must
// be identical byte for byte.
func TestResultsAreByteIdentical(t *testing.T) {
	base := t.TempDir()
	var dirs []string
	for i := range 2 {
		dir := filepath.Join(base, string(rune('a'+i)))
		if _, err := Run(load(t, railFailure), Options{Out: dir, Version: "test"}); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, dir)
	}
	for _, f := range []string{record.SummaryFile, record.MessagesFile, record.HealthFile, record.TimeseriesFile, record.FaultsFile, record.CountersFile} {
		a, err := os.ReadFile(filepath.Join(dirs[0], f))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dirs[1], f))
		if !bytes.Equal(a, b) {
			t.Fatalf("%s differs between two runs of the same scenario and seed", f)
		}
		if len(a) == 0 {
			t.Fatalf("%s is empty", f)
		}
	}
	// A different seed changes the run (the checksum at least).
	r1, _ := record.ReadSummary(dirs[0])
	res, err := Run(load(t, railFailure), Options{Seed: 99})
	if err != nil {
		t.Fatal(err)
	}
	if res.Summary.Seed != 99 || r1.Seed != 3 {
		t.Fatalf("seeds %d and %d", r1.Seed, res.Summary.Seed)
	}
}

func TestUnsupportedIsReported(t *testing.T) {
	src := strings.Replace(railFailure, `action: link_down, ni: "client:1", for: 5s`, `action: link_loss, ni: "client:1", loss: 0.01`, 1)
	s, err := scenarios.Load("test.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(s, Options{Backend: BackendIdeal}); err == nil || !strings.Contains(err.Error(), "o2ib backend") {
		t.Fatalf("err = %v", err)
	}
}

// TestOperationsCheck: the operations check counts workload operations by outcome in its
// window and by source node: writes whose PUT the server's LNet drops silently at 2s are sent
// (their messages are OK) but fail at the response check past their deadline (4s later, at
// the monitor's next check), so none has failed by 5s and every one by the end.
func TestOperationsCheck(t *testing.T) {
	src := `
name: operations-check
duration: 12s
nodes:
  client: {nis: [o2ib0]}
  server: {nis: [o2ib0]}
lnet: {transaction_timeout: 4, retry_count: 0}
workload:
  - {name: writes, type: brw, op: write, from: client, to: server, size: 1MiB, concurrency: 4, interval: 10ms}
faults:
  - {at: 2s, action: drop_rule_add, node: server, name: loss, rule: {rate: 5, message: [put]}}
  - {at: 2100ms, action: drop_rule_remove, node: server, name: loss}
expect:
  - {name: none failed yet, check: operations, workload: writes, status: failed, at: 5s, eq: 0}
  - {name: all failed, check: operations, workload: writes, status: failed, min: 1}
  - {name: completed, check: operations, workload: writes, min: 1}
  - {name: from the server, check: operations, workload: writes, node: server, status: failed, eq: 0}
  - {name: from the client, check: operations, workload: writes, node: client, status: failed, min: 1}
  - {name: messages all sent, check: messages, workload: writes, type: put, status: failed, eq: 0}
`
	res, err := Run(load(t, src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, e := range res.Summary.Expectations {
		if !e.Passed {
			t.Errorf("%s: %s", e.Name, e.Detail)
		}
		_, after, _ := strings.Cut(e.Detail, "got ")
		var v float64
		if _, err := fmt.Sscan(after, &v); err != nil {
			t.Fatalf("%s: no count in %q", e.Name, e.Detail)
		}
		got[e.Name] = v
	}
	m := res.Summary.Metrics
	if got["all failed"] != m["writes.ops_failed"] || got["completed"] != m["writes.ops_completed"] || got["from the client"] != m["writes.ops_failed"] {
		t.Fatalf("operations counts %v disagree with the metrics ops_failed %v, ops_completed %v", got, m["writes.ops_failed"], m["writes.ops_completed"])
	}
	if m["drop_count"] != 0 && m["writes.ops_failed"] == 0 {
		t.Fatalf("no write failed: %v", m)
	}
}

// TestGroupOfOneAlias: <group>0 names the only node of a group of one wherever a node is
// named (workload, faults, expectations, NI references). The loader accepted it but the
// runner looked the raw name up: a health check on node client0 crashed the run (FuzzRun
// found it) and a messages check on client0 would have counted nothing. Names are now
// rewritten to the member's own at load.
func TestGroupOfOneAlias(t *testing.T) {
	src := `
duration: 3s
nodes:
  client: {nis: [o2ib0, o2ib0]}
  server: {nis: [o2ib0]}
workload:
  - {name: w, type: brw, from: client0, to: [server0], size: 4KiB, interval: 10ms}
faults:
  - {at: 1s, action: set_peer_health, node: client0, peer_ni: "server0:0", health: 500}
expect:
  - {name: health, check: health, node: client0, peer_ni: server, at: 1000100us, max: 500}
  - {name: stats, check: stats, node: client0, counter: send_count, min: 100}
  - {name: messages, check: messages, node: client0, type: put, min: 100}
  - {name: operations, check: operations, workload: w, node: client0, min: 100}
  - {name: path, check: path, node: client0, via: ["client0:1", "server0:0"], min: 1}
`
	s := load(t, src)
	if s.Workload[0].From[0] != "client" || s.Workload[0].To[0] != "server" || s.Faults[0].Node != "client" || s.Expect[0].Node != "client" {
		t.Fatalf("names not canonical: from %v to %v fault %q expect %q", s.Workload[0].From, s.Workload[0].To, s.Faults[0].Node, s.Expect[0].Node)
	}
	res, err := Run(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Summary.Expectations {
		if !e.Passed {
			t.Errorf("%s: %s", e.Name, e.Detail)
		}
	}
}
