package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A port_active on a port of a fatal HCA (a timeline the loader cannot follow: the hca_fatal
// is periodic) raises no PORT_ACTIVE on either backend: the NI stays DOWN and the fault
// record says why; hca_recover then brings it back.
func TestPortActiveOnFatalHCA(t *testing.T) {
	src := `
name: port-active-fatal
duration: 10s
nodes:
  client: {nis: [o2ib0, o2ib0]}
  server: {nis: [o2ib0, o2ib0]}
workload:
  - {name: w, type: brw, op: write, from: client, to: server, size: 64KiB, interval: 40ms}
faults:
  - {at: 2s, every: 20s, action: hca_fatal, ni: "client:1"}
  - {at: 4s, action: port_active, ni: "client:1"}
  - {at: 6s, action: hca_recover, ni: "client:1"}
expect:
  - {name: down after port_active, check: ni_status, at: 5s, ni: "client:1", state: down}
  - {name: up after hca_recover, check: ni_status, ni: "client:1", state: up}
`
	for _, backend := range []string{BackendO2IB, BackendIdeal} {
		t.Run(backend, func(t *testing.T) {
			csv := runExpecting(t, src, backend, "faults.csv")
			if !strings.Contains(string(csv), ",port_active,") || !strings.Contains(string(csv), "HCA fatal: no PORT_ACTIVE") {
				t.Errorf("faults.csv does not say the port_active was without effect:\n%s", csv)
			}
		})
	}
}

// wantCommands fails t for each text that commands.csv (csv) lacks, printing the file.
func wantCommands(t *testing.T, csv string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(csv, want) {
			t.Errorf("commands.csv lacks %q:\n%s", want, csv)
		}
	}
}

// runExpecting runs src on a backend, fails the test for each expectation that does not
// hold, and returns the content of the run directory's file name.
func runExpecting(t *testing.T, src, backend, name string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run")
	res, err := Run(load(t, src), Options{Backend: backend, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Summary.Expectations {
		if !e.Passed {
			t.Errorf("%s: %s", e.Name, e.Detail)
		}
	}
	b, err := os.ReadFile(filepath.Join(out, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
