package lnet

import (
	"errors"
	"fmt"
)

// Run-time configuration changes: what `lnetctl route/peer/net/set` ask of a running LNet.
// Each refusal carries the kernel's errno (ConfigError), so a run can record it as lnetctl
// would report it.

// Errnos of configuration refusals, besides those of msg.go.
const (
	EPERM  = 1
	EBUSY  = 16
	EEXIST = 17
	ENODEV = 19
)

var errnoNames = map[int]string{
	EPERM: "EPERM", ENOENT: "ENOENT", EIO: "EIO", EAGAIN: "EAGAIN", ENOMEM: "ENOMEM", EBUSY: "EBUSY",
	EEXIST: "EEXIST", ENODEV: "ENODEV", EINVAL: "EINVAL", ENODATA: "ENODATA", EPROTO: "EPROTO",
	ENETDOWN: "ENETDOWN", ECONNABORTED: "ECONNABORTED", ESHUTDOWN: "ESHUTDOWN", ETIMEDOUT: "ETIMEDOUT",
	EHOSTUNREACH: "EHOSTUNREACH", ECANCELED: "ECANCELED",
}

// ErrnoName returns the symbolic name of a (positive or negative) errno, e.g. "ENOENT".
func ErrnoName(e int) string {
	if e < 0 {
		e = -e
	}
	if s, ok := errnoNames[e]; ok {
		return s
	}
	return fmt.Sprintf("errno %d", e)
}

// ConfigError is a configuration change the kernel refuses: its errno (positive) and why.
type ConfigError struct {
	Errno int
	Msg   string
}

func (e *ConfigError) Error() string { return e.Msg + " (" + ErrnoName(e.Errno) + ")" }

// ErrnoOf returns the errno a refusal carries: a ConfigError's, else EINVAL.
func ErrnoOf(err error) int {
	var ce *ConfigError
	if errors.As(err, &ce) {
		return ce.Errno
	}
	return EINVAL
}

func refuse(errno int, format string, args ...any) error {
	return &ConfigError{Errno: errno, Msg: fmt.Sprintf(format, args...)}
}

// ConfigRoute adds a route at run time as lnet_add_route judges it: EINVAL for a gateway on
// the route's own net, a loopback net or gateway, or hops outside 1..255 (but -1, undefined);
// EEXIST when the net is local; EHOSTUNREACH when no local NI is on the gateway's net; EEXIST
// for a route through a gateway the net already has. Otherwise AddRoute adds it. It differs
// from the kernel in refusing a gateway that is one of the node's own NIDs (EINVAL; the kernel
// makes a peer of it).
func (n *Node) ConfigRoute(net NetID, gw NID, hops, priority int) error {
	switch {
	case gw.Net() == net || net == LoNet || gw.Net() == LoNet || (hops != -1 && (hops < 1 || hops > 255)) || priority < 0:
		return refuse(EINVAL, "route to %s via %s: invalid", net, gw)
	case n.netByID(net) != nil:
		return refuse(EEXIST, "route to %s: the net is local", net)
	case n.netByID(gw.Net()) == nil:
		return refuse(EHOSTUNREACH, "route to %s: no local interface on %s, the gateway's net", net, gw.Net())
	case n.isLocalNID(gw):
		return refuse(EINVAL, "route to %s: gateway %s is a local NI", net, gw)
	}
	if err := n.AddRoute(net, gw, hops, priority); err != nil {
		return refuse(EEXIST, "%v", err)
	}
	return nil
}

// DelRoute deletes the routes to net through gateway gw (lnet_del_route with both given, as
// lnetctl route del asks): gw names its peer, whose primary NID the routes are matched by.
// ENOENT when the node has no route to net; no route through gw is not an error. A gateway
// left with no route stops being a router: the router checker stops pinging it, and its next
// route starts its net walk afresh (lp_disc_net_id = 0). A remote net left with no route is
// forgotten.
func (n *Node) DelRoute(net NetID, gw NID) error {
	i := n.remoteNetIndex(net)
	if i < 0 {
		return refuse(ENOENT, "no route to %s", net)
	}
	prim := gw
	if lpni := n.findPeerNI(gw); lpni != nil {
		prim = lpni.peer.primary
	}
	rn := n.remoteNets[i]
	kept := rn.routes[:0]
	for _, r := range rn.routes {
		if r.gw.primary != prim {
			kept = append(kept, r)
			continue
		}
		n.dropGatewayRoute(r)
	}
	clear(rn.routes[len(kept):])
	rn.routes = kept
	if len(rn.routes) == 0 {
		n.remoteNets = append(n.remoteNets[:i], n.remoteNets[i+1:]...)
	}
	return nil
}

// remoteNetIndex returns the index of net's routes in n.remoteNets, or -1.
func (n *Node) remoteNetIndex(net NetID) int {
	for i, rn := range n.remoteNets {
		if rn.id == net {
			return i
		}
	}
	return -1
}

// dropGatewayRoute removes r from its gateway's routes (lnet_rtr_decref_locked): a gateway
// left with none is no longer a router. Its gwState stays (n.gateways indexes its pings) but
// is skipped while it has no route.
func (n *Node) dropGatewayRoute(r *Route) {
	p := r.gw
	g := p.gw
	for j, x := range g.routes {
		if x == r {
			g.routes = append(g.routes[:j], g.routes[j+1:]...)
			break
		}
	}
	if len(g.routes) == 0 {
		p.isRouter = false
		g.discNet = 0
	}
}
