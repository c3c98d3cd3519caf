package units

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lnetsim/lnetsim/sim"
)

// ParseSeconds reads a duration for a kernel tunable that the kernel counts in whole seconds
// (transaction_timeout, peer_timeout, ...): a plain non-negative integer is a number of
// seconds ("50" is 50 s); anything else goes through sim.ParseTime ("50s", "2m"). The
// scenario loader then refuses a value that is not whole seconds.
func ParseSeconds(s string) (sim.Time, error) {
	in := strings.TrimSpace(s)
	if in != "" && strings.Trim(in, "0123456789") == "" {
		n, err := strconv.ParseInt(in, 10, 64)
		if err != nil || n > int64(sim.MaxTime/sim.Second) {
			return 0, fmt.Errorf("invalid duration %q: too large", s)
		}
		return sim.Time(n) * sim.Second, nil
	}
	if strings.HasPrefix(in, "-") {
		return 0, fmt.Errorf("invalid duration %q: must not be negative", s)
	}
	t, err := sim.ParseTime(in)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: write whole seconds (50) or a number with a unit (50s, 2m)", s)
	}
	return t, nil
}

// ParseDuration reads a duration that needs a unit ("30s", "4.096us"); "0" alone is allowed.
// It wraps sim.ParseTime with a message that shows accepted forms.
func ParseDuration(s string) (sim.Time, error) {
	t, err := sim.ParseTime(s)
	if err != nil {
		in := strings.TrimSpace(s)
		if in != "" && strings.Trim(in, "0123456789") == "" {
			return 0, fmt.Errorf("invalid duration %q: missing unit (write e.g. %ss or %sms)", s, in, in)
		}
		return 0, fmt.Errorf("invalid duration %q: write a number and a unit (ns, us, ms, s, m, h), e.g. 30s or 4.096us", s)
	}
	return t, nil
}
