package chrome

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

func TestTraceIsValidAndComplete(t *testing.T) {
	var buf bytes.Buffer
	tw := NewWriter(&buf)
	tw.ProcessName(1, "client")
	tw.ThreadName(1, 2, "10.0.0.1@o2ib")
	tw.Begin(1500, 1, 2, "lnet.msg", "PUT 1MiB", 7, Args{"dst": "10.0.0.2@o2ib"})
	tw.Begin(1600, 1, 2, "lnet.msg", "PUT 4KiB", 8, nil) // overlaps the first: async spans
	tw.Instant(2*sim.Microsecond, 1, 2, "fault", "port down", Args{"port": 1, "hca": "mlx5_0"})
	tw.Counter(2500, 1, "health 10.0.0.1@o2ib", Args{"value": 900})
	tw.End(3001, 1, 2, "lnet.msg", "PUT 1MiB", 7, Args{"status": "OK"})
	tw.End(4000, 1, 2, "lnet.msg", "PUT 4KiB", 8, nil)
	if err := tw.Close(Args{"seed": 42}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		DisplayTimeUnit string           `json:"displayTimeUnit"`
		TraceEvents     []map[string]any `json:"traceEvents"`
		OtherData       map[string]any   `json:"otherData"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not valid JSON: %v\n%s", err, buf.String())
	}
	if len(doc.TraceEvents) != 8 || tw.Events() != 8 || doc.OtherData["seed"] != 42.0 {
		t.Fatalf("events=%d otherData=%v", len(doc.TraceEvents), doc.OtherData)
	}
	// Format rules: every event has ph, ts, pid, tid, name; async events carry cat and id;
	// b/e pairs match; instants are thread-scoped; timestamps are microseconds.
	open := map[string]int{}
	for i, ev := range doc.TraceEvents {
		for _, k := range []string{"ph", "ts", "pid", "tid", "name"} {
			if _, ok := ev[k]; !ok {
				t.Fatalf("event %d lacks %q: %v", i, k, ev)
			}
		}
		switch ev["ph"] {
		case "b", "e":
			key := ev["cat"].(string) + "/" + ev["id"].(string)
			if ev["ph"] == "b" {
				open[key]++
			} else {
				open[key]--
			}
		case "i":
			if ev["s"] != "t" {
				t.Fatalf("instant without scope: %v", ev)
			}
		}
	}
	for k, n := range open {
		if n != 0 {
			t.Fatalf("async span %s unbalanced (%d)", k, n)
		}
	}
	if ts := doc.TraceEvents[6]["ts"].(float64); ts != 3.001 {
		t.Fatalf("3001ns written as %v us", ts)
	}
	if ts := doc.TraceEvents[4]["ts"].(float64); ts != 2 {
		t.Fatalf("2us written as %v", ts)
	}
}

func TestDeterministicBytes(t *testing.T) {
	write := func() string {
		var buf bytes.Buffer
		tw := NewWriter(&buf)
		tw.Instant(1, 1, 1, "c", "n", Args{"z": 1, "a": 2, "m": "x"})
		_ = tw.Close(Args{"b": 1, "a": 2})
		return buf.String()
	}
	a := write()
	for range 20 {
		if b := write(); b != a {
			t.Fatalf("two writes differ:\n%s\n%s", a, b)
		}
	}
}
