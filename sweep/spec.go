// Package sweep expands, runs, shards and merges parameter sweeps: a base scenario, axes of
// values for scenario fields (by the same paths as `--set`), and a number of seeds per point.
//
// The plan is deterministic: axes in sorted path order, values in the order written, points
// as their Cartesian product, replicates innermost. A run's ID is a hash of its parameters and
// replicate number, and its seed a hash of (sweep seed, run ID), so adding a value to an axis
// never changes the ID or seed of an existing run. Runs write their own directories
// atomically; a sweep that is run again skips the runs already complete, so an interrupted
// sweep resumes where it stopped. Shards (`--shard i/n`, Slurm job arrays, Kubernetes Indexed
// Jobs) take every n-th run of the plan; Merge combines shard outputs and aggregates metrics.
package sweep

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/lnetsim/lnetsim/scenarios"
)

// Spec is a parsed sweep file:
//
//	scenario: ../scenarios/catalogue/rail-failure.yaml   # relative to the sweep file
//	seed: 1                                              # sweep seed (default 1)
//	seeds: 5                                             # replicates per point (default 1)
//	axes:
//	  lnet.transaction_timeout: [10, 50, 150]
//	  lnet.retry_count: [0, 1, 2, 3]
type Spec struct {
	File     string // the sweep file, as given
	Scenario string // the base scenario, resolved against the sweep file's directory
	Seed     uint64
	Seeds    int
	Axes     []Axis // sorted by Path

	scenarioAt string // file:line:col of the scenario value, for Check's errors
}

// MaxRuns is the most runs one sweep may plan (points x seeds). Parse refuses a larger grid
// at once, computing its size by multiplication: a plan is held in memory and printed, and a
// sweep beyond this is better split into several files.
const MaxRuns = 100_000

// Axis is one swept scenario field and its values, each a canonical YAML flow string.
type Axis struct {
	Path   string
	Values []string
	At     []string // file:line:col of each value in the sweep file

	keyAt string // file:line:col of the axis's path
}

// Param is one field of a point: a scenario path and the value it is set to.
type Param struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

// Run is one simulation of the plan.
type Run struct {
	Index     int     `json:"index"` // position in the plan
	ID        string  `json:"id"`
	PointID   string  `json:"point"`
	Params    []Param `json:"params"`
	Replicate int     `json:"replicate"`
	Seed      uint64  `json:"seed"`
}

// Load reads and checks a sweep file.
func Load(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse checks a sweep file's content; file names it in errors (file:line:col: ...).
func Parse(file string, data []byte) (*Spec, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", file, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	at := func(n *yaml.Node, format string, args ...any) error {
		return fmt.Errorf("%s:%d:%d: %s", file, n.Line, n.Column, fmt.Sprintf(format, args...))
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:1:1: a sweep file is a mapping with scenario, seed, seeds and axes", file)
	}
	s := &Spec{File: file, Seed: 1, Seeds: 1}
	root := doc.Content[0]
	var sawScenario, sawAxes bool
	var seedsNode, axesNode *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "scenario":
			if v.Kind != yaml.ScalarNode || v.Value == "" {
				return nil, at(v, "scenario: expected the path of a scenario file")
			}
			s.Scenario = v.Value
			s.scenarioAt = pos(file, v)
			if !filepath.IsAbs(s.Scenario) {
				s.Scenario = filepath.Join(filepath.Dir(file), s.Scenario)
			}
			sawScenario = true
		case "seed":
			if err := v.Decode(&s.Seed); err != nil {
				return nil, at(v, "seed: expected a non-negative integer, got %q", v.Value)
			}
		case "seeds":
			if err := v.Decode(&s.Seeds); err != nil || s.Seeds < 1 {
				return nil, at(v, "seeds: expected a whole number of replicates >= 1, got %q", v.Value)
			}
			seedsNode = v
		case "axes":
			if v.Kind != yaml.MappingNode || len(v.Content) == 0 {
				return nil, at(v, "axes: expected a mapping of scenario paths to lists of values")
			}
			axesNode = k
			for j := 0; j+1 < len(v.Content); j += 2 {
				pk, pv := v.Content[j], v.Content[j+1]
				if err := scenarios.CheckPath(pk.Value); err != nil {
					return nil, at(pk, "axes: %q is not a scenario path (write e.g. lnet.retry_count or faults[0].at)", pk.Value)
				}
				if pv.Kind != yaml.SequenceNode || len(pv.Content) == 0 {
					return nil, at(pv, "axes.%s: expected a non-empty list of values, e.g. [0, 1, 2]", pk.Value)
				}
				ax := Axis{Path: pk.Value, keyAt: pos(file, pk)}
				seen := map[string]bool{}
				for _, e := range pv.Content {
					val, err := flow(e)
					if err != nil {
						return nil, at(e, "axes.%s: %v", pk.Value, err)
					}
					// The value travels as text (plan.jsonl, --set): it must read back alone as
					// itself, which an alias (*x) to an anchor elsewhere in the file does not.
					if n, err := scenarios.ValueNode(val); err != nil || !sameFlow(n, val) {
						return nil, at(e, "axes.%s: value %s does not stand alone (write it out instead of using a YAML anchor or alias)", pk.Value, val)
					}
					if seen[val] {
						return nil, at(e, "axes.%s: value %s listed twice", pk.Value, val)
					}
					seen[val] = true
					ax.Values = append(ax.Values, val)
					ax.At = append(ax.At, pos(file, e))
				}
				for _, prev := range s.Axes {
					if prev.Path == ax.Path {
						return nil, at(pk, "axes: %s listed twice", ax.Path)
					}
				}
				s.Axes = append(s.Axes, ax)
			}
			sawAxes = true
		default:
			return nil, at(k, "unknown key %q (a sweep file has scenario, seed, seeds and axes)", k.Value)
		}
	}
	if !sawScenario {
		return nil, fmt.Errorf("%s:1:1: missing scenario: the base scenario file to sweep", file)
	}
	if !sawAxes {
		return nil, fmt.Errorf("%s:1:1: missing axes: at least one scenario path with a list of values", file)
	}
	if err := s.checkSize(seedsNode, axesNode); err != nil {
		return nil, err
	}
	sort.Slice(s.Axes, func(i, j int) bool { return s.Axes[i].Path < s.Axes[j].Path })
	return s, nil
}

