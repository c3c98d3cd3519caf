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
	checkExpand(t, []expandCase{
		{in: "0@lo", want: []string{"0@lo"}},
		{in: "0@lo, 10.0.0.[2-3]@o2ib", want: []string{"0@lo", "10.0.0.2@o2ib", "10.0.0.3@o2ib"}},
		{in: "[0]@lo", want: []string{"0@lo"}},
		{in: "1@lo", err: `invalid NID "1@lo": the loopback NID is 0@lo`},
		{in: "[0-1]@lo", err: `invalid NID "1@lo": the loopback NID is 0@lo`},
		{in: "x@lo", err: `unable to parse nidlist from: x@lo (the loopback NID is 0@lo)`},
	})
}

// TestExpandNIDListOtherNets: lnetctl names NIDs of nets no node of the model runs (sanity-lnet
// 6, 7 and 19-25 configure peers on gni, kfi and bxi3f): gni, ptlf, kfi and bxi3f take a
// number or a range list up to 2^32-1 (libcfs_num_parse), gip and efa an IPv4 address
// (cfs_ip_addr_parse); a range is refused past 128 NIDs as it is read, not after expanding
// 2^32 values.
func TestExpandNIDListOtherNets(t *testing.T) {
	checkExpand(t, []expandCase{
		{in: "[6-12/4]@gni", want: []string{"6@gni", "10@gni"}},
		{in: "7@kfi1,[3-4]@bxi3f,9@ptlf2", want: []string{"7@kfi1", "3@bxi3f", "4@bxi3f", "9@ptlf2"}},
		{in: "4294967295@gni", want: []string{"4294967295@gni"}},
		{in: "6.6.6.[1-2]@efa,1.2.3.4@gip", want: []string{"6.6.6.1@efa", "6.6.6.2@efa", "1.2.3.4@gip"}},
		{in: "4294967296@gni", err: `unable to parse nidlist from: 4294967296@gni ("4294967296" is not a number from 0 to 4294967295)`},
		{in: "[0-4294967295]@kfi", err: `'[0-4294967295]@kfi' specifies more than the 128 NIDs allowed by this operation`},
		{in: "1.2.3.4@gni", err: `unable to parse nidlist from: 1.2.3.4@gni ("1.2.3.4" is not a number from 0 to 4294967295)`},
		{in: "7@efa", err: `unable to parse nidlist from: 7@efa`},
		{in: "7@tofu", err: `invalid net "tofu": expected o2ib<number> or tcp<number>, e.g. o2ib0`},
	})
}

// expandCase is one NID list, the NIDs it expands to, or the error it is refused with.
type expandCase struct {
	in   string
	want []string
	err  string
}

// noRef resolves no node:index reference.
func noRef(s string) (string, error) { return "", errors.New("no reference " + s) }

// checkExpand runs expandNIDList on each case (no node:index references).
func checkExpand(t *testing.T, cases []expandCase) {
	t.Helper()
	checkExpandWith(t, cases, func(in string) ([]string, error) { return expandNIDList(in, noRef) })
}

// checkExpandWith runs expand on each case: the NIDs it gives, or its error's text.
func checkExpandWith(t *testing.T, cases []expandCase, expand func(string) ([]string, error)) {
	t.Helper()
	for _, tc := range cases {
		got, err := expand(tc.in)
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

// TestExpandNIDListHosts: lnetctl ping and discover resolve a host name in a NID's address
// (libcfs_ip_str2addr: an address starting with a letter, on a net of IPv4 addresses); a
// range, a numeric net's address or a name that starts otherwise is read as before, and a
// name that does not resolve is an unresolvedHost error naming the NID.
func TestExpandNIDListHosts(t *testing.T) {
	host := func(name string) (string, bool) {
		if name == "client" {
			return "10.0.0.1", true
		}
		return "", false
	}
	checkExpandWith(t, []expandCase{
		{in: "client@tcp", want: []string{"10.0.0.1@tcp"}},
		{in: "client@o2ib1,10.0.0.[2-3]@tcp", want: []string{"10.0.0.1@o2ib1", "10.0.0.2@tcp", "10.0.0.3@tcp"}},
		{in: "server@tcp", err: "cannot parse NID 'server@tcp'"},
		{in: "client@gni", err: `unable to parse nidlist from: client@gni ("client" is not a number from 0 to 4294967295)`},
		{in: "1client@tcp", err: `unable to parse nidlist from: 1client@tcp`},
	}, func(in string) ([]string, error) { return expandNIDListHosts(in, noRef, host) })
}
