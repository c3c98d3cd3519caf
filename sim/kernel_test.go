package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// recorder is a handler that logs (time, kind, arg) of every event it receives and can run a
// per-kind hook to schedule or cancel from inside a handler.
type recorder struct {
	k    *Kernel
	id   HandlerID
	log  []string
	hook func(kind int, arg uint64)
}

func newRecorder(k *Kernel) *recorder {
	r := &recorder{k: k}
	r.id = k.Register(r)
	return r
}

func (r *recorder) Handle(kind int, arg uint64) {
	r.log = append(r.log, fmt.Sprintf("%s:%d:%d", r.k.Now(), kind, arg))
	if r.hook != nil {
		r.hook(kind, arg)
	}
}

func TestFIFOTies(t *testing.T) {
	k := New(1)
	r := newRecorder(k)
	for i := range 5 {
		k.Schedule(10, r.id, i, 0)
	}
	k.Schedule(5, r.id, 100, 0)
	// An event scheduled at the current time from inside a handler runs after the events
	// already queued for that time.
	r.hook = func(kind int, _ uint64) {
		if kind == 0 {
			k.Schedule(k.Now(), r.id, 50, 0)
		}
	}
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	want := []string{"5ns:100:0", "10ns:0:0", "10ns:1:0", "10ns:2:0", "10ns:3:0", "10ns:4:0", "10ns:50:0"}
	if !slices.Equal(r.log, want) {
		t.Fatalf("order = %v, want %v", r.log, want)
	}
}

// TestLevelZeroCrowdInPlace: a crowd of events for one time that ends up in a level-0 bucket
// (scheduled from afar, then joined by events scheduled once the clock is within the same
// 256 ns) is handed out in place, in insertion order, with events scheduled at that time
// while it fires after it, and cancelled members skipped.
func TestLevelZeroCrowdInPlace(t *testing.T) {
	k := New(1)
	r := newRecorder(k)
	for i := 1; i <= 3; i++ {
		k.Schedule(300, r.id, i, 0) // from time 0: level 1, moved to level 0 when the clock reaches 290
	}
	k.Schedule(301, r.id, 4, 0)
	gone := k.Schedule(300, r.id, 99, 0)
	k.Schedule(300, r.id, 5, 0)
	k.Schedule(290, r.id, 100, 0)
	r.hook = func(kind int, _ uint64) {
		switch kind {
		case 100: // at 290: 300 and 301 differ from it in the lowest digit only
			k.Schedule(300, r.id, 6, 0)
			k.Schedule(301, r.id, 7, 0)
			k.Cancel(gone)
		case 1:
			k.Schedule(k.Now(), r.id, 8, 0)
		}
	}
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	want := []string{"290ns:100:0", "300ns:1:0", "300ns:2:0", "300ns:3:0", "300ns:5:0", "300ns:6:0", "300ns:8:0",
		"301ns:4:0", "301ns:7:0"}
	if !slices.Equal(r.log, want) {
		t.Fatalf("order = %v, want %v", r.log, want)
	}
	if k.Pending() != 0 || k.Fired() != 9 {
		t.Fatalf("pending %d, fired %d", k.Pending(), k.Fired())
	}
}

