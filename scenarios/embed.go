package scenarios

import (
	"embed"
	"io/fs"
	"path"
	"sort"
	"strings"
)

//go:embed default.yaml catalogue/*.yaml
var builtin embed.FS

// DefaultName is the name of the built-in default scenario.
const DefaultName = "default"

// Catalogue lists the built-in scenarios by name ("default", then the catalogue files
// without their .yaml extension), sorted.
func Catalogue() []string {
	names := []string{DefaultName}
	ents, _ := fs.ReadDir(builtin, "catalogue")
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".yaml") {
			names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
		}
	}
	sort.Strings(names[1:])
	return names
}

// Builtin returns the source of a built-in scenario and the file name errors use
// (scenarios/default.yaml, scenarios/catalogue/NAME.yaml).
func Builtin(name string) (file string, data []byte, ok bool) {
	p := "catalogue/" + name + ".yaml"
	if name == DefaultName {
		p = "default.yaml"
	}
	if strings.Contains(name, "/") || strings.Contains(name, "..") {
		return "", nil, false
	}
	data, err := builtin.ReadFile(p)
	if err != nil {
		return "", nil, false
	}
	return path.Join("scenarios", p), data, true
}

// LoadBuiltin loads a built-in scenario by name with the given overrides.
func LoadBuiltin(name string, overrides ...Override) (*Scenario, error) {
	file, data, ok := Builtin(name)
	if !ok {
		return nil, ErrorList{{File: name, Message: "no built-in scenario named " + name, Hint: "lnetsim scenarios list shows them"}}
	}
	return Load(file, data, overrides...)
}
