package scenarios

import "testing"

// TestParseCPTList: cfs_expr_list_parse's grammar: a bracketed list of N, N-M, N-M/S or *,
// or one N or * alone; a range running backwards, an empty list, a stray word or a range
// outside brackets is refused. The result is the highest CPT named (-1: every one).
func TestParseCPTList(t *testing.T) {
	for _, c := range []struct {
		s  string
		hi int
	}{{"0", 0}, {"3", 3}, {"*", -1}, {"[0]", 0}, {"[0,1]", 1}, {"[2-5]", 5}, {"[0-6/2,9]", 9}, {"[ 1 , 2 ]", 2}, {"[1,*]", -1}} {
		if hi, err := ParseCPTList(c.s); err != nil || hi != c.hi {
			t.Errorf("%q: %d, %v; want %d", c.s, hi, err, c.hi)
		}
	}
	for _, s := range []string{"", "[]", "[1-0]", "1-2", "[a]", "[1,]", "[1-2/]", "[0", "-1", "[-1]"} {
		if _, err := ParseCPTList(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}
