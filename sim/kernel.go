// Package sim is lnetsim's discrete-event kernel: virtual time, an ordered queue of events
// with cancellable timers, seeded named random streams, hard run limits and an observer hook.
// It knows nothing of networks.
//
// # Determinism
//
// One Kernel is driven by one goroutine. Events fire in (time, insertion) order: two events
// scheduled for the same virtual time fire in the order they were scheduled, never by pointer,
// hash or map order. Randomness comes only from streams derived from the run seed (see Rand).
//
// # Events
//
// An event is a value: a Handler (usually a pointer to a model object), a small integer Kind
// and an optional Arg. Scheduling one allocates nothing in steady state; handlers switch on
// Kind. ScheduleFunc accepts a closure for set-up code and tests, at the price of an
// allocation.
//
// # Queue
//
// The queue is a radix heap keyed by time (monotone integer priorities: no event is ever
// scheduled before the current time). Push is O(1), pop is amortised O(log of the time span),
// and ties keep insertion order without storing a sequence number in the key. Cancelling is
// O(1): the entry is left in place and skipped when it surfaces (a per-slot stamp tells live
// entries from stale ones), and the queue is compacted when stale entries outnumber live ones.
package sim

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/lnetsim/lnetsim/internal/invariants"
)

// Handler receives the events scheduled for it. A handler is registered once with
// Kernel.Register and addressed by its HandlerID afterwards.
type Handler interface {
	// Handle is called when an event scheduled for the handler fires. kind and arg are the
	// values passed to Schedule; the current time is Kernel.Now.
	Handle(kind int, arg uint64)
}

// HandlerID names a registered Handler.
type HandlerID uint32

// EventID is a handle to one scheduled event. The zero EventID refers to no event. It stays
// valid until its event fires or is cancelled.
type EventID struct {
	at    Time // when the event is due: locates its entry for Reschedule
	slot  uint32
	stamp uint32 // 0 only for the zero EventID
}

// IsZero reports whether id refers to no event at all.
func (id EventID) IsZero() bool { return id.stamp == 0 }

// Fired describes an event as it fires, for observers.
type Fired struct {
	Time    Time
	Seq     uint64 // ordinal of the event among all fired events (1-based)
	Kind    int
	Handler HandlerID
	Arg     uint64
}

// Observer sees every event just before its handler runs. It must not schedule or cancel.
type Observer func(ev Fired)

// Limits bound a run so that a runaway model cannot hang a job. Zero means unlimited.
type Limits struct {
	MaxEvents uint64 // stop with ErrEventLimit once this many events have fired
	MaxTime   Time   // stop with ErrTimeLimit before firing an event later than this
}

// Errors returned by Run and RunUntil when a limit is hit.
var (
	ErrEventLimit = errors.New("event limit reached")
	ErrTimeLimit  = errors.New("virtual time limit reached")
)

// Kernel is the event loop. The zero value is not usable; call New.
type Kernel struct {
	now Time
	q   queue

	slots    []slotState // per slot: the stamp of its live event and the free list's link
	freeHead uint32      // 1 + the most recently freed slot, 0 when none is free

	handlers []Handler
	funcs    []func() // closures of ScheduleFunc, indexed by the event's arg
	freeFunc []uint64

	scheduled uint64 // events ever scheduled
	cancelled uint64 // events ever cancelled; Pending = scheduled - fired - cancelled
	cur       uint32 // the low 32 bits of the scheduling ordinal of the event firing (or last fired)
	drained   bool   // the last run fired every event due by its horizon (see Due)
	stale     int    // cancelled entries still physically in the queue

	fired  uint64
	limits Limits
	stop   bool
	halt   uint64 // the loop stops before firing event number halt+1: the event limit, or 0 after Stop

	observer Observer
	sum      *Checksum // folded in directly, before the observer (see SetChecksum)
	funcID   HandlerID
	checks   []func() error // invariant checks (run only under the invariants build tag)

	seed    uint64
	streams map[string]*Stream
}

// slotState is one slot of the table that tells live events from fired and cancelled ones.
// Free slots form a list through nextFree (last freed, first reused), which costs two stores
// per fired event where a slice stack cost an append.
type slotState struct {
	stamp    uint32 // stamp of the slot's live event; bumped when the event fires or is cancelled
	nextFree uint32 // while free: 1 + the next free slot, 0 at the end of the list; while live: the event's ordinal (see Due)
}

// New returns a kernel at time 0 whose random streams derive from seed.
func New(seed uint64) *Kernel {
	k := &Kernel{seed: seed, streams: make(map[string]*Stream)}
	k.q.cur = dueBucket
	k.funcID = k.Register(funcHandler{k})
	return k
}

