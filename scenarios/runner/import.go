package runner

import (
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"github.com/lnetsim/lnetsim/scenarios"
)

// importRuns are the single verbs an import's entries run.
var importRuns = map[string]cfgFunc{
	"peer add":    onNode(peerAdd),
	"peer del":    onNode(peerDel),
	"route add":   onNode(routeAdd),
	"route del":   onNode(routeDel),
	"set routing": setGlobal,
	"net add":     netAdd,
	"net del":     netDel,
}

func init() {
	for _, name := range scenarios.SetNames {
		importRuns["set "+name] = setGlobal
	}
}

// importAction is lnetctl import: the entries that configure run at once (importRun) and
// the import's row is recorded; the pings and discoveries of --exec (lustre_yaml_exec's
// handle_yaml_ping and handle_yaml_discover, or the Netlink LNET_CMD_PING) then start as
// those commands do, each recording its own row under the import's name when it ends.
func importAction(f *faultState, i int, ft *scenarios.Fault, undo bool) {
	command(importRun)(f, i, ft, undo)
	for _, sub := range ft.Cmd.Sub {
		if importRuns[sub.Verb] != nil {
			continue
		}
		x := *ft
		x.Cmd, x.Lnetctl = sub, "import --exec: "+sub.Verb
		if sub.Verb == "ping" {
			pingCmd(f, i, &x, false)
		} else {
			discoverCmd(f, i, &x, false)
		}
	}
}

// importRun is lnetctl import (lustre_yaml_config, lustre_yaml_del; from 2.16 the Netlink
// import): each entry runs as its single verb, in order, and the import's result is the last
// refusal. An entry with a Fail fails as it says, after its verb or instead of it. From 2.16
// an entry that fails ends its Netlink message (Batch: the rest of its section is not run)
// and a peer add's primary NID is deleted again (UndoPrim, lnet_peer_ni_cmd's report_err);
// up to 2.15 every entry is tried. The detail lists each entry's verb and outcome.
func importRun(f *faultState, n *node, c *scenarios.Command, _ bool) (int, string) {
	errno, ended := 0, 0
	details := make([]string, 0, len(c.Sub))
	for _, sub := range c.Sub {
		run := importRuns[sub.Verb]
		switch {
		case run == nil: // ping, discover: importAction starts them
			details = append(details, sub.Verb+" "+strings.Join(sub.NIDs, ",")+": started")
			continue
		case sub.Batch != 0 && sub.Batch == ended:
			details = append(details, sub.Verb+" "+importTarget(sub)+": not run")
			continue
		}
		e, d := 0, ""
		if sub.UndoPrim && len(sub.NIDs) > 0 && (sub.Fail == nil || sub.Fail.Run) {
			// lnet_peer_ni_cmd adds the primary NID at `primary nid`, its NIs after it.
			e, d = run(f, n, &scenarios.Command{Verb: sub.Verb, Prim: sub.Prim}, false)
		}
		if e == 0 && (sub.Fail == nil || sub.Fail.Run) {
			e, d = run(f, n, sub, false)
		}
		if e == 0 && sub.Fail != nil {
			e, d = sub.Fail.Errno, sub.Fail.Text
		}
		res := "ok"
		if e != 0 {
			errno, res = e, lnet.ErrnoName(e)
		}
		if d != "" {
			res += " (" + d + ")"
		}
		if e != 0 && sub.Batch != 0 {
			ended = sub.Batch
			if sub.UndoPrim {
				u, _ := importRuns["peer del"](f, n, &scenarios.Command{Verb: "peer del", Prim: sub.Prim}, false)
				res += ", then peer del " + sub.Prim + ": " + errnoResult(u)
			}
		}
		details = append(details, sub.Verb+" "+importTarget(sub)+": "+res)
	}
	return errno, strings.Join(details, "; ")
}

// errnoResult is "ok" or the errno's name.
func errnoResult(e int) string {
	if e == 0 {
		return "ok"
	}
	return lnet.ErrnoName(e)
}

// importTarget names what an import entry acts on, for the detail.
func importTarget(c *scenarios.Command) string {
	switch {
	case c.Prim != "":
		return c.Prim
	case c.Net != "":
		return c.Net + " " + strings.Join(c.NIDs, ",")
	}
	return strings.Join(c.Operands, " ")
}
