package ib

import (
	"fmt"
	"slices"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

// quietRun runs two 1 MiB WRITE streams into node c (from a and from b, so that c's switch
// output is shared), with disturb called once the QPs are connected, and returns a log of
// every completion, device event and counter read disturb makes (through read), and the
// event count.
func quietRun(t *testing.T, disturb func(k *sim.Kernel, f *Fabric, s []*side, read func(string))) ([]string, uint64) {
	t.Helper()
	k, f, s := quietCluster(t)
	sum := sim.NewChecksum()
	k.SetObserver(sum.Observe)
	var log []string
	for i, sd := range s {
		sd.p.HCA().RegisterEventHandler(asyncLog(func(ev AsyncEvent) {
			log = append(log, fmt.Sprintf("%v node%d async %v", k.Now(), i, ev.Type))
		}))
	}
	read := func(what string) {
		log = append(log, fmt.Sprintf("%v %s c %+v switch %+v", k.Now(), what, s[2].p.Counters(), f.Links()[2].Counters(1)))
	}
	if disturb != nil {
		disturb(k, f, s, read)
	}
	run(t, k)
	read("end")
	for i, sd := range s {
		for _, w := range sd.r.wcs {
			log = append(log, fmt.Sprintf("%v node%d %+v", w.at, i, w.WC))
		}
	}
	return log, sum.Events()
}

// quietCluster builds quietRun's fabric: a and b connected to c, four 1 MiB WRITEs posted
// on each QP.
func quietCluster(t *testing.T) (*sim.Kernel, *Fabric, []*side) {
	k, f, s := fabricN(t, 7, 3, Config{})
	rcPair(t, s[0], s[2], defRTS, 16)
	c2 := &side{n: s[2].n, p: s[2].p, cq: s[2].cq, r: s[2].r}
	rcPair(t, s[1], c2, defRTS, 16)
	mr, err := s[2].p.HCA().RegMR(1<<20, AccessRemoteWrite)
	must(t, err)
	for i := 0; i < 4; i++ {
		must(t, s[0].qp.PostSend(SendWR{ID: uint64(i), Op: OpWrite, Len: 1 << 20, Signaled: true, RKey: mr.RKey}))
		must(t, s[1].qp.PostSend(SendWR{ID: uint64(10 + i), Op: OpWrite, Len: 1 << 20, Signaled: true, RKey: mr.RKey}))
	}
	return k, f, s
}

// arrivalTimes returns the times of the arrival events at node c's port in a run with
// every arrival an event.
func arrivalTimes(t *testing.T) []sim.Time {
	noQuiet = true
	defer func() { noQuiet = false }()
	var at []sim.Time
	k, f, s := quietCluster(t)
	k.SetObserver(func(ev sim.Fired) {
		if ev.Handler == f.hid && ev.Kind == evArrive {
			if ch := &f.chunks[ev.Arg]; f.lanes[ch.lane].to.kind == epPort && int(f.lanes[ch.lane].to.idx) == s[2].p.idx {
				at = append(at, ev.Time)
			}
		}
	})
	run(t, k)
	return at
}

// TestQuietArrivals checks that quiet arrivals (quiet.go) change nothing but the event
// count: counters read at the very nanosecond of a quiet chunk's arrival, before it (an
// event scheduled earlier) and after it (scheduled later), counter resets, the receiving QP
// moved to ERR, reset or destroyed in the middle of a message, and faults in the middle of
// a transfer give the same completions, device events and counters with and without them.
func TestQuietArrivals(t *testing.T) {
	at := arrivalTimes(t)
	if len(at) < 100 {
		t.Fatalf("%d arrivals at c", len(at))
	}
	mid := at[len(at)/3] // a middle chunk's arrival (most are)
	cases := map[string]func(k *sim.Kernel, f *Fabric, s []*side, read func(string)){
		"none": nil,
		"counters at every arrival, before and after it": func(k *sim.Kernel, f *Fabric, s []*side, read func(string)) {
			for _, a := range at {
				k.ScheduleFunc(a, func() { read("early") })
				k.ScheduleFunc(a-1, func() { k.ScheduleFunc(a, func() { read("late") }) })
			}
		},
		"counter reset at a middle arrival": func(k *sim.Kernel, f *Fabric, s []*side, read func(string)) {
			k.ScheduleFunc(mid, func() { f.ResetCounters(); read("reset") })
		},
		"receiving QP to ERR at a middle arrival": func(k *sim.Kernel, f *Fabric, s []*side, read func(string)) {
			k.ScheduleFunc(mid, func() { must(t, s[2].qp.Modify(QPErr, QPAttr{})) })
		},
		"receiving QP to ERR between arrivals": func(k *sim.Kernel, f *Fabric, s []*side, read func(string)) {
			k.ScheduleFunc(mid+1, func() { must(t, s[2].qp.Modify(QPErr, QPAttr{})) })
		},
		"receiving QP reset and reconnected": func(k *sim.Kernel, f *Fabric, s []*side, read func(string)) {
			k.ScheduleFunc(mid, func() {
				qp := s[2].qp
				must(t, qp.Modify(QPReset, QPAttr{}))
				must(t, qp.Modify(QPInit, QPAttr{Port: 1}))
				must(t, qp.Modify(QPRTR, QPAttr{DestQPN: s[0].qp.Num(), DestLID: s[0].p.LID(), MinRNRTimer: 12, MaxDestRdAtomic: 16}))
			})
		},
		"another QP of the receiver to RTR, then a counter reset": func(k *sim.Kernel, f *Fabric, s []*side, read func(string)) {
			// The RTR turns the quiet chunks on c's port into events, among them chunks
			// sent ahead on the busy switch output (ahead.go); the reset then takes those
			// back before they start, and must cancel their new events.
			k.ScheduleFunc(mid, func() {
				qp, err := s[2].p.HCA().CreateQP(QPInitAttr{SendCQ: s[2].cq, RecvCQ: s[2].cq, MaxSendWR: 4, MaxRecvWR: 4})
				must(t, err)
				must(t, qp.Modify(QPInit, QPAttr{Port: 1}))
				must(t, qp.Modify(QPRTR, QPAttr{DestQPN: 999, DestLID: s[0].p.LID(), MinRNRTimer: 12}))
			})
			k.ScheduleFunc(mid+1, func() { f.ResetCounters(); read("reset") })
		},
		"receiving QP destroyed": func(k *sim.Kernel, f *Fabric, s []*side, read func(string)) {
			k.ScheduleFunc(mid, func() { s[2].qp.Destroy() })
		},
		"link flap under the transfer": func(k *sim.Kernel, f *Fabric, s []*side, read func(string)) {
			k.ScheduleFunc(mid, func() { f.Links()[2].LinkDown(); read("down") })
			k.ScheduleFunc(mid+20*sim.Microsecond, func() { f.Links()[2].LinkUp(); read("up") })
		},
		"loss switched on under the transfer": func(k *sim.Kernel, f *Fabric, s []*side, read func(string)) {
			k.ScheduleFunc(mid, func() { f.Links()[2].SetLoss(0.01) })
		},
		"extra delay under the transfer": func(k *sim.Kernel, f *Fabric, s []*side, read func(string)) {
			k.ScheduleFunc(mid, func() { f.Links()[2].SetExtraDelay(3 * sim.Microsecond) })
			k.ScheduleFunc(mid+5*sim.Microsecond, func() { f.Links()[2].SetExtraDelay(0) })
		},
		"receiving HCA fails": func(k *sim.Kernel, f *Fabric, s []*side, read func(string)) {
			k.ScheduleFunc(mid, func() { s[2].p.HCA().HCAFatal(); read("fatal") })
		},
	}
	names := make([]string, 0, len(cases))
	for name := range cases {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			noQuiet = true
			ref, refEv := quietRun(t, cases[name])
			noQuiet = false
			got, gotEv := quietRun(t, cases[name])
			if !slices.Equal(ref, got) {
				for i := range min(len(ref), len(got)) {
					if ref[i] != got[i] {
						t.Fatalf("record %d of %d/%d differs:\n every arrival an event: %s\n quiet arrivals:         %s", i, len(ref), len(got), ref[i], got[i])
					}
				}
				t.Fatalf("%d records with every arrival an event, %d with quiet arrivals", len(ref), len(got))
			}
			if gotEv >= refEv {
				t.Errorf("quiet arrivals saved no events: %d against %d", gotEv, refEv)
			}
			t.Logf("%d records; events %d -> %d", len(ref), refEv, gotEv)
		})
	}
}

// asyncLog is a device event handler calling a function.
type asyncLog func(AsyncEvent)

func (l asyncLog) AsyncEvent(ev AsyncEvent) { l(ev) }
