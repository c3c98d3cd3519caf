package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/model/o2ib"
	"github.com/lnetsim/lnetsim/scenarios"
	"github.com/lnetsim/lnetsim/trace/pcap"
)

// capScenario exercises every o2iblnd message type: a connection, small and large PUTs and
// GETs, a large PUT to a portal with no ME (the target NAKs it), and an idle connection whose
// keepalive sends NOOPs.
const capScenario = `
name: capture
seed: 1
duration: 6s
nodes:
  client: {nis: [o2ib0]}
  server: {nis: [o2ib0]}
o2ib:
  o2ib0: {keepalive: 1, timeout: 4}
workload:
  - {name: nak, type: brw, op: write, from: client, to: server, size: 1MiB, count: 1, portal: 33}
  - {name: big-writes, type: brw, op: write, from: client, to: server, size: 1MiB, count: 3}
  - {name: small-writes, type: brw, op: write, from: client, to: server, size: 1KiB, count: 3}
  - {name: big-reads, type: brw, op: read, from: client, to: server, size: 1MiB, count: 3}
  - {name: pings, type: ping, from: client, to: server, count: 2}
faults:
  - {at: 0s, action: drop_rule_add, node: server, name: nak, rule: {src: client, dst: "*", rate: 1, message: [put], portal: [33]}}
expect:
  - {name: nothing lost, check: nothing_lost}
`

func TestCaptureAndTrace(t *testing.T) {
	dir := t.TempDir()
	capFile, traceFile := filepath.Join(dir, "run.pcap"), filepath.Join(dir, "run.json")
	res, err := Run(load(t, capScenario), Options{Pcap: capFile, Trace: traceFile})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 0 {
		t.Fatalf("expectations failed: %+v", res.Summary.Expectations)
	}
	// The trace is valid JSON with balanced async spans.
	b, err := os.ReadFile(traceFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("trace is not JSON: %v", err)
	}
	open := map[string]int{}
	for _, ev := range doc.TraceEvents {
		if id, ok := ev["id"].(string); ok {
			switch ev["ph"] {
			case "b":
				open[id]++
			case "e":
				open[id]--
			}
		}
	}
	spans := 0
	for id, n := range open {
		if n != 0 {
			t.Fatalf("span %s unbalanced", id)
		}
		spans++
	}
	if spans < 20 {
		t.Fatalf("only %d message spans", spans)
	}
	// The capture decodes; every o2iblnd data message type appears.
	if _, err := os.Stat(capFile); err != nil {
		t.Fatal(err)
	}
	tshark := needTshark(t)
	out, err := exec.Command(tshark, "-n", "-r", capFile, "-P", "-V").CombinedOutput()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, out)
	}
	text := string(out)
	for _, want := range []string{"IBLND_MSG_CONNREQ", "IBLND_MSG_CONNACK", "IBLND_MSG_NOOP", "IBLND_MSG_IMMEDIATE",
		"IBLND_MSG_PUT_REQ", "IBLND_MSG_PUT_ACK", "IBLND_MSG_PUT_NAK", "IBLND_MSG_PUT_DONE", "IBLND_MSG_GET_REQ", "IBLND_MSG_GET_DONE",
		"LNET_PUT", "LNET_GET", "LNET_ACK", "LNET_REPLY", "RDMA Write"} {
		if !strings.Contains(text, want) {
			t.Errorf("capture lacks %s", want)
		}
	}
	if strings.Contains(text, "Invalid Packet Length") {
		t.Error("the InfiniBand dissector flags a packet length")
	}
}

// needTshark returns tshark's path, or skips the test when it is not installed (fails
// instead when LNETSIM_REQUIRE_TSHARK=1, as in CI, which installs Debian's tshark). The test
// gets an empty HOME, so tshark is stock whatever plugins the user installed.
func needTshark(t *testing.T) string {
	t.Helper()
	tshark, err := exec.LookPath("tshark")
	if err != nil {
		if os.Getenv("LNETSIM_REQUIRE_TSHARK") == "1" {
			t.Fatal("tshark required (LNETSIM_REQUIRE_TSHARK=1) but not found")
		}
		t.Skip("tshark not installed")
	}
	t.Setenv("HOME", t.TempDir())
	return tshark
}

// decodedPacket is what tshark reports for one captured packet.
type decodedPacket struct {
	frame, ibType, lnetType, portal, payloadLen string
	severity                                    []string // expert infos' severities
	malformed                                   bool
	pingStatus                                  []string // lnet_ping.status values (with the plugin)
	info                                        string
}

// decodeCapture runs tshark over file with no options but the output fields, as a user whose
// home is home, and returns one decodedPacket per frame: stock Wireshark when home holds no
// personal plugins; plugin says whether it holds lnet_ping.lua (lnetsim wireshark-plugin
// --install), whose fields are then read too.
func decodeCapture(t *testing.T, tshark, file, home string, plugin bool) []decodedPacket {
	t.Helper()
	args := []string{"-n", "-r", file, "-T", "fields", "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,",
		"-e", "frame.number", "-e", "lnet.ib.type", "-e", "lnet.msg_type", "-e", "lnet.ptl_index", "-e", "lnet.payload_length",
		"-e", "_ws.expert.severity", "-e", "_ws.malformed"}
	if plugin {
		args = append(args, "-e", "lnet_ping.status")
	} else {
		args = append(args, "-e", "frame.number")
	}
	args = append(args, "-e", "_ws.col.Info")
	cmd := exec.Command(tshark, args...)
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	if s := strings.TrimSpace(strings.ReplaceAll(stderr.String(), `Running as user "root" and group "root". This could be dangerous.`, "")); s != "" {
		t.Fatalf("tshark %s complains: %s", strings.Join(args, " "), s)
	}
	var pkts []decodedPacket
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		f := strings.SplitN(line, "|", 9)
		if len(f) != 9 {
			t.Fatalf("unexpected tshark line %q", line)
		}
		p := decodedPacket{frame: f[0], ibType: f[1], lnetType: f[2], portal: f[3], payloadLen: f[4], malformed: f[6] != "", info: f[8]}
		if f[5] != "" {
			p.severity = strings.Split(f[5], ",")
		}
		if plugin && f[7] != "" {
			p.pingStatus = strings.Split(f[7], ",")
		}
		pkts = append(pkts, p)
	}
	return pkts
}

