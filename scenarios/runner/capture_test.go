package runner

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/trace/pcap"
)

// capScenario exercises every o2iblnd message type: a connection, small and large PUTs and
// GETs, a large PUT to a portal with no ME (the target NAKs it), and an idle connection whose
// keepalive sends NOOPs.
const capScenario = `
name: capture
seed: 1
duration: 6s
nodes:
  client: {nis: [o2ib0]}
  server: {nis: [o2ib0]}
o2ib:
  o2ib0: {keepalive: 1, timeout: 4}
workload:
  - {name: nak, type: brw, op: write, from: client, to: server, size: 1MiB, count: 1, portal: 33}
  - {name: big-writes, type: brw, op: write, from: client, to: server, size: 1MiB, count: 3}
  - {name: small-writes, type: brw, op: write, from: client, to: server, size: 1KiB, count: 3}
  - {name: big-reads, type: brw, op: read, from: client, to: server, size: 1MiB, count: 3}
  - {name: pings, type: ping, from: client, to: server, count: 2}
faults:
  - {at: 0s, action: drop_rule_add, node: server, name: nak, rule: {src: client, dst: "*", rate: 1, message: [put], portal: [33]}}
expect:
  - {name: nothing lost, check: nothing_lost}
`

func TestCaptureAndTrace(t *testing.T) {
	dir := t.TempDir()
	capFile, traceFile := filepath.Join(dir, "run.pcap"), filepath.Join(dir, "run.json")
	res, err := Run(load(t, capScenario), Options{Pcap: capFile, Trace: traceFile})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 0 {
		t.Fatalf("expectations failed: %+v", res.Summary.Expectations)
	}
	// The trace is valid JSON with balanced async spans.
	b, err := os.ReadFile(traceFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	open := map[string]int{}
	for _, ev := range doc.TraceEvents {
		if id, ok := ev["id"].(string); ok {
			switch ev["ph"] {
			case "b":
				open[id]++
			case "e":
				open[id]--
			}
		}
	}
	spans := 0
	for id, n := range open {
		if n != 0 {
			t.Fatalf("span %s unbalanced", id)
		}
		spans++
	}
	if spans < 20 {
		t.Fatalf("only %d message spans", spans)
	}
	// The capture decodes; every o2iblnd data message type appears.
	if _, err := os.Stat(capFile); err != nil {
		t.Fatal(err)
	}
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		if os.Getenv("LNETSIM_REQUIRE_TSHARK") == "1" {
			t.Fatal("tshark required")
		}
		t.Skip("tshark not installed")
	}
	out, err := exec.Command(tshark, "-n", "-r", capFile, "-P", "-V").CombinedOutput()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{"IBLND_MSG_CONNREQ", "IBLND_MSG_CONNACK", "IBLND_MSG_NOOP", "IBLND_MSG_IMMEDIATE",
		"IBLND_MSG_PUT_REQ", "IBLND_MSG_PUT_ACK", "IBLND_MSG_PUT_NAK", "IBLND_MSG_PUT_DONE", "IBLND_MSG_GET_REQ", "IBLND_MSG_GET_DONE",
		"LNET_PUT", "LNET_GET", "LNET_ACK", "LNET_REPLY", "RDMA Write"} {
		if !strings.Contains(text, want) {
			t.Errorf("capture lacks %s", want)
		}
	}
	if strings.Contains(text, "Invalid Packet Length") {
		t.Error("the InfiniBand dissector flags a packet length")
	}
	_ = pcap.LinkRoCE
}
