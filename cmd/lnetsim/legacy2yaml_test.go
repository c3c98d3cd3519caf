package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"gopkg.in/yaml.v3"

	"github.com/lnetsim/lnetsim/scenarios"
)

// TestLegacy2YAML runs testdata/legacy2yaml.txt, one case per sanity-lnet test 600-629
// (lnet_legacy2yaml, 2.17.0): each writes the test's files, runs `lnetsim legacy2yaml` with
// the test's arguments and standard input, and checks what the test checks: the output,
// compared as parsed YAML with the test's expected document (same-yaml), or the exit status
// and a word of the message (stderr), and, where the test imports the document, that
// `lnetctl import` of it loads on a 2.17 and a master node (import).
// `go test ./cmd/lnetsim -run TestLegacy2YAML -rewrite` regenerates the expected output.
//
// Directives:
//
//	file name=F         writes the input (and a newline, as echo does) to F in a scratch directory
//	stdin               the next run's standard input is the input (no trailing newline added)
//	run                 runs the input, a shell-quoted command line `lnetsim legacy2yaml ...`
//	                    (F names a file written by file); prints stdout, then the exit status
//	                    and stderr when it failed
//	same-yaml           the input, parsed, equals the last run's stdout, parsed
//	stderr              the input is a regular expression the last run's stderr matches
//	import release=R    the last run's stdout, imported by a node of release R, loads
//	catalogue name=N    the last run's stdout, parsed, is the document catalogue scenario N's
//	                    fault named import imports
func TestLegacy2YAML(t *testing.T) {
	datadriven.RunTest(t, "testdata/legacy2yaml.txt", func(t *testing.T, d *datadriven.TestData) string {
		return ddLegacy.exec(t, d)
	})
}

type ddLegacyState struct {
	dir            string
	stdin          string
	stdout, stderr string
	code           int
}

var ddLegacy = &ddLegacyState{}

func (s *ddLegacyState) exec(t *testing.T, d *datadriven.TestData) string {
	if s.dir == "" {
		s.dir = t.TempDir()
	}
	switch d.Cmd {
	case "file":
		var name string
		d.ScanArgs(t, "name", &name)
		if err := os.WriteFile(filepath.Join(s.dir, name), []byte(d.Input+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return ""
	case "stdin":
		s.stdin = d.Input
		return ""
	case "run":
		words, err := shellWords(d.Input)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		if len(words) < 2 || words[0] != "lnetsim" || words[1] != "legacy2yaml" {
			d.Fatalf(t, "run: want lnetsim legacy2yaml ..., got %q", d.Input)
		}
		for i, w := range words {
			if _, err := os.Stat(filepath.Join(s.dir, w)); err == nil && w != "" && !strings.ContainsAny(w, " =") {
				words[i] = filepath.Join(s.dir, w)
			}
		}
		var out, errb bytes.Buffer
		root := newRootCmd()
		root.SetArgs(words[1:])
		root.SetOut(&out)
		root.SetErr(&errb)
		root.SetIn(strings.NewReader(s.stdin))
		s.stdin = ""
		s.code = exitOK
		if err := root.Execute(); err != nil {
			fmt.Fprintln(&errb, "lnetsim:", err)
			s.code = exitUsage
			if ee, ok := err.(*exitError); ok {
				s.code = ee.code
			}
		}
		s.stdout = out.String()
		s.stderr = strings.ReplaceAll(errb.String(), s.dir+string(filepath.Separator), "")
		if s.code != exitOK {
			return s.stdout + fmt.Sprintf("exit %d\n%s", s.code, s.stderr)
		}
		return s.stdout
	case "same-yaml":
		var want, got any
		if err := yaml.Unmarshal([]byte(d.Input), &want); err != nil {
			d.Fatalf(t, "expected document: %v", err)
		}
		if err := yaml.Unmarshal([]byte(s.stdout), &got); err != nil {
			return fmt.Sprintf("output does not parse: %v\n", err)
		}
		if !reflect.DeepEqual(want, got) {
			return fmt.Sprintf("differ: got %v\n", got)
		}
		return "same\n"
	case "stderr":
		re, err := regexp.Compile(d.Input)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		if re.MatchString(s.stderr) {
			return "matches\n"
		}
		return "no match\n"
	case "catalogue":
		var name string
		d.ScanArgs(t, "name", &name)
		return catalogueImport(t, name, s.stdout)
	case "import":
		var rel string
		d.ScanArgs(t, "release", &rel)
		return importDoc(rel, s.stdout)
	}
	d.Fatalf(t, "unknown directive %s", d.Cmd)
	return ""
}

// importDoc loads a scenario in which node client, release rel, with NIs on eth0, eth1 and
// ib0, imports doc; it says "loads" or lists the loader's refusals.
func importDoc(rel, doc string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `duration: 3s
lnet: {release: %q}
nodes:
  client:
    nis:
      - {net: tcp, nid: 10.0.0.1@tcp, interface: eth0}
      - {net: tcp, nid: 10.0.1.1@tcp, interface: eth1}
      - {net: o2ib, nid: 192.168.1.1@o2ib, interface: ib0}
faults:
  - at: 1s
    node: client
    lnetctl: import
    yaml:
`, rel)
	for _, l := range strings.Split(strings.TrimSuffix(doc, "\n"), "\n") {
		b.WriteString("      " + l + "\n")
	}
	if _, err := scenarios.Load("import.yaml", []byte(b.String())); err != nil {
		return err.Error() + "\n"
	}
	return "loads\n"
}

// catalogueImport compares doc, parsed, with the yaml of catalogue scenario name's fault
// named import.
func catalogueImport(t *testing.T, name, doc string) string {
	data, err := os.ReadFile(filepath.Join("..", "..", "scenarios", "catalogue", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var sc struct {
		Faults []struct {
			Name string
			YAML any `yaml:"yaml"`
		}
	}
	if err := yaml.Unmarshal(data, &sc); err != nil {
		t.Fatal(err)
	}
	var got any
	if err := yaml.Unmarshal([]byte(doc), &got); err != nil {
		return fmt.Sprintf("output does not parse: %v\n", err)
	}
	for _, f := range sc.Faults {
		if f.Name == "import" {
			if reflect.DeepEqual(f.YAML, got) {
				return "same as its import\n"
			}
			return fmt.Sprintf("differs from its import %v\n", f.YAML)
		}
	}
	return "no fault named import\n"
}

// shellWords splits a command line as a POSIX shell does for single quotes, double quotes
// (with \", \\ and \$ escapes) and backslashes; $ expansion is not done.
func shellWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unclosed ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("unclosed \" in %q", s)
			}
			in = true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words, nil
}
