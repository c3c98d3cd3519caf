package lnet

import (
	"errors"
	"fmt"

	"github.com/lnetsim/lnetsim/sim"
)

// Message type mask bits of fault rules (fa_msg_mask): bit = 1 << type.
const (
	MaskACK   uint32 = 1 << MsgACK
	MaskPUT   uint32 = 1 << MsgPUT
	MaskGET   uint32 = 1 << MsgGET
	MaskREPLY uint32 = 1 << MsgREPLY
)

// FaultAttr are the fields common to drop and delay rules (struct lnet_fault_attr).
type FaultAttr struct {
	Src      NIDPattern // header source (originator)
	Dst      NIDPattern // header destination (final)
	LocalNID NID        // receiving NI (drop rules, receive path only); AnyNID = any
	PtlMask  uint64     // portals (bit per portal); 0 = any, and limits matching to PUT/GET
	MsgMask  uint32     // MaskPUT|...; 0 = all
}

// match models lnet_fault_attr_match.
func (a *FaultAttr) match(h *Header, local NID) bool {
	if !a.Src.Match(h.Src) || !a.Dst.Match(h.Dst) {
		return false
	}
	if a.LocalNID != AnyNID && a.LocalNID != local {
		return false
	}
	mask := a.MsgMask
	if a.PtlMask != 0 {
		if mask == 0 {
			mask = MaskPUT | MaskGET
		} else {
			mask &= MaskPUT | MaskGET
		}
	}
	if mask != 0 && mask&(1<<h.Type) == 0 {
		return false
	}
	if a.PtlMask != 0 && (h.Portal >= 64 || a.PtlMask&(1<<h.Portal) == 0) {
		return false
	}
	return true
}

// validate models lnet_fault_attr_validate's refusal: with a portal filter only PUT and GET
// can match, so a message mask without either is refused.
func (a *FaultAttr) validate() error {
	if a.PtlMask != 0 && a.MsgMask != 0 && a.MsgMask&(MaskPUT|MaskGET) == 0 {
		return errors.New("a portal filter matches only PUT and GET messages")
	}
	return nil
}

// FaultStats are a rule's counters (lnet_fault_stat).
type FaultStats struct {
	Count   uint64 // matched messages (fs_count)
	PUT     uint64 // dropped (delayed) PUTs
	ACK     uint64 // dropped (delayed) ACKs
	GET     uint64 // dropped (delayed) GETs
	REPLY   uint64 // dropped (delayed) REPLYs
	Dropped uint64 // ds_dropped (drop rules) or delayed (delay rules)
}

func (s *FaultStats) countType(t MsgType) {
	switch t {
	case MsgPUT:
		s.PUT++
	case MsgACK:
		s.ACK++
	case MsgGET:
		s.GET++
	case MsgREPLY:
		s.REPLY++
	}
}

// DropRuleSpec is a drop rule as `lnetctl fault drop add` / `lctl net_drop_add` takes it.
type DropRuleSpec struct {
	FaultAttr
	Rate       uint32 // drop one of every Rate matched messages (exclusive with Interval)
	Interval   uint32 // drop about one message every Interval seconds
	Random     bool   // with Interval: drop each matched message with probability ~1/2
	DropAll    bool   // drop every matched message
	HealthMask uint32 // bit per hstatus (1 << LNET_MSG_STATUS_*); non-zero: sender-side rule
}

// HealthMaskRandom is HSTATUS_RANDOM (`-e random`): any health error.
const HealthMaskRandom = 0xffffffff

// Validate applies lnet_drop_rule_add's checks: exactly one of rate and interval, drop_all
// or not (drop_all decides what a matched message suffers, not which ones match, and
// lnet_drop_rule_add looks only at the two numbers), then lnet_fault_attr_validate's. Its
// other refusals are lctl's and lnetctl's, which build the rule: random without an interval
// (the kernel would draw below 0) and health error bits no name stands for.
func (s *DropRuleSpec) Validate() error {
	if (s.Rate == 0) == (s.Interval == 0) {
		return fmt.Errorf("drop rule needs exactly one of rate and interval, got %d/%d", s.Rate, s.Interval)
	}
	if err := s.validate(); err != nil {
		return err
	}
	if s.Random && s.Interval == 0 {
		return errors.New("drop rule: random needs an interval")
	}
	if s.HealthMask != HealthMaskRandom && s.HealthMask&^(1<<NumHStatus-2) != 0 {
		return fmt.Errorf("drop rule: bad health error mask %#x", s.HealthMask)
	}
	return nil
}

