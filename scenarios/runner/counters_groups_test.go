package runner

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/record"
	"github.com/lnetsim/lnetsim/scenarios"
)

// readCounters runs s with the given counters detail and reads its counters.yaml back.
func readCounters(t *testing.T, s *scenarios.Scenario, mode string) map[string]any {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := Run(s, Options{Out: dir, Version: "test", Counters: mode}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, record.CountersFile))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// at follows a path of map keys and list indexes through a decoded YAML document.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("%v: not a map at %q", path, k)
			}
			v = m[k]
		case int:
			l, ok := v.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("%v: no item %d", path, k)
			}
			v = l[k]
		}
	}
	return v
}

// TestGroupCountersSumNodes: the per-group counters of router-two-gateways (4 clients, 2
// routers, 2 servers; a router crashes) are exactly the sums, counts and ranges of the
// per-node counters of the same run.
func TestGroupCountersSumNodes(t *testing.T) {
	s := loadCatalogue(t, "router-two-gateways")
	nodes := readCounters(t, s, CountersNodes)
	groups := readCounters(t, loadCatalogue(t, "router-two-gateways"), CountersGroups)
	if got := slices.Sorted(maps.Keys(groups)); !slices.Equal(got, []string{"client", "oss", "rtr"}) {
		t.Fatalf("groups %v", got)
	}
	members := map[string][]string{"client": {"client0", "client1", "client2", "client3"}, "rtr": {"rtr0", "rtr1"}, "oss": {"oss0", "oss1"}}
	for g, names := range members {
		gc := groups[g]
		if n := at(t, gc, "nodes"); n != len(names) {
			t.Errorf("%s: nodes %v", g, n)
		}
		var send, resend, nis, peerNIs, routes, routesUp, peerSend, forwarded int
		minHealth := 1 << 30
		for _, name := range names {
			nc := nodes[name]
			send += at(t, nc, "statistics", "send_count").(int)
			resend += at(t, nc, "statistics", "resend_count").(int)
			for _, net := range at(t, nc, "net").([]any) {
				nis += len(at(t, net, "local NI(s)").([]any))
			}
			for _, p := range at(t, nc, "peer").([]any) {
				for _, pni := range at(t, p, "peer ni").([]any) {
					peerNIs++
					peerSend += at(t, pni, "statistics", "send_count").(int)
					minHealth = min(minHealth, at(t, pni, "health stats", "health value").(int))
				}
			}
			if rs, ok := at(t, nc, "route").([]any); ok {
				for _, r := range rs {
					routes++
					if at(t, r, "state") == "up" {
						routesUp++
					}
				}
			}
			if rc, ok := at(t, nc, "router counters").(map[string]any); ok {
				forwarded += rc["forwarded"].(int)
			}
		}
		check := func(what string, got any, want int) {
			if got != want {
				t.Errorf("%s %s: group %v, nodes sum %d", g, what, got, want)
			}
		}
		check("send_count", at(t, gc, "statistics", "send_count"), send)
		check("resend_count", at(t, gc, "statistics", "resend_count"), resend)
		gnis := 0
		for _, net := range at(t, gc, "net").([]any) {
			gnis += at(t, net, "local NIs").(int)
		}
		check("local NIs", gnis, nis)
		check("peer NIs", at(t, gc, "peer", "peer NIs"), peerNIs)
		check("peer send_count", at(t, gc, "peer", "statistics", "send_count"), peerSend)
		check("peer health min", at(t, gc, "peer", "health value", "min"), minHealth)
		check("routes", at(t, gc, "route", "routes"), routes)
		if routesUp > 0 {
			check("routes up", at(t, gc, "route", "state", "up"), routesUp)
		}
		if g == "rtr" {
			check("forwarded", at(t, gc, "router counters", "forwarded"), forwarded)
			check("routers", at(t, gc, "router counters", "routers"), 2)
		}
	}
	// The story shows in the aggregate: rtr0 crashed, so the clients' routes through it are
	// down and its peer NIs' health dropped.
	if up, down := at(t, groups["client"], "route", "state", "up"), at(t, groups["client"], "route", "state", "down"); up != 4 || down != 4 {
		t.Errorf("client routes up %v down %v, want 4 and 4", up, down)
	}
}

