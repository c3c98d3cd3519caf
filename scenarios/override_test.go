package scenarios

import (
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/sim"
)

func mustSets(t *testing.T, args ...string) []Override {
	t.Helper()
	var out []Override
	for _, a := range args {
		o, err := ParseSet(a)
		if err != nil {
			t.Fatalf("ParseSet(%q): %v", a, err)
		}
		out = append(out, o)
	}
	return out
}

func TestOverridesApply(t *testing.T) {
	s, err := LoadBuiltin(DefaultName, mustSets(t,
		"lnet.retry_count=3",
		"lnet.transaction_timeout=100",
		"faults[0].at=20s",
		"nodes.server.count=1",
		"o2ib.o2ib0.peer_credits=16",
		"fabric.link_rate=HDR",
		"workload[0].size=64KiB",
		"lnet.nets.o2ib0.credits=512", // a key absent from the file is created
		"expect[0].at=49s",
	)...)
	if err != nil {
		t.Fatal(err)
	}
	if s.LNet.RetryCount != 3 || s.LNet.TransactionTimeout != 100*sim.Second {
		t.Errorf("globals: %+v", s.LNet.Globals)
	}
	if s.Faults[0].At != 20*sim.Second || s.Workload[0].Size != 64<<10 {
		t.Errorf("fault at %v, size %v", s.Faults[0].At, s.Workload[0].Size)
	}
	if s.O2IB["o2ib0"].PeerCredits != 16 || s.LNet.Nets["o2ib0"].PeerCredits != 16 || s.LNet.Nets["o2ib0"].Credits != 512 {
		t.Errorf("o2ib %+v nets %+v", *s.O2IB["o2ib0"], *s.LNet.Nets["o2ib0"])
	}
	if s.Fabric.LinkRate.String() != "200Gbps" {
		t.Errorf("rate %v", s.Fabric.LinkRate)
	}
	base, _ := LoadBuiltin(DefaultName)
	if base.Hash == s.Hash {
		t.Error("overrides did not change the scenario hash")
	}
}

func TestOverrideList(t *testing.T) {
	s, err := LoadBuiltin(DefaultName, mustSets(t, "nodes.server.nis=[o2ib0, {net: o2ib0, port: 2, hca: 0}]")...)
	if err != nil {
		t.Fatal(err)
	}
	srv := s.Member("server")
	if len(srv.NIs) != 2 || srv.NIs[1].Port != 2 || srv.NIs[1].HCA != 0 {
		t.Errorf("server NIs %+v", srv.NIs)
	}
}