// DropRule is an installed drop rule with its state and counters (struct lnet_drop_rule).
type DropRule struct {
	Spec     DropRuleSpec // as added
	ID       int          // sequence number on the node (names its random stream)
	Stats    FaultStats   // hit counters
	rnd      *sim.Stream
	dropAt   uint64
	dropTime sim.Time
	timeBase sim.Time
}

// AddDropRule installs a drop rule (models lnet_drop_rule_add). Its random draws come from
// the stream "lnet.<node>.drop-rule.<id>".
func (n *Node) AddDropRule(spec DropRuleSpec) (*DropRule, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	n.ruleSeq++
	r := &DropRule{Spec: spec, ID: n.ruleSeq, rnd: n.k.Rand(fmt.Sprintf("lnet.%s.drop-rule.%d", n.name, n.ruleSeq))}
	now := n.nowSeconds()
	switch {
	case spec.Interval > 0:
		r.timeBase = now + sim.Time(spec.Interval)*sim.Second
		r.dropTime = now + sim.Time(r.rnd.Uint64N(uint64(spec.Interval)))*sim.Second
	case spec.Rate == 2:
		r.dropAt = 0 // the first matched message is always dropped
	case spec.Rate > 0:
		r.dropAt = r.rnd.Uint64N(uint64(spec.Rate))
	}
	n.dropRules = append(n.dropRules, r)
	return r, nil
}

// ResetDropRules models lnet_drop_rule_reset (`lnetctl fault drop reset`): counters cleared
// and a fresh drop point drawn for every rule (no rate-2 special case here).
func (n *Node) ResetDropRules() {
	now := n.nowSeconds()
	for _, r := range n.dropRules {
		r.Stats = FaultStats{}
		if r.Spec.Rate != 0 {
			r.dropAt = r.rnd.Uint64N(uint64(r.Spec.Rate))
		} else if r.Spec.Interval != 0 {
			r.dropTime = now + sim.Time(r.rnd.Uint64N(uint64(r.Spec.Interval)))*sim.Second
			r.timeBase = now + sim.Time(r.Spec.Interval)*sim.Second
		}
	}
}

// DropRules returns the installed drop rules, oldest first.
func (n *Node) DropRules() []*DropRule { return n.dropRules }

// DelDropRules removes drop rules matching src and dst exactly (nil patterns match all, as
// `lnetctl fault drop del -a`), returning how many were removed.
func (n *Node) DelDropRules(src, dst *NIDPattern) int {
	keep := n.dropRules[:0]
	k := 0
	for _, r := range n.dropRules {
		if (src == nil || *src == r.Spec.Src) && (dst == nil || *dst == r.Spec.Dst) {
			k++
			continue
		}
		keep = append(keep, r)
	}
	n.dropRules = keep
	return k
}

// decide models drop_rule_match's decision for a matched message (times in whole seconds):
// drop_all drops; random drops when random(interval) >= interval/2 (no counting); interval
// rules drop at or after drop_time, then draw the next one in the following window; rate rules
// drop the message whose match count equals drop_at and draw a new drop_at at every multiple
// of rate. Per-type counters and ds_dropped count drops only (lnet_fault_stat_inc).
func (r *DropRule) decide(t MsgType, now sim.Time) bool {
	s := &r.Spec
	drop := false
	switch {
	case s.DropAll:
		drop = true
	case s.Random:
		drop = r.rnd.Uint64N(uint64(s.Interval)) >= uint64(s.Interval)/2
	case s.Interval > 0:
		r.Stats.Count++
		if now >= r.dropTime {
			drop = true
			if now > r.timeBase {
				r.timeBase = now
			}
			r.dropTime = r.timeBase + sim.Time(r.rnd.Uint64N(uint64(s.Interval)))*sim.Second
			r.timeBase += sim.Time(s.Interval) * sim.Second
		}
	default:
		drop = r.Stats.Count == r.dropAt
		r.Stats.Count++
		if r.Stats.Count%uint64(s.Rate) == 0 {
			r.dropAt = r.Stats.Count + r.rnd.Uint64N(uint64(s.Rate))
		}
	}
	if drop {
		r.Stats.countType(t)
		r.Stats.Dropped++
	}
	return drop
}

