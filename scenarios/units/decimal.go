package units

import (
	"fmt"
	"math/big"
	"strings"
)

// splitNumber splits s into a leading unsigned decimal number and the rest (its unit), with
// surrounding spaces removed from both.
func splitNumber(s string) (num, unit string) {
	in := strings.TrimSpace(s)
	i := 0
	for i < len(in) && (in[i] >= '0' && in[i] <= '9' || in[i] == '.') {
		i++
	}
	return in[:i], strings.TrimSpace(in[i:])
}

// scale returns num*mult exactly as an int64. num must be a plain decimal ("12", "12.5",
// ".5"); the product must be a whole number that fits in an int64. what names the base unit
// in error messages ("byte", "bit per second").
func scale(num string, mult *big.Int, what string) (int64, error) {
	if num == "" || strings.Count(num, ".") > 1 || num == "." || strings.HasSuffix(num, ".") {
		return 0, fmt.Errorf("malformed number %q", num)
	}
	if len(num) > 40 {
		return 0, fmt.Errorf("number %q is too long", num)
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("malformed number %q", num)
	}
	r.Mul(r, new(big.Rat).SetInt(mult))
	if !r.IsInt() {
		return 0, fmt.Errorf("not a whole %s", what)
	}
	v := r.Num()
	if !v.IsInt64() {
		return 0, fmt.Errorf("too large")
	}
	return v.Int64(), nil
}

// formatExact writes v/unit as a decimal with as many digits as needed to be exact.
func formatExact(v, unit int64) string {
	whole, rem := v/unit, v%unit
	s := fmt.Sprint(whole)
	if rem == 0 {
		return s
	}
	// unit is a power of ten in every caller that can leave a remainder.
	digits := fmt.Sprint(rem + unit)[1:]
	return s + "." + strings.TrimRight(digits, "0")
}
