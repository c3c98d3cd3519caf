package ib

import (
	"fmt"
	"strconv"
	"strings"
)

// Rate is a link's data rate: the rate of payload-carrying bits after line encoding
// (8b/10b up to QDR, 64b/66b from FDR on) for a 4x link, which is what ibstat's "Rate"
// and perfquery's data counters relate to.
type Rate struct {
	Name string // "EDR", or "" for a raw rate
	Mbps int64  // data rate in megabits per second
}

// laneRates is the one table of InfiniBand speeds: each generation's data rate per lane in
// bits per second, after line encoding (8b/10b up to QDR, 64b/66b from FDR10 on; later
// generations quote data rates directly). A 4x link, the usual width, carries four lanes.
//
//	name   lane data rate     4x link
//	SDR     2 Gb/s              8 Gb/s
//	DDR     4 Gb/s             16 Gb/s
//	QDR     8 Gb/s             32 Gb/s
//	FDR10  10 Gb/s             40 Gb/s
//	FDR    13.636363636 Gb/s   54.545454544 Gb/s (14.0625 Gbaud x 64/66, rounded down per lane)
//	EDR    25 Gb/s            100 Gb/s
//	HDR    50 Gb/s            200 Gb/s
//	NDR   100 Gb/s            400 Gb/s
//	XDR   200 Gb/s            800 Gb/s
var laneRates = [...]struct {
	name string
	bps  int64
}{
	{"SDR", 2e9}, {"DDR", 4e9}, {"QDR", 8e9}, {"FDR10", 10e9}, {"FDR", 13_636_363_636},
	{"EDR", 25e9}, {"HDR", 50e9}, {"NDR", 100e9}, {"XDR", 200e9},
}

// LaneBps returns the data rate of one lane of the named generation (any case) in bits per
// second, and whether the name is known.
func LaneBps(name string) (int64, bool) {
	for _, l := range laneRates {
		if strings.EqualFold(name, l.name) {
			return l.bps, true
		}
	}
	return 0, false
}

// link4x is the 4x link of a generation in laneRates, its data rate rounded down to Mb/s.
func link4x(name string) Rate {
	bps, _ := LaneBps(name)
	return Rate{name, 4 * bps / 1e6}
}

// The InfiniBand 4x link speeds by name, at their data rates (laneRates).
var (
	SDR   = link4x("SDR")
	DDR   = link4x("DDR")
	QDR   = link4x("QDR")
	FDR10 = link4x("FDR10")
	FDR   = link4x("FDR")
	EDR   = link4x("EDR")
	HDR   = link4x("HDR")
	NDR   = link4x("NDR")
	XDR   = link4x("XDR")
)

// RateGbps returns a raw data rate of g gigabits per second.
func RateGbps(g float64) Rate { return Rate{Mbps: int64(g*1000 + 0.5)} }

// ParseRate reads a 4x speed name (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR, any case) or
// a raw data rate such as "100Gb/s", "56Gbps" or "25G".
func ParseRate(s string) (Rate, error) {
	in := strings.TrimSpace(s)
	if _, ok := LaneBps(in); ok {
		return link4x(strings.ToUpper(in)), nil
	}
	num := strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(in, "Gb/s"), "Gbps"), "G"), "g"))
	g, err := strconv.ParseFloat(num, 64)
	if err != nil || g <= 0 {
		return Rate{}, fmt.Errorf("ib: unknown link rate %q (use SDR..XDR or e.g. 100Gb/s)", s)
	}
	return RateGbps(g), nil
}

// String returns the speed name, or the raw rate in Gb/s.
func (r Rate) String() string {
	if r.Name != "" {
		return r.Name
	}
	return strconv.FormatFloat(float64(r.Mbps)/1000, 'f', -1, 64) + "Gb/s"
}

// ValidMTU reports whether m is one of the IB MTUs 256, 512, 1024, 2048, 4096.
func ValidMTU(m int) bool {
	switch m {
	case 256, 512, 1024, 2048, 4096:
		return true
	}
	return false
}

// Per-packet header bytes on the wire: LRH 8 + BTH 12 + ICRC 4 + VCRC 2. RDMA requests add a
// RETH (16), acknowledgements and read responses an AETH (4).
const (
	pktHeader  = 26
	rethBytes  = 16
	aethBytes  = 4
	ackWire    = pktHeader + aethBytes
	readReqWir = pktHeader + rethBytes
)
