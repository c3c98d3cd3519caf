package scenarios

import (
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/sim"
)

// Releases per node: each group takes its own release, else lnet.release, and that release's
// defaults for the tunables nobody wrote (a written one wins, in lnet or the group's lnetctl
// global section); the o2ib timeout default is the release's (0: LNet's lnd_timeout, up to
// 2.16) unless written.
func TestReleasePerNode(t *testing.T) {
	src := `
duration: 10s
nodes:
  old: {nis: [o2ib0], release: "2.12"}
  first: {nis: [o2ib0], release: 2.12.0}
  mid: {nis: [o2ib0]}
  new: {nis: [o2ib0], release: "2.16"}
  cur: {nis: [o2ib0], release: master}
  fixed:
    nis: [o2ib0]
    release: "2.16"
    lnetctl: {global: {retry_count: 1}}
lnet:
  release: "2.15"
  health_sensitivity: 50
`
	s, err := Load("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		node, rel   string
		tt          sim.Time
		retry, sens int
		o2ibTimeout sim.Time
	}{
		{"old", "2.12", 50, 2, 50, 0},
		{"first", "2.12.0", 50, 0, 50, 0}, // 2.12.0 ships retry_count 0
		{"mid", "2.15", 50, 2, 50, 0},
		{"new", "2.16", 150, 2, 50, 0},
		{"cur", "", 150, 2, 50, 50}, // master: no release recorded
		{"fixed", "2.16", 150, 1, 50, 0},
	} {
		m := s.Member(c.node)
		g := m.Global
		if g.Release != c.rel || g.TransactionTimeout != c.tt*sim.Second || g.RetryCount != c.retry ||
			g.HealthSensitivity != c.sens || m.NIs[0].LND.Timeout != c.o2ibTimeout*sim.Second {
			t.Errorf("%s: release %q, transaction_timeout %v, retry_count %d, health_sensitivity %d, o2ib timeout %v; want %+v",
				c.node, g.Release, g.TransactionTimeout, g.RetryCount, g.HealthSensitivity, m.NIs[0].LND.Timeout, c)
		}
	}
}

// o2iblnd's rules per release, each at its boundary: no-listener reconnects up to 2.12.8
// (LU-14536 in 2.12.9), unlimited up to 2.12.6 (LU-13972 in 2.12.7); LOCAL_DROPPED /
// LOCAL_TIMEOUT connection failures and LOCAL_DROPPED refusals in 2.12 (LU-13571, LU-14540
// in 2.15); no connreq timeout, stale waiting-tx deadline and min(hiw, depth - 1) up to
// 2.15 (LU-17480, LU-16184, LU-15828 in 2.16), the plain hiw up to 2.12.2 (LU-12569 in
// 2.12.3); an IMMEDIATE's payload copied in 2.12 (LU-14008 in 2.15). Every known release
// is listed.
func TestO2IBProfilePerRelease(t *testing.T) {
	type rules struct{ listener, unlimited, status, refused, connreq, stale, hiwMin, hiwFixed, immCopied bool }
	up2122 := rules{true, true, true, true, true, true, true, true, true}
	up2126 := rules{true, true, true, true, true, true, true, false, true}
	up2128 := rules{true, false, true, true, true, true, true, false, true}
	r2129 := rules{false, false, true, true, true, true, true, false, true}
	want := map[string]rules{
		"2.12.0": up2122, "2.12.1": up2122, "2.12.2": up2122, "2.12.3": up2126, "2.12.4": up2126,
		"2.12.5": up2126, "2.12.6": up2126, "2.12.7": up2128, "2.12.8": up2128,
		"2.12.9": r2129, "2.12": r2129,
		"2.15": {false, false, false, false, true, true, true, false, false},
		"2.16": {}, "2.17": {}, "master": {}, "": {},
	}
	for _, name := range append(lnet.KnownReleases(), "") {
		p := O2IBProfile(name)
		got := rules{p.NoListenerReconnect, p.NoListenerUnlimited, p.LocalConnFailureStatus, p.RefusedLocalDropped,
			p.NoConnreqTimeout, p.WaitingTxStaleDeadline, p.CreditsHighwaterMin, p.CreditsHighwaterFixed,
			p.ImmediatePayloadCopied}
		w, ok := want[name]
		if !ok || got != w {
			t.Errorf("release %q: o2ib rules %+v, want %+v (listed: %v)", name, got, w, ok)
		}
	}
}

