package scenarios

import (
	"strconv"
	"strings"
	"testing"
)

// TestFaultAddParse: lnetctl fault drop|delay add read as jt_fault_add reads them: repeated
// -m, -e and -p accumulate, case-insensitive names, strtoul numbers (hex, a word that is no
// number is 0, a negative rate wraps), a delay rule's --health_error ignored.
func TestFaultAddParse(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"fault drop add -s 10.0.0.1@o2ib -d *@o2ib -m GET -m reply -e LOCAL_TIMEOUT -e random -p 4 -p 0x10 -r 0x2 -o 10.0.0.1@o2ib",
			"src=10.0.0.1@o2ib dst=*@o2ib local=10.0.0.1@o2ib rate=2 interval=0 msg=[get reply] ptl=[4 16] he=[local_timeout random] random=false all=false latency=0"},
		{"fault drop add -s * -d * -i 3 -n -x",
			"src=* dst=* local= rate=0 interval=3s msg=[] ptl=[] he=[] random=true all=true latency=0"},
		{"fault drop add -s * -d * -r -1",
			"src=* dst=* local= rate=4294967295 interval=0 msg=[] ptl=[] he=[] random=false all=false latency=0"},
		{"fault delay add --source client:0 --dest * --interval 2 --latency 7 --health_error foo --random --drop_all",
			"src=client:0 dst=* local= rate=0 interval=2s msg=[] ptl=[] he=[] random=false all=false latency=7s"},
		{"fault delay add -s * -d * -r abc1 --interval 1 -l 1",
			"src=* dst=* local= rate=0 interval=1s msg=[] ptl=[] he=[] random=false all=false latency=1s"},
	} {
		s, err := loadCommandOn("master", tc.cmd)
		if err != nil {
			t.Errorf("%s: %v", tc.cmd, err)
			continue
		}
		r := s.Faults[0].Cmd.Rule
		got := strings.Join([]string{"src=" + r.Src, "dst=" + r.Dst, "local=" + r.LocalNID, "rate=" + itoa(r.Rate), "interval=" + r.Interval.String(),
			"msg=" + list(r.Message), "ptl=" + intList(r.Portal), "he=" + list(r.HealthError), "random=" + btoa(r.Random), "all=" + btoa(r.DropAll), "latency=" + r.Latency.String()}, " ")
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.cmd, got, tc.want)
		}
	}
}

