package runner

import (
	"strings"
	"testing"
)

// smDown: a client and a server with no connection yet; the subnet manager is unreachable
// for the first 8 s, and the client writes once a second from 1 s.
const smDown = `
name: sm-down
seed: 1
duration: 12s
nodes:
  client: {nis: [o2ib0]}
  server: {nis: [o2ib0]}
lnet:
  transaction_timeout: 50
  retry_count: 0
workload:
  - {name: w, type: brw, op: write, from: client, to: server, size: 4KiB, interval: 1s, start: 1s}
faults:
  - {at: 0s, action: sm_down, for: 8s}
`

// TestSMDownUp: with the SM unreachable every connection attempt's path record query goes
// unanswered, so rdma_resolve_route ends in ROUTE_ERROR at RDMA_RESOLVE_TIMEOUT (5 s after
// the address resolved at 1.00005 s) and the discovery GET and the write waiting for it
// fail -EHOSTUNREACH at 6.00005 s (network_timeout). The next attempt starts at 7.00005 s;
// its queries are resent every 500 ms, and the first after sm_up (8 s, for:), at
// 8.0001 s, is answered: connected, its GET ends at 8.000220613 s, the push of the client's
// ping buffer at 8.000221249 s, and the writes succeed.
func TestSMDownUp(t *testing.T) {
	csv := runExpecting(t, smDown, BackendO2IB, "faults.csv")
	want := "time_ns,kind,target,detail,hits\n0,sm_down,sm,,1\n8000000000,sm_up,sm,,1\n"
	if string(csv) != want {
		t.Errorf("faults.csv:\n%s\nwant:\n%s", csv, want)
	}
	msgs := string(runExpecting(t, smDown, BackendO2IB, "messages.csv"))
	for _, line := range []string{
		"1,PUT,*,10.0.0.2@o2ib,,4096,1000000000,6000050000,5000050000,-113,OK,0",
		"2,GET,10.0.0.1@o2ib,10.0.0.2@o2ib,10.0.0.1@o2ib>10.0.0.2@o2ib,0,1000000000,6000050000,5000050000,-113,NETWORK_TIMEOUT,0",
		"5,GET,10.0.0.1@o2ib,10.0.0.2@o2ib,10.0.0.1@o2ib>10.0.0.2@o2ib,0,7000050000,8000220613,1000170613,0,OK,0",
		"10,PUT,10.0.0.1@o2ib,10.0.0.2@o2ib,10.0.0.1@o2ib>10.0.0.2@o2ib,48,8000220628,8000221249,621,0,OK,0",
		"4,PUT,10.0.0.1@o2ib,10.0.0.2@o2ib,10.0.0.1@o2ib>10.0.0.2@o2ib,4096,7000050000,8000222829,1000172829,0,OK,0",
	} {
		if !strings.Contains(msgs, line+"\n") {
			t.Errorf("messages.csv lacks %s:\n%s", line, msgs)
		}
	}
	if n := strings.Count(msgs, ",-113,"); n != 2 {
		t.Errorf("%d messages failed, want 2:\n%s", n, msgs)
	}
}