// pickHStatus chooses the health error of a dropping rule (models lnet_fault_match_health): a
// random value below 11, 0 counted as 1; kept if its bit is in the mask (or the mask is
// HealthMaskRandom); otherwise the kernel's scan from the highest status down, which moves the
// choice to each closer set bit in turn (ties toward the higher status).
func (r *DropRule) pickHStatus() HStatus {
	choice := int(r.rnd.Uint64N(uint64(NumHStatus)))
	if choice == 0 {
		choice = 1
	}
	return matchHealth(choice, r.Spec.HealthMask)
}

// matchHealth is the deterministic part of lnet_fault_match_health.
func matchHealth(choice int, mask uint32) HStatus {
	if mask == HealthMaskRandom || mask&(1<<choice) != 0 {
		return HStatus(choice)
	}
	best := int(NumHStatus)
	for i := int(NumHStatus); i > 0; i-- {
		if mask&(1<<i) != 0 {
			d := choice - i
			if d < 0 {
				d = -d
			}
			if d < best {
				best = d
				choice = i
			}
		}
	}
	return HStatus(choice)
}

// dropOnReceive models lnet_drop_rule_match on the receive path (lnet_parse): rules without a
// health mask (and drop_all rules), newest first, with the receiving NI as local NID.
func (n *Node) dropOnReceive(h *Header, local NID) bool {
	now := n.nowSeconds()
	for i := len(n.dropRules) - 1; i >= 0; i-- {
		r := n.dropRules[i]
		if r.Spec.HealthMask != 0 && !r.Spec.DropAll {
			continue
		}
		if r.Spec.FaultAttr.match(h, local) && r.decide(h.Type, now) {
			return true
		}
	}
	return false
}

// SendErrorSimulation models lnet_send_error_simulation, which an LND calls when it posts
// msg: rules with a health mask (and drop_all rules) are checked newest first (a rule with a
// local NID never matches here); on a drop it returns the hstatus the LND must fail the send
// with (o2ib also closes the connection).
func (n *Node) SendErrorSimulation(m *Msg) (HStatus, bool) {
	if len(n.dropRules) == 0 {
		return 0, false
	}
	now := n.nowSeconds()
	for i := len(n.dropRules) - 1; i >= 0; i-- {
		r := n.dropRules[i]
		if r.Spec.HealthMask == 0 && !r.Spec.DropAll {
			continue
		}
		if r.Spec.LocalNID != AnyNID {
			continue
		}
		if r.Spec.FaultAttr.match(&m.Hdr, AnyNID) && r.decide(m.Hdr.Type, now) {
			return r.pickHStatus(), true
		}
	}
	return 0, false
}

// DelayRuleSpec is a delay rule as `lnetctl fault delay add` / `lctl net_delay_add` takes it.
type DelayRuleSpec struct {
	FaultAttr
	Rate     uint32 // delay one of every Rate matched messages
	Interval uint32 // delay about one message every Interval seconds
	Latency  uint32 // seconds, > 0
}

// Validate applies lnet_delay_rule_add's checks, in its order: exactly one of rate and
// interval, a latency, then lnet_fault_attr_validate's.
func (s *DelayRuleSpec) Validate() error {
	if (s.Rate == 0) == (s.Interval == 0) {
		return fmt.Errorf("delay rule needs exactly one of rate and interval, got %d/%d", s.Rate, s.Interval)
	}
	if s.Latency == 0 {
		return errors.New("delay rule needs a latency > 0")
	}
	return s.validate()
}

// DelayRule is an installed delay rule (struct lnet_delay_rule).
type DelayRule struct {
	Spec     DelayRuleSpec // as added
	ID       int           // sequence number on the node (names its random stream)
	Stats    FaultStats    // hit counters (Dropped counts delayed messages)
	rnd      *sim.Stream
	delayAt  uint64
	delayTm  sim.Time
	timeBase sim.Time
	held     []heldMsg // dl_msg_list: the messages it holds, in the order it took them
}

