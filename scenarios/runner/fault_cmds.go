package runner

import (
	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/scenarios"
)

// lnetctl fault drop|delay add|del|reset (lnet_fault_cmd) and the `fault drop|delay show`
// check (lnet_fault_show_dump), on the model's drop and delay rules.

// faultAdd is lnetctl fault drop|delay add: lnet_drop_rule_add or lnet_delay_rule_add, EINVAL
// for what they refuse (lnet_fault_attr_validate: a portal filter with neither PUT nor GET).
func faultAdd(f *faultState, n *node, c *scenarios.Command, _ bool) (int, string) {
	drop, delay := f.ruleSpecs(c.Rule)
	var err error
	if scenarios.FaultKind(c) == "drop" {
		_, err = n.ln.AddDropRule(drop)
	} else {
		_, err = n.ln.AddDelayRule(delay)
	}
	if err != nil {
		return lnet.EINVAL, err.Error()
	}
	return 0, ""
}

// faultDel is lnetctl fault drop|delay del: every rule whose source and destination are
// those given (any for --all or "*", lnet_drop_rule_del / lnet_delay_rule_del, which releases
// a delay rule's messages at once); ENOENT when none is.
func faultDel(f *faultState, n *node, c *scenarios.Command, _ bool) (int, string) {
	pat := func(s string) *lnet.NIDPattern {
		if s == "" || s == "*" {
			return nil
		}
		p := f.pattern(s)
		return &p
	}
	src, dst := pat(c.Rule.Src), pat(c.Rule.Dst)
	var gone int
	if scenarios.FaultKind(c) == "drop" {
		gone = n.ln.DelDropRules(src, dst)
	} else {
		gone = n.ln.DelDelayRules(src, dst)
	}
	if gone == 0 {
		return lnet.ENOENT, "no rule matches"
	}
	return 0, ""
}

// faultReset is lnetctl fault drop|delay reset: every rule's counters cleared and its next
// drop or delay drawn afresh (lnet_drop_rule_reset, lnet_delay_rule_reset).
func faultReset(_ *faultState, n *node, c *scenarios.Command, _ bool) (int, string) {
	if scenarios.FaultKind(c) == "drop" {
		n.ln.ResetDropRules()
	} else {
		n.ln.ResetDelayRules()
	}
	return 0, ""
}

// faultBare is `fault` with no subcommand lnetctl has: it fails (scenarios.FaultFailure).
func faultBare(_ *faultState, _ *node, c *scenarios.Command, _ bool) (int, string) {
	return scenarios.FaultFailure(c)
}

// faultShow is `lnetctl fault drop show` or `fault delay show` (jt_fault_show_common): the
// Netlink dump's `fault:` list, one mapping per rule in the order added, with the attributes
// as the kernel keeps them (a message mask of 0 is all four types, narrowed to PUT and GET by a
// portal filter: lnet_fault_attr_validate) and the counters; nothing when there is no rule
// (the dump's ENOENT, which lnetctl does not report).
func faultShow(ln *lnet.Node, kind string) map[string]any {
	var rules []any
	common := func(a lnet.FaultAttr, st lnet.FaultStats) map[string]any {
		mask := a.MsgMask
		if mask == 0 {
			mask = lnet.MaskPUT | lnet.MaskACK | lnet.MaskGET | lnet.MaskREPLY
		}
		if a.PtlMask != 0 {
			mask &= lnet.MaskPUT | lnet.MaskGET
		}
		return map[string]any{"rule_type": kind, "fa_src": kernelNIDStr(a.Src), "fa_dst": kernelNIDStr(a.Dst),
			"fa_ptl_mask": a.PtlMask, "fa_msg_mask": mask, "fs_count": st.Count,
			"fs_put": st.PUT, "fs_ack": st.ACK, "fs_get": st.GET, "fs_reply": st.REPLY}
	}
	if kind == "drop" {
		for _, r := range ln.DropRules() {
			m := common(r.Spec.FaultAttr, r.Stats)
			m["da_rate"], m["da_interval"], m["ds_dropped"] = r.Spec.Rate, r.Spec.Interval, r.Stats.Dropped
			rules = append(rules, m)
		}
	} else {
		for _, r := range ln.DelayRules() {
			m := common(r.Spec.FaultAttr, r.Stats)
			m["la_rate"], m["la_interval"], m["la_latency"], m["ls_delayed"] = r.Spec.Rate, r.Spec.Interval, r.Spec.Latency, r.Stats.Dropped
			rules = append(rules, m)
		}
	}
	if len(rules) == 0 {
		return map[string]any{}
	}
	return map[string]any{"fault": rules}
}

// kernelNIDStr writes a rule's NID as the kernel's libcfs_nidstr does: "<?>" for any, and a
// net's wildcard as the address of all ones on it (255.255.255.255@o2ib).
func kernelNIDStr(p lnet.NIDPattern) string {
	switch {
	case p.NID != lnet.AnyNID:
		return p.NID.String()
	case p.Net != 0:
		return lnet.MakeNID(p.Net, 0xffffffff).String()
	}
	return "<?>"
}
