package runner

import (
	"fmt"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/scenarios"
)

// TestTCPNetShow: two nodes on a 100 GbE tcp net write to each other through socklnd;
// `lnetctl net show -v` prints the net as tcp with socklnd's tunables as the kernel settled
// them: conns_per_peer 4 from the link speed (conns_per_peer 0), timeout 49 (sock_timeout 0:
// lnd_timeout, (150-1)/3), tos -1; 20 writes and their ACKs went through, after a's discovery
// of b (ping, push, b's push back: 3 messages each way).
func TestTCPNetShow(t *testing.T) {
	runPassing(t, `
name: tcp-net-show
duration: 2s
ethernet: {link_rate: 100Gbps}
nodes:
  a: {nis: [tcp0]}
  b: {nis: [tcp0]}
socklnd:
  tcp0: {sock_timeout: 0}
workload:
  - {name: w, type: brw, op: write, from: a, to: b, size: 4KiB, interval: 100ms}
expect:
  - name: net show
    check: lnetctl
    node: a
    command: net show -v
    present: |
      net:
        - net type: tcp
          local NI(s):
            - nid: 10.0.0.1@tcp
              status: up
              interfaces: {0: eth0}
              lnd tunables: {conns_per_peer: 4, timeout: 49, tos: -1}
              statistics: {send_count: 23, recv_count: 23}
  - name: writes
    check: operations
    workload: w
    status: ok
    eq: 20
`)
}

// TestEthernetNeedsTCPNet: an ethernet or socklnd section without a tcp NI is refused at its
// line, with the fix.
func TestEthernetNeedsTCPNet(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"duration: 1s\nnodes: {a: {nis: [o2ib0]}}\nethernet: {mtu: 9000}\n",
			"test.yaml:3:11: ethernet: ethernet is set but no node has a tcp NI (add a tcp NI (nis: [tcp0]) or remove the section)"},
		{"duration: 1s\nnodes: {a: {nis: [tcp0]}}\nsocklnd: {o2ib0: {sock_timeout: 5}}\n",
			"socklnd.o2ib0: o2ib0 is not a tcp net"},
		{"duration: 1s\nnodes: {a: {nis: [tcp0]}}\no2ib: {tcp0: {timeout: 5}}\n",
			"o2ib.tcp0: tcp0 is not an o2ib net"},
		{"duration: 1s\nnodes: {a: {nis: [tcp0]}}\nethernet: {mtu: 100}\n",
			"test.yaml:3:17: ethernet.mtu: must be from 576 to 9216 bytes, got 100 (1500 is standard, 9000 jumbo)"},
	} {
		_, err := scenarios.Load("test.yaml", []byte(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: got %v, want %q", tc.src, err, tc.want)
		}
	}
}

// TestTCPCapture: --pcap writes a tcp net's socklnd traffic as TCP on port 988: per socket
// the acceptor request and HELLOs (7 sockets: 21 frames no LNet type), then every message's socklnd and LNet headers, which
// stock tshark's LNet dissector decodes: the discovery GET/REPLY, the 20 write PUTs, their
// ACKs, and discovery's two pushes (a's and b's push back) and their ACKs; stock tshark flags
// the pushes malformed (nothing decodes portal 0's ping buffer; lnet_ping.lua does).
func TestTCPCapture(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		t.Skip("tshark not installed")
	}
	t.Setenv("HOME", t.TempDir())
	path := filepath.Join(t.TempDir(), "tcp.pcap")
	s := load(t, `
duration: 2s
nodes:
  a: {nis: [tcp0]}
  b: {nis: [tcp0]}
workload:
  - {name: w, type: brw, op: write, from: a, to: b, size: 4KiB, interval: 100ms}
`)
	if _, err := Run(s, Options{Pcap: path}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tshark, "-n", "-r", path, "-T", "fields", "-e", "lnet.msg_type", "-e", "_ws.malformed").CombinedOutput()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, out)
	}
	count := map[string]int{}
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "Running as") || l == "" {
			continue
		}
		count[l]++
	}
	want := map[string]int{"\t": 82, "0\t": 22, "1\t": 20, "1\t_ws.malformed": 2, "2\t": 1, "3\t": 1}
	if !maps.Equal(count, want) {
		t.Errorf("LNet message types per frame %v, want %v", count, want)
	}
}

