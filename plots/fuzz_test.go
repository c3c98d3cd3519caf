package plots

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/record"
)

// headOf returns the first n lines of a committed result file (a real input), or "".
func headOf(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	var b strings.Builder
	sc := bufio.NewScanner(f)
	for i := 0; i < n && sc.Scan(); i++ {
		b.WriteString(sc.Text() + "\n")
	}
	return b.String()
}

// runFiles are the CSVs `lnetsim plot DIR` reads, in the order the fuzz targets pass them.
var runFiles = []string{record.MessagesFile, record.HealthFile, record.TimeseriesFile, record.FaultsFile}

// drawAll writes the given files into a fresh run directory and draws every figure of
// `lnetsim plot` and the sweep curve from it; it fails the test on an error that is not one
// line naming a file of the directory.
func drawAll(t *testing.T, files []string, bins int, aggregate string) {
	t.Helper()
	dir := t.TempDir()
	for i, name := range runFiles {
		if files[i] == "\x00absent" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(files[i]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	agg := filepath.Join(dir, "aggregate.csv")
	if err := os.WriteFile(agg, []byte(aggregate), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "fig.svg")
	for name, draw := range map[string]func() error{
		"health":     func() error { return Health(dir, "t", out) },
		"throughput": func() error { return Throughput(dir, "t", out, bins) },
		"ni-traffic": func() error { return NIThroughput(dir, "t", out) },
		"latency":    func() error { return LatencyCDF(dir, "t", out) },
		"sweep":      func() error { return SweepCurve(agg, "lnet.retry_count", "", "resends", "t", out) },
	} {
		err := draw()
		if err == nil {
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, dir) || strings.Contains(msg, "\n") {
			t.Fatalf("%s: error is not one line naming the file: %q", name, msg)
		}
	}
}

const aggregateSeed = `point,lnet.retry_count,lnet.transaction_timeout,metric,n,mean,sd,ci95_low,ci95_high
a1,0,10,resends,3,1,0.5,0.2,1.8
a2,1,10,resends,3,2,0.5,1.2,2.8
a3,2,10,resends,1,4,NaN,4,4
`

// FuzzPlotInputs: `lnetsim plot DIR` and `lnetsim sweep plot` never panic on result files
// a user may have edited (bad numbers, NaN and infinities, negative times, missing columns,
// ragged rows, quotes), and every error is one line naming the file.
func FuzzPlotInputs(f *testing.F) {
	real := []string{
		headOf("../results/node-crash/messages.csv", 12),
		headOf("../results/node-crash/health.csv", 8),
		headOf("../results/link-loss/timeseries.csv", 30),
		headOf("../results/node-crash/faults.csv", 3),
	}
	f.Add(real[0], real[1], real[2], real[3], 100, aggregateSeed)
	f.Add("id,type,size,end_ns,latency_ns,hstatus\n1,PUT,10,-5,1,OK\n2,PUT,10,10,1,OK\n", real[1], real[2], real[3], 3, aggregateSeed)
	f.Add("type,size,end_ns,latency_ns,hstatus\nPUT,NaN,Inf,NaN,OK\n", "time_ns,node,kind,nid,old,new\n+Inf,a,ni,x,1,NaN\n", "time_ns,node,metric,key,value\n1,a,ni_tx_bps,k,Inf\n", "time_ns,kind\nNaN,x\n", 0, "point,x\n")
	f.Add("", "", "", "\x00absent", -1, "")
	f.Add("type,size,end_ns\n\"PUT\n", "time_ns,node\n1,2,3\n", "a\n\"", "time_ns,kind\n1e400,crash\n", 1<<30, "point,lnet.retry_count,metric,n,mean,ci95_low,ci95_high\np,1e308,resends,1,1e308,-1e308,Inf\n")
	f.Fuzz(func(t *testing.T, messages, health, timeseries, faults string, bins int, aggregate string) {
		bins = min(max(bins, 1), 10000) // the figure's bins are a flag (1 to MaxBins, checked by the CLI), not a file
		drawAll(t, []string{messages, health, timeseries, faults}, bins, aggregate)
	})
}

// TestPlotMalformedFiles: each kind of damage a hand-edited result file can have gives a
// one-line error naming the file (and the line where there is one), never a panic.
func TestPlotMalformedFiles(t *testing.T) {
	msgs := "id,type,size,end_ns,latency_ns,hstatus\n1,PUT,4096,1000,500,OK\n2,PUT,4096,2000,700,OK\n"
	health := "time_ns,node,kind,nid,old,new,cause\n1000,c,ni,10.0.0.1@o2ib,1000,900,x\n"
	ts := "time_ns,node,metric,key,value\n1000,c,ni_tx_bps,10.0.0.1@o2ib,1e9\n2000,c,ni_tx_bps,10.0.0.1@o2ib,2e9\n"
	faults := "time_ns,kind,target,detail,hits\n1500,port_down,c/hca0/1,,1\n"
	for _, c := range []struct {
		name string
		file int    // index in runFiles of the damaged file
		text string // its content
		want string // in the error
	}{
		{name: "ragged row", file: 0, text: msgs + "3,PUT\n", want: "line 4"},
		{name: "bad quote", file: 0, text: msgs + "3,\"PUT,1,1,1,OK\n", want: "messages.csv"},
		{name: "not a number", file: 0, text: strings.Replace(msgs, "2000", "2 s", 1), want: "messages.csv:3"},
		{name: "empty", file: 0, text: "", want: "empty file"},
		{name: "missing column", file: 0, text: "id,type\n1,PUT\n", want: "no column"},
		{name: "negative time", file: 0, text: msgs + "3,PUT,4096,-1000,500,OK\n", want: "messages.csv"},
		{name: "NaN time", file: 0, text: msgs + "3,PUT,4096,NaN,500,OK\n", want: "messages.csv"},
		{name: "infinite time", file: 0, text: msgs + "3,PUT,4096,Inf,500,OK\n", want: "messages.csv"},
		{name: "NaN latency", file: 0, text: strings.Replace(msgs, ",500,", ",NaN,", 1), want: "messages.csv"},
		{name: "NaN health", file: 1, text: strings.Replace(health, "900", "NaN", 1), want: "health.csv"},
		{name: "infinite health time", file: 1, text: strings.Replace(health, "1000,c", "-Inf,c", 1), want: "health.csv"},
		{name: "NaN fault time", file: 3, text: strings.Replace(faults, "1500", "NaN", 1), want: "faults.csv"},
		{name: "infinite rate", file: 2, text: strings.Replace(ts, "2e9", "Inf", 1), want: "timeseries.csv"},
		{name: "NaN sample time", file: 2, text: strings.Replace(ts, "2000,", "NaN,", 1), want: "timeseries.csv"},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := []string{msgs, health, ts, faults}
			files[c.file] = c.text
			dir := t.TempDir()
			for i, name := range runFiles {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(files[i]), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out := filepath.Join(dir, "fig.svg")
			var errs []string
			for _, err := range []error{Health(dir, "t", out), Throughput(dir, "t", out, 10), NIThroughput(dir, "t", out), LatencyCDF(dir, "t", out)} {
				if err == nil {
					continue
				}
				if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), dir) {
					t.Errorf("error is not one line naming the file: %q", err)
				}
				errs = append(errs, err.Error())
			}
			if !strings.Contains(strings.Join(errs, "|"), c.want) {
				t.Errorf("no error mentions %q: %q", c.want, errs)
			}
		})
	}
}