// Register adds h to the kernel's handler table and returns the ID to schedule events for
// it. Register each long-lived model object (node, NI, connection) once.
func (k *Kernel) Register(h Handler) HandlerID {
	k.handlers = append(k.handlers, h)
	return HandlerID(len(k.handlers) - 1)
}

// Handler returns the handler registered under id.
func (k *Kernel) Handler(id HandlerID) Handler { return k.handlers[id] }

// Now returns the current virtual time.
func (k *Kernel) Now() Time { return k.now }

// Seed returns the run seed the kernel's random streams derive from.
func (k *Kernel) Seed() uint64 { return k.seed }

// Fired returns the number of events fired so far.
func (k *Kernel) Fired() uint64 { return k.fired }

// Pending returns the number of events scheduled and not yet fired or cancelled.
func (k *Kernel) Pending() int { return int(k.scheduled - k.fired - k.cancelled) }

// SetLimits sets hard limits for subsequent Run and RunUntil calls.
func (k *Kernel) SetLimits(l Limits) { k.limits = l }

// SetObserver installs fn to see every fired event (nil removes it). Without an observer the
// hook costs one nil check per event.
func (k *Kernel) SetObserver(fn Observer) { k.observer = fn }

// SetChecksum folds every fired event into c (nil stops it), as an observer calling
// c.Observe would, without the call: the determinism checksum runs on every event of every
// run. It is folded before the observer sees the event.
func (k *Kernel) SetChecksum(c *Checksum) { k.sum = c }

// AddInvariant registers check, which reports the first violated invariant of a model (or
// nil). Under the invariants build tag the kernel runs every check between two events every
// invariants.CheckEvery events and when a Run or RunUntil finishes, and panics with the
// violation, the virtual time and the event count. Without the tag checks are never run.
func (k *Kernel) AddInvariant(check func() error) {
	if invariants.Enabled {
		k.checks = append(k.checks, check)
	}
}

// CheckInvariants runs the registered checks now (under the tag) and panics on the first
// violation. Model code between events is inconsistent: call it only from outside a handler.
func (k *Kernel) CheckInvariants() {
	for _, c := range k.checks {
		if err := c(); err != nil {
			panic(fmt.Sprintf("invariant violated at %s after %d events: %v", k.now, k.fired, err))
		}
	}
}

// Stop asks the running loop to return after the current event. Run and RunUntil return nil
// and leave the clock at the time of that event.
func (k *Kernel) Stop() {
	k.stop = true
	k.halt = 0
}

// Schedule queues an event for handler h at absolute time at, with kind and arg handed back
// to its Handle method. kind must fit in 32 bits. Scheduling before Now is a programming error
// and panics.
func (k *Kernel) Schedule(at Time, h HandlerID, kind int, arg uint64) EventID {
	if at < k.now {
		panic(fmt.Sprintf("sim: event (kind %d for %T) scheduled at %s, before the current time %s", kind, k.handlers[h], at, k.now))
	}
	if int(int32(kind)) != kind {
		panic(fmt.Sprintf("sim: event kind %d does not fit in 32 bits", kind))
	}
	var idx, st uint32
	if f := k.freeHead; f != 0 {
		idx = f - 1
		sl := &k.slots[idx]
		k.freeHead, st = sl.nextFree, sl.stamp
		sl.nextFree = uint32(k.scheduled)
	} else {
		k.slots = append(k.slots, slotState{stamp: 1, nextFree: uint32(k.scheduled)})
		idx, st = uint32(len(k.slots)-1), 1
	}
	// Radix heap insert (see queue), written out here because it is the hottest path of every
	// model: a key equal to last joins the due bucket, any other its bucket, which is marked.
	q := &k.q
	b := uint(q.cur)
	if x := uint64(at ^ q.last); x != 0 {
		b = bucketOf(uint64(at), x)
		q.mark(b)
	}
	bk := &q.buckets[b]
	if bk.full() {
		q.grow(bk)
	}
	e := bk.add()
	e.at, e.arg, e.h, e.kind, e.slot, e.stamp = at, arg, h, int32(kind), idx, st
	k.scheduled++
	return EventID{at: at, slot: idx, stamp: st}
}

// After queues an event for h after delay d from now (see Schedule).
func (k *Kernel) After(d Time, h HandlerID, kind int, arg uint64) EventID {
	return k.Schedule(k.now+d, h, kind, arg)
}

// funcHandler runs closures given to ScheduleFunc; the event's arg indexes Kernel.funcs.
type funcHandler struct{ k *Kernel }

