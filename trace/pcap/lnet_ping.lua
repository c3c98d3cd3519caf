-- lnet_ping.lua: a Wireshark dissector for LNet ping buffers (struct lnet_ping_info), the
-- payload of LNet's own messages on the reserved portal 0: ping replies and discovery pushes.
--
-- Wireshark's LNet dissector (4.0) hands an inline PUT payload to the dissector registered
-- for the PUT's portal in the "lnet.ptl_index" table; only Lustre's ptlrpc portals have one,
-- so a discovery push (a PUT of the sender's ping buffer to portal 0) is flagged Malformed in
-- any capture, simulated or real. This plugin registers for portal 0, decodes the buffer
-- (magic, feature bits, pid, each NI with the status its node advertises, and the NIDs of its
-- NID metadata entries, LNET_PING_FEAT_METADATA) and consumes it.
--
-- Use:  tshark -X lua_script:lnet_ping.lua -r run.pcap
-- or copy it into Wireshark's personal Lua plugins folder (Help > About > Folders).

local p = Proto("lnet_ping", "LNet ping buffer")

local statuses = { [0x15aac0de] = "UP", [0xdeadface] = "DOWN", [0] = "INVALID" }
local lnds = { [2] = "tcp", [5] = "o2ib", [9] = "lo", [13] = "gni", [16] = "kfi" }

local f = {
  magic     = ProtoField.uint32("lnet_ping.magic", "Magic", base.HEX),
  features  = ProtoField.uint32("lnet_ping.features", "Features", base.HEX),
  f_base    = ProtoField.bool("lnet_ping.features.base", "Base", 32, nil, 0x01),
  f_status  = ProtoField.bool("lnet_ping.features.ni_status", "NI status", 32, nil, 0x02),
  f_rte     = ProtoField.bool("lnet_ping.features.rte_disabled", "Routing disabled", 32, nil, 0x04),
  f_mr      = ProtoField.bool("lnet_ping.features.multi_rail", "Multi-Rail", 32, nil, 0x08),
  f_disc    = ProtoField.bool("lnet_ping.features.discovery", "Discovery", 32, nil, 0x10),
  f_md      = ProtoField.bool("lnet_ping.features.metadata", "NID metadata", 32, nil, 0x80),
  nmd       = ProtoField.uint32("lnet_ping.nmd", "Metadata entries", base.DEC),
  md_nid    = ProtoField.string("lnet_ping.md_nid", "Metadata NID"),
  pid       = ProtoField.uint32("lnet_ping.pid", "PID", base.DEC),
  nnis      = ProtoField.uint32("lnet_ping.nnis", "NIs", base.DEC),
  nid       = ProtoField.string("lnet_ping.nid", "NID"),
  nid_raw   = ProtoField.uint64("lnet_ping.nid_raw", "NID (raw)", base.HEX),
  status    = ProtoField.uint32("lnet_ping.status", "Status", base.HEX, statuses),
  msg_size  = ProtoField.uint32("lnet_ping.msg_size", "Message size", base.DEC),
}
p.fields = { f.magic, f.features, f.f_base, f.f_status, f.f_rte, f.f_mr, f.f_disc, f.f_md, f.pid, f.nnis,
  f.nid, f.nid_raw, f.status, f.msg_size, f.nmd, f.md_nid }

local e_magic = ProtoExpert.new("lnet_ping.bad_magic", "Not a little-endian LNet ping buffer",
  expert.group.PROTOCOL, expert.severity.WARN)
p.experts = { e_magic }

-- nidstr formats an 8-byte NID the way libcfs_nid2str does: ADDR@LNDNUM, NUM omitted when 0.
local function nidstr(r)
  local addr = r(0, 4):le_uint()
  local num = r(4, 2):le_uint()
  local lnd = r(6, 2):le_uint()
  local name = lnds[lnd] or ("lnd" .. lnd)
  local a
  if lnd == 9 then
    a = tostring(addr)
  else
    a = string.format("%d.%d.%d.%d", bit32.rshift(addr, 24), bit32.band(bit32.rshift(addr, 16), 255),
      bit32.band(bit32.rshift(addr, 8), 255), bit32.band(addr, 255))
  end
  if num ~= 0 then
    name = name .. num
  end
  return a .. "@" .. name
end

function p.dissector(tvb, pinfo, tree)
  local len = tvb:len()
  if len < 16 then
    return 0
  end
  local t = tree:add(p, tvb(0, len))
  local mi = t:add_le(f.magic, tvb(0, 4))
  if tvb(0, 4):le_uint() ~= 0x70696e67 then
    mi:add_proto_expert_info(e_magic)
    return len
  end
  local ft = t:add_le(f.features, tvb(4, 4))
  for _, b in ipairs({ f.f_base, f.f_status, f.f_rte, f.f_mr, f.f_disc, f.f_md }) do
    ft:add_le(b, tvb(4, 4))
  end
  t:add_le(f.pid, tvb(8, 4))
  local n = tvb(12, 4):le_uint()
  t:add_le(f.nnis, tvb(12, 4))
  local down = {}
  for i = 0, n - 1 do
    local off = 16 + 16 * i
    if off + 16 > len then
      break
    end
    local s = nidstr(tvb(off, 8))
    local st = tvb(off + 8, 4):le_uint()
    local nt = t:add(tvb(off, 16), string.format("NI %d: %s %s", i, s, statuses[st] or string.format("0x%08x", st)))
    nt:add(f.nid, tvb(off, 8), s)
    nt:add_le(f.nid_raw, tvb(off, 8))
    nt:add_le(f.status, tvb(off + 8, 4))
    nt:add_le(f.msg_size, tvb(off + 12, 4))
    if st == 0xdeadface then
      down[#down + 1] = s
    end
  end
  -- NID metadata (LNET_PING_FEAT_METADATA): a count, then per entry a NID and 32 bytes
  local moff = 16 + 16 * n
  if bit32.band(tvb(4, 4):le_uint(), 0x80) ~= 0 and moff + 4 <= len then
    local m = tvb(moff, 4):le_uint()
    t:add_le(f.nmd, tvb(moff, 4))
    for i = 0, m - 1 do
      local off = moff + 4 + 40 * i
      if off + 40 > len then
        break
      end
      t:add(f.md_nid, tvb(off, 40), nidstr(tvb(off, 8)))
    end
  end
  local info = string.format(" [ping buffer: %d NIs", n)
  if #down > 0 then
    info = info .. ", DOWN: " .. table.concat(down, " ")
  end
  pinfo.cols.info:append(info .. "]")
  return len
end

DissectorTable.get("lnet.ptl_index"):add(0, p)
