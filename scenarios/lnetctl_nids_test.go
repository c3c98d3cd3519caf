package scenarios

import (
	"errors"
	"reflect"
	"testing"
)

// TestExpandNIDListLoopback: the loopback net's NID is a plain number (libcfs_num_parse), so
// `lnetctl ping 0@lo` and `discover 0@lo` (sanity-lnet 217) take it; lnetsim's lo has only
// 0@lo, so another number is refused with the fix.
func TestExpandNIDListLoopback(t *testing.T) {
	noRef := func(s string) (string, error) { return "", errors.New("no reference " + s) }
	for _, tc := range []struct {
		in   string
		want []string
		err  string
	}{
		{in: "0@lo", want: []string{"0@lo"}},
		{in: "0@lo, 10.0.0.[2-3]@o2ib", want: []string{"0@lo", "10.0.0.2@o2ib", "10.0.0.3@o2ib"}},
		{in: "[0]@lo", want: []string{"0@lo"}},
		{in: "1@lo", err: `invalid NID "1@lo": the loopback NID is 0@lo`},
		{in: "[0-1]@lo", err: `invalid NID "1@lo": the loopback NID is 0@lo`},
		{in: "x@lo", err: `unable to parse nidlist from: x@lo (the loopback NID is 0@lo)`},
	} {
		got, err := expandNIDList(tc.in, noRef)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}
