package units

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/lnetsim/lnetsim/model/ib"
)

// Rate is a data rate in bits per second.
type Rate int64

// Rate multiples (decimal, as link speeds are quoted).
const (
	BitPerSecond Rate = 1
	Kbps         Rate = 1000
	Mbps         Rate = 1000 * Kbps
	Gbps         Rate = 1000 * Mbps
	Tbps         Rate = 1000 * Gbps
)

// rateUnits lists the suffixes ParseRate accepts with a number: bits per second in decimal
// multiples, and bytes per second (decimal and binary multiples) times eight.
var rateUnits = map[string]int64{
	"bps": 1, "Kbps": 1e3, "kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9, "Tbps": 1e12,
	"b/s": 1, "Kb/s": 1e3, "kb/s": 1e3, "Mb/s": 1e6, "Gb/s": 1e9, "Tb/s": 1e12,
	"B/s": 8, "KB/s": 8e3, "kB/s": 8e3, "MB/s": 8e6, "GB/s": 8e9, "TB/s": 8e12,
	"KiB/s": 8 << 10, "MiB/s": 8 << 20, "GiB/s": 8 << 30,
}

// IBLink returns the data rate of the named InfiniBand generation's link of the given width
// (model/ib's speed table), and whether the name is known.
func IBLink(name string, width int64) (Rate, bool) {
	lane, ok := ib.LaneBps(name)
	return Rate(width * lane), ok
}

var ibWidths = map[string]int64{"1x": 1, "2x": 2, "4x": 4, "8x": 8, "12x": 12}

// ParseRate reads a data rate: a number with a unit (bps, Kbps, Mbps, Gbps, Tbps or b/s forms
// for bits; B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s for bytes) or an InfiniBand speed name
// with an optional width ("EDR" is 4x EDR = 100 Gb/s, "1xEDR" 25 Gb/s, HDR100 and NDR200 the
// 2x links sold under those names; lane rates from model/ib's table). The result must be a
// positive whole number of bits per second.
func ParseRate(s string) (Rate, error) {
	in := strings.TrimSpace(s)
	if r, ok := parseIBSpeed(in); ok {
		return r, nil
	}
	num, unit := splitNumber(in)
	if num == "" {
		return 0, fmt.Errorf("invalid rate %q: expected a number and a unit (e.g. 100Gbps, 12.5GB/s) or an InfiniBand speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR, optionally with a width such as 1xEDR)", s)
	}
	if unit == "" {
		return 0, fmt.Errorf("invalid rate %q: missing unit (e.g. Gbps or GB/s)", s)
	}
	mult, ok := rateUnits[unit]
	if !ok {
		return 0, fmt.Errorf("invalid rate %q: unknown unit %q (use bps, Kbps, Mbps, Gbps, Tbps, B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s or GiB/s)", s, unit)
	}
	v, err := scale(num, big.NewInt(mult), "bit per second")
	if err != nil {
		return 0, fmt.Errorf("invalid rate %q: %v", s, err)
	}
	if v <= 0 {
		return 0, fmt.Errorf("invalid rate %q: must be greater than zero", s)
	}
	return Rate(v), nil
}

func parseIBSpeed(in string) (Rate, bool) {
	u := strings.ToUpper(in)
	switch u {
	case "HDR100":
		return IBLink("HDR", 2)
	case "NDR200":
		return IBLink("NDR", 2)
	}
	width := int64(4)
	if i := strings.IndexByte(u, 'X'); i > 0 {
		w, ok := ibWidths[strings.ToLower(u[:i+1])]
		if !ok {
			return 0, false
		}
		width, u = w, u[i+1:]
	}
	return IBLink(u, width)
}

// String formats the rate in the largest decimal bit unit that keeps it at least 1, exactly:
// "100Gbps", "54.545454544Gbps", "800Mbps". ParseRate reads it back unchanged.
func (r Rate) String() string {
	v := int64(r)
	for _, u := range []struct {
		n string
		v int64
	}{{"Tbps", 1e12}, {"Gbps", 1e9}, {"Mbps", 1e6}, {"Kbps", 1e3}} {
		if v >= u.v {
			return formatExact(v, u.v) + u.n
		}
	}
	return formatExact(v, 1) + "bps"
}

// BytesPerSecond returns the rate in bytes per second, rounded down.
func (r Rate) BytesPerSecond() int64 { return int64(r) / 8 }

// UnmarshalText implements encoding.TextUnmarshaler with ParseRate.
func (r *Rate) UnmarshalText(b []byte) error {
	v, err := ParseRate(string(b))
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// MarshalText implements encoding.TextMarshaler with String.
func (r Rate) MarshalText() ([]byte, error) { return []byte(r.String()), nil }
