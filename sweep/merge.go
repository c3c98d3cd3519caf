package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
	"gopkg.in/yaml.v3"

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
		broken := false
		for _, d := range dirs {
			s, err := readRun(RunDir(d, r))
			if errors.Is(err, ErrNoRun) {
				continue
			}
			if err != nil {
				problems = append(problems, fmt.Sprintf("run %s (%s, replicate %d) does not read back whole: %v: run `lnetsim sweep run` again with the same sweep file and --out %s to re-run it",
					r.ID, describe(r.Params), r.Replicate, err, d))
				broken = true
				continue
			}
			if found[i] != nil {
				problems = append(problems, fmt.Sprintf("run %s is in both %s and %s", r.ID, where[i], d))
				continue
			}
			found[i], where[i] = s, d
		}
		if found[i] == nil && !broken {
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

// readRun checks a run directory (CheckRun) and returns its summary.
func readRun(dir string) (*record.Summary, error) {
	if err := CheckRun(dir); err != nil {
		return nil, err
	}
	return record.ReadSummary(dir)
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

// runFiles are the files a sweep run's directory holds (what runner.Run writes without a
// capture or trace), each with how to tell it reads back whole.
var runFiles = []struct {
	name  string
	check func([]byte) error
}{
	{record.SummaryFile, checkSummary},
	{record.MessagesFile, checkCSV},
	{record.HealthFile, checkCSV},
	{record.TimeseriesFile, checkCSV},
	{record.FaultsFile, checkCSV},
	{record.CountersFile, checkYAML},
}

// ErrNoRun is CheckRun's error for a run directory that does not exist.
var ErrNoRun = errors.New("no run directory")

// CheckRun reports whether the run directory dir holds every file a run writes, each reading
// back whole (the JSON decodes; the YAML and the CSVs end with a newline and parse to the
// end, the CSVs with a constant number of fields). Runs are committed atomically, so a file that fails here
// was damaged afterwards (a full disk, a partial copy, a hand edit); resume runs it again.
func CheckRun(dir string) error {
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return ErrNoRun
	}
	for _, f := range runFiles {
		path := filepath.Join(dir, f.name)
		b, err := os.ReadFile(path)
		if err == nil {
			err = f.check(b)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, trimPathError(err))
		}
	}
	return nil
}

// trimPathError drops the path an *os.PathError repeats.
func trimPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func checkSummary(b []byte) error {
	var s record.Summary
	return json.Unmarshal(b, &s)
}

func checkYAML(b []byte) error {
	if err := wholeLines(b); err != nil {
		return err
	}
	var v any
	return yaml.Unmarshal(b, &v)
}

// wholeLines requires b to end with a newline: a file cut short mid-line may still parse.
func wholeLines(b []byte) error {
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return errors.New("cut short: it does not end with a complete line")
	}
	return nil
}

func checkCSV(b []byte) error {
	if err := wholeLines(b); err != nil {
		return err
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.ReuseRecord = true
	for {
		_, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
