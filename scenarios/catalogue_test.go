package scenarios

import (
	"testing"
)

func TestCatalogueValidates(t *testing.T) {
	for _, name := range Catalogue() {
		t.Run(name, func(t *testing.T) {
			s, err := LoadBuiltin(name)
			if err != nil {
				t.Fatalf("%v", err)
			}
			if s.Hash == "" || len(s.Members) == 0 {
				t.Fatalf("incomplete: hash %q, %d members", s.Hash, len(s.Members))
			}
		})
	}
}
