package record

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeRun(t *testing.T, dir string) {
	t.Helper()
	r, err := Create(dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	r.Message(Message{ID: 1, Type: "PUT", Src: "10.0.0.1@o2ib", Dst: "10.0.0.2@o2ib",
		Path: []string{"10.0.0.1@o2ib>10.0.0.2@o2ib", "10.0.1.1@o2ib>10.0.1.2@o2ib"},
		Size: 1 << 20, Start: 1000, End: 51_000_001_000, Status: "0", HStatus: "OK", Resends: 1})
	r.Health(HealthChange{Time: 5, Node: "client", Kind: "ni", NID: "10.0.0.1@o2ib", Old: 1000, New: 900, Cause: "LOCAL_TIMEOUT"})
	r.Sample(Sample{Time: 10, Node: "client", Metric: "throughput_bps", Value: 1.0 / 3})
	r.Fault(Fault{Time: 20, Kind: "port_down", Target: "client/hca0/1", Hits: 1})
	r.WriteJSON(SummaryFile, map[string]any{"seed": 1, "scenario": "x", "a": []int{1}})
	r.WriteYAML(CountersFile, map[string]any{"statistics": map[string]int{"send_count": 3, "drop_count": 0}})
	if err := r.Commit(); err != nil {
		t.Fatal(err)
	}
}

func TestRunDirectoryIsAtomicAndDeterministic(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "runs", "b")
	writeRun(t, a)
	writeRun(t, b)
	writeRun(t, b) // replacing an existing run
	for _, name := range []string{SummaryFile, MessagesFile, HealthFile, TimeseriesFile, FaultsFile, CountersFile} {
		x, err := os.ReadFile(filepath.Join(a, name))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(x, y) {
			t.Fatalf("%s differs between identical runs", name)
		}
	}
	msgs, _ := os.ReadFile(filepath.Join(a, MessagesFile))
	want := "id,type,src,dst,path,size,start_ns,end_ns,latency_ns,status,hstatus,resends\n" +
		"1,PUT,10.0.0.1@o2ib,10.0.0.2@o2ib,10.0.0.1@o2ib>10.0.0.2@o2ib;10.0.1.1@o2ib>10.0.1.2@o2ib,1048576,1000,51000001000,51000000000,0,OK,1\n"
	if string(msgs) != want {
		t.Fatalf("messages.csv =\n%s\nwant\n%s", msgs, want)
	}
	ts, _ := os.ReadFile(filepath.Join(a, TimeseriesFile))
	if !strings.Contains(string(ts), "0.3333333333333333") {
		t.Fatalf("float not written exactly: %s", ts)
	}
	entries, _ := os.ReadDir(filepath.Join(base, "runs"))
	if len(entries) != 1 {
		t.Fatalf("leftovers next to the run: %v", entries)
	}
}

func TestAbortLeavesNothing(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "run")
	writeRun(t, dir)
	before, _ := os.ReadFile(filepath.Join(dir, MessagesFile))
	r, err := Create(dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	r.Message(Message{ID: 99})
	r.Abort()
	after, _ := os.ReadFile(filepath.Join(dir, MessagesFile))
	if !bytes.Equal(before, after) {
		t.Fatal("an aborted run changed the previous run")
	}
	entries, _ := os.ReadDir(base)
	if len(entries) != 1 {
		t.Fatalf("aborted run left files: %v", entries)
	}
	if err := r.Commit(); err == nil {
		t.Fatal("Commit after Abort succeeded")
	}
}

func TestUnserialisableSummaryFailsCommit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	r, err := Create(dir, "x")
	if err != nil {
		t.Fatal(err)
	}
	r.WriteJSON(SummaryFile, map[string]any{"bad": func() {}})
	if err := r.Commit(); err == nil {
		t.Fatal("Commit succeeded with an unwritable summary")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatal("a failed run left its directory")
	}
}