// The send, notify and recovery rules reach each node by its release: set for the releases
// before each boundary (LU-16303 and LU-14955, LU-17855, LU-14979 at 2.16; LU-13569 at 2.15;
// LU-20379 after 2.17; LU-17855's older lnet_notify from LU-11300 is 2.15's only), none on
// master.
func TestReleaseSendNotifyRecoveryRules(t *testing.T) {
	src := `
duration: 1s
nodes:
  n2120: {nis: [o2ib0], release: 2.12.0}
  n212: {nis: [o2ib0], release: "2.12"}
  n215: {nis: [o2ib0], release: "2.15"}
  n216: {nis: [o2ib0], release: "2.16"}
  n217: {nis: [o2ib0], release: "2.17"}
  nmaster: {nis: [o2ib0]}
`
	s, err := Load("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	type rules struct{ deadline, fatal, notify, anyNI, unbounded, fixedMax bool }
	for _, c := range []struct {
		node string
		want rules
	}{
		{"n2120", rules{true, true, false, true, true, true}}, // 2.12's lnet_notify sets aliveness, as 2.16 does
		{"n212", rules{true, true, false, true, true, true}},
		{"n215", rules{true, true, true, true, false, true}},
		{"n216", rules{false, false, false, true, false, false}},
		{"n217", rules{false, false, false, true, false, false}},
		{"nmaster", rules{}},
	} {
		name := s.Member(c.node).Global.Release
		if name == "" {
			name = lnet.DefaultRelease
		}
		rel, err := lnet.LookupRelease(name)
		if err != nil {
			t.Fatal(err)
		}
		p := rel.Profile
		got := rules{p.NoDropPastDeadline, p.FatalNINeverUsed, p.NotifyByHealth, p.NotifyDownFromAnyNI,
			p.PeerRecoveryUnbounded, p.FixedMaxRecoveryInterval}
		if got != c.want {
			t.Errorf("%s (%s): drop past deadline off, fatal NI never used, notify by health, down from any NI, unbounded recovery, fixed max interval = %+v, want %+v",
				c.node, name, got, c.want)
		}
	}
}

// `release: export` takes a group's release from its lnetctl export where the export shows
// it: 2.12's (o2ib keys inside tunables:) is 2.12, 2.15's (health_sensitivity, no
// max_recovery_ping_interval) 2.15; 2.10's shows nothing and master's (2.16 on) could be
// 2.16, 2.17 or master, so both are refused at the key, saying why.
func TestReleaseFromExport(t *testing.T) {
	for _, c := range []struct {
		version, rel, err string
	}{
		{"2.10", "", "export: it has no global section and no o2ib keys inside tunables:"},
		{"2.12", "2.12", ""},
		{"2.15", "2.15", ""},
		{"master", "", "export: its global max_recovery_ping_interval says 2.16 or later"},
	} {
		src := strings.Replace(string(withExport(t, "testdata/lnetctl-export/"+c.version+".yaml")), "  client:\n", "  client:\n    release: export\n", 1)
		s, err := Load(c.version+".yaml", []byte(src))
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.version+".yaml:15:14: nodes.client.release: ") || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q at 15:14", c.version, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.version, err)
		}
		if g := s.Member("client").Global; g.Release != c.rel {
			t.Errorf("%s: release %q, want %q", c.version, g.Release, c.rel)
		}
	}
	_, err := Load("g.yaml", []byte("duration: 1s\nnodes: {a: {nis: [o2ib0]}}\nlnet: {release: export}\n"))
	if err == nil || !strings.Contains(err.Error(), "only a node group can take its release from its lnetctl export") {
		t.Errorf("lnet.release: export: %v", err)
	}
}

// TestReleaseDefaultsMeetWrittenTunables: a tunable written next to a release whose default
// for the other makes the pair invalid in the kernel is refused at load, at the written key.
func TestReleaseDefaultsMeetWrittenTunables(t *testing.T) {
	for _, c := range []struct{ lnet, want string }{
		{"{release: 2.12.0, retry_count: 2}", "t.yaml:3:38: lnet.retry_count: retry_count 2 needs health_sensitivity > 0, and release 2.12.0 defaults health_sensitivity to 0"},
		{"{release: 2.12.3, transaction_timeout: 2}", "t.yaml:3:46: lnet.transaction_timeout: retry_count 3 is greater than transaction_timeout (2s) with release 2.12.3's default for the other"},
		{"{release: 2.12.3, retry_count: 20}", "t.yaml:3:38: lnet.retry_count: retry_count 20 is greater than transaction_timeout (10s) with release 2.12.3's default for the other"},
	} {
		_, err := Load("t.yaml", []byte("duration: 1s\nnodes: {a: {nis: [o2ib0]}}\nlnet: "+c.lnet+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("lnet: %s: got %v, want %s", c.lnet, err, c.want)
		}
	}
	if _, err := Load("t.yaml", []byte("duration: 1s\nnodes: {a: {nis: [o2ib0]}}\nlnet: {release: 2.12.0, retry_count: 0}\n")); err != nil {
		t.Errorf("retry_count 0 on 2.12.0: %v", err)
	}
}