// severityError is the value tshark prints for PI_ERROR expert infos.
const severityError = 0x00800000

// flagged reports whether tshark flagged p malformed or with an error-level expert info.
func (p *decodedPacket) flagged() bool {
	if p.malformed {
		return true
	}
	for _, s := range p.severity {
		if v, err := strconv.ParseUint(s, 0, 32); err != nil || v >= severityError {
			return true
		}
	}
	return false
}

// TestCaptureDefaultScenario captures the built-in default scenario (what lnetsim run plays
// with no file) and decodes it with the distribution's tshark. Every o2iblnd message type its
// story produces must appear decoded: connection setup, IMMEDIATE, the PUT and GET RDMA
// handshakes, keepalive NOOPs, and the PUT_NAK with which o2iblnd answers the PUT_REQ of the
// write the server's drop rule drops: all ten types.
//
// Stock tshark flags exactly one thing: Wireshark's LNet dissector marks an inline PUT
// payload as Malformed when no dissector is registered for the PUT's portal, which is the
// case of LNet's own reserved portal 0, so each discovery push (the client's ping buffer) is
// flagged, as it would be in a capture of real traffic. With lnetsim's Lua dissector for ping
// buffers (trace/pcap/lnet_ping.lua) nothing is flagged at all, and the push sent when the
// link fails shows the client's NI DOWN.
func TestCaptureDefaultScenario(t *testing.T) {
	tshark := needTshark(t)
	s, err := scenarios.LoadBuiltin(scenarios.DefaultName)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	capFile := filepath.Join(dir, "default.pcap")
	res, err := Run(s, Options{Pcap: capFile})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 0 {
		t.Fatalf("expectations failed: %+v", res.Summary.Expectations)
	}

	pkts := decodeCapture(t, tshark, capFile, t.TempDir(), false)
	types := map[string]int{}
	rdma := 0
	for _, p := range pkts {
		switch {
		case p.ibType != "":
			types[p.ibType]++
		case strings.Contains(p.info, "RDMA Write Only"):
			rdma++
		default:
			t.Errorf("frame %s not decoded as LNet or an RDMA WRITE: %q", p.frame, p.info)
		}
		if strings.Contains(p.info, "Malformed") || strings.Contains(p.info, "Invalid Packet Length") {
			t.Errorf("frame %s: %q", p.frame, p.info)
		}
	}
	for _, want := range []o2ib.MsgType{o2ib.MsgCONNREQ, o2ib.MsgCONNACK, o2ib.MsgNOOP, o2ib.MsgIMMEDIATE,
		o2ib.MsgPUT_REQ, o2ib.MsgPUT_ACK, o2ib.MsgPUT_NAK, o2ib.MsgPUT_DONE, o2ib.MsgGET_REQ, o2ib.MsgGET_DONE} {
		if types[fmt.Sprintf("%#02x", uint8(want))] == 0 {
			t.Errorf("the default scenario's capture has no IBLND_MSG_%s (decoded types: %v)", want, types)
		}
	}
	if rdma == 0 {
		t.Error("no RDMA WRITE decoded")
	}

	// Stock tshark: the discovery pushes, and nothing else, are flagged.
	pushes, flagged := 0, 0
	for _, p := range pkts {
		push := p.ibType == fmt.Sprintf("%#02x", uint8(o2ib.MsgIMMEDIATE)) && p.lnetType == "1" && p.portal == "0" && p.payloadLen != "0" && p.payloadLen != ""
		if push {
			pushes++
		}
		if p.flagged() {
			flagged++
			if !push {
				t.Errorf("frame %s is flagged but is not a discovery push: %+v", p.frame, p)
			}
		}
	}
	t.Logf("%d frames: o2iblnd types %v, %d RDMA WRITEs; stock tshark flags %d of %d discovery pushes", len(pkts), types, rdma, flagged, pushes)
	if pushes == 0 || flagged != pushes {
		t.Errorf("%d discovery pushes, %d frames flagged; want every push flagged by stock Wireshark and nothing else", pushes, flagged)
	}

	// With the ping buffer dissector in the personal plugin folder (where lnetsim
	// wireshark-plugin --install puts it), tshark with no options flags nothing, and a push
	// announces the failed NI.
	home := t.TempDir()
	plugins := filepath.Join(home, ".local", "lib", "wireshark", "plugins")
	if err := os.MkdirAll(plugins, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plugins, "lnet_ping.lua"), pcap.PingDissector, 0o644); err != nil {
		t.Fatal(err)
	}
	down := 0
	for _, p := range decodeCapture(t, tshark, capFile, home, true) {
		if p.flagged() {
			t.Errorf("frame %s flagged even with lnet_ping.lua: %+v", p.frame, p)
		}
		for _, st := range p.pingStatus {
			if v, _ := strconv.ParseUint(st, 0, 32); v == uint64(lnet.NIStatusDown) {
				down++
			}
		}
	}
	t.Logf("with lnet_ping.lua: nothing flagged; %d ping buffer entries DOWN", down)
	if down == 0 {
		t.Error("no decoded ping buffer shows an NI DOWN (the client's push when its link fails)")
	}
}
