package scenarios

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// referenceSection names the REFERENCE.md section (its "## " heading) that documents each
// schema struct's fields.
var referenceSection = map[string]string{
	"Scenario":      "Top level",
	"Fabric":        "fabric",
	"NodeGroup":     "nodes.NAME",
	"NISpec":        "nodes.NAME",
	"InterfaceSpec": "nodes.NAME",
	"ModuleParams":  "nodes.NAME",
	"NetTunables":   "lnet",
	"O2IBParams":    "o2ib.NET",
	"Ethernet":      "ethernet",
	"SockLNDParams": "socklnd.NET",
	"Route":         "lnet",
	"Peer":          "lnet",
	"LNet":          "lnet",
	"UDSP":          "lnet",
	"Workload":      "workload[]",
	"Fault":         "faults[]",
	"FaultRule":     "faults[]",
	"Expectation":   "expect[]",
}

// referenceSections splits REFERENCE.md into its "## " sections (each with its "###"
// subsections), by heading.
func referenceSections(t *testing.T) map[string]string {
	t.Helper()
	doc, err := os.ReadFile("REFERENCE.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, part := range strings.Split("\n"+string(doc), "\n## ")[1:] {
		heading, body, _ := strings.Cut(part, "\n")
		out[heading] = body
	}
	return out
}

// TestReferenceCoversSchema fails when a schema field is not documented, in backquotes
// (`name` or `name: ...`), in the REFERENCE.md section of the struct that holds it (a field named only in another
// section, or a struct with no section, fails).
func TestReferenceCoversSchema(t *testing.T) {
	sections := referenceSections(t)
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] || ty.PkgPath() != reflect.TypeOf(Scenario{}).PkgPath() || ty == reflect.TypeOf(LnetctlExport{}) {
			return
		}
		seen[ty] = true
		fields := fieldsOf(ty).fields
		heading, ok := referenceSection[ty.Name()]
		body, found := sections[heading]
		if len(fields) > 0 && (!ok || !found) {
			t.Errorf("%s's fields have no REFERENCE.md section (section %q): add one to referenceSection", ty.Name(), heading)
		}
		for _, f := range fields {
			if found && !strings.Contains(body, "`"+f.name+"`") && !strings.Contains(body, "`"+f.name+":") {
				t.Errorf("REFERENCE.md section %q does not document %s (of %s)", heading, f.name, ty.Name())
			}
			walk(ty.FieldByIndex(f.index).Type)
		}
	}
	walk(reflect.TypeOf(Scenario{}))
}
