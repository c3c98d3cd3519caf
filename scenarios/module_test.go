package scenarios

import (
	"fmt"
	"strings"
	"testing"
)

// TestModuleRoutes: one routes= for a whole cluster, as lnet.conf is usually shared. A
// router finds its own NID among the gateways and routes (im_a_router); each node skips the
// routes to its own nets (EEXIST) and keeps the others with the entry's hop count and its
// last gateway's priority; forwarding=disabled keeps a router from routing, which the
// clients' routes through it then need.
func TestModuleRoutes(t *testing.T) {
	const routes = "o2ib1 1 10.0.0.[3-4]@o2ib:1; o2ib 10.1.0.[1-2]@o2ib1 # back"
	src := fmt.Sprintf(`
duration: 1s
nodes:
  client: {count: 2, module: {networks: "o2ib(ib0)", routes: %q}}
  rtr: {count: 2, module: {networks: "o2ib(ib0), o2ib1(ib1)", routes: %q}}
  server: {module: {networks: o2ib1, routes: %q}}
`, routes, routes, routes)
	s, err := Load("m.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range s.Members {
		var rs []string
		for _, r := range m.Routes {
			rs = append(rs, fmt.Sprintf("%s via %s hop %d prio %d", r.Net, r.Gateway, r.Hop, r.Priority))
		}
		got = append(got, fmt.Sprintf("%s %s routing=%v: %s", m.Name, m.NIs[0].Interface, m.Routing, strings.Join(rs, ", ")))
	}
	want := []string{
		"client0 ib0 routing=false: o2ib1 via 10.0.0.3@o2ib hop 1 prio 1, o2ib1 via 10.0.0.4@o2ib hop 1 prio 1",
		"client1 ib0 routing=false: o2ib1 via 10.0.0.3@o2ib hop 1 prio 1, o2ib1 via 10.0.0.4@o2ib hop 1 prio 1",
		"rtr0 ib0 routing=true: ",
		"rtr1 ib0 routing=true: ",
		"server ib0 routing=false: o2ib0 via 10.1.0.1@o2ib1 hop -1 prio 0, o2ib0 via 10.1.0.2@o2ib1 hop -1 prio 0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("members:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	_, err = Load("m.yaml", []byte(strings.Replace(src, `rtr: {count: 2, module: {`, `rtr: {count: 2, module: {forwarding: disabled, `, 1)))
	if err == nil || !strings.Contains(err.Error(), "m.yaml:4:63: nodes.client.module.routes: gateway 10.0.0.3@o2ib (rtr0) does not route") {
		t.Errorf("forwarding=disabled on the routers: %v", err)
	}
	// A written routing wins (lnetctl set routing after the start).
	s, err = Load("m.yaml", []byte(strings.Replace(src, `rtr: {count: 2, module: {`, `rtr: {count: 2, routing: true, module: {forwarding: disabled, `, 1)))
	if err != nil || !s.Members[2].Routing {
		t.Errorf("routing: true with forwarding=disabled: %v", err)
	}
	// So does an lnetctl export's routing section (an import after the start).
	_, err = Load("m.yaml", []byte(strings.Replace(src, `rtr: {count: 2, module: {`, `rtr: {count: 2, lnetctl: {routing: {enable: 0}}, module: {`, 1)))
	if err == nil || !strings.Contains(err.Error(), "gateway 10.0.0.3@o2ib (rtr0) does not route") {
		t.Errorf("lnetctl routing enable 0 on the routers: %v", err)
	}
}

// FuzzModule loads nodes whose module options are fuzzed: a scenario loads or fails with
// located errors, never a panic, and its NIs and routes come from the strings alone.
func FuzzModule(f *testing.F) {
	f.Add("o2ib(ib0)", "o2ib1 10.0.0.[3-4]@o2ib:1; o2ib 10.1.0.[1-2]@o2ib1", "o2ib(ib0),o2ib1(ib1)", "")
	f.Add("tcp(eth0)", "o2ib 10.0.0.[2-6]", "tcp", "enabled")
	f.Add("o2ib(ib0", "o2ib1 2 10.0.0.[1-9/0]@o2ib:x", "lo", "disabled")
	f.Fuzz(func(t *testing.T, nets, routes, rtrNets, fwd string) {
		src := fmt.Sprintf("duration: 1s\nnodes:\n  client: {count: 2, module: {networks: %q, routes: %q}}\n  rtr: {module: {networks: %q, routes: %q, forwarding: %q}}\n",
			nets, routes, rtrNets, routes, fwd)
		s, err := Load("m.yaml", []byte(src))
		if err != nil {
			el, ok := err.(ErrorList)
			if !ok || len(el) == 0 {
				t.Fatalf("error is not a non-empty ErrorList: %v", err)
			}
			for _, e := range el {
				if strings.Contains(e.Message, "internal error") {
					t.Fatalf("panic while loading: %v", e)
				}
				if e.Line < 1 || e.Line > 5 || e.Col < 1 {
					t.Fatalf("error outside the file: %v", e)
				}
			}
			return
		}
		for _, m := range s.Members {
			if len(m.NIs) == 0 {
				t.Fatalf("%s loaded without NI", m.Name)
			}
		}
	})
}