// heldMsg is a message a delay rule holds and the event that releases it at its time.
type heldMsg struct {
	ref MsgRef
	ev  sim.EventID
}

// hold records that r holds m until the release event ev. Entries whose event has fired are
// dropped from the front first: a rule's messages share its latency, so they are released in
// the order they were taken.
func (r *DelayRule) hold(k *sim.Kernel, m *Msg, ev sim.EventID) {
	i := 0
	for i < len(r.held) && !k.Scheduled(r.held[i].ev) {
		i++
	}
	if i > 0 {
		r.held = append(r.held[:0], r.held[i:]...)
	}
	r.held = append(r.held, heldMsg{m.Ref(), ev})
}

// AddDelayRule installs a delay rule (models lnet_delay_rule_add); stream
// "lnet.<node>.delay-rule.<id>".
func (n *Node) AddDelayRule(spec DelayRuleSpec) (*DelayRule, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	n.ruleSeq++
	r := &DelayRule{Spec: spec, ID: n.ruleSeq, rnd: n.k.Rand(fmt.Sprintf("lnet.%s.delay-rule.%d", n.name, n.ruleSeq))}
	r.drawFirst(n.nowSeconds())
	n.delayRules = append(n.delayRules, r)
	return r, nil
}

// ResetDelayRules models lnet_delay_rule_reset (`lnetctl fault delay reset`): counters
// cleared and a fresh delay point drawn for every rule; the messages held stay held.
func (n *Node) ResetDelayRules() {
	now := n.nowSeconds()
	for _, r := range n.delayRules {
		r.Stats = FaultStats{}
		r.drawFirst(now)
	}
}

// drawFirst draws the rule's first delay point from now: a message number below its rate,
// or a time within its first interval.
func (r *DelayRule) drawFirst(now sim.Time) {
	if r.Spec.Rate != 0 {
		r.delayAt = r.rnd.Uint64N(uint64(r.Spec.Rate))
	} else {
		r.delayTm = now + sim.Time(r.rnd.Uint64N(uint64(r.Spec.Interval)))*sim.Second
		r.timeBase = now + sim.Time(r.Spec.Interval)*sim.Second
	}
}

// DelayRules returns the installed delay rules, oldest first.
func (n *Node) DelayRules() []*DelayRule { return n.delayRules }

// DelDelayRules removes the delay rules matching src and dst (nil matches all) and releases
// at once every message they hold (lnet_delay_rule_del). It returns how many went.
func (n *Node) DelDelayRules(src, dst *NIDPattern) int {
	var gone []*DelayRule
	keep := n.delayRules[:0]
	for _, r := range n.delayRules {
		if (src == nil || *src == r.Spec.Src) && (dst == nil || *dst == r.Spec.Dst) {
			gone = append(gone, r)
			continue
		}
		keep = append(keep, r)
	}
	n.delayRules = keep
	n.releaseRules(gone, false)
	return len(gone)
}

// releaseRules releases at once the messages the removed rules hold, as lnet_delay_rule_del
// does: it takes the rules off its list onto a private one head first (so the rule added
// last comes first) and each rule's messages in the order it took them (delayed_msg_check),
// then processes them (delayed_msg_process): a held send goes to its LND, a held receive is
// parsed, or with drop (LNet stopping) dropped with -ECANCELED. Each message's own release
// event is cancelled.
func (n *Node) releaseRules(gone []*DelayRule, drop bool) {
	var msgs []*Msg
	for i := len(gone) - 1; i >= 0; i-- {
		r := gone[i]
		for _, h := range r.held {
			if !n.k.Cancel(h.ev) {
				continue // released at its time already
			}
			if m := n.lookupMsg(h.ref); m != nil && m.delayed {
				msgs = append(msgs, m)
			}
		}
		r.held = nil
	}
	for _, m := range msgs {
		if drop && m.delayedRx {
			m.delayed, m.delayedRx = false, false
			n.dropMessage(m.rxNI, m.private, m.Len(), m.Hdr.Type)
			n.finalize(m, -ECANCELED)
			continue
		}
		n.releaseDelayed(m.Ref())
	}
}