// TestTCPCaptureCloses: the ends of sockets are in the capture as they happen, and stock
// tshark decodes every FIN and RST on port 988 with nothing malformed (but discovery's pushes,
// PUTs whose ping buffer it cannot decode). b crashes at 0.5 s and
// restarts at 1 s.
//   - a writes to b: a's next write after the restart meets the new b's RST (the rebooted
//     host lost the socket: ECONNRESET; shown when a receives it, on the socket from a's
//     port 1017), and a aborts that socket's six siblings (RST).
//   - a and b write to each other from 0 s: their first connections race and b (the higher
//     NID, itself connecting) refuses a's with a CONN_NONE HELLO and releases the socket in
//     order (FIN), as does a. The restarted b's first HELLO (from port 1023 again) tells a
//     the peer rebooted: a refuses it (ESTALE, FIN) and aborts its seven old sockets to b
//     (RST; the old 1023 socket has the new one's ports, so its RST follows that FIN).
//
// Skipped without tshark unless LNETSIM_REQUIRE_TSHARK=1.
func TestTCPCaptureCloses(t *testing.T) {
	tshark := needTshark(t)
	const rst, fin = "·······A·R··", "·······A···F"
	oneWay := []string{"1.102080436\t10.0.0.2\t988\t10.0.0.1\t1017\t" + rst + "\t"}
	for port := 1018; port <= 1023; port++ {
		oneWay = append(oneWay, fmt.Sprintf("1.102080436\t10.0.0.1\t%d\t10.0.0.2\t988\t%s\t", port, rst))
	}
	bothWays := []string{
		"0.000003517\t10.0.0.2\t988\t10.0.0.1\t1023\t" + fin + "\t",
		"0.000005610\t10.0.0.1\t1023\t10.0.0.2\t988\t" + fin + "\t",
		"1.000003486\t10.0.0.1\t988\t10.0.0.2\t1023\t" + fin + "\t",
	}
	for port := 1017; port <= 1023; port++ {
		bothWays = append(bothWays, fmt.Sprintf("1.000003486\t10.0.0.1\t988\t10.0.0.2\t%d\t%s\t", port, rst))
	}
	for _, tc := range []struct {
		workload string
		want     []string
	}{
		{"  - {name: w, type: brw, op: write, from: a, to: b, size: 4KiB, interval: 100ms}\n", oneWay},
		{"  - {name: w, type: brw, op: write, from: a, to: b, size: 4KiB, interval: 100ms}\n" +
			"  - {name: r, type: brw, op: write, from: b, to: a, size: 4KiB, interval: 100ms}\n", bothWays},
	} {
		path := filepath.Join(t.TempDir(), "tcp.pcap")
		s := load(t, `
duration: 2s
nodes:
  a: {nis: [tcp0]}
  b: {nis: [tcp0]}
faults:
  - {at: 500ms, action: node_crash, node: b}
  - {at: 1s, action: node_restart, node: b}
workload:
`+tc.workload)
		if _, err := Run(s, Options{Pcap: path}); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(tshark, "-n", "-r", path, "-Y", "tcp.flags.fin == 1 || tcp.flags.reset == 1 || _ws.malformed && lnet.msg_type != 1",
			"-T", "fields", "-e", "frame.time_relative", "-e", "ip.src", "-e", "tcp.srcport", "-e", "ip.dst", "-e", "tcp.dstport",
			"-e", "tcp.flags.str", "-e", "_ws.malformed").CombinedOutput()
		if err != nil {
			t.Fatalf("tshark: %v\n%s", err, out)
		}
		var got []string
		for _, l := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(l, "Running as") || l == "" {
				continue
			}
			got = append(got, l)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("FIN/RST frames:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}
