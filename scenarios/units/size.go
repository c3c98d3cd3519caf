package units

import (
	"fmt"
	"math/big"
	"strconv"
)

// Size is a count of bytes.
type Size int64

// Byte multiples.
const (
	Byte Size = 1
	KiB  Size = 1 << 10
	MiB  Size = 1 << 20
	GiB  Size = 1 << 30
	TiB  Size = 1 << 40
	KB   Size = 1000
	MB   Size = 1000 * KB
	GB   Size = 1000 * MB
	TB   Size = 1000 * GB
)

// sizeUnits lists the suffixes ParseSize accepts. K, M, G and T alone are binary, as in
// lnet_selftest's size=1M.
var sizeUnits = map[string]Size{
	"": Byte, "B": Byte,
	"KiB": KiB, "MiB": MiB, "GiB": GiB, "TiB": TiB,
	"K": KiB, "M": MiB, "G": GiB, "T": TiB,
	"KB": KB, "kB": KB, "MB": MB, "GB": GB, "TB": TB,
}

// ParseSize reads a byte count: a plain integer (bytes) or a number with a unit: B, KiB, MiB,
// GiB, TiB (powers of 1024), KB, MB, GB, TB (powers of 1000), or K, M, G, T alone (powers of
// 1024, as lnet_selftest's size=1M). Fractions are allowed when the result is a whole number
// of bytes ("1.5KiB" is 1536).
func ParseSize(s string) (Size, error) {
	num, unit := splitNumber(s)
	if num == "" {
		return 0, fmt.Errorf("invalid size %q: expected a number of bytes, e.g. 4096, 4KiB or 1MiB", s)
	}
	mult, ok := sizeUnits[unit]
	if !ok {
		hint := "use B, KiB, MiB, GiB, KB, MB or GB"
		if len(unit) > 1 && unit[len(unit)-1] == 'b' {
			hint = "sizes are in bytes (B), not bits (b); " + hint
		}
		return 0, fmt.Errorf("invalid size %q: unknown unit %q (%s)", s, unit, hint)
	}
	v, err := scale(num, big.NewInt(int64(mult)), "byte")
	if err != nil {
		return 0, fmt.Errorf("invalid size %q: %v", s, err)
	}
	return Size(v), nil
}

// String formats the size in the largest binary unit that represents it exactly ("1MiB",
// "4KiB", "1000B"); ParseSize reads it back unchanged.
func (z Size) String() string {
	for _, u := range []struct {
		n string
		v Size
	}{{"TiB", TiB}, {"GiB", GiB}, {"MiB", MiB}, {"KiB", KiB}} {
		if z != 0 && z%u.v == 0 {
			return strconv.FormatInt(int64(z/u.v), 10) + u.n
		}
	}
	return strconv.FormatInt(int64(z), 10) + "B"
}

// UnmarshalText implements encoding.TextUnmarshaler with ParseSize.
func (z *Size) UnmarshalText(b []byte) error {
	v, err := ParseSize(string(b))
	if err != nil {
		return err
	}
	*z = v
	return nil
}

// MarshalText implements encoding.TextMarshaler with String.
func (z Size) MarshalText() ([]byte, error) { return []byte(z.String()), nil }
