package lnet

// AddPeerNIDs models LNetAddPeer (2.16+; LU-17379), which Lustre calls with the NIDs it knows
// for one server (lctl add_uuid, the config llog): the first NID but 0@lo is the peer's
// primary, added as a peer locked to it when lock_prim_nid is set (lnet_add_peer_ni,
// lnet_peer_add: a locked or configured peer that has it already keeps it, -EEXIST or
// -EALREADY, and a locked peer that has it as another NID lends its own primary) and
// discovered without waiting (lnet_discover_peer_nid); with discovery on, each other NID is
// added as a peer of its own, marked to merge into the primary's on its discovery
// (lp_merge_primary_nid, taken by lnet_peer_data_present: see processPingBuffer), and
// discovered. From master (LU-20439, lnet_peer_force_merge; not NoAddPeerForceMerge) a NID
// that already has a peer, neither configured nor locked, is merged that way too, its
// discovery forced. With discovery off each NID on a local net is a peer of its own. An
// error is logged and the next NID tried (LU-19229; AddPeerStopsOnError: 2.16 stops at the
// first error but -EEXIST, discovers the primary's peer only when it created it, and with
// discovery off adds NIDs on nets with no local NI too).
func (n *Node) AddPeerNIDs(nids []NID) {
	var prim NID
	disc, lock := n.tun.Discovery, n.tun.LockPrimNID
	pr := n.tun.Profile
	for _, nid := range nids {
		if nid == LoNID || !disc && !pr.AddPeerStopsOnError && n.netByID(nid.Net()) == nil {
			continue
		}
		var rc error
		switch {
		case prim == AnyNID:
			prim = nid
			rc = n.addPeer(prim, disc, lock)
			switch e := refusalErrno(rc); {
			case e == EALREADY:
				prim = n.peerNIs.get(prim).peer.primary
				if pr.AddPeerStopsOnError {
					rc = nil
				}
			case e != 0 && e != EEXIST:
				if !pr.AddPeerStopsOnError {
					prim = AnyNID
				}
			case disc && (e == 0 || !pr.AddPeerStopsOnError):
				n.discoverNID(prim)
			}
		case !disc:
			rc = n.addPeer(nid, false, lock)
		case nid != prim:
			rc = n.addPeer(nid, true, false)
			force := !pr.NoAddPeerForceMerge
			switch refusalErrno(rc) {
			case 0:
				if lock {
					n.forceMerge(nid, prim, force)
				}
				n.discoverNID(nid)
			case EEXIST:
				if lock && force && n.forceMerge(nid, prim, true) {
					n.discoverNID(nid)
				}
			}
		}
		if e := refusalErrno(rc); pr.AddPeerStopsOnError && e != 0 && e != EEXIST {
			return
		}
	}
}

// refusalErrno is the errno of a refusal (0 for nil).
func refusalErrno(err error) int {
	if ce, ok := err.(*ConfigError); ok {
		return ce.Errno
	}
	if err != nil {
		return EINVAL
	}
	return 0
}

// addPeer models lnet_peer_add for a peer that is not configured (LNetAddPeer's): a NID that
// has a peer already leaves it as it is if that peer is configured (-EEXIST for another
// primary NID, -EPERM for another Multi-Rail state), locked (-EEXIST for its primary NID,
// else -EALREADY) or, when not locking, has it as primary (-EEXIST); otherwise that peer is
// deleted (lnet_peer_del: -EBUSY for a gateway) and a new one made, Multi-Rail if mr and
// locked to nid if lock.
func (n *Node) addPeer(nid NID, mr, lock bool) error {
	if lpni := n.peerNIs.get(nid); lpni != nil {
		p := lpni.peer
		switch {
		case p.config && p.primary != nid:
			return refuse(EEXIST, "%s belongs to configured peer %s", nid, p.primary)
		case p.config && p.mr != mr:
			return refuse(EPERM, "peer %s: Multi-Rail state differs", nid)
		case p.config:
			return nil
		case p.lockPrim && p.primary == nid:
			return refuse(EEXIST, "peer %s exists", nid)
		case p.lockPrim:
			return refuse(EALREADY, "%s belongs to peer %s, locked to its primary NID", nid, p.primary)
		case !lock && p.primary == nid:
			return refuse(EEXIST, "peer %s exists", nid)
		case p.isRouter:
			return refuse(EBUSY, "%s is a router", nid)
		}
		n.deletePeer(p)
	}
	p := n.newPeer(nid)
	n.peers = append(n.peers, p)
	n.addPeerNI(p, nid)
	p.setMultiRail(mr)
	if lock {
		n.lockPrimary(p)
	}
	return nil
}

// forceMerge marks the peer of nid to merge into prim's on its next discovery
// (lp_merge_primary_nid); with force (lnet_peer_force_merge, master) a configured or locked
// peer is left alone and the peer's NIDs are no longer up to date, its next discovery pinging
// it. It reports whether it marked the peer.
func (n *Node) forceMerge(nid, prim NID, force bool) bool {
	lpni := n.peerNIs.get(nid)
	if lpni == nil {
		return false
	}
	p := lpni.peer
	if force {
		if p.config || p.lockPrim {
			return false
		}
		p.uptodate, p.forcePing = false, true
	}
	p.mergePrim = prim
	return true
}

// discoverNID models lnet_discover_peer_nid: the peer of nid, unless up to date, is discovered
// without waiting for the result.
func (n *Node) discoverNID(nid NID) {
	lpni := n.peerNIs.get(nid)
	if lpni == nil {
		return
	}
	if p := lpni.peer; !n.upToDate(p) && !p.deleted {
		n.discoverPeer(p)
	}
}
