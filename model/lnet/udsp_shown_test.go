package lnet

import "testing"

// TestUDSPDescrShown: udsp show prints a descriptor rebuilt from the kernel's copy
// (lustre_lnet_nid_descr2str over cfs_expr2str), which keeps the usual forms and rewrites
// some others.
func TestUDSPDescrShown(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"o2ib", "o2ib"},
		{"o2ib0", "o2ib0"},
		{"o2ib1", "o2ib1"},
		{"o2ib01", "o2ib1"},
		{"tcp[1-3]", "tcp[1-3]"},
		{"tcp[0-8/2]", "tcp[0-8/2]"},
		{"o2ib[0,2]", "o2ib0.2"},
		{"o2ib[0,2-3]", "o2ib0.2-3]"},
		{"10.0.0.1@o2ib", "10.0.0.1@o2ib"},
		{"10.0.0.[1-4]@o2ib1", "10.0.0.[1-4]@o2ib1"},
		{"10.0.[0-1].[2-8/2]@tcp", "10.0.[0-1].[2-8/2]@tcp"},
		{"*.*.*.*@o2ib", "[0-255].[0-255].[0-255].[0-255]@o2ib"},
		{"*@lo", "[0-4294967295]@lo"},
		{"10.1.*.*@o2ib1", "10.1.[0-255].[0-255]@o2ib1"},
		{"", ""},
	} {
		d, err := ParseUDSPDescr(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if got := d.Shown(); got != c.want {
			t.Errorf("%q shows as %q, want %q", c.in, got, c.want)
		}
	}
	// An IP address range is four dot-separated parts (cfs_ip_addr_parse): lnetctl fails
	// to parse a lone "*" on an IP-addressed net.
	if _, err := ParseUDSPDescr("*@o2ib"); err == nil {
		t.Error(`"*@o2ib" accepted; lnetctl fails to parse it`)
	}
}