// TestFaultRefusals: what jt_fault_add, jt_fault_del_common and jt_fault_reset_common refuse
// before calling the kernel, and the releases whose lnetctl has no `fault drop|delay`.
func TestFaultRefusals(t *testing.T) {
	for _, tc := range []struct{ release, cmd, want string }{
		{"master", "fault drop add -s * -d * -r 1 -i 1", "please provide either drop rate or interval but not both at the same time."},
		{"master", "fault drop add -s * -d *", "please provide either drop rate or interval"},
		{"master", "fault delay add -s * -d * -r 1", "latency cannot be zero"},
		{"master", "fault delay add -s * -d * -r 1 -i 2 -l 1", "invalid option -- 'i'"},
		{"master", "fault drop add -s * -d * -r 1 stray", `unexpected argument "stray"`},
		{"master", "fault drop del -a -z", "invalid option -- 'z'"},
		{"master", "fault drop add -s * -d * -r 1 -n", "please provide an interval to randomize"},
		{"master", "fault drop add -s * -r 1", "Please provide both source and destination of drop rule"},
		{"master", "fault drop add -s * -d * -r 1 -m FOO", "unknown message type foo"},
		{"master", "fault drop add -s * -d * -r 1 -e bogus", "unknown health error bogus"},
		{"master", "fault drop add -s * -d * -r 1 -p 64", "invalid portal: 64"},
		{"master", "fault drop add -s * -d * -r 1 -p -1", "invalid portal: 18446744073709551615"},
		{"master", "fault drop add -s * -d * -r 1 --latency 2", "health error mask"},
		{"master", "fault drop add -s 10.0.0.x@o2ib -d * -r 1", "faults[0].lnetctl"},
		{"master", "fault drop del -s *", "Failed, please provide source and destination of rule"},
		{"master", "fault drop del -a -s *", "'-s' or '-d' cannot be combined with '-a'"},
		{"master", "fault delay reset", "lnetctl prints its usage and fails"},
		{"master", "fault help", "cfs_parser's own command"},
		{"master", "fault drop show", "it is an lnetctl check"},
		{"2.17", "fault drop reset", "lnetctl prints its usage"},
		{"2.16", "fault drop add -s * -d * -r 1", "whose lnetctl has fault add|del|reset|show --rule_type"},
		{"2.16", "fault reset x", "whose lnetctl has fault add|del|reset|show --rule_type"},
		{"2.15", "fault drop del -a", "fault drop del: no such command in lnetctl (client runs 2.15)"},
		{"2.12", "fault", "fault: no such command in lnetctl"},
	} {
		_, err := loadCommandOn(tc.release, tc.cmd)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s on %s: %v, want ... %s", tc.cmd, tc.release, err, tc.want)
		}
	}
	src := "duration: 5s\nnodes:\n  old: {release: \"2.16\", nis: [o2ib0]}\nexpect:\n  - {check: lnetctl, node: old, command: fault drop show, equal: {fault: []}}\n"
	if _, err := Load("t.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), "t.yaml:5:42: expect[0].command: fault drop show: old runs 2.16") {
		t.Errorf("fault drop show on 2.16: %v", err)
	}
	for _, ok := range []string{"fault drop reset x", "fault delay del -a", "fault drop del -s * -d 10.0.0.1@o2ib", "fault reset ''", "fault drop", "fault"} {
		if _, err := loadCommandOn("2.17", ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	// del reads its options in order: -a forgets a -d before it.
	for cmd, want := range map[string]string{
		"fault drop del -d 10.0.0.1@o2ib -a":                    "src=\"\" dst=\"\"",
		"fault drop del -d 10.0.0.9@o2ib -s * -d 10.0.0.1@o2ib": "src=\"*\" dst=\"10.0.0.1@o2ib\"",
	} {
		s, err := loadCommandOn("master", cmd)
		if err != nil {
			t.Errorf("%s: %v", cmd, err)
			continue
		}
		r := s.Faults[0].Cmd.Rule
		got := "src=" + strconv.Quote(r.Src) + " dst=" + strconv.Quote(r.Dst)
		if got != want {
			t.Errorf("%s: %s, want %s", cmd, got, want)
		}
	}
	if _, err := loadCommandOn("master", "fault drop del -a -d 10.0.0.1@o2ib"); err == nil || !strings.Contains(err.Error(), "cannot be combined") {
		t.Errorf("del -a -d: %v", err)
	}
}

// TestFaultFailure: `fault` followed by no subcommand lnetctl has fails as check_cmd or
// cfs_parser makes it.
func TestFaultFailure(t *testing.T) {
	for _, tc := range []struct{ cmd, want string }{
		{"fault", "EPERM usage: fault {drop | delay | help}"},
		{"fault delay", "EPERM usage: fault delay {add | del | show | reset}"},
		{"fault reset ''", "EPERM 'reset' is not a valid command. See 'lnetctl --list-commands'."},
		{"fault drop frob", "EPERM 'frob' is not a valid command. See 'lnetctl --list-commands'."},
	} {
		s, err := loadCommandOn("master", tc.cmd)
		if err != nil {
			t.Fatalf("%s: %v", tc.cmd, err)
		}
		e, text := FaultFailure(s.Faults[0].Cmd)
		if got := map[int]string{1: "EPERM"}[e] + " " + text; got != tc.want {
			t.Errorf("%s: %q, want %q", tc.cmd, got, tc.want)
		}
	}
}

// TestCStrtoul: numbers as strtoul(s, NULL, 0) reads them, kept in 32 bits.
func TestCStrtoul(t *testing.T) {
	for s, want := range map[string]uint32{"": 0, "12": 12, " 7x": 7, "0x1f": 31, "010": 8, "09": 0, "0x": 0, "-1": 0xffffffff,
		"+5": 5, "4294967296": 0, "abc": 0, "99999999999999999999999": 0xffffffff} {
		if got := cStrtoul(s); got != want {
			t.Errorf("cStrtoul(%q) = %d, want %d", s, got, want)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func btoa(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func list(s []string) string { return "[" + strings.Join(s, " ") + "]" }

func intList(s []int) string {
	w := make([]string, len(s))
	for i, v := range s {
		w[i] = strconv.Itoa(v)
	}
	return list(w)
}
