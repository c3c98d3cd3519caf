package tcp

import (
	"math/bits"

	"github.com/lnetsim/lnetsim/sim"
)

// A switch output's buffer holds the frames that have arrived and not yet left. The lane
// is committed to send every chunk it has accepted (busy), but a chunk accepted at its
// head is still coming in frame by frame for a chunk's time; its frames take room only as
// they arrive. When two chunks come in at once (from two input ports) and the buffer
// fills, their frames interleave at the output and the frames that find it full are lost
// from both: overflow walks the frames of the chunk being admitted and of the chunks still
// arriving in time order, counts the frames that find the buffer full and shares that loss
// among the chunks in proportion to their frames arriving then.

// arrival is a chunk admitted to a switch output whose frames are still coming in: its wire
// bytes enter the output buffer evenly from from to to (when its first and last admitted
// frames have been received whole, plus the switch latency).
type arrival struct {
	pkt      int32 // the chunk's packet
	from, to sim.Time
	wire     int64
	seq      int64 // the chunk's first byte and sender, to tell a reused packet slot
	conn     int32
}

// notIn returns the bytes of a that have not entered the buffer by t.
func (a *arrival) notIn(t sim.Time) int64 {
	switch {
	case t >= a.to:
		return 0
	case t <= a.from:
		return a.wire
	}
	hi, lo := bits.Mul64(uint64(a.wire), uint64(a.to-t))
	q, _ := bits.Div64(hi, lo, uint64(a.to-a.from))
	return int64(q)
}

// bytesIn returns the bytes the lane sends in d (saturating; 0 for d <= 0).
func (ln *lane) bytesIn(d sim.Time) int64 {
	if d <= 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(d), uint64(ln.rate))
	if hi >= 8e9 {
		return 1 << 62
	}
	q, _ := bits.Div64(hi, lo, 8e9)
	return int64(q)
}

// backlog returns the bytes the lane is committed to send after now: what its queue holds
// plus what it has accepted that is still arriving.
func (ln *lane) backlog(now sim.Time) int64 { return ln.bytesIn(ln.busy - now) }

// admit records chunk pi, just accepted by switch output ln, as arriving (wire bytes from
// from to to), after forgetting the chunks that have arrived whole.
func (n *Network) admit(ln *lane, now sim.Time, pi int32, from, to sim.Time, wire int64) {
	p := &n.pkts[pi]
	a := arrival{pkt: pi, from: from, to: to, wire: wire, seq: p.seq, conn: p.from}
	k := 0
	for _, r := range ln.arriving {
		if r.to > now {
			ln.arriving[k] = r
			k++
		}
	}
	ln.arriving = ln.arriving[:k]
	if a.to > now && a.wire > 0 {
		ln.arriving = append(ln.arriving, a)
	}
}

// occupancy returns the bytes switch output ln holds at now: what it is committed to send
// less the frames of accepted chunks that have not arrived yet.
func (ln *lane) occupancy(now sim.Time) int64 {
	b := ln.backlog(now)
	for i := range ln.arriving {
		b -= ln.arriving[i].notIn(now)
	}
	return max(b, 0)
}

// peak returns the most the buffer of ln holds while chunk a arrives, were frames a fluid:
// occ now, plus what a and the chunks still arriving bring in, less what the lane sends.
// The buffer is piecewise linear in time, so the peak is at a chunk's start or end. A frame
// is counted once whole, so the frame-by-frame buffer is never above this plus a frame;
// overflow's walk is needed only when that could overflow.
func (ln *lane) peak(now sim.Time, occ int64, a *arrival) int64 {
	at := func(t sim.Time) int64 {
		b := occ + a.wire - a.notIn(t) - ln.bytesIn(t-now)
		for i := range ln.arriving {
			r := &ln.arriving[i]
			b += r.notIn(now) - r.notIn(t)
		}
		return b
	}
	top := max(at(now), at(a.to))
	for i := range ln.arriving {
		if t := ln.arriving[i].to; t > now && t < a.to {
			top = max(top, at(t))
		}
		if t := ln.arriving[i].from; t > now && t < a.to {
			top = max(top, at(t))
		}
	}
	if a.from > now {
		top = max(top, at(a.from))
	}
	return top
}

// inflow is one chunk's frames coming into a switch output during an overflow walk.
type inflow struct {
	pkt         int32
	rec         int      // index in the lane's arriving, -1 for the chunk being admitted
	from        sim.Time // its bytes arrive evenly from from to from+span, total in all
	span        sim.Time
	total       int64
	in          int64    // bytes counted so far (arrived, or skipped as arrived before the walk)
	seg         int32    // next segment
	at          sim.Time // the next frame's arrival
	w           int64    // the next frame's wire bytes; 0 when the chunk has no frame left in the walk
	s, e        int64    // the next frame's stream range
	live        int32    // segments not lost when the walk began
	full        int      // frames arriving from the first drop on
	share       int      // how many of them it loses
	dropped     int64    // wire bytes dropped from a chunk already accepted
	droppedSegs uint64
	admitted    int64    // wire bytes let in (the chunk being admitted)
	last        sim.Time // when its last frame let in arrives (the chunk being admitted)
}

// nextFrame moves f to its next live frame arriving after now (for the chunk being
// admitted, from now) and no later than until.
func (n *Network) nextFrame(f *inflow, now, until sim.Time) {
	p := &n.pkts[f.pkt]
	mss := n.mssOfPkt(p)
	f.w = 0
	for f.seg < p.segs {
		s, e := p.segment(f.seg, mss)
		f.seg++
		if p.segLost(s) {
			continue
		}
		w := e - s + ipTCPHeader + ethOverhead
		f.in += w
		t := f.from + sim.Time(int64(f.span)*f.in/f.total)
		if t <= now {
			if f.rec >= 0 {
				continue // arrived before the walk: counted in the occupancy
			}
			t = now
		}
		if t > until {
			f.seg = p.segs
			return
		}
		f.at, f.w, f.s, f.e = t, w, s, e
		return
	}
}