// pos is n's position in file as file:line:col.
func pos(file string, n *yaml.Node) string { return fmt.Sprintf("%s:%d:%d", file, n.Line, n.Column) }

// checkSize refuses a plan of more than MaxRuns runs, located at seeds when the seeds alone
// exceed it, else at axes. The size is a product of counts, never an enumeration.
func (s *Spec) checkSize(seedsNode, axesNode *yaml.Node) error {
	points := big.NewInt(1)
	for _, ax := range s.Axes {
		points.Mul(points, big.NewInt(int64(len(ax.Values))))
	}
	runs := new(big.Int).Mul(points, big.NewInt(int64(s.Seeds)))
	if runs.Cmp(big.NewInt(MaxRuns)) <= 0 {
		return nil
	}
	where := axesNode
	if seedsNode != nil && s.Seeds > MaxRuns {
		where = seedsNode
	}
	return fmt.Errorf("%s: %s runs (%s points x %d seed(s)): a sweep plans at most %d runs; use fewer values or seeds, or split it into several sweep files",
		pos(s.File, where), runs, points, s.Seeds, MaxRuns)
}

// flow renders a YAML value node in canonical single-line flow form.
func flow(n *yaml.Node) (string, error) {
	c := *n
	c.Style = yaml.FlowStyle
	c.HeadComment, c.LineComment, c.FootComment = "", "", ""
	b, err := yaml.Marshal(&c)
	if err != nil {
		return "", err
	}
	if c.Kind == yaml.ScalarNode && (strings.ContainsAny(c.Value, "\r\n\u0085\u2028\u2029") || strings.Contains(strings.TrimSpace(string(b)), "\n")) {
		// A string with line breaks comes out as a block scalar (|-, |4+): double-quote it,
		// which escapes the breaks, to keep one line that reads back as the same string.
		c.Style = yaml.DoubleQuotedStyle
		if b, err = yaml.Marshal(&c); err != nil {
			return "", err
		}
	}
	return strings.TrimSpace(string(b)), nil
}

// sameFlow reports whether node n written as flow gives text again.
func sameFlow(n *yaml.Node, text string) bool {
	back, err := flow(n)
	return err == nil && back == text
}

// Plan expands the spec into its runs, in plan order.
func (s *Spec) Plan() []Run {
	var runs []Run
	idx := make([]int, len(s.Axes))
	for {
		params := make([]Param, len(s.Axes))
		for i, ax := range s.Axes {
			params[i] = Param{Path: ax.Path, Value: ax.Values[idx[i]]}
		}
		point := hashID(params, -1)
		for rep := 0; rep < s.Seeds; rep++ {
			id := hashID(params, rep)
			runs = append(runs, Run{Index: len(runs), ID: id, PointID: point, Params: params, Replicate: rep, Seed: RunSeed(s.Seed, id)})
		}
		// Odometer increment, last axis fastest.
		i := len(idx) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(s.Axes[i].Values) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			return runs
		}
	}
}

// hashID names a point (rep < 0) or a run: 16 hex digits of sha256 over the canonical JSON
// of its parameters and replicate.
func hashID(params []Param, rep int) string {
	b, _ := json.Marshal(struct {
		P []Param `json:"p"`
		R int     `json:"r"`
	}{params, rep})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// RunSeed derives a run's seed from the sweep seed and the run's ID.
func RunSeed(sweepSeed uint64, runID string) uint64 {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], sweepSeed)
	sum := sha256.Sum256(append(b[:], runID...))
	return binary.LittleEndian.Uint64(sum[:8])
}

// Overrides returns the scenario overrides that realise r's parameters.
func (r Run) Overrides() ([]scenarios.Override, error) {
	out := make([]scenarios.Override, 0, len(r.Params))
	for _, p := range r.Params {
		o, err := scenarios.ParseSet(p.Path + "=" + p.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// ParamMap returns r's parameters as a map (for summary.json).
func (r Run) ParamMap() map[string]string {
	m := make(map[string]string, len(r.Params))
	for _, p := range r.Params {
		m[p.Path] = p.Value
	}
	return m
}
