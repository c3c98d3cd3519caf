package sweep

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/lnetsim/lnetsim/internal/atomicfile"
)

// Runner performs one run of the plan, writing its results atomically to dir (as
// record.Create/Commit do). It must be safe to call from several goroutines at once: each
// call simulates one independent, single-threaded run.
type Runner func(ctx context.Context, r Run, dir string) error

// Options control Execute.
type Options struct {
	Out      string    // sweep output directory; runs go to Out/runs/<run id>
	Workers  int       // parallel runs (default: 1)
	Progress io.Writer // where progress is reported (nil: nowhere)
	Terminal bool      // Progress is a terminal: redraw one status line instead of logging
	Every    time.Duration
}

// Stats summarise an Execute call.
type Stats struct {
	Planned, Skipped, Ran, Failed int
}

// RunDir returns the directory of run r under the sweep output out.
func RunDir(out string, r Run) string { return filepath.Join(out, "runs", r.ID) }

// Complete reports whether r already has a committed result under out whose files all read
// back whole (CheckRun).
func Complete(out string, r Run) bool { return CheckRun(RunDir(out, r)) == nil }

// WritePlan writes out/plan.jsonl (one run per line) atomically.
func WritePlan(out string, plan []Run) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for _, r := range plan {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	// A temporary file of its own: the shards of a cluster job write the plan at once.
	return atomicfile.WriteFile(filepath.Join(out, "plan.jsonl"), []byte(b.String()))
}

// Execute runs every run of runs not already complete, on opt.Workers goroutines. When ctx is
// cancelled (Ctrl-C) no new run starts and the ones in flight finish, so nothing finished is
// lost and a later Execute resumes. Failed runs are reported together at the end.
func Execute(ctx context.Context, runs []Run, run Runner, opt Options) (Stats, error) {
	st := Stats{Planned: len(runs)}
	todo, err := resumable(runs, opt)
	if err != nil {
		return st, err
	}
	st.Skipped = len(runs) - len(todo)
	workers := max(1, opt.Workers)
	prog := newProgress(opt, len(todo), st.Skipped)
	jobs := make(chan Run)
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	for range min(workers, max(1, len(todo))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range jobs {
				err := run(ctx, r, RunDir(opt.Out, r))
				mu.Lock()
				if err != nil {
					st.Failed++
					errs = append(errs, fmt.Errorf("run %s (%s, replicate %d): %w", r.ID, describe(r.Params), r.Replicate, err))
				} else {
					st.Ran++
				}
				prog.done(err == nil)
				mu.Unlock()
			}
		}()
	}
feed:
	for _, r := range todo {
		select {
		case <-ctx.Done():
			break feed
		case jobs <- r:
		}
	}
	close(jobs)
	wg.Wait()
	prog.finish()
	if err := ctx.Err(); err != nil {
		errs = append(errs, fmt.Errorf("interrupted: %d of %d runs not started; run the same command again to resume", len(todo)-st.Ran-st.Failed, len(todo)))
	}
	return st, errors.Join(errs...)
}

// resumable prepares an output directory for Execute: it removes the temporary directories
// killed runs of runs left, and returns the runs that are not complete, telling
// opt.Progress about each run whose directory is there but does not read back whole.
func resumable(runs []Run, opt Options) ([]Run, error) {
	stale, err := removeStale(opt.Out, runs)
	if err != nil {
		return nil, fmt.Errorf("removing the temporary directories of interrupted runs: %w", err)
	}
	if stale > 0 && opt.Progress != nil {
		fmt.Fprintf(opt.Progress, "sweep: removed %d temporary run directories left by an interrupted sweep\n", stale)
	}
	var todo []Run
	for _, r := range runs {
		err := CheckRun(RunDir(opt.Out, r))
		if err == nil {
			continue
		}
		if !errors.Is(err, ErrNoRun) && opt.Progress != nil {
			fmt.Fprintf(opt.Progress, "sweep: run %s again: %v\n", r.ID, err)
		}
		todo = append(todo, r)
	}
	return todo, nil
}

func describe(ps []Param) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.Path + "=" + p.Value
	}
	return strings.Join(parts, " ")
}

// progress reports runs done, rate and ETA: one redrawn bar on a terminal, a line every
// opt.Every otherwise. It reads the wall clock, never simulation state.
type progress struct {
	w        io.Writer
	term     bool
	every    time.Duration
	total    int
	skipped  int
	finished int
	failed   int
	start    time.Time
	last     time.Time
}

func newProgress(opt Options, total, skipped int) *progress {
	p := &progress{w: opt.Progress, term: opt.Terminal, every: opt.Every, total: total, skipped: skipped, start: time.Now()}
	if p.every <= 0 {
		p.every = 10 * time.Second
	}
	p.last = p.start
	if p.w != nil && skipped > 0 {
		fmt.Fprintf(p.w, "sweep: %d runs already complete, %d to run\n", skipped, total)
	}
	return p
}

func (p *progress) done(ok bool) {
	p.finished++
	if !ok {
		p.failed++
	}
	if p.w == nil {
		return
	}
	now := time.Now()
	if p.term {
		fmt.Fprintf(p.w, "\r%s", p.line(now))
		return
	}
	if now.Sub(p.last) >= p.every || p.finished == p.total {
		p.last = now
		fmt.Fprintln(p.w, p.line(now))
	}
}

func (p *progress) line(now time.Time) string {
	el := now.Sub(p.start).Seconds()
	rate := float64(p.finished) / max(el, 1e-9)
	eta := "?"
	if rate > 0 {
		eta = time.Duration(float64(p.total-p.finished) / rate * float64(time.Second)).Round(time.Second).String()
	}
	s := fmt.Sprintf("runs %d/%d  %.2f runs/s  ETA %s", p.finished, p.total, rate, eta)
	if p.failed > 0 {
		s += fmt.Sprintf("  (%d failed)", p.failed)
	}
	if p.term {
		const width = 30
		filled := width * p.finished / max(p.total, 1)
		s = "[" + strings.Repeat("#", filled) + strings.Repeat(".", width-filled) + "] " + s
	}
	return s
}

func (p *progress) finish() {
	if p.w != nil && p.term && p.finished > 0 {
		fmt.Fprintln(p.w)
	}
}

// removeStale deletes the temporary directories (runs/.<id>.tmp-*) that runs of this sweep
// left when their process was killed before committing, and returns how many it removed.
// Only runs of runs are considered: shards sharing the output directory keep theirs; an entry
// that is not a directory is left alone, whatever its name.
func removeStale(out string, runs []Run) (int, error) {
	dir := filepath.Join(out, "runs")
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	mine := make(map[string]bool, len(runs)) // lookups only
	for _, r := range runs {
		mine[r.ID] = true
	}
	n := 0
	for _, e := range ents {
		id, _, ok := strings.Cut(strings.TrimPrefix(e.Name(), "."), ".tmp-")
		if !ok || !strings.HasPrefix(e.Name(), ".") || !mine[id] || !e.IsDir() {
			continue // only the directories record.Create makes (a symlink or file is not one)
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