func TestCancel(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, k *Kernel, r *recorder) []string
	}{
		{"before fire", func(t *testing.T, k *Kernel, r *recorder) []string {
			a := k.Schedule(10, r.id, 1, 0)
			k.Schedule(20, r.id, 2, 0)
			if !k.Cancel(a) {
				t.Error("Cancel of a queued event returned false")
			}
			if k.Cancel(a) {
				t.Error("second Cancel returned true")
			}
			return []string{"20ns:2:0"}
		}},
		{"after fire is a no-op", func(t *testing.T, k *Kernel, r *recorder) []string {
			a := k.Schedule(10, r.id, 1, 0)
			if err := k.RunUntil(15); err != nil {
				t.Fatal(err)
			}
			if k.Cancel(a) || k.Scheduled(a) {
				t.Error("a fired event still counts as scheduled")
			}
			// The slot is reused by the next event; the stale handle must not cancel it.
			k.Schedule(20, r.id, 2, 0)
			if k.Cancel(a) {
				t.Error("stale handle cancelled the event that reused its slot")
			}
			return []string{"10ns:1:0", "20ns:2:0"}
		}},
		{"zero handle", func(t *testing.T, k *Kernel, r *recorder) []string {
			if k.Cancel(EventID{}) {
				t.Error("Cancel(zero) returned true")
			}
			k.Schedule(1, r.id, 1, 0)
			return []string{"1ns:1:0"}
		}},
		{"inside a same-time batch", func(t *testing.T, k *Kernel, r *recorder) []string {
			k.Schedule(10, r.id, 1, 0)
			later := k.Schedule(10, r.id, 2, 0)
			k.Schedule(10, r.id, 3, 0)
			r.hook = func(kind int, _ uint64) {
				if kind == 1 {
					k.Cancel(later)
				}
			}
			return []string{"10ns:1:0", "10ns:3:0"}
		}},
		{"self-cancel while firing is a no-op", func(t *testing.T, k *Kernel, r *recorder) []string {
			self := k.Schedule(10, r.id, 1, 0)
			r.hook = func(int, uint64) {
				if k.Cancel(self) {
					t.Error("an event could cancel itself while firing")
				}
			}
			return []string{"10ns:1:0"}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := New(1)
			r := newRecorder(k)
			want := tc.run(t, k, r)
			if err := k.Run(); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(r.log, want) {
				t.Fatalf("fired %v, want %v", r.log, want)
			}
			if k.Pending() != 0 {
				t.Fatalf("Pending = %d after drain", k.Pending())
			}
		})
	}
}

func TestRescheduleAndTimer(t *testing.T) {
	k := New(1)
	r := newRecorder(k)
	a := k.Schedule(100, r.id, 1, 7)
	k.Schedule(50, r.id, 2, 0)
	b, ok := k.Reschedule(a, 50) // earlier, and after the event already queued at 50
	if !ok || k.Scheduled(a) || !k.Scheduled(b) {
		t.Fatalf("Reschedule: ok=%v old scheduled=%v new scheduled=%v", ok, k.Scheduled(a), k.Scheduled(b))
	}
	if at, _ := k.When(b); at != 50 {
		t.Fatalf("When = %s, want 50ns", at)
	}
	tm := &Timer{H: r.id, Kind: 9, Arg: 1}
	k.Arm(tm, 30)
	k.Arm(tm, 200) // moves: only one firing
	if d, ok := k.Deadline(tm); !ok || d != 200 {
		t.Fatalf("Deadline = %s, %v", d, ok)
	}
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	want := []string{"50ns:2:0", "50ns:1:7", "200ns:9:1"}
	if !slices.Equal(r.log, want) {
		t.Fatalf("fired %v, want %v", r.log, want)
	}
	if k.Armed(tm) || k.Disarm(tm) {
		t.Fatal("a fired timer still counts as armed")
	}
	if _, ok := k.Reschedule(b, 300); ok {
		t.Fatal("Reschedule of a fired event succeeded")
	}
}

func TestSchedulingInThePastPanics(t *testing.T) {
	k := New(1)
	r := newRecorder(k)
	k.Schedule(10, r.id, 0, 0)
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		msg := fmt.Sprint(recover())
		if !strings.Contains(msg, "before the current time 10ns") {
			t.Fatalf("panic = %q, want one naming the current time", msg)
		}
	}()
	k.Schedule(5, r.id, 0, 0)
}

