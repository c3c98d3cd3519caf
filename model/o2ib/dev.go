package o2ib

import (
	"fmt"
	"net/netip"

	"github.com/lnetsim/lnetsim/model/ib"
)

// dev is struct kib_dev with its kib_hca_dev: one IPoIB interface (an HCA port) that NIs are
// bound to by address, with the listening CM id, the memory region RDMA targets and the
// device event handler.
type dev struct {
	l      *LND
	port   *ib.Port
	ip     netip.Addr
	node   *ib.Node
	listen *ib.CMID
	mr     *ib.MR
	nets   []*kibNet
	fatal  bool
}

// devFor returns the device of port, creating it (kiblnd_create_dev and kiblnd_dev_failover's
// set-up: listener on the service port, a region covering memory, the event handler).
func (l *LND) devFor(port *ib.Port, ip netip.Addr, service int) (*dev, error) {
	for _, d := range l.devs {
		if d.port == port {
			return d, nil
		}
	}
	h := port.HCA()
	d := &dev{l: l, port: port, ip: ip, node: h.Node()}
	mr, err := h.RegMR(1<<40, ib.AccessLocalWrite|ib.AccessRemoteWrite|ib.AccessRemoteRead)
	if err != nil {
		return nil, fmt.Errorf("o2ib: %s: %w", port, err)
	}
	d.mr = mr
	id := d.node.CreateID(l)
	id.Context = d
	if err := id.BindAddr(netip.AddrPortFrom(ip, uint16(service))); err != nil {
		return nil, fmt.Errorf("o2ib: bind %s: %w", ip, err)
	}
	if err := id.Listen(0); err != nil {
		return nil, fmt.Errorf("o2ib: listen %s: %w", ip, err)
	}
	d.listen = id
	h.RegisterEventHandler(d)
	l.devs = append(l.devs, d)
	return d, nil
}

// AsyncEvent models kiblnd_event_handler's health part: PORT_ERR on the device's port and
// DEVICE_FATAL put every NI on the device in fatal state (ni_fatal_error_on, advertised
// DOWN); PORT_ACTIVE clears it. Connections are not touched: they find out through their
// own completions and timeouts, as in the kernel.
func (d *dev) AsyncEvent(ev ib.AsyncEvent) {
	switch ev.Type {
	case ib.EventPortErr:
		if ev.Port == d.port.Num {
			d.setFatal(true)
		}
	case ib.EventDeviceFatal:
		d.setFatal(true)
	case ib.EventPortActive:
		if ev.Port == d.port.Num && !d.port.HCA().Fatal() {
			d.setFatal(false)
		}
	}
}

func (d *dev) setFatal(on bool) {
	d.fatal = on
	for _, n := range d.nets {
		n.node.SetNIFatal(n.ni, on)
	}
}
