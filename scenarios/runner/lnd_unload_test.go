package runner

import (
	"testing"
)

// TestLNDUnload: lnd_unload does nothing while an NI of its LND is up (the module is in
// use); once the net is deleted it removes the module, and net add of that LND fails EINVAL
// ("Can't load LND") while another LND's add goes on; a crash and restart load the modules
// afresh, so the node's NIs are back and the add works again.
func TestLNDUnload(t *testing.T) {
	src := `
duration: 8s
nodes:
  client: {nis: [{net: tcp, interface: eth0}, {net: o2ib, interface: ib0}]}
faults:
  - {at: 1s, action: lnd_unload, node: client, lnd: ksocklnd}
  - {at: 2s, node: client, name: del, lnetctl: "net del --net tcp"}
  - {at: 3s, action: lnd_unload, node: client, lnd: ksocklnd}
  - {at: 4s, node: client, name: add-tcp, lnetctl: "net add --net tcp --if eth0"}
  - {at: 4s, node: client, name: add-o2ib1, lnetctl: "net add --net o2ib1 --if ib0"}
  - {at: 5s, action: node_crash, node: client}
  - {at: 6s, action: node_restart, node: client}
  - {at: 7s, node: client, name: del-again, lnetctl: "net del --net tcp"}
  - {at: 7500ms, node: client, name: add-again, lnetctl: "net add --net tcp --if eth0"}
expect:
  - {check: command, fault: del, status: ok}
  - {check: command, fault: add-tcp, status: EINVAL}
  - {check: command, fault: add-o2ib1, status: ok}
  - {check: command, fault: del-again, status: ok}
  - {check: command, fault: add-again, status: ok}
`
	faults := string(runExpecting(t, src, "", "faults.csv"))
	wantCommands(t, faults, "1000000000,lnd_unload,client,ksocklnd is in use by 10.0.0.1@tcp: nothing done,",
		"3000000000,lnd_unload,client,ksocklnd,")
	cmds := string(runExpecting(t, src, "", "commands.csv"))
	wantCommands(t, cmds, `add-tcp,net add --net tcp --if eth0,EINVAL,,"Can't load LND tcp, module ksocklnd"`)
}