func (f funcHandler) Handle(_ int, arg uint64) {
	fn := f.k.funcs[arg]
	f.k.funcs[arg] = nil
	f.k.freeFunc = append(f.k.freeFunc, arg)
	fn()
}

// ScheduleFunc queues fn to run at time at. It allocates; use Schedule on hot paths. A
// cancelled closure's table entry is reclaimed by the next compaction.
func (k *Kernel) ScheduleFunc(at Time, fn func()) EventID {
	var i uint64
	if n := len(k.freeFunc); n > 0 {
		i = k.freeFunc[n-1]
		k.freeFunc = k.freeFunc[:n-1]
		k.funcs[i] = fn
	} else {
		i = uint64(len(k.funcs))
		k.funcs = append(k.funcs, fn)
	}
	return k.Schedule(at, k.funcID, 0, i)
}

// AfterFunc queues fn to run after delay d. It allocates; use After on hot paths.
func (k *Kernel) AfterFunc(d Time, fn func()) EventID { return k.ScheduleFunc(k.now+d, fn) }

// Scheduled reports whether id's event is still queued (not fired, not cancelled).
func (k *Kernel) Scheduled(id EventID) bool {
	return id.stamp != 0 && int(id.slot) < len(k.slots) && k.slots[id.slot].stamp == id.stamp
}

// Cancel removes id's event from the queue. It reports whether the event was still queued;
// cancelling a fired, cancelled or zero EventID does nothing.
func (k *Kernel) Cancel(id EventID) bool {
	if !k.Scheduled(id) {
		return false
	}
	k.retire(id.slot)
	k.cancelled++
	k.stale++
	if k.stale > 4096 && k.stale > k.Pending() {
		k.compact() // bounds memory under heavy timer churn; amortised O(1) per cancel
	}
	return true
}

// When returns the time id's event is due, and false if it is no longer queued.
func (k *Kernel) When(id EventID) (Time, bool) {
	if !k.Scheduled(id) {
		return 0, false
	}
	return id.at, true
}

// Reschedule moves id's event to time at, keeping its handler, kind and arg, and returns the
// new handle (id becomes invalid). The moved event is ordered after events already scheduled
// for time at. It costs O(size of the bucket holding the event). If id's event is no longer
// queued it returns the zero EventID and false.
func (k *Kernel) Reschedule(id EventID, at Time) (EventID, bool) {
	if !k.Scheduled(id) {
		return EventID{}, false
	}
	e, ok := k.q.find(id.at, id.slot, id.stamp)
	if !ok {
		panic(fmt.Sprintf("sim: internal error: queued event (slot %d) not found at %s", id.slot, id.at))
	}
	k.Cancel(id)
	return k.Schedule(at, e.h, int(e.kind), e.arg), true
}

// retire bumps a slot's stamp, invalidating its queued entry and EventIDs, and frees the slot.
// Stamp 0 is reserved for the zero EventID; when a stamp would wrap, the queue is compacted
// first so that no stale entry can ever carry a stamp that becomes current again.
func (k *Kernel) retire(slot uint32) {
	st := k.slots[slot].stamp + 1
	if st == 0 {
		st = k.wrapStamp(slot)
	}
	sl := &k.slots[slot]
	sl.stamp, sl.nextFree = st, k.freeHead
	k.freeHead = slot + 1
}

// wrapStamp handles the once-in-2^32 wrap of a slot's stamp; see retire.
//
//go:noinline
func (k *Kernel) wrapStamp(slot uint32) uint32 {
	k.slots[slot].stamp = 0 // matches no entry: the compaction drops every old entry of slot
	k.compact()
	return 1
}

// compact removes every cancelled entry from the queue, preserving the order of live ones,
// and reclaims the table entries of cancelled closures.
func (k *Kernel) compact() {
	k.q.filter(func(e *entry) bool {
		if k.slots[e.slot].stamp == e.stamp {
			return true
		}
		if e.h == k.funcID && k.funcs[e.arg] != nil {
			k.funcs[e.arg] = nil
			k.freeFunc = append(k.freeFunc, e.arg)
		}
		return false
	})
	k.stale = 0
}

// Run fires events until the queue is empty, Stop is called or a limit is hit.
func (k *Kernel) Run() error { return k.run(MaxTime, false) }

// RunUntil fires every event scheduled at or before t, then advances the clock to t (unless
// stopped or limited first). Events scheduled later stay queued for a later call.
func (k *Kernel) RunUntil(t Time) error {
	if t < k.now {
		return fmt.Errorf("sim: RunUntil(%s) is before the current time %s", t, k.now)
	}
	return k.run(t, true)
}