func TestRunUntilAndLimits(t *testing.T) {
	k := New(1)
	r := newRecorder(k)
	// A self-perpetuating model: every event schedules another 1us later.
	r.hook = func(int, uint64) { k.After(Microsecond, r.id, 0, 0) }
	k.Schedule(0, r.id, 0, 0)

	if err := k.RunUntil(10 * Microsecond); err != nil {
		t.Fatal(err)
	}
	if k.Now() != 10*Microsecond || len(r.log) != 11 {
		t.Fatalf("RunUntil(10us): now=%s fired=%d, want 10us and 11", k.Now(), len(r.log))
	}

	k.SetLimits(Limits{MaxEvents: 20})
	err := k.Run()
	if !errors.Is(err, ErrEventLimit) || k.Fired() != 20 {
		t.Fatalf("event limit: err=%v fired=%d", err, k.Fired())
	}

	k.SetLimits(Limits{MaxTime: 30 * Microsecond})
	err = k.Run()
	if !errors.Is(err, ErrTimeLimit) || k.Now() != 30*Microsecond {
		t.Fatalf("time limit: err=%v now=%s", err, k.Now())
	}
	if !strings.Contains(err.Error(), "31us") {
		t.Fatalf("time limit error %q does not name the next event's time", err)
	}

	// Stop from inside a handler.
	k.SetLimits(Limits{})
	r.hook = func(int, uint64) {
		k.After(Microsecond, r.id, 0, 0)
		if k.Now() == 35*Microsecond {
			k.Stop()
		}
	}
	if err := k.Run(); err != nil || k.Now() != 35*Microsecond {
		t.Fatalf("Stop: err=%v now=%s", err, k.Now())
	}
	if err := k.RunUntil(k.Now() - 1); err == nil {
		t.Fatal("RunUntil into the past did not fail")
	}
}

// TestAgainstReference drives the kernel and a trivially correct reference queue (a list
// searched for the smallest (time, insertion order)) with the same random script of
// schedules, cancels, reschedules and partial runs, where handlers schedule and cancel too,
// and requires identical firing logs.
func TestAgainstReference(t *testing.T) {
	for seed := range uint64(40) {
		kernelLog := runScript(seed, newKernelQueue(seed))
		refLog := runScript(seed, &refQueue{})
		if !slices.Equal(kernelLog, refLog) {
			for i := range min(len(kernelLog), len(refLog)) {
				if kernelLog[i] != refLog[i] {
					t.Fatalf("seed %d: first difference at event %d: kernel %s, reference %s", seed, i, kernelLog[i], refLog[i])
				}
			}
			t.Fatalf("seed %d: kernel fired %d events, reference %d", seed, len(kernelLog), len(refLog))
		}
		if len(kernelLog) < 100 {
			t.Fatalf("seed %d: script fired only %d events", seed, len(kernelLog))
		}
	}
}

// scriptQueue is what the script needs of an event queue; tokens name events.
type scriptQueue interface {
	now() Time
	schedule(at Time, token int)
	cancel(token int) bool
	reschedule(token int, at Time) bool
	runUntil(t Time, fire func(token int))
}

func runScript(seed uint64, q scriptQueue) []string {
	rng := rand.New(rand.NewPCG(seed, 7))
	var log []string
	var live []int
	next := 0
	delay := func() Time {
		switch rng.IntN(4) {
		case 0:
			return 0 // a tie with the current time
		case 1:
			return Time(rng.IntN(4)) // near ties
		}
		return Time(rng.Int64N(1 << uint(rng.IntN(42))))
	}
	schedule := func() {
		next++
		q.schedule(q.now()+delay(), next)
		live = append(live, next)
	}
	pick := func() (int, bool) {
		if len(live) == 0 {
			return 0, false
		}
		i := rng.IntN(len(live))
		tok := live[i]
		live = slices.Delete(live, i, i+1)
		return tok, true
	}
	fire := func(token int) {
		log = append(log, fmt.Sprintf("%d@%s", token, q.now()))
		live = slices.DeleteFunc(live, func(t int) bool { return t == token })
		switch rng.IntN(6) {
		case 0, 1:
			schedule()
		case 2:
			if tok, ok := pick(); ok && !q.cancel(tok) {
				panic("cancel of a live event failed")
			}
		}
	}
	for range 600 {
		switch op := rng.IntN(10); {
		case op < 5:
			schedule()
		case op < 6:
			if tok, ok := pick(); ok && !q.cancel(tok) {
				panic("cancel of a live event failed")
			}
		case op < 7:
			if tok, ok := pick(); ok {
				if !q.reschedule(tok, q.now()+delay()) {
					panic("reschedule of a live event failed")
				}
				live = append(live, tok)
			}
		default:
			q.runUntil(q.now()+delay(), fire)
		}
	}
	q.runUntil(MaxTime/2, fire)
	return log
}

