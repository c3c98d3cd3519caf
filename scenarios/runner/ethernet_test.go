package runner

import (
	"fmt"
	"maps"
	"os"
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
// lnd_timeout, (150-1)/3), tos -1; 20 writes and their ACKs went through.
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
              statistics: {send_count: 21, recv_count: 21}
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
// ACKs, and no malformed frame.
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
	want := map[string]int{"\t": 82, "0\t": 20, "1\t": 20, "2\t": 1, "3\t": 1}
	if !maps.Equal(count, want) {
		t.Errorf("LNet message types per frame %v, want %v", count, want)
	}
}

// TestTCPCaptureCloses: the ends of sockets are in the capture as they happen. b crashes at
// 0.5 s and restarts at 1 s; a's next write meets b's RST (the rebooted host has lost the
// socket: ECONNRESET), and a closes that socket's siblings with RSTs of its own. Stock
// tshark shows each RST on port 988 and nothing malformed. Skipped without tshark unless
// LNETSIM_REQUIRE_TSHARK=1.
func TestTCPCaptureCloses(t *testing.T) {
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		if os.Getenv("LNETSIM_REQUIRE_TSHARK") == "1" {
			t.Fatal("tshark not found and LNETSIM_REQUIRE_TSHARK=1")
		}
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
faults:
  - {at: 500ms, action: node_crash, node: b}
  - {at: 1s, action: node_restart, node: b}
`)
	if _, err := Run(s, Options{Pcap: path}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(tshark, "-n", "-r", path, "-Y", "tcp.flags.fin == 1 || tcp.flags.reset == 1 || _ws.malformed",
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
	// b's RST on the socket a's next write went on (a's port 1017; shown when a receives
	// it), then a's RSTs on its six other sockets to b.
	want := []string{"1.102074801\t10.0.0.2\t988\t10.0.0.1\t1017\t·······A·R··\t"}
	for port := 1018; port <= 1023; port++ {
		want = append(want, fmt.Sprintf("1.102074801\t10.0.0.1\t%d\t10.0.0.2\t988\t·······A·R··\t", port))
	}
	if !slices.Equal(got, want) {
		t.Errorf("FIN/RST frames:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
