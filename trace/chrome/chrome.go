// Package chrome writes Chrome trace-event JSON (the object form), which Perfetto UI and
// chrome://tracing open: async spans for overlapping message lifetimes, counter tracks for
// health and credits, instant events for faults and drops, and metadata naming processes
// (simulated nodes) and threads (NIs, connections).
//
// Events are streamed as they are written; Close writes the closing brackets. Times are
// virtual nanoseconds, written as fractional microseconds (the format's unit) so that no
// precision is lost.
package chrome

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/lnetsim/lnetsim/sim"
)

// Writer streams trace events.
type Writer struct {
	w      *bufio.Writer
	n      int
	err    error
	closed bool
	buf    []byte
}

// NewWriter starts a trace on w. Call Close to finish it.
func NewWriter(w io.Writer) *Writer {
	tw := &Writer{w: bufio.NewWriter(w)}
	tw.writeString(`{"displayTimeUnit":"ns","traceEvents":[`)
	return tw
}

// Events returns how many events were written.
func (tw *Writer) Events() int { return tw.n }

// Args are an event's arguments, written with sorted keys.
type Args map[string]any

// Begin opens an async span (phase "b") identified by (cat, id) on process pid.
func (tw *Writer) Begin(at sim.Time, pid, tid int, cat, name string, id uint64, args Args) {
	tw.event('b', at, pid, tid, cat, name, id, true, args)
}

// End closes the async span (cat, id) opened by Begin (phase "e").
func (tw *Writer) End(at sim.Time, pid, tid int, cat, name string, id uint64, args Args) {
	tw.event('e', at, pid, tid, cat, name, id, true, args)
}

// Instant writes a thread-scoped instant event (phase "i").
func (tw *Writer) Instant(at sim.Time, pid, tid int, cat, name string, args Args) {
	tw.event('i', at, pid, tid, cat, name, 0, false, args)
}

// Counter writes one sample of the counter track name on process pid (phase "C"); each key
// of values is a series of the track.
func (tw *Writer) Counter(at sim.Time, pid int, name string, values Args) {
	tw.event('C', at, pid, 0, "", name, 0, false, values)
}

// ProcessName names process pid (a simulated node) in the viewer.
func (tw *Writer) ProcessName(pid int, name string) {
	tw.event('M', 0, pid, 0, "", "process_name", 0, false, Args{"name": name})
}

// ThreadName names thread tid of process pid (an NI, a connection) in the viewer.
func (tw *Writer) ThreadName(pid, tid int, name string) {
	tw.event('M', 0, pid, tid, "", "thread_name", 0, false, Args{"name": name})
}

func (tw *Writer) event(ph byte, at sim.Time, pid, tid int, cat, name string, id uint64, withID bool, args Args) {
	if tw.err != nil || tw.closed {
		return
	}
	b := tw.buf[:0]
	if tw.n > 0 {
		b = append(b, ',')
	}
	b = append(b, "\n{\"ph\":\""...)
	b = append(b, ph)
	b = append(b, "\",\"ts\":"...)
	b = appendMicros(b, at)
	b = append(b, ",\"pid\":"...)
	b = strconv.AppendInt(b, int64(pid), 10)
	b = append(b, ",\"tid\":"...)
	b = strconv.AppendInt(b, int64(tid), 10)
	b = append(b, ",\"name\":"...)
	b = appendJSONString(b, name)
	if cat != "" {
		b = append(b, ",\"cat\":"...)
		b = appendJSONString(b, cat)
	}
	if withID {
		b = append(b, ",\"id\":\"0x"...)
		b = strconv.AppendUint(b, id, 16)
		b = append(b, '"')
	}
	if ph == 'i' {
		b = append(b, ",\"s\":\"t\""...)
	}
	if len(args) > 0 {
		b = append(b, ",\"args\":{"...)
		keys := make([]string, 0, len(args))
		for k := range args {
			keys = append(keys, k)
		}
		sort.Strings(keys) // deterministic output: never map order
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			v, err := json.Marshal(args[k])
			if err != nil {
				tw.err = fmt.Errorf("chrome trace: argument %q: %w", k, err)
				return
			}
			b = append(b, v...)
		}
		b = append(b, '}')
	}
	b = append(b, '}')
	tw.buf = b
	tw.n++
	tw.write(b)
}

// appendMicros writes t in microseconds with up to three decimals (exact nanoseconds).
func appendMicros(b []byte, t sim.Time) []byte {
	if t < 0 {
		b = append(b, '-')
		t = -t
	}
	b = strconv.AppendInt(b, int64(t/1000), 10)
	if ns := int64(t % 1000); ns != 0 {
		b = append(b, '.', byte('0'+ns/100), byte('0'+ns/10%10), byte('0'+ns%10))
		for b[len(b)-1] == '0' {
			b = b[:len(b)-1]
		}
	}
	return b
}

func appendJSONString(b []byte, s string) []byte {
	v, _ := json.Marshal(s) // a string always marshals
	return append(b, v...)
}

func (tw *Writer) write(b []byte) {
	if _, err := tw.w.Write(b); err != nil && tw.err == nil {
		tw.err = err
	}
}

func (tw *Writer) writeString(s string) {
	if _, err := tw.w.WriteString(s); err != nil && tw.err == nil {
		tw.err = err
	}
}

// Close ends the trace, recording otherData (e.g. seed, scenario hash; may be nil), and
// flushes. It returns the first error met while writing.
func (tw *Writer) Close(otherData Args) error {
	if tw.closed {
		return tw.err
	}
	tw.closed = true
	tw.writeString("\n]")
	if len(otherData) > 0 {
		v, err := json.Marshal(otherData) // encoding/json sorts map keys
		if err != nil && tw.err == nil {
			tw.err = fmt.Errorf("chrome trace: otherData: %w", err)
		}
		tw.writeString(`,"otherData":`)
		tw.write(v)
	}
	tw.writeString("}\n")
	if err := tw.w.Flush(); err != nil && tw.err == nil {
		tw.err = err
	}
	return tw.err
}
