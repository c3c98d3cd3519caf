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

// The InfiniBand 4x link speeds by name, at their data rates.
var (
	SDR   = Rate{"SDR", 8_000}
	DDR   = Rate{"DDR", 16_000}
	QDR   = Rate{"QDR", 32_000}
	FDR10 = Rate{"FDR10", 38_787}
	FDR   = Rate{"FDR", 54_545}
	EDR   = Rate{"EDR", 100_000}
	HDR   = Rate{"HDR", 200_000}
	NDR   = Rate{"NDR", 400_000}
)

var namedRates = []Rate{SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR}

// RateGbps returns a raw data rate of g gigabits per second.
func RateGbps(g float64) Rate { return Rate{Mbps: int64(g*1000 + 0.5)} }

// ParseRate reads a speed name (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, any case) or a raw
// data rate such as "100Gb/s", "56Gbps" or "25G".
func ParseRate(s string) (Rate, error) {
	in := strings.TrimSpace(s)
	for _, r := range namedRates {
		if strings.EqualFold(in, r.Name) {
			return r, nil
		}
	}
	num := strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(in, "Gb/s"), "Gbps"), "G"), "g"))
	g, err := strconv.ParseFloat(num, 64)
	if err != nil || g <= 0 {
		return Rate{}, fmt.Errorf("ib: unknown link rate %q (use SDR..NDR or e.g. 100Gb/s)", s)
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