type kernelQueue struct {
	k    *Kernel
	id   HandlerID
	ids  map[int]EventID
	fire func(int)
}

func newKernelQueue(seed uint64) *kernelQueue {
	q := &kernelQueue{k: New(seed), ids: map[int]EventID{}}
	q.id = q.k.Register(q)
	return q
}

func (q *kernelQueue) Handle(kind int, _ uint64) { q.fire(kind) }
func (q *kernelQueue) now() Time                 { return q.k.Now() }
func (q *kernelQueue) schedule(at Time, tok int) { q.ids[tok] = q.k.Schedule(at, q.id, tok, 0) }
func (q *kernelQueue) cancel(tok int) bool       { return q.k.Cancel(q.ids[tok]) }
func (q *kernelQueue) reschedule(tok int, at Time) bool {
	id, ok := q.k.Reschedule(q.ids[tok], at)
	q.ids[tok] = id
	return ok
}
func (q *kernelQueue) runUntil(t Time, fire func(int)) {
	q.fire = fire
	if err := q.k.RunUntil(t); err != nil {
		panic(err)
	}
}

type refQueue struct {
	t   Time
	seq int
	evs []refEvent
}

type refEvent struct {
	at       Time
	seq, tok int
}

func (q *refQueue) now() Time { return q.t }
func (q *refQueue) schedule(at Time, tok int) {
	q.seq++
	q.evs = append(q.evs, refEvent{at, q.seq, tok})
}
func (q *refQueue) cancel(tok int) bool {
	n := len(q.evs)
	q.evs = slices.DeleteFunc(q.evs, func(e refEvent) bool { return e.tok == tok })
	return len(q.evs) < n
}
func (q *refQueue) reschedule(tok int, at Time) bool {
	if !q.cancel(tok) {
		return false
	}
	q.schedule(at, tok)
	return true
}
func (q *refQueue) runUntil(t Time, fire func(int)) {
	for len(q.evs) > 0 {
		best := 0
		for i, e := range q.evs {
			if e.at < q.evs[best].at || e.at == q.evs[best].at && e.seq < q.evs[best].seq {
				best = i
			}
		}
		e := q.evs[best]
		if e.at > t {
			break
		}
		q.evs = slices.Delete(q.evs, best, best+1)
		q.t = e.at
		fire(e.tok)
	}
	q.t = max(q.t, t)
}

func TestCompactionUnderChurn(t *testing.T) {
	k := New(1)
	r := newRecorder(k)
	var kept int
	// o2iblnd-style deadlines: arm one per tx, cancel 90% before they fire.
	for i := range 100_000 {
		id := k.After(Time(1+i%1000)*Millisecond, r.id, i, 0)
		if i%10 != 0 {
			k.Cancel(id)
		} else {
			kept++
		}
	}
	queued := 0
	for b := range k.q.buckets {
		queued += k.q.buckets[b].n
	}
	if queued > 2*kept+4096 {
		t.Fatalf("%d entries still queued for %d live events: stale entries are not reclaimed", queued, kept)
	}
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	if len(r.log) != kept {
		t.Fatalf("fired %d, want %d", len(r.log), kept)
	}
	checkSorted(t, r.log)
}

