package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
fabric: {granularity: fixed, chunk_packets: 16, switch_buffer: 263888, switch_arbitration: fifo}
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
	for _, fab := range []string{"chunk_packets: 8", "switch_buffer: 128KiB", "switch_arbitration: round-robin"} {
		sf, err := Load("f.yaml", []byte(a+"fabric: {"+fab+"}\n"))
		if err != nil {
			t.Fatal(err)
		}
		if sf.Hash == sa.Hash {
			t.Errorf("fabric {%s} kept the hash", fab)
		}
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
				// A message may quote the user's own text (a value "00!!" is echoed as written);
				// it must not add a Go or YAML type name the input does not contain.
				for _, goName := range []string{"scenarios.", "sim.Time", "reflect", "int64", "uint64", "[]string", "*yaml", "!!"} {
					if strings.Contains(e.Message+e.Hint, goName) && !strings.Contains(string(data), goName) {
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

// TestCanonicalHashStreamed: the hash Load computes member by member, indenting on the way,
// is the sha256 of Canonical() for every catalogue scenario and every testdata scenario that
// loads (routes, peers, UDSP, lnetctl imports, faults, expectations among them).
func TestCanonicalHashStreamed(t *testing.T) {
	var files []string
	for _, glob := range []string{"catalogue/*.yaml", "testdata/*.yaml", "testdata/*/*.yaml", "runner/testdata/*.yaml", "../sweeps/*.yaml"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	checked := 0
	for _, f := range files {
		s, err := LoadFile(f)
		if err != nil {
			continue // error fixtures, sweeps
		}
		c, err := s.Canonical()
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(c); hex.EncodeToString(sum[:]) != s.Hash {
			t.Errorf("%s: streamed hash %s, sha256 of Canonical %x", f, s.Hash, sum)
		}
		checked++
	}
	if checked < 70 {
		t.Fatalf("only %d scenarios loaded", checked)
	}
	t.Logf("%d scenarios", checked)
}

// TestIndenterMatchesEncoder: the indenter gives json.Encoder's SetIndent("", " ") output
// for values with punctuation, escapes and HTML characters inside strings, empty and nested
// objects and arrays.
func TestIndenterMatchesEncoder(t *testing.T) {
	v := map[string]any{
		"a": []any{}, "b": map[string]any{}, "c": []any{1, "x,y:{z}[w]", `q"uo\te\"`, []any{[]any{}, map[string]any{"k": nil}}},
		"d": "<&>\u2028 \t\n", "e": map[string]any{"f": []int{1, 2, 3}, "g": true}, "h": 1.5e300,
	}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	compact, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	in := &indenter{h: h}
	in.write(compact)
	in.write([]byte("\n"))
	in.flush()
	if got, w := hex.EncodeToString(h.Sum(nil)), sha256.Sum256(want.Bytes()); got != hex.EncodeToString(w[:]) {
		t.Fatalf("indented differently from\n%s", want.Bytes())
	}
}
