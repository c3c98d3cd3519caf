package scenarios

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestReferenceCoversSchema fails when a schema field is missing from REFERENCE.md.
func TestReferenceCoversSchema(t *testing.T) {
	doc, err := os.ReadFile("REFERENCE.md")
	if err != nil {
		t.Fatal(err)
	}
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
		for _, f := range fieldsOf(ty).fields {
			if !strings.Contains(string(doc), "`"+f.name+"`") {
				t.Errorf("REFERENCE.md does not mention %s (of %s)", f.name, ty.Name())
			}
			walk(ty.FieldByIndex(f.index).Type)
		}
	}
	walk(reflect.TypeOf(Scenario{}))
}
