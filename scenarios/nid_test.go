package scenarios

import (
	"strings"
	"testing"
)

func TestParseNID(t *testing.T) {
	tests := []struct{ in, want, err string }{
		{"10.0.0.1@o2ib", "10.0.0.1@o2ib", ""},
		{"10.0.0.1@o2ib0", "10.0.0.1@o2ib", ""},
		{"192.168.1.5@o2ib1", "192.168.1.5@o2ib1", ""},
		{"10.0.0.1@o2ib10", "10.0.0.1@o2ib10", ""},
		{"0@lo", "0@lo", ""},
		{"10.0.0.1", "", "expected address@net"},
		{"10.0.0.1@tcp", "10.0.0.1@tcp", ""},
		{"192.168.1.5@tcp2", "192.168.1.5@tcp2", ""},
		{"10.0.0.1@o2ib01", "", "0 to 65535"},
		{"10.0.0.256@o2ib", "", "not an IPv4 address"},
		{"::1@o2ib", "", "not an IPv4 address"},
		{"1@lo", "", "0@lo"},
		{"10.0.0.1@eth", "", "expected o2ib"},
		{"@o2ib1", "", "address is missing"},
		{"10.0.0.1@@o2ib1", "", "expected address@net"},
	}
	for _, tt := range tests {
		n, err := ParseNID(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseNID(%q) = %v, %v; want error containing %q", tt.in, n, err, tt.err)
			}
			continue
		}
		if err != nil || n.String() != tt.want {
			t.Errorf("ParseNID(%q) = %v, %v; want %s", tt.in, n, err, tt.want)
		}
	}
}

func FuzzParseNID(f *testing.F) {
	for _, s := range []string{"10.0.0.1@o2ib", "0@lo", "1.2.3.4@o2ib65535", "x@o2ib", "@o2ib1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseNID(s)
		if err != nil {
			return
		}
		back, err := ParseNID(n.String())
		if err != nil || back != n {
			t.Fatalf("round trip %q -> %q -> %v, %v", s, n.String(), back, err)
		}
	})
}

func TestParseNet(t *testing.T) {
	for in, want := range map[string]string{"o2ib": "o2ib0", "o2ib0": "o2ib0", "@o2ib1": "o2ib1", " o2ib12 ": "o2ib12"} {
		if got, _, err := ParseNet(in); err != nil || got != want {
			t.Errorf("ParseNet(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