// TestCountersAutoSwitchesAtLimit: auto writes per node up to CountersNodeLimit nodes and per
// group above; nodes and groups force either.
func TestCountersAutoSwitchesAtLimit(t *testing.T) {
	src := func(clients int) *scenarios.Scenario {
		return load(t, fmt.Sprintf(`name: many
duration: 1ms
fabric: {link_rate: EDR}
nodes:
  client: {count: %d, nis: [o2ib0]}
  server: {nis: [o2ib0]}
workload:
  - {name: w, type: brw, op: write, from: client, to: server, size: 4KiB, count: 1}
`, clients))
	}
	for _, tc := range []struct {
		clients int
		mode    string
		want    []string
	}{
		{CountersNodeLimit - 1, CountersAuto, nil},
		{CountersNodeLimit, CountersAuto, []string{"client", "server"}},
		{CountersNodeLimit, CountersNodes, nil},
		{3, CountersGroups, []string{"client", "server"}},
	} {
		m := readCounters(t, src(tc.clients), tc.mode)
		got := slices.Sorted(maps.Keys(m))
		want := tc.want
		if want == nil { // per node: every member by name
			for i := range tc.clients {
				want = append(want, fmt.Sprintf("client%d", i))
			}
			want = append(want, "server")
			slices.Sort(want)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d clients + 1 server, %s: %d keys %s..., want %d", tc.clients, tc.mode, len(got), strings.Join(got[:min(3, len(got))], ","), len(want))
		}
		if tc.mode == CountersGroups || len(tc.want) == 2 {
			if n := at(t, m, "client", "nodes"); n != tc.clients {
				t.Errorf("client nodes %v, want %d", n, tc.clients)
			}
		}
	}
	if err := CheckCountersMode("peers"); err == nil || !strings.Contains(err.Error(), "use auto, nodes or groups") {
		t.Errorf("CheckCountersMode(peers) = %v", err)
	}
}

func loadCatalogue(t *testing.T, name string) *scenarios.Scenario {
	t.Helper()
	s, err := scenarios.LoadBuiltin(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTypedPeerSums: lnet's Add methods of the per-peer-NI structs, which the group sums use,
// add every field as addFields does (a field added to either struct and not to its Add fails
// here). Each
// field gets a distinct value, so a field added twice or to the wrong sum shows too.
func TestTypedPeerSums(t *testing.T) {
	fill := func(v reflect.Value, base uint64) {
		n := base
		var walk func(reflect.Value)
		walk = func(v reflect.Value) {
			switch v.Kind() {
			case reflect.Struct:
				for i := range v.NumField() {
					walk(v.Field(i))
				}
			case reflect.Uint64:
				n++
				v.SetUint(n)
			case reflect.Int, reflect.Int64:
				n++
				v.SetInt(int64(n))
			default:
				t.Fatalf("field of kind %s: give it a case here and in the adders", v.Kind())
			}
		}
		walk(v)
	}
	var a, b lnet.PeerNIStats
	fill(reflect.ValueOf(&a).Elem(), 100)
	fill(reflect.ValueOf(&b).Elem(), 1000)
	want := sumInto(sumInto(reflect.Value{}, a), b).Interface()
	a.Add(&b)
	if !reflect.DeepEqual(a, want) {
		t.Errorf("PeerNIStats.Add: %+v, want %+v", a, want)
	}
	var h, g lnet.PeerNIHealthStats
	fill(reflect.ValueOf(&h).Elem(), 100)
	fill(reflect.ValueOf(&g).Elem(), 1000)
	wantH := sumInto(sumInto(reflect.Value{}, h), g).Interface()
	h.Add(&g)
	if !reflect.DeepEqual(h, wantH) {
		t.Errorf("PeerNIHealthStats.Add: %+v, want %+v", h, wantH)
	}
}
