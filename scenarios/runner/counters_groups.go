package runner

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// Counters detail: what counters.yaml holds per node.
const (
	// CountersAuto writes every node's counters up to CountersNodeLimit nodes, one
	// aggregate per node group above it.
	CountersAuto = "auto"
	// CountersNodes writes every node's counters (lnetctl's shapes, per node).
	CountersNodes = "nodes"
	// CountersGroups writes one aggregate per node group.
	CountersGroups = "groups"
)

// CountersNodeLimit is the largest cluster whose counters.yaml CountersAuto writes per node:
// a node's counters take about 60 KB at 16 routers and 100 servers, so 100,000 clients
// would write 6 GB.
const CountersNodeLimit = 256

// CheckCountersMode refuses an unknown counters detail.
func CheckCountersMode(mode string) error {
	switch mode {
	case "", CountersAuto, CountersNodes, CountersGroups:
		return nil
	}
	return fmt.Errorf("unknown counters detail %q (use %s, %s or %s)", mode, CountersAuto, CountersNodes, CountersGroups)
}

// countersFor renders counters.yaml in the detail mode asks for.
func countersFor(c *cluster, mode string) map[string]any {
	if mode == CountersGroups || (mode != CountersNodes && len(c.nodes) > CountersNodeLimit) {
		return groupCounters(c)
	}
	return counters(c)
}

// groupCounters aggregates counters per node group (the scenario's `nodes:` entries; a
// group of one is its node): how many nodes; LNet statistics summed; per net type the local
// NIs by status, their health value range and summed statistics and health counters; the
// peer NIs by state, health range and summed statistics and health counters; the routes by
// state; on routers the routing counters summed. Every sum is over the group's nodes in
// member order, so the file is as deterministic as the per-node one.
func groupCounters(c *cluster) map[string]any {
	out := map[string]any{}
	var order []string
	members := map[string][]*node{}
	for _, n := range c.nodes {
		g := c.scenario.Members[n.idx].Group
		if g == "" {
			g = n.name
		}
		if _, ok := members[g]; !ok {
			order = append(order, g)
		}
		members[g] = append(members[g], n)
	}
	for _, g := range order {
		out[g] = aggregateGroup(c, members[g])
	}
	return out
}

// countRange is a value's spread over a group.
type countRange struct {
	Min int `yaml:"min"`
	Max int `yaml:"max"`
}

func (r *countRange) add(v int, first bool) {
	if first || v < r.Min {
		r.Min = v
	}
	if first || v > r.Max {
		r.Max = v
	}
}

// netAggregate is one net type's local NIs over a group.
type netAggregate struct {
	NetType     string         `yaml:"net type"`
	NIs         int            `yaml:"local NIs"`
	Status      map[string]int `yaml:"status"`
	HealthValue countRange     `yaml:"health value"`
	Statistics  any            `yaml:"statistics"`
	HealthStats any            `yaml:"health stats"`
}

// countsMap renders a summed counter struct under its yaml names (nested structs as
// nested maps), leaving out next_ping: a time, not a count. The zero Value is nil.
func countsMap(v reflect.Value) map[string]any {
	if !v.IsValid() {
		return nil
	}
	out := map[string]any{}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "-" || name == "next_ping" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if f.Type.Kind() == reflect.Struct {
			out[name] = countsMap(v.Field(i))
		} else {
			out[name] = v.Field(i).Interface()
		}
	}
	return out
}

// peerAggregate is a group's peer NIs.
type peerAggregate struct {
	Peers       int            `yaml:"peers"`
	PeerNIs     int            `yaml:"peer NIs"`
	State       map[string]int `yaml:"state,omitempty"`
	HealthValue *countRange    `yaml:"health value,omitempty"`
	Statistics  any            `yaml:"statistics,omitempty"`
	HealthStats any            `yaml:"health stats,omitempty"`
}