func TestOverrideErrors(t *testing.T) {
	tests := []struct {
		set  string
		want string
	}{
		{"lnet.retry_count=abc", `--set lnet.retry_count: expected an integer, got "abc"`},
		{"lnet.retry_count=200", "--set lnet.retry_count: retry_count 200 is greater than transaction_timeout (50s)"},
		{"faults[5].at=1s", "--set faults[5].at: faults has 3 elements; index 5 is out of range"},
		{"duration.x=1", "--set duration.x: duration is not a mapping, cannot set \"x\" in it"},
		{"lnet.retry_cnt=1", `--set lnet.retry_cnt: unknown field "retry_cnt" (did you mean retry_count?)`},
		{"faults[0].at=500s", "--set faults[0].at: 500s is after the end of the run (duration 135s)"},
		{"nodes.client.count=2", `scenarios/default.yaml:67:9: faults[0].ni: no node named "client"`},
		{"lnet.routes[0].net=o2ib1", `--set lnet.routes[0].net: lnet has no list "routes" to index`},
	}
	for _, tt := range tests {
		t.Run(tt.set, func(t *testing.T) {
			_, err := LoadBuiltin(DefaultName, mustSets(t, tt.set)...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

func TestParseSetErrors(t *testing.T) {
	for _, a := range []string{"noequals", "=3", "a..b=1", "a[x]=1", "a[-1]=1", "a[0=1", "x=[unclosed"} {
		if _, err := ParseSet(a); err == nil {
			t.Errorf("ParseSet(%q) accepted", a)
		}
	}
}

func FuzzParseSet(f *testing.F) {
	for _, s := range []string{"lnet.retry_count=3", "faults[0].at=20s", "a[0][1].b={x: 1}", "x=", "=", "a..b=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseSet(s)
		if err != nil {
			return
		}
		root, errs := parseYAML("f.yaml", []byte("duration: 10s\nnodes: {a: {nis: [o2ib]}}\nfaults: [{at: 1s}]\n"))
		if errs != nil {
			t.Fatal(errs)
		}
		_ = ApplyOverride(root, o)
	})
}

func TestOverrideString(t *testing.T) {
	for _, in := range []string{"lnet.retry_count=3", "faults[0].at=20s", "nodes.c.nis=[o2ib0, {net: o2ib1, port: 2}]", "a.b="} {
		o, err := ParseSet(in)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseSet(o.String())
		if err != nil || back.String() != o.String() {
			t.Errorf("%q -> %q -> %q, %v", in, o.String(), back.String(), err)
		}
	}
}

func TestMemberZeroAlias(t *testing.T) {
	src := "duration: 10s\nnodes: {client: {nis: [o2ib]}, srv: {nis: [o2ib]}}\nfaults: [{at: 1s, action: link_down, ni: client0:0}]\n"
	for _, count := range []string{"1", "3"} {
		s, err := Load("z.yaml", []byte(src), mustSets(t, "nodes.client.count="+count)...)
		if err != nil {
			t.Fatalf("count %s: %v", count, err)
		}
		if m, _, err := s.ResolveNI("client0:0"); err != nil || m.Group != "client" || m.Index != 0 {
			t.Fatalf("count %s: %v %v", count, m, err)
		}
	}
}

func TestIntegerForms(t *testing.T) {
	s, err := Load("i.yaml", []byte("duration: 2m\nseed: 010\nnodes: {c: {count: 0x2, nis: [o2ib]}}\nlnet: {retry_count: 1_0, transaction_timeout: 100}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Seed != 10 || s.Nodes["c"].Count != 2 || s.LNet.RetryCount != 10 {
		t.Errorf("seed %d count %d retry %d", s.Seed, s.Nodes["c"].Count, s.LNet.RetryCount)
	}
}

func TestOverrideOrigin(t *testing.T) {
	v, err := ValueNode("200")
	if err != nil {
		t.Fatal(err)
	}
	_, err = LoadBuiltin(DefaultName, Override{Path: "lnet.retry_count", Value: v, Origin: "sweep.yaml:4:22"})
	want := "sweep.yaml:4:22: lnet.retry_count: retry_count 200 is greater than transaction_timeout (50s)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want %q", err, want)
	}
}

func TestCheckPath(t *testing.T) {
	for _, tc := range []struct {
		path string
		ok   bool
	}{
		{"lnet.retry_count", true},
		{"faults[0].at", true},
		{"nodes.client.count", true},
		{"00=", false}, // FuzzSweepParse: the axis "00=" with value 0 read back as "=0"
		{"lnet.retry_count=3", false},
		{" lnet.retry_count", false},
		{"lnet..retry_count", false},
		{"faults[x].at", false},
		{"", false},
	} {
		if err := CheckPath(tc.path); (err == nil) != tc.ok {
			t.Errorf("CheckPath(%q) = %v, want ok %v", tc.path, err, tc.ok)
		}
	}
}

func TestPathUnit(t *testing.T) {
	for path, want := range map[string]string{
		"lnet.transaction_timeout":     "s", // in Globals, inlined into lnet
		"lnet.retry_count":             "",
		"faults[0].at":                 "s",
		"faults[0].rule.latency":       "s",
		"o2ib.o2ib0.timeout":           "s",
		"o2ib.o2ib0.peer_credits":      "",
		"lnet.nets.o2ib0.peer_timeout": "s",
		"duration":                     "s",
		"nodes.client.count":           "",
		"lnet.no_such_field":           "",
		"faults.at":                    "",
		"lnet..x":                      "",
	} {
		if got := PathUnit(path); got != want {
			t.Errorf("PathUnit(%q) = %q, want %q", path, got, want)
		}
	}
}
