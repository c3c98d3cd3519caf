package plots

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/sim"
)

// fakeRun writes a small but plausible run: a rail fails at 10s, its NI health drops and
// recovers, messages complete on the other rail.
func fakeRun(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	r, err := record.Create(dir, "rail-failure")
	if err != nil {
		t.Fatal(err)
	}
	r.Fault(record.Fault{Time: 10 * sim.Second, Kind: "port_down", Target: "client/hca0/1"})
	r.Fault(record.Fault{Time: 30 * sim.Second, Kind: "port_up", Target: "client/hca0/1"})
	h := 1000
	for i, at := range []sim.Time{10, 11, 12, 13} {
		r.Health(record.HealthChange{Time: at * sim.Second, Node: "client", Kind: "ni", NID: "10.0.0.1@o2ib", Old: h, New: h - 100, Cause: "LOCAL_TIMEOUT"})
		h -= 100
		_ = i
	}
	for at := sim.Time(31); at < 37; at++ {
		r.Health(record.HealthChange{Time: at * sim.Second, Node: "client", Kind: "ni", NID: "10.0.0.1@o2ib", Old: h, New: min(h+100, 1000), Cause: "recovery ping"})
		h = min(h+100, 1000)
	}
	r.Health(record.HealthChange{Time: 12 * sim.Second, Node: "client", Kind: "peer_ni", NID: "10.0.0.2@o2ib", Old: 1000, New: 900, Cause: "REMOTE_TIMEOUT"})
	for i := range 400 {
		start := sim.Time(i) * 100 * sim.Millisecond
		lat := 200 * sim.Microsecond
		if i%50 == 0 {
			lat = 50 * sim.Second
		}
		r.Message(record.Message{ID: uint64(i), Type: "PUT", Src: "a", Dst: "b", Size: 1 << 20, Start: start, End: start + lat, Status: "0", HStatus: "OK"})
		r.Message(record.Message{ID: uint64(i + 1000), Type: "ACK", Src: "b", Dst: "a", Size: 0, Start: start + lat, End: start + lat + 5*sim.Microsecond, Status: "0", HStatus: "OK"})
	}
	if err := r.Commit(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPlotsRenderFromFiles(t *testing.T) {
	dir := fakeRun(t)
	out := t.TempDir()
	cases := []struct {
		name string
		draw func(string) error
	}{
		{"health.png", func(o string) error { return Health(dir, "NI health, rail 0 port down at 10s", o) }},
		{"health.svg", func(o string) error { return Health(dir, "NI health", o) }},
		{"throughput.png", func(o string) error { return Throughput(dir, "throughput", o, 80) }},
		{"latency.png", func(o string) error { return LatencyCDF(dir, "latency", o) }},
	}
	for _, c := range cases {
		path := filepath.Join(out, c.name)
		if err := c.draw(path); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(c.name, ".png") {
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil || img.Bounds().Dx() < 500 {
				t.Fatalf("%s: not a usable PNG: %v", c.name, err)
			}
		} else if !bytes.Contains(b, []byte("<svg")) {
			t.Fatalf("%s: not an SVG", c.name)
		}
		if os.Getenv("LNETSIM_KEEP_PLOTS") != "" {
			_ = os.WriteFile(filepath.Join(os.Getenv("LNETSIM_KEEP_PLOTS"), c.name), b, 0o644)
		}
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != len(cases) {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestPlotErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, record.HealthFile), []byte("time_ns,node\n1,a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Health(dir, "x", filepath.Join(dir, "h.png"))
	if err == nil || !strings.Contains(err.Error(), "health.csv") || !strings.Contains(err.Error(), `"kind"`) {
		t.Fatalf("error = %v", err)
	}
	if err := Health(t.TempDir(), "x", filepath.Join(dir, "h.png")); err == nil {
		t.Fatal("missing results file not reported")
	}
	d2 := fakeRun(t)
	if err := Health(d2, "x", filepath.Join(dir, "noext")); err == nil || !strings.Contains(err.Error(), "extension") {
		t.Fatalf("missing extension: %v", err)
	}
}

func TestSweepCurve(t *testing.T) {
	dir := t.TempDir()
	agg := filepath.Join(dir, "aggregate.csv")
	csv := "point,lnet.retry_count,lnet.transaction_timeout,metric,n,mean,sd,ci95_low,ci95_high\n"
	for _, rc := range []int{0, 1, 2, 3} {
		for _, tt := range []int{10, 50, 150} {
			m := float64(tt) / float64(rc+1)
			csv += fmt.Sprintf("p%d%d,%d,%d,latency_p99_us,5,%g,1,%g,%g\n", rc, tt, rc, tt, m, m-2, m+2)
			csv += fmt.Sprintf("p%d%d,%d,%d,resend_count,5,%d,0,%d,%d\n", rc, tt, rc, tt, rc, rc, rc)
		}
	}
	if err := os.WriteFile(agg, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "curve.png")
	if err := SweepCurve(agg, "lnet.transaction_timeout", "s", "latency_p99_us", "p99 latency vs transaction_timeout", out); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(out); err != nil || len(b) < 1000 {
		t.Fatalf("no figure: %v", err)
	}
	if os.Getenv("LNETSIM_KEEP_PLOTS") != "" {
		b, _ := os.ReadFile(out)
		_ = os.WriteFile(filepath.Join(os.Getenv("LNETSIM_KEEP_PLOTS"), "curve.png"), b, 0o644)
	}
	if err := SweepCurve(agg, "lnet.transaction_timeout", "s", "no_such_metric", "x", out); err == nil {
		t.Fatal("missing metric not reported")
	}
}
