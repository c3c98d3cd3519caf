package scenarios

import (
	"strings"
	"testing"
)

// TestRuleRefusals: a drop_rule_add or delay_rule_add rule is refused at load where lctl
// net_drop_add/net_delay_add or the kernel's lnet_drop_rule_add/lnet_delay_rule_add refuse
// it, with the message and the place; a drop_all rule needs its rate or interval as any
// other, and a 2.12 node has no drop_all nor local_nid.
func TestRuleRefusals(t *testing.T) {
	for _, tc := range []struct{ release, action, rule, want string }{
		{"", "drop_rule_add", "{rate: 1, drop_all: true}", ""},
		{"", "drop_rule_add", "{interval: 2, drop_all: true, local_nid: client:0}", ""},
		{"", "drop_rule_add", "{drop_all: true}",
			"t.yaml:4:57: faults[0].rule: please provide either drop rate or interval but not both at the same time. (give rate: N or interval: SECONDS (lctl net_drop_add -r or -i; drop_all too))"},
		{"", "drop_rule_add", "{rate: 1, interval: 1, drop_all: true}",
			"t.yaml:4:57: faults[0].rule: please provide either drop rate or interval but not both at the same time."},
		{"", "delay_rule_add", "{latency: 1}",
			"t.yaml:4:58: faults[0].rule: please provide either delay rate or interval but not both at the same time. (give rate: N or interval: SECONDS (lctl net_delay_add -r or -i; drop_all too))"},
		{"", "drop_rule_add", "{interval: 500ms}",
			"t.yaml:4:68: faults[0].rule.interval: 500ms is not a whole number of seconds (the kernel keeps it in whole seconds, e.g. 1 or 2s)"},
		{"", "delay_rule_add", "{rate: 1, latency: 1500ms}",
			"t.yaml:4:77: faults[0].rule.latency: 1500ms is not a whole number of seconds (the kernel keeps it in whole seconds, e.g. 1 or 2s)"},
		{"", "delay_rule_add", "{rate: 1, latency: 0}",
			"t.yaml:4:77: faults[0].rule.latency: a delay rule needs latency > 0"},
		{"", "drop_rule_add", "{rate: 1, portal: [4], message: [ack, reply]}",
			"t.yaml:4:89: faults[0].rule.message: lnet_drop_rule_add refuses the rule with EINVAL (lnet_fault_attr_validate: no PUT or GET among its message types) (a portal filter matches only PUT and GET: add put or get, or drop the portal)"},
		{"", "delay_rule_add", "{rate: 1, latency: 1, portal: [4], message: [ack]}",
			"faults[0].rule.message: lnet_delay_rule_add refuses the rule with EINVAL"},
		{"", "drop_rule_add", "{rate: 1, portal: [4], message: [ack, get]}", ""},
		{"", "drop_rule_add", "{rate: 1, portal: [64]}",
			"faults[0].rule.portal[0]: LNet portals are 0 to 63, got 64"},
		{"", "drop_rule_add", "{rate: 1, random: true}",
			"faults[0].rule.random: random needs an interval"},
		{"", "drop_rule_add", "{rate: -1}",
			"faults[0].rule.rate: must not be negative"},
		{"2.12", "drop_rule_add", "{rate: 1, drop_all: true}",
			"t.yaml:4:77: faults[0].rule.drop_all: client runs 2.12, whose lctl net_drop_add has no --drop_all (LU-11470 adds it in 2.13)"},
		{"2.12", "drop_rule_add", "{rate: 1, local_nid: client:0}",
			"t.yaml:4:78: faults[0].rule.local_nid: client runs 2.12, whose lctl net_drop_add has no --local_nid (LU-11470 adds it in 2.13)"},
		{"2.15", "drop_rule_add", "{rate: 1, drop_all: true, local_nid: client:0}", ""},
	} {
		rel := ""
		if tc.release != "" {
			rel = "release: \"" + tc.release + "\", "
		}
		src := "duration: 5s\nnodes: {client: {" + rel + "nis: [o2ib0]}}\nfaults:\n  - {at: 1s, node: client, action: " + tc.action + ", rule: " + tc.rule + "}\n"
		_, err := Load("t.yaml", []byte(src))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %s: %v", tc.action, tc.rule, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s %s:\n got %v\nwant %s", tc.action, tc.rule, err, tc.want)
		}
	}
}