func aggregateGroup(c *cluster, nodes []*node) map[string]any {
	g := map[string]any{"nodes": len(nodes)}
	var stats reflect.Value
	var peerStats lnet.PeerNIStats // typed: summed for every peer NI (PeerNIStats.Add)
	var peerHealth lnet.PeerNIHealthStats
	var rs struct{ forwarded, expired, dropped uint64 }
	nets := map[string]*netAggregate{}
	var netOrder []string
	netSums := map[string][2]reflect.Value{}
	peers := peerAggregate{State: map[string]int{}}
	var peerRange countRange
	routes := map[string]int{}
	nroutes, routers := 0, 0
	for _, n := range nodes {
		stats = sumInto(stats, n.ln.Stats())
		for _, ns := range showNets(c, n) {
			a := nets[ns.NetType]
			if a == nil {
				a = &netAggregate{NetType: ns.NetType, Status: map[string]int{}}
				nets[ns.NetType] = a
				netOrder = append(netOrder, ns.NetType)
			}
			for _, ni := range ns.NIs {
				a.HealthValue.add(ni.HealthStats.HealthValue, a.NIs == 0)
				a.NIs++
				a.Status[ni.Status]++
				s := netSums[ns.NetType]
				s[0] = sumInto(s[0], ni.Statistics)
				s[1] = sumInto(s[1], ni.HealthStats.NIHealthStats)
				netSums[ns.NetType] = s
			}
		}
		peers.Peers += n.ln.PeerNICounts(func(state string, health int, st lnet.PeerNIStats, hs lnet.PeerNIHealthStats) {
			peerRange.add(health, peers.PeerNIs == 0)
			peers.PeerNIs++
			peers.State[state]++
			peerStats.Add(&st)
			peerHealth.Add(&hs)
		})
		for _, r := range n.ln.Routes() {
			nroutes++
			routes[r.State]++
		}
		if n.ln.RouterPoolsCPT() != nil {
			routers++
			st := n.ln.RouterStats()
			rs.forwarded, rs.expired, rs.dropped = rs.forwarded+st.Forwarded, rs.expired+st.Expired, rs.dropped+st.Dropped
		}
	}
	g["statistics"] = countsMap(stats)
	netList := make([]netAggregate, 0, len(netOrder))
	for _, name := range netOrder {
		a := nets[name]
		s := netSums[name]
		if s[0].IsValid() {
			a.Statistics, a.HealthStats = countsMap(s[0]), countsMap(s[1])
		}
		netList = append(netList, *a)
	}
	g["net"] = netList
	if peers.PeerNIs > 0 {
		peers.HealthValue = &peerRange
		peers.Statistics, peers.HealthStats = countsMap(reflect.ValueOf(peerStats)), countsMap(reflect.ValueOf(peerHealth))
	}
	g["peer"] = peers
	g["route"] = map[string]any{"routes": nroutes, "state": routes}
	if routers > 0 {
		g["router counters"] = map[string]any{"routers": routers, "forwarded": rs.forwarded, "expired": rs.expired, "dropped": rs.dropped}
	}
	first := globalShow(nodes[0].ln)
	g["global"] = first
	for _, n := range nodes[1:] {
		if !reflect.DeepEqual(globalShow(n.ln), first) {
			g["global"] = "differs between the group's nodes (lnetsim run --counters nodes shows each)"
			break
		}
	}
	return g
}

// sumInto adds v's integer fields (recursing into struct fields) to acc, a value of v's type
// (the zero Value starts a new sum), and returns acc. Counter structs hold only integers and
// structs of integers; any other field keeps the first value met.
func sumInto(acc reflect.Value, v any) reflect.Value {
	src := reflect.ValueOf(v)
	if !acc.IsValid() {
		acc = reflect.New(src.Type()).Elem()
		acc.Set(src)
		return acc
	}
	addFields(acc, src)
	return acc
}

func addFields(dst, src reflect.Value) {
	switch dst.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		dst.SetInt(dst.Int() + src.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		dst.SetUint(dst.Uint() + src.Uint())
	case reflect.Float32, reflect.Float64:
		dst.SetFloat(dst.Float() + src.Float())
	case reflect.Struct:
		for _, i := range exportedFields(dst.Type()) {
			addFields(dst.Field(i), src.Field(i))
		}
	}
}

// exportedFieldsOf caches exportedFields: a group's sums visit every peer NI's counters, and
// reflect.Type.Field builds the whole field description (tag included) at each call.
var exportedFieldsOf sync.Map // reflect.Type -> []int

// exportedFields returns the indices of struct type t's exported fields, in order.
func exportedFields(t reflect.Type) []int {
	if v, ok := exportedFieldsOf.Load(t); ok {
		return v.([]int)
	}
	var idx []int
	for i := range t.NumField() {
		if t.Field(i).IsExported() {
			idx = append(idx, i)
		}
	}
	exportedFieldsOf.Store(t, idx)
	return idx
}
