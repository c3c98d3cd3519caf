package runner

import (
	"testing"
)

// TestLnetctlFault: lnetctl fault drop|delay on the model's rules. A drop rule on the server
// for the client's GETs drops the ping's GET as it arrives (lnet_parse; fault drop show counts
// it: fs_count, fs_get, ds_dropped); a delay rule whose portal filter leaves no PUT or GET is refused by the kernel
// (EINVAL); `fault drop reset x` clears the counters; a delete that matches no rule is ENOENT,
// one by the rule's source and destination removes it; the second delay rule goes with -a.
func TestLnetctlFault(t *testing.T) {
	src := `
name: fault
seed: 1
duration: 5s
nodes:
  client: {nis: [o2ib0]}
  server: {nis: [o2ib0]}
faults:
  - {at: 1s, node: server, name: add, lnetctl: "fault drop add -s client:0 -d server:0 -m GET -r 1"}
  - {at: 1s, node: client, name: add-bad, lnetctl: "fault delay add -s * -d * -m ACK -p 5 --interval 1 -l 1"}
  - {at: 1s, node: client, name: add-delay, lnetctl: "fault delay add -s *@o2ib -d * -m PUT -r 4 -l 2"}
  - {at: 1100ms, node: client, name: ping, lnetctl: "ping --timeout 1 server:0"}
  - {at: 3s, node: server, name: reset, lnetctl: "fault drop reset now"}
  - {at: 3500ms, node: server, name: del-none, lnetctl: "fault drop del -s * -d 10.0.0.9@o2ib"}
  - {at: 3500ms, node: server, name: del, lnetctl: "fault drop del -s 10.0.0.1@o2ib -d 10.0.0.2@o2ib"}
  - {at: 3500ms, node: client, name: del-delay, lnetctl: "fault delay del -a"}
expect:
  - {name: add, check: command, fault: add, status: ok}
  - {name: portal filter without PUT or GET, check: command, fault: add-bad, status: EINVAL}
  - {name: "the ping's GET is dropped (it times out, EIO)", check: command, fault: ping, status: EIO}
  - name: the drop rule counted it
    check: lnetctl
    node: server
    at: 2500ms
    command: fault drop show
    equal: {fault: [{rule_type: drop, fa_src: 10.0.0.1@o2ib, fa_dst: 10.0.0.2@o2ib, fa_ptl_mask: 0, fa_msg_mask: 4, da_rate: 1, da_interval: 0, ds_dropped: 1, fs_count: 1, fs_put: 0, fs_ack: 0, fs_get: 1, fs_reply: 0}]}
  - name: the delay rule as the kernel keeps it
    check: lnetctl
    node: client
    at: 2500ms
    command: fault delay show
    equal: {fault: [{rule_type: delay, fa_src: 255.255.255.255@o2ib, fa_dst: "<?>", fa_ptl_mask: 0, fa_msg_mask: 2, la_rate: 4, la_interval: 0, la_latency: 2, ls_delayed: 0, fs_count: 0, fs_put: 0, fs_ack: 0, fs_get: 0, fs_reply: 0}]}
  - {name: reset, check: command, fault: reset, status: ok}
  - name: reset clears the counters
    check: lnetctl
    node: server
    at: 3200ms
    command: fault drop show
    present: {fault: [{ds_dropped: 0, fs_count: 0, fs_get: 0}]}
  - {name: no rule from * to 10.0.0.9@o2ib, check: command, fault: del-none, status: ENOENT}
  - {name: del by source and destination, check: command, fault: del, status: ok}
  - {name: del -a, check: command, fault: del-delay, status: ok}
  - {name: no drop rule left, check: lnetctl, node: server, at: 4s, command: fault drop show, equal: {fault: []}}
  - {name: no delay rule left, check: lnetctl, node: client, at: 4s, command: fault delay show, equal: {fault: []}}
`
	csv := string(runExpecting(t, src, BackendIdeal, "commands.csv"))
	wantCommands(t, csv,
		"1000000000,client,add-bad,fault delay add -s * -d * -m ACK -p 5 --interval 1 -l 1,EINVAL,,a portal filter matches only PUT and GET messages",
		"3500000000,server,del-none,fault drop del -s * -d 10.0.0.9@o2ib,ENOENT,,no rule matches",
	)
}