// TestStampWrap forces a slot's stamp to the end of its range and checks that a cancelled
// entry carrying an old stamp can never come back to life.
func TestStampWrap(t *testing.T) {
	k := New(1)
	r := newRecorder(k)
	old := k.Schedule(100, r.id, 1, 0)
	k.slots[old.slot].stamp = ^uint32(0) - 1 // as if the slot had been reused 2^32-2 times
	old.stamp = k.slots[old.slot].stamp
	k.q.buckets[bucketOf(100, 100)].e[0].stamp = old.stamp
	k.Cancel(old) // the slot's stamp is now MaxUint32
	// Make the stale entry carry the stamp the slot will have at time 100 after wrapping
	// (MaxUint32 -> 1 -> 2 -> 3): without the compaction on wrap it would fire then.
	k.q.buckets[bucketOf(100, 100)].e[0].stamp = 3
	for i := range 3 {
		id := k.Schedule(Time(10+i), r.id, 2, 0) // reuses the slot: MaxUint32, then wraps to 1, 2
		if id.slot != old.slot {
			t.Fatalf("slot not reused")
		}
		if err := k.RunUntil(Time(10 + i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	want := []string{"10ns:2:0", "11ns:2:0", "12ns:2:0"}
	if !slices.Equal(r.log, want) {
		t.Fatalf("fired %v, want %v (a cancelled event revived?)", r.log, want)
	}
}

func checkSorted(t *testing.T, log []string) {
	t.Helper()
	var prev Time
	for i, s := range log {
		ts, _, _ := strings.Cut(s, ":")
		at, err := ParseTime(ts)
		if err != nil {
			t.Fatal(err)
		}
		if at < prev {
			t.Fatalf("event %d (%s) fired after a later one (%s)", i, s, prev)
		}
		prev = at
	}
}

func TestScheduleFunc(t *testing.T) {
	k := New(1)
	var got []Time
	k.AfterFunc(5, func() { got = append(got, k.Now()) })
	c := k.AfterFunc(6, func() { t.Error("cancelled closure ran") })
	k.Cancel(c)
	k.ScheduleFunc(7, func() {
		k.AfterFunc(1, func() { got = append(got, k.Now()) })
	})
	if err := k.Run(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []Time{5, 8}) {
		t.Fatalf("closures ran at %v", got)
	}
}

// TestCrowdReusesSpareArray: a far-future crowd of 5000 events at one instant, fired and
// queued again cycle after cycle (the connection storm's instants, one timeout's crowd), grows
// its heap bucket by doubling only up to maxRetained (16..1024 entries: 7 arrays) and then
// takes the spare array the previous cycle's redistribution left; the due bucket keeps its
// own. Before spares every cycle doubled the bucket from 16 to 8192 entries (10 arrays) and
// copied 8176 entries doing it.
func TestCrowdReusesSpareArray(t *testing.T) {
	k := New(1)
	h := k.Register(nopHandler{})
	cycle := func() {
		at := k.Now() + Second
		for i := range 5000 {
			k.Schedule(at, h, 0, uint64(i))
		}
		if err := k.RunUntil(at); err != nil {
			t.Fatal(err)
		}
	}
	cycle() // first cycle: every array is new, the slot table grows
	if got := testing.AllocsPerRun(10, cycle); got != 7 {
		t.Fatalf("%v allocations per cycle, want 7 (16..1024 entries, then the spare)", got)
	}
	// The first cycle outgrew arrays of 2048 and 4096 entries; the 8192 one goes back and forth.
	var sizes []int
	for _, e := range k.q.spare {
		sizes = append(sizes, len(e))
	}
	slices.Sort(sizes)
	if !slices.Equal(sizes, []int{2048, 4096, 8192}) {
		t.Fatalf("spare arrays of %v entries, want [2048 4096 8192]", sizes)
	}
}