// TestPlotDegenerateRanges: inputs whose values are all one number draw (they panicked in
// gonum's tick markers): one message of latency under 1 us on the log axis, a constant NI
// rate beyond 2^53; a span too short to bin and a single message at time 0 are refused.
func TestPlotDegenerateRanges(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "fig.svg")
	write(record.MessagesFile, "id,type,size,end_ns,latency_ns,hstatus\n1,REPLY,64,1000,622,OK\n")
	if err := LatencyCDF(dir, "t", out); err != nil {
		t.Errorf("one sub-microsecond latency: %v", err)
	}
	write(record.TimeseriesFile, "time_ns,node,metric,key,value\n1000,c,ni_tx_bps,k,1e300\n2000,c,ni_tx_bps,k,1e300\n")
	if err := NIThroughput(dir, "t", out); err != nil {
		t.Errorf("constant huge rate: %v", err)
	}
	for _, msgs := range []string{
		"id,type,size,end_ns,latency_ns,hstatus\n1,PUT,64,5e-324,1,OK\n2,PUT,64,0,1,OK\n",
		"id,type,size,end_ns,latency_ns,hstatus\n1,PUT,64,0,1,OK\n",
	} {
		write(record.MessagesFile, msgs)
		if err := Throughput(dir, "t", out, 100); err == nil || !strings.Contains(err.Error(), record.MessagesFile) {
			t.Errorf("Throughput of %q: %v", msgs, err)
		}
	}
	if err := Throughput(dir, "t", out, MaxBins+1); err == nil {
		t.Error("too many bins accepted")
	}
}