// overflow admits chunk pi to switch output ln as its frames arrive; it is called only
// when the buffer cannot take the chunk whole on top of all ln has accepted, and takes it
// whole when its fluid peak leaves two frames to spare. Else it walks, in time order, the
// frames of pi and those the chunks already accepted still bring in before pi's last,
// against the buffer (filled by arrivals, emptied at the lane's rate), and counts the
// frames that find it full. The chunks arriving then share that loss in proportion to
// their frames arriving from the first drop on (the remainder to pi first), each losing
// the last of those frames: frames of chunks arriving together interleave at the output,
// so all of them meet the full buffer (which one loses a given frame is a matter of
// sub-frame phase; the share is its average, the contiguous run what one phase gives). A
// chunk already accepted keeps at least one segment. It reports whether any segment of pi
// is left.
func (n *Network) overflow(ln *lane, pi int32, now sim.Time) bool {
	p := &n.pkts[pi]
	sl := n.cfg.SwitchLatency
	occ := ln.occupancy(now)
	self := arrival{from: p.head + sl, to: p.tail + sl, wire: p.wire}
	if ln.peak(now, occ, &self)+2*int64(n.mssOfPkt(p)+ipTCPHeader+ethOverhead) <= ln.bufB {
		n.admit(ln, now, pi, self.from, self.to, self.wire)
		return true
	}
	fl := n.inflows[:0]
	fl = append(fl, inflow{pkt: pi, rec: -1, from: self.from, span: p.tail - p.head, total: p.wire, live: p.segs - p.lostSegs})
	for i := range ln.arriving {
		r := &ln.arriving[i]
		q := &n.pkts[r.pkt]
		if r.to <= now || q.kind != pkData || q.from != r.conn || q.seq != r.seq || r.wire <= 0 {
			continue
		}
		fl = append(fl, inflow{pkt: r.pkt, rec: i, from: r.from, span: r.to - r.from, total: r.wire, live: q.segs - q.lostSegs})
	}
	until := self.to
	defer func() { n.inflows = fl[:0] }()

	// How many frames find the buffer full, and from when.
	for i := range fl {
		n.nextFrame(&fl[i], now, until)
	}
	var in int64
	drops := 0
	full := sim.Time(-1)
	for {
		j := -1
		for i := range fl {
			if fl[i].w > 0 && (j < 0 || fl[i].at < fl[j].at) {
				j = i
			}
		}
		if j < 0 {
			break
		}
		f := &fl[j]
		if occ+in-ln.bytesIn(f.at-now)+f.w > ln.bufB {
			drops++
			if full < 0 {
				full = f.at
			}
		} else {
			in += f.w
		}
		n.nextFrame(f, now, until)
	}
	if drops == 0 {
		n.admit(ln, now, pi, self.from, self.to, self.wire)
		return true
	}

	// Each chunk's share: in proportion to its frames arriving from the first drop on.
	var frames int
	for i := range fl {
		f := &fl[i]
		f.seg, f.in = 0, 0
		for n.nextFrame(f, now, until); f.w > 0; n.nextFrame(f, now, until) {
			if f.at >= full {
				f.full++
			}
		}
		frames += f.full
	}
	given := 0
	for i := range fl {
		f := &fl[i]
		f.share = min(drops*f.full/frames, f.most())
		given += f.share
	}
	for more := true; more && given < drops; {
		more = false
		for i := range fl {
			if f := &fl[i]; given < drops && f.share < f.most() {
				f.share++
				given++
				more = true
			}
		}
	}

	// Each chunk loses the last of its frames arriving from the first drop on; the chunk
	// being admitted goes last, as it may lose everything.
	for k := range fl {
		f := &fl[(k+1)%len(fl)]
		f.seg, f.in = 0, 0
		seen := 0
		for n.nextFrame(f, now, until); f.w > 0; n.nextFrame(f, now, until) {
			if f.at >= full {
				seen++
				if seen > f.full-f.share {
					ln.ctr.DropOverflow++
					n.ctr.DropOverflow++
					if f.rec >= 0 {
						f.dropped += f.w
						f.droppedSegs++
					}
					if !n.pkts[f.pkt].lose(f.s, f.e) {
						for i := 1; i < len(fl); i++ {
							n.unadmit(ln, &fl[i])
						}
						return false
					}
					continue
				}
			}
			if f.rec < 0 {
				f.admitted += f.w
				f.last = f.at
			}
		}
	}
	for i := 1; i < len(fl); i++ {
		n.unadmit(ln, &fl[i])
	}
	n.admit(ln, now, pi, fl[0].from, fl[0].last, fl[0].admitted)
	return true
}

// most is how many frames f's chunk may lose: its frames arriving while the buffer is
// full, and for a chunk already accepted, all but one of its segments.
func (f *inflow) most() int {
	if f.rec < 0 {
		return f.full
	}
	return max(min(f.full, int(f.live)-1), 0)
}

// unadmit takes the frames overflow dropped from a chunk ln had already accepted off the
// lane: its commitment and counters shrink by their wire time, and so does what the chunk
// brings in. The chunk keeps its times (its remaining frames end up to a few frames later
// than they would).
func (n *Network) unadmit(ln *lane, f *inflow) {
	if f.dropped == 0 {
		return
	}
	ln.busy -= ln.serOnce(f.dropped)
	ln.ctr.TxBytes -= uint64(f.dropped)
	ln.ctr.TxSegments -= f.droppedSegs
	r := &ln.arriving[f.rec]
	r.wire -= f.dropped
}
