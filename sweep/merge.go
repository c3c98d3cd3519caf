package sweep

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/lnetsim/lnetsim/internal/atomicfile"
	"github.com/lnetsim/lnetsim/record"
)

// AggregateFile is the merged table Merge writes into the output directory.
const AggregateFile = "aggregate.csv"

// Merge finds every run of plan in the shard output directories dirs, checks that each is
// present exactly once and that all come from one lnetsim version and one base scenario, and
// writes out/aggregate.csv: per point and metric, n, mean, standard deviation and the 95%
// confidence interval of the mean (Student's t). Rows follow plan order, then metric name.
func Merge(plan []Run, dirs []string, out string) error {
	found := make([]*record.Summary, len(plan))
	where := make([]string, len(plan))
	var problems []string
	for i, r := range plan {
		for _, d := range dirs {
			s, err := record.ReadSummary(RunDir(d, r))
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				return err
			}
			if found[i] != nil {
				problems = append(problems, fmt.Sprintf("run %s is in both %s and %s", r.ID, where[i], d))
				continue
			}
			found[i], where[i] = s, d
		}
		if found[i] == nil {
			problems = append(problems, fmt.Sprintf("run %s (%s, replicate %d) is missing", r.ID, describe(r.Params), r.Replicate))
		}
	}
	if len(problems) > 0 {
		const show = 10
		msg := strings.Join(problems[:min(show, len(problems))], "\n  ")
		if len(problems) > show {
			msg += fmt.Sprintf("\n  ... and %d more", len(problems)-show)
		}
		return fmt.Errorf("sweep merge: %d problem(s):\n  %s", len(problems), msg)
	}
	for i, s := range found {
		if s.Version != found[0].Version || s.Scenario != found[0].Scenario {
			return fmt.Errorf("sweep merge: run %s was made by lnetsim %s from scenario %q, run %s by %s from %q: results from different versions or scenarios cannot be merged",
				plan[0].ID, found[0].Version, found[0].Scenario, plan[i].ID, s.Version, s.Scenario)
		}
		if s.Seed != plan[i].Seed {
			return fmt.Errorf("sweep merge: run %s has seed %d, the plan says %d: it belongs to another sweep", plan[i].ID, s.Seed, plan[i].Seed)
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	f, err := atomicfile.Create(filepath.Join(out, AggregateFile))
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	header := []string{"point"}
	for _, p := range plan[0].Params {
		header = append(header, p.Path)
	}
	header = append(header, "metric", "n", "mean", "sd", "ci95_low", "ci95_high")
	_ = w.Write(header)
	for start := 0; start < len(plan); {
		end := start
		for end < len(plan) && plan[end].PointID == plan[start].PointID {
			end++
		}
		for _, row := range aggregate(plan[start], found[start:end]) {
			_ = w.Write(row)
		}
		start = end
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// aggregate returns one row per metric present in every replicate of a point.
func aggregate(first Run, reps []*record.Summary) [][]string {
	var names []string
	for name := range reps[0].Metrics {
		inAll := true
		for _, s := range reps[1:] {
			if _, ok := s.Metrics[name]; !ok {
				inAll = false
				break
			}
		}
		if inAll {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	var rows [][]string
	for _, name := range names {
		xs := make([]float64, len(reps))
		for i, s := range reps {
			xs[i] = s.Metrics[name]
		}
		mean, sd := stat.MeanStdDev(xs, nil)
		lo, hi := mean, mean
		if n := len(xs); n > 1 {
			t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 1)}.Quantile(0.975)
			half := t * sd / math.Sqrt(float64(n))
			lo, hi = mean-half, mean+half
		} else {
			sd = math.NaN()
		}
		row := []string{first.PointID}
		for _, p := range first.Params {
			row = append(row, p.Value)
		}
		row = append(row, name, strconv.Itoa(len(xs)), record.FormatFloat(mean), record.FormatFloat(sd), record.FormatFloat(lo), record.FormatFloat(hi))
		rows = append(rows, row)
	}
	return rows
}
