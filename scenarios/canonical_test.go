package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCanonicalHash: the same scenario written differently (key order, units, defaults
// spelled out, net aliases) has the same hash; a real change changes it.
func TestCanonicalHash(t *testing.T) {
	a := `duration: 60s
nodes:
  client: {nis: [o2ib0, o2ib0]}
  server: {nis: [o2ib]}
lnet: {transaction_timeout: 50, retry_count: 2}
workload: [{type: brw, from: client, to: server, size: 1MiB}]
`
	b := `# same meaning
name: another name
description: only words differ
lnet:
  retry_count: 2
  transaction_timeout: 50s
  health_sensitivity: 100
nodes:
  server:
    count: 1
    nis: [{net: o2ib0, port: 1}]
  client:
    nis: [o2ib, o2ib0]
workload:
  - {type: brw, op: write, from: [client], to: server, size: 1048576, distribution: "1:1"}
duration: 1m
seed: 1
`
	sa, err := Load("a.yaml", []byte(a))
	if err != nil {
		t.Fatal(err)
	}
	sb, err := Load("b.yaml", []byte(b))
	if err != nil {
		t.Fatal(err)
	}
	if sa.Hash != sb.Hash {
		ca, _ := sa.Canonical()
		cb, _ := sb.Canonical()
		t.Fatalf("hashes differ:\n%s\n---\n%s", ca, cb)
	}
	sc, err := Load("c.yaml", []byte(strings.Replace(a, "retry_count: 2", "retry_count: 1", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Hash == sa.Hash {
		t.Fatal("a changed tunable kept the hash")
	}
}

// TestDefaults checks the kernel defaults a minimal scenario gets.
func TestDefaults(t *testing.T) {
	s, err := Load("min.yaml", []byte("duration: 10s\nnodes: {a: {nis: [o2ib]}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	g, o, n := s.LNet.Globals, s.O2IB["o2ib0"], s.LNet.Nets["o2ib0"]
	if g.TransactionTimeout.WholeSeconds() != 150 || g.RetryCount != 2 || g.HealthSensitivity != 100 || g.LNDTimeout().WholeSeconds() != 49 {
		t.Errorf("globals %+v", g)
	}
	if o.Timeout.WholeSeconds() != 50 || o.Keepalive.WholeSeconds() != 100 || o.PeerCredits != 8 || o.RetryCount != 5 || o.RNRRetryCount != 6 || o.ConnsPerPeer != 1 || o.NTX != 512 {
		t.Errorf("o2ib %+v", *o)
	}
	if o.EffectiveConcurrentSends() != 8 || o.EffectivePeerCreditsHiw() != 4 {
		t.Errorf("derived: concurrent_sends %d, hiw %d", o.EffectiveConcurrentSends(), o.EffectivePeerCreditsHiw())
	}
	if n.PeerCredits != 8 || n.Credits != 256 || n.PeerTimeout.WholeSeconds() != 180 {
		t.Errorf("net %+v", *n)
	}
	if s.Members[0].NIs[0].NID.String() != "10.0.0.1@o2ib" {
		t.Errorf("NID %v", s.Members[0].NIs[0].NID)
	}
	// health_sensitivity 0 forces retry_count 0 unless it was set.
	s, err = Load("hs.yaml", []byte("duration: 10s\nnodes: {a: {nis: [o2ib]}}\nlnet: {health_sensitivity: 0}\n"))
	if err != nil || s.LNet.RetryCount != 0 {
		t.Errorf("sensitivity 0: %v, retry_count %d", err, s.LNet.RetryCount)
	}
}

func FuzzLoad(f *testing.F) {
	for _, name := range Catalogue() {
		_, data, _ := Builtin(name)
		f.Add(data)
	}
	files, _ := filepath.Glob("testdata/errors/*.yaml")
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("a: &x [*x]\n"))
	f.Add([]byte("duration: 1s\nnodes: {a: &n {nis: [o2ib]}, b: *n}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Load("fuzz.yaml", data)
		if err != nil {
			el, ok := err.(ErrorList)
			if !ok || len(el) == 0 {
				t.Fatalf("error is not a non-empty ErrorList: %v", err)
			}
			if len(el) > MaxErrors+1 {
				t.Fatalf("%d errors listed, more than %d and a count", len(el), MaxErrors)
			}
			for _, e := range el {
				if strings.Contains(e.Message, "internal error") {
					t.Fatalf("panic while loading: %v", e)
				}
				if strings.HasPrefix(e.Message, "YAML syntax") && (e.Line < 1 || e.Col < 1) {
					t.Fatalf("syntax error without its line and column: %v", e)
				}
				for _, goName := range []string{"scenarios.", "sim.Time", "reflect", "int64", "uint64", "[]string", "*yaml", "!!"} {
					if strings.Contains(e.Message+e.Hint, goName) {
						t.Fatalf("message names a Go or YAML type (%s): %v", goName, e)
					}
				}
			}
			return
		}
		if s.Hash == "" {
			t.Fatal("no hash")
		}
	})
}