// decide models delay_rule_match's decision (the drop arithmetic without the rate-2 case).
func (r *DelayRule) decide(t MsgType, now sim.Time) bool {
	s := &r.Spec
	delay := false
	r.Stats.Count++
	if s.Interval > 0 {
		if now >= r.delayTm {
			delay = true
			if r.timeBase < now {
				r.timeBase = now
			}
			r.delayTm = r.timeBase + sim.Time(r.rnd.Uint64N(uint64(s.Interval)))*sim.Second
			r.timeBase += sim.Time(s.Interval) * sim.Second
		}
	} else {
		delay = r.Stats.Count-1 == r.delayAt
		if r.Stats.Count%uint64(s.Rate) == 0 {
			r.delayAt = r.Stats.Count + r.rnd.Uint64N(uint64(s.Rate))
		}
	}
	if delay {
		r.Stats.countType(t)
		r.Stats.Dropped++
	}
	return delay
}

// delayMatch returns the first (newest) delay rule that delays the message.
func (n *Node) delayMatch(h *Header) *DelayRule {
	now := n.nowSeconds()
	for i := len(n.delayRules) - 1; i >= 0; i-- {
		r := n.delayRules[i]
		if r.Spec.LocalNID != AnyNID {
			continue
		}
		if r.Spec.FaultAttr.match(h, AnyNID) && r.decide(h.Type, now) {
			return r
		}
	}
	return nil
}

// delay holds m on rule r for its latency.
func (n *Node) delay(r *DelayRule, m *Msg, rx bool) {
	m.delayed = true
	m.delayedRx = rx
	ev := n.k.After(sim.Time(r.Spec.Latency)*sim.Second, n.hid, evDelayRelease, uint64(m.Ref()))
	r.hold(n.k, m, ev)
}

// delayOnSend models lnet_delay_rule_match_locked in lnet_post_send_locked: the message keeps
// its credits and goes straight to the LND when released.
func (n *Node) delayOnSend(m *Msg) bool {
	r := n.delayMatch(&m.Hdr)
	if r == nil {
		return false
	}
	n.delay(r, m, false)
	return true
}

// delayOnReceive models the delay-rule check in lnet_parse after commit.
func (n *Node) delayOnReceive(m *Msg) bool {
	r := n.delayMatch(&m.Hdr)
	if r == nil {
		return false
	}
	n.delay(r, m, true)
	return true
}

// releaseDelayed models lnet_delay_rule_daemon's release: delayed sends go to the LND with no
// deadline or credit re-check; delayed receives resume local parsing.
func (n *Node) releaseDelayed(ref MsgRef) {
	m := n.lookupMsg(ref)
	if m == nil || !m.delayed {
		return
	}
	m.delayed = false
	if m.delayedRx {
		m.delayedRx = false
		if m.routing {
			n.parseForward(m)
		} else {
			n.parseLocal(m)
		}
		return
	}
	n.lndSend(m)
}

// FaultFini models lnet_fault_fini, LNetNIFini's first step: the drop rules go, then the
// delay rules (lnet_delay_rule_del on shutdown), whose held messages are released at once
// (releaseRules): a held send goes to its LND (still up), a held receive is dropped
// (-ECANCELED).
func (n *Node) FaultFini() {
	n.dropRules = nil
	gone := n.delayRules
	n.delayRules = nil
	n.releaseRules(gone, true)
}

// RemoveDropRule removes one drop rule and reports whether it was installed.
func (n *Node) RemoveDropRule(r *DropRule) bool {
	for i, x := range n.dropRules {
		if x == r {
			n.dropRules = append(n.dropRules[:i], n.dropRules[i+1:]...)
			return true
		}
	}
	return false
}

// RemoveDelayRule removes one delay rule, releasing at once the messages it holds
// (releaseRules), and reports whether it was installed.
func (n *Node) RemoveDelayRule(r *DelayRule) bool {
	for i, x := range n.delayRules {
		if x == r {
			n.delayRules = append(n.delayRules[:i], n.delayRules[i+1:]...)
			n.releaseRules([]*DelayRule{r}, false)
			return true
		}
	}
	return false
}
