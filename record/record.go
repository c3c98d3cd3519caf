// Package record writes the result directory of one simulation run: summary.json,
// messages.csv, health.csv, timeseries.csv, faults.csv and counters.yaml. The directory is
// written under a temporary name and renamed into place by Commit, so a reader (or a resumed
// sweep) never sees a half-written run.
//
// Every file is deterministic: rows are written in event order, times are integer virtual
// nanoseconds, floats use the shortest exact representation, and maps are never iterated
// unsorted. The same scenario and seed therefore give byte-identical files.
package record

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"gopkg.in/yaml.v3"

	"github.com/lnetsim/lnetsim/sim"
)

// File names inside a run directory.
const (
	SummaryFile    = "summary.json"
	MessagesFile   = "messages.csv"
	HealthFile     = "health.csv"
	TimeseriesFile = "timeseries.csv"
	FaultsFile     = "faults.csv"
	CountersFile   = "counters.yaml"
)

// Message is one row of messages.csv: an LNet message from first send to finalize.
type Message struct {
	ID       uint64
	Type     string // PUT, GET, ACK, REPLY
	Src, Dst string // NIDs
	// Path lists each attempt's hops: local NI > peer NI (> next hop ...); attempts are
	// separated by ';' in the file.
	Path    []string
	Size    int64
	Start   sim.Time
	End     sim.Time
	Status  string // 0 or a negative errno name, as the event reports it
	HStatus string // LNET_MSG_STATUS_* name
	Resends int
}

// HealthChange is one row of health.csv.
type HealthChange struct {
	Time     sim.Time
	Node     string
	Kind     string // "ni" or "peer_ni"
	NID      string
	Old, New int
	Cause    string
}

// Sample is one row of timeseries.csv in tidy (long) form.
type Sample struct {
	Time   sim.Time
	Node   string
	Metric string // e.g. ni_tx_credits, peer_ni_health, throughput_bps
	Key    string // the NI or peer NI the value belongs to, if any
	Value  float64
}

// Fault is one row of faults.csv: a fault or rule applied at Time, and how often it hit.
type Fault struct {
	Time   sim.Time
	Kind   string
	Target string
	Detail string
	Hits   int
}

var (
	messagesHeader   = []string{"id", "type", "src", "dst", "path", "size", "start_ns", "end_ns", "latency_ns", "status", "hstatus", "resends"}
	healthHeader     = []string{"time_ns", "node", "kind", "nid", "old", "new", "cause"}
	timeseriesHeader = []string{"time_ns", "node", "metric", "key", "value"}
	faultsHeader     = []string{"time_ns", "kind", "target", "detail", "hits"}
)

// Run is a result directory being written.
type Run struct {
	final, tmp string
	scenario   string // the scenario whose run may be replaced (see CheckReplace)
	files      []*os.File
	messages   *table
	health     *table
	timeseries *table
	faults     *table
	err        error
	done       bool
}

// Create starts writing the run directory dir (its parent must exist or be creatable) for
// scenario. dir may already exist only as a run directory of the same scenario (see
// CheckReplace), which Commit replaces; anything else there is refused now. The files are
// written in a sibling temporary directory until Commit.
func Create(dir, scenario string) (*Run, error) {
	dir = filepath.Clean(dir)
	if err := CheckReplace(dir, scenario); err != nil {
		return nil, err
	}
	parent, base := filepath.Split(dir)
	if parent == "" {
		parent = "."
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes it private
		_ = os.RemoveAll(tmp)
		return nil, fmt.Errorf("results: %w", err)
	}
	r := &Run{final: dir, tmp: tmp, scenario: scenario}
	r.messages = r.csvFile(MessagesFile, messagesHeader)
	r.health = r.csvFile(HealthFile, healthHeader)
	r.timeseries = r.csvFile(TimeseriesFile, timeseriesHeader)
	r.faults = r.csvFile(FaultsFile, faultsHeader)
	if r.err != nil {
		r.Abort()
		return nil, r.err
	}
	return r, nil
}

// Dir returns the final directory name.
func (r *Run) Dir() string { return r.final }

func (r *Run) csvFile(name string, header []string) *table {
	if r.err != nil {
		return newTable(io.Discard)
	}
	f, err := os.Create(filepath.Join(r.tmp, name))
	if err != nil {
		r.err = fmt.Errorf("results: %w", err)
		return newTable(io.Discard)
	}
	r.files = append(r.files, f)
	t := newTable(f)
	for _, h := range header {
		t.str(h)
	}
	r.end(t)
	return t
}

// end finishes t's current row; the first write error is kept for Commit.
func (r *Run) end(t *table) {
	if err := t.end(); err != nil && r.err == nil {
		r.err = fmt.Errorf("results: %w", err)
	}
}

// FormatFloat formats v in the shortest form that reads back exactly.
func FormatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Message appends a row to messages.csv.
func (r *Run) Message(m Message) {
	t := r.messages
	t.uint(m.ID)
	t.str(m.Type)
	t.str(m.Src)
	t.str(m.Dst)
	t.join(m.Path, ';')
	t.int(m.Size)
	t.int(int64(m.Start))
	t.int(int64(m.End))
	t.int(int64(m.End - m.Start))
	t.str(m.Status)
	t.str(m.HStatus)
	t.int(int64(m.Resends))
	r.end(t)
}

