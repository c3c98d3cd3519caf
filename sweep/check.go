package sweep

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"

	"github.com/lnetsim/lnetsim/scenarios"
)

// maxCheckErrors is how many problems Check lists before counting the rest.
const maxCheckErrors = 20

// Check validates the whole plan before anything runs, as `sweep plan` and `sweep run` do:
// the base scenario file exists and loads, and every point (its axis values applied as --set
// would) passes the scenario loader's checks. A problem with a value is located at the value
// in the sweep file and listed once however many points share it; one that only a
// combination shows (located in the scenario) names the point; one every value of an axis
// gets alike (an unknown path) is listed once at the axis. It lists the first
// maxCheckErrors problems, then how many more there are.
func (s *Spec) Check() error {
	data, err := os.ReadFile(s.Scenario)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%s: scenario: cannot read %s: %v (a relative path is taken from the sweep file's directory)", s.scenarioAt, s.Scenario, err)
	}
	if _, err := scenarios.Load(s.Scenario, data); err != nil {
		return fmt.Errorf("%s: scenario: %s does not load:\n%v", s.scenarioAt, s.Scenario, err)
	}
	probs := problems{seen: map[string]bool{}}
	at := make([]string, len(s.Axes))
	for _, r := range s.Plan() {
		if r.Replicate != 0 {
			continue
		}
		for i, p := range r.Params {
			at[i] = s.Axes[i].At[slices.Index(s.Axes[i].Values, p.Value)]
		}
		err := s.load(data, r.Params, at)
		if err == nil {
			continue
		}
		for _, line := range strings.Split(err.Error(), "\n") {
			if !strings.HasPrefix(line, s.File+":") {
				line = fmt.Sprintf("%s: point %s: %s", s.File, describe(r.Params), line)
			}
			probs.add(line)
		}
	}
	probs.lines = s.fold(probs.lines)
	return probs.err(s.File)
}

// load loads the base scenario (its content data) with params applied as overrides, each
// labelled in errors by its position at[i] in the sweep file.
func (s *Spec) load(data []byte, params []Param, at []string) error {
	ovs := make([]scenarios.Override, len(params))
	for i, p := range params {
		o, err := scenarios.ParseSet(p.Path + "=" + p.Value)
		if err != nil {
			return fmt.Errorf("%s: %v", at[i], err)
		}
		o.Origin = at[i]
		ovs[i] = o
	}
	_, err := scenarios.Load(s.Scenario, data, ovs...)
	return err
}

// problems collects Check's distinct error lines in the order found.
type problems struct {
	lines []string
	seen  map[string]bool // lookups only
}

func (p *problems) add(line string) {
	if !p.seen[line] {
		p.seen[line] = true
		p.lines = append(p.lines, line)
	}
}

// err lists the first maxCheckErrors lines, then how many more there are.
func (p *problems) err(file string) error {
	if len(p.lines) == 0 {
		return nil
	}
	msg := strings.Join(p.lines[:min(len(p.lines), maxCheckErrors)], "\n")
	if more := len(p.lines) - maxCheckErrors; more > 0 {
		msg += fmt.Sprintf("\n... and %d more problems in %s", more, file)
	}
	return errors.New(msg)
}

// fold replaces the lines every value of an axis got alike (the same message located at each
// value: an unknown path, a field that takes no such values) by one line at the axis's key.
func (s *Spec) fold(lines []string) []string {
	for _, ax := range s.Axes {
		if len(ax.Values) < 2 {
			continue
		}
		count := map[string]int{} // message -> values of ax it is located at (lookups only)
		for _, l := range lines {
			if msg, ok := ax.message(l); ok {
				count[msg]++
			}
		}
		var out []string
		folded := map[string]bool{} // lookups only
		for _, l := range lines {
			msg, ok := ax.message(l)
			switch {
			case !ok || count[msg] < len(ax.Values):
				out = append(out, l)
			case !folded[msg]:
				folded[msg] = true
				out = append(out, fmt.Sprintf("%s: %s (every value of the axis)", ax.keyAt, msg))
			}
		}
		lines = out
	}
	return lines
}

// message returns line's message when it is located at one of ax's values.
func (ax Axis) message(line string) (string, bool) {
	for _, at := range ax.At {
		if msg, ok := strings.CutPrefix(line, at+": "); ok {
			return msg, true
		}
	}
	return "", false
}