func (k *Kernel) run(until Time, advance bool) error {
	k.stop, k.drained = false, false
	limit := until
	timeLimited := k.limits.MaxTime > 0 && k.limits.MaxTime < limit
	if timeLimited {
		limit = k.limits.MaxTime
	}
	k.halt = ^uint64(0)
	if k.limits.MaxEvents > 0 {
		k.halt = k.limits.MaxEvents
	}
	q := &k.q
	for {
		// The due bucket stays the same bucket until the next refill (Schedule may give it a
		// larger array, and a compaction may shorten it and reset head: both are re-read).
		due := &q.buckets[q.cur]
		for q.head < due.n {
			e := &due.e[q.head]
			sl := &k.slots[e.slot]
			if sl.stamp != e.stamp {
				q.head++
				k.stale--
				continue
			}
			if k.fired >= k.halt { // one comparison covers both Stop and the event limit
				if k.stop {
					return nil
				}
				return fmt.Errorf("sim: %w: %d events fired by %s (%d pending)", ErrEventLimit, k.fired, k.now, k.Pending())
			}
			if invariants.Enabled && k.fired%invariants.CheckEvery == 0 {
				k.CheckInvariants() // between two events, the next one still queued
			}
			q.head++
			at, h, kind, arg, slot := e.at, e.h, int(e.kind), e.arg, e.slot
			// Retire the slot (see retire), written out: this is the hottest loop.
			k.cur = sl.nextFree
			if sl.stamp++; sl.stamp == 0 {
				sl.stamp = k.wrapStamp(slot)
			}
			sl.nextFree, k.freeHead = k.freeHead, slot+1
			k.now = at
			k.fired++
			if c := k.sum; c != nil {
				c.sum = mixEvent(c.sum, at, k.fired, kind)
				c.events++
			}
			if k.observer != nil {
				k.observer(Fired{Time: at, Seq: k.fired, Kind: kind, Handler: h, Arg: arg})
			}
			k.handlers[h].Handle(kind, arg)
		}
		// The next due bucket. refill checks the new minimum against limit; everything left
		// in the due bucket shares one time, which was checked then (or is now, after a Stop).
		// Most refills (seven in ten events in bench cluster) take the lowest level-0 bucket
		// as it is (see refill); that case is written out here, which halves its cost.
		due.n, q.head = 0, 0
		if w := q.summary & level0Words; w != 0 {
			wi := uint(bits.TrailingZeros64(w)) % level0Count
			m := q.mask[wi]
			bit := uint(bits.TrailingZeros64(m))
			b := wi*64 + bit
			if at := q.buckets[b].e[0].at; at <= limit {
				q.last, q.cur = at, int(b)
				if m &^= 1 << bit; m == 0 {
					q.summary &^= 1 << wi
				}
				q.mask[wi] = m
				continue
			}
		}
		if !q.refill(limit) {
			return k.finish(until, advance, timeLimited)
		}
	}
}

// finish ends a run that has no more events due by its limit: it reports ErrTimeLimit when a
// live event lies between the kernel's MaxTime and the requested horizon, else advances the
// clock to the horizon if asked.
func (k *Kernel) finish(until Time, advance, timeLimited bool) error {
	if invariants.Enabled {
		k.CheckInvariants()
	}
	if timeLimited && k.Pending() > 0 {
		k.compact() // so that peek sees a live event, not a cancelled one
		if next, ok := k.q.peek(); ok && next <= until {
			return fmt.Errorf("sim: %w: next event at %s is past the limit %s (%d events fired, %d pending)",
				ErrTimeLimit, next, k.limits.MaxTime, k.fired, k.Pending())
		}
	}
	if advance && until > k.now {
		k.now = until
		k.q.advance(until) // every queued key is later than until: refill reported none due
	}
	k.drained = true
	return nil
}

// NextOrdinal returns the scheduling ordinal the next scheduled event will get (its low 32
// bits). A model that keeps work it would have scheduled as an event, to do it later
// without one, records it and asks Due whether the event would have fired by now.
func (k *Kernel) NextOrdinal() uint32 { return uint32(k.scheduled) }

// Due reports whether an event that would have been scheduled for time at with ordinal ord
// (NextOrdinal at the time) has fired by now: it is earlier than now, or at now and
// scheduled no later than the event firing (same-time events fire in scheduling order), or
// at now after a run that fired everything due by its horizon. Ordinals compare modulo
// 2^32: the work must not be kept for 2^31 schedulings.
func (k *Kernel) Due(at Time, ord uint32) bool {
	return at < k.now || at == k.now && (k.drained || int32(ord-k.cur) <= 0)
}