// Health appends a row to health.csv.
func (r *Run) Health(h HealthChange) {
	t := r.health
	t.int(int64(h.Time))
	t.str(h.Node)
	t.str(h.Kind)
	t.str(h.NID)
	t.int(int64(h.Old))
	t.int(int64(h.New))
	t.str(h.Cause)
	r.end(t)
}

// Sample appends a row to timeseries.csv.
func (r *Run) Sample(s Sample) {
	t := r.timeseries
	t.int(int64(s.Time))
	t.str(s.Node)
	t.str(s.Metric)
	t.str(s.Key)
	t.float(s.Value)
	r.end(t)
}

// Fault appends a row to faults.csv.
func (r *Run) Fault(f Fault) {
	t := r.faults
	t.int(int64(f.Time))
	t.str(f.Kind)
	t.str(f.Target)
	t.str(f.Detail)
	t.int(int64(f.Hits))
	r.end(t)
}

// WriteJSON writes v as indented JSON to name (e.g. SummaryFile). Struct fields keep their
// order and encoding/json sorts map keys, so the bytes are deterministic.
func (r *Run) WriteJSON(name string, v any) {
	if r.err != nil {
		return
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		r.err = fmt.Errorf("results: %s: %w", name, err)
		return
	}
	r.writeFile(name, append(b, '\n'))
}

// WriteYAML writes v as YAML to name (e.g. CountersFile); yaml.v3 sorts map keys.
func (r *Run) WriteYAML(name string, v any) {
	if r.err != nil {
		return
	}
	b, err := marshalYAML(v)
	if err != nil {
		r.err = fmt.Errorf("results: %s: %w", name, err)
		return
	}
	r.writeFile(name, b)
}

// marshalYAML is yaml.Marshal(v), byte for byte: by fastYAML when it can, else by yaml.v3 in
// bounded memory. yaml.v3's emitter keeps every event of a document until it ends (1.8 GB
// of allocation and 700 MB live for the 17 MB counters.yaml of a 1000-node cluster), so a
// top-level map is marshalled one key at a time, in the order yaml.v3 sorts the keys, and the
// parts joined.
func marshalYAML(v any) ([]byte, error) {
	if b, err := fastYAML(v); err == nil {
		return b, nil
	}
	m, ok := v.(map[string]any)
	if !ok || len(m) < 2 {
		return yaml.Marshal(v)
	}
	// yaml.v3's key order (natural: node9 before node10), read back from a document of the
	// keys alone; keys yaml.v3 cannot read back as written (it reads the key "\n" as "")
	// leave the order unknown and the whole map to yaml.v3.
	keys := slices.Sorted(maps.Keys(m))
	order, err := yamlKeyOrder(keys)
	if err != nil {
		return yaml.Marshal(v)
	}
	var out []byte
	for _, k := range order {
		b, err := yaml.Marshal(map[string]any{k: m[k]})
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return out, nil
}

func (r *Run) writeFile(name string, b []byte) {
	if err := os.WriteFile(filepath.Join(r.tmp, name), b, 0o644); err != nil {
		r.err = fmt.Errorf("results: %w", err)
	}
}

// Commit flushes and closes every file and renames the directory into place, replacing a
// previous run of the same scenario (checked again: the directory may have changed since
// Create). On any error nothing is left behind but what was there before.
func (r *Run) Commit() error {
	if r.done {
		return errors.New("results: run already committed or aborted")
	}
	for _, t := range []*table{r.messages, r.health, r.timeseries, r.faults} {
		if err := t.w.Flush(); err != nil && r.err == nil {
			r.err = fmt.Errorf("results: %w", err)
		}
	}
	r.closeFiles()
	if r.err != nil {
		r.Abort()
		return r.err
	}
	r.done = true
	if err := CheckReplace(r.final, r.scenario); err != nil {
		_ = os.RemoveAll(r.tmp)
		return err
	}
	old := ""
	if _, err := os.Lstat(r.final); err == nil {
		old = r.tmp + ".old"
		if err := os.Rename(r.final, old); err != nil {
			_ = os.RemoveAll(r.tmp)
			return fmt.Errorf("results: replacing %s: %w", r.final, err)
		}
	}
	if err := os.Rename(r.tmp, r.final); err != nil {
		if old != "" {
			_ = os.Rename(old, r.final)
		}
		_ = os.RemoveAll(r.tmp)
		return fmt.Errorf("results: %w", err)
	}
	if old != "" {
		_ = os.RemoveAll(old)
	}
	return nil
}

func (r *Run) closeFiles() {
	for _, f := range r.files {
		if err := f.Close(); err != nil && r.err == nil {
			r.err = fmt.Errorf("results: %w", err)
		}
	}
	r.files = nil
}

// Abort removes the temporary directory; the previous run, if any, stays untouched.
func (r *Run) Abort() {
	r.closeFiles()
	r.done = true
	_ = os.RemoveAll(r.tmp)
}
