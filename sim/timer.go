package sim

// Timer is a re-armable event owned by a model object: a tx deadline, a keepalive, a
// periodic check. Set H, Kind and Arg once; Arm (re)schedules it and Disarm cancels it.
// Arming an armed Timer moves it, so at most one firing is ever pending.
type Timer struct {
	H    HandlerID
	Kind int
	Arg  uint64
	id   EventID
}

// Arm schedules t to fire at time at, cancelling any pending firing first.
func (k *Kernel) Arm(t *Timer, at Time) {
	k.Cancel(t.id)
	t.id = k.Schedule(at, t.H, t.Kind, t.Arg)
}

// ArmAfter schedules t to fire after delay d (see Arm).
func (k *Kernel) ArmAfter(t *Timer, d Time) { k.Arm(t, k.now+d) }

// Disarm cancels t's pending firing and reports whether there was one.
func (k *Kernel) Disarm(t *Timer) bool {
	ok := k.Cancel(t.id)
	t.id = EventID{}
	return ok
}

// Armed reports whether t has a firing pending.
func (k *Kernel) Armed(t *Timer) bool { return k.Scheduled(t.id) }

// Deadline returns when t will fire, and false if it is not armed.
func (k *Kernel) Deadline(t *Timer) (Time, bool) { return k.When(t.id) }
