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

// TestModuleIP2Nets: a cluster whose nodes start from one ip2nets= (lnet_parse_ip2nets): each
// interface an entry names has the address the model numbers for an NI of the first net naming
// it, the nets of the entries matching one of a member's addresses are its NIs, each with its
// interface's address, and routes= applies to them; what the kernel refuses, and members of a
// group that would start different NIs, are refused at load, in the option.
func TestModuleIP2Nets(t *testing.T) {
	const ip2nets = "o2ib(ib0) 10.0.0.[1-2]; o2ib1(ib1) 10.1.0.*; o2ib2(ib0) 10.0.0.3"
	src := fmt.Sprintf(`
duration: 1s
nodes:
  client: {count: 2, module: {ip2nets: %q, routes: "o2ib2 10.1.0.3@o2ib1"}}
  rtr: {module: {ip2nets: %q, routes: "o2ib2 10.1.0.3@o2ib1"}}
  server: {module: {ip2nets: "o2ib2(ib0) 10.2.0.1"}}
`, ip2nets, ip2nets)
	s, err := Load("m.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range s.Members {
		var nis, rs []string
		for _, ni := range m.NIs {
			nis = append(nis, fmt.Sprintf("%s(%s hca %d)", ni.NID, ni.Interface, ni.HCA))
		}
		for _, r := range m.Routes {
			rs = append(rs, fmt.Sprintf("%s via %s", r.Net, r.Gateway))
		}
		got = append(got, fmt.Sprintf("%s: %s; %s", m.Name, strings.Join(nis, " "), strings.Join(rs, ", ")))
	}
	want := []string{
		"client0: 10.0.0.1@o2ib(ib0 hca 0) 10.1.0.1@o2ib1(ib1 hca 1); o2ib2 via 10.1.0.3@o2ib1",
		"client1: 10.0.0.2@o2ib(ib0 hca 0) 10.1.0.2@o2ib1(ib1 hca 1); o2ib2 via 10.1.0.3@o2ib1",
		"rtr: 10.1.0.3@o2ib1(ib1 hca 1) 10.0.0.3@o2ib2(ib0 hca 0); ",
		"server: 10.2.0.1@o2ib2(ib0 hca 0); ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("members:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range []struct{ node, want string }{
		{`{module: {networks: o2ib, ip2nets: "o2ib 10.*.*.*"}}`, "m.yaml:3:15: nodes.a.module: Please specify EITHER 'networks' or 'ip2nets' but not both at once"},
		{`{module: {ip2nets: "o2ib 10.0.0.9"}}`, "m.yaml:3:26: nodes.a.module.ip2nets: ip2nets does not match any local IP interfaces: LNet does not start (-ENOENT) (write a pattern one of a's interfaces matches: ib0 10.0.0.1)"},
		{`{module: {ip2nets: "o2ib 10.0.0.[1-3/0]"}}`, "m.yaml:3:31: nodes.a.module.ip2nets: Error parsing 'ip2nets=\"o2ib 10.0.0.[1-3/0]\"'"},
		{`{module: {ip2nets: "o2ib(ib0),o2ib(ib1) 10.*.*.*"}}`, "m.yaml:3:36: nodes.a.module.ip2nets: Error parsing 'ip2nets=\"o2ib(ib0),o2ib(ib1) 10.*.*.*\"': net o2ib is named twice in the entry"},
		{`{module: {ip2nets: "o2ib(ib0 10.*.*.*"}}`, "nodes.a.module.ip2nets: Error parsing 'networks=\"o2ib(ib0\"'"},
		{`{module: {ip2nets: "kfi(cxi0) 1.2.3.4"}}`, "m.yaml:3:25: nodes.a.module.ip2nets: ip2nets names no interface of an o2ib or tcp net"},
		{`{count: 2, module: {ip2nets: "o2ib 10.0.0.1; o2ib1 10.0.0.2"}}`, "nodes.a.module.ip2nets: a0 starts o2ib0(ib0) and a1 starts o2ib1(ib0): the members of a group start the same NIs in lnetsim"},
	} {
		_, err := Load("m.yaml", []byte("duration: 1s\nnodes:\n  a: "+c.node+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v\nwant %s", c.node, err, c.want)
		}
	}
	// Up to 2.13.55 an entry whose net an earlier match gave is skipped.
	s, err = Load("m.yaml", []byte("duration: 1s\nnodes:\n  a: {release: \"2.12\", module: {ip2nets: \"o2ib(ib0) 10.*.*.*; o2ib(ib1) 10.*.*.*\"}}\n"))
	if err != nil || len(s.Members[0].NIs) != 1 {
		t.Errorf("2.12: %v, %+v", err, s.Members[0].NIs)
	}
}

// FuzzModule loads nodes whose module options are fuzzed: a scenario loads or fails with
// located errors, never a panic, and its NIs and routes come from the strings alone.
func FuzzModule(f *testing.F) {
	f.Add("o2ib(ib0)", "o2ib1 10.0.0.[3-4]@o2ib:1; o2ib 10.1.0.[1-2]@o2ib1", "o2ib(ib0),o2ib1(ib1)", "", "")
	f.Add("tcp(eth0)", "o2ib 10.0.0.[2-6]", "tcp", "enabled", "")
	f.Add("o2ib(ib0", "o2ib1 2 10.0.0.[1-9/0]@o2ib:x", "lo", "disabled", "")
	f.Add("", "o2ib1 10.0.0.3@o2ib", "o2ib(ib0),o2ib1(ib1)", "", "o2ib(ib0) 10.0.0.[1-2]; o2ib1(ib1),o2ib 10.1.*.*")
	f.Add("", "", "", "", "tcp(eth0,eth1) [10].[0].[0].[1,2]; o2ib(ib0 1.*.*.*")
	f.Fuzz(func(t *testing.T, nets, routes, rtrNets, fwd, ip2nets string) {
		src := fmt.Sprintf("duration: 1s\nnodes:\n  client: {count: 2, module: {networks: %q, routes: %q, ip2nets: %q}}\n  rtr: {module: {networks: %q, routes: %q, forwarding: %q}}\n",
			nets, routes, ip2nets, rtrNets, routes, fwd)
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
