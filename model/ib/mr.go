package ib

// Access is a memory region's access rights (enum ibv_access_flags).
type Access uint8

// Access flags.
const (
	AccessLocalWrite Access = 1 << iota
	AccessRemoteWrite
	AccessRemoteRead
)

// MR is a registered memory region (struct ibv_mr). It is only a length and keys: the model
// moves byte counts, not bytes. Remote addresses are offsets from 0 within the region.
type MR struct {
	f    *Fabric
	LKey uint32
	RKey uint32
	Len  uint64
}

type mr struct {
	hca    int32
	len    uint64
	access Access
	valid  bool
}

// RegMR registers a region of length bytes with the given access (ibv_reg_mr).
func (h *HCA) RegMR(length uint64, access Access) (*MR, error) {
	if !h.alive() {
		return nil, ErrDead
	}
	f := h.f
	f.mrs = append(f.mrs, mr{hca: int32(h.idx), len: length, access: access, valid: true})
	key := uint32(len(f.mrs))
	return &MR{f: f, LKey: key, RKey: key, Len: length}, nil
}

// Dereg invalidates the region (ibv_dereg_mr): RDMA to its rkey then fails with
// REM_ACCESS_ERR at the requester.
func (m *MR) Dereg() { m.f.mrs[m.RKey-1].valid = false }

// access checks an RDMA request against the responder's regions.
func (f *Fabric) access(h *HCA, rkey uint32, addr uint64, n uint32, need Access) bool {
	if rkey == 0 || int(rkey) > len(f.mrs) {
		return false
	}
	r := &f.mrs[rkey-1]
	return r.valid && r.hca == int32(h.idx) && r.access&need != 0 && addr+uint64(n) <= r.len && addr+uint64(n) >= addr
}
