package scenarios

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"hash"
)

// canonicalHash returns the hex sha256 of Canonical()'s bytes without building them: the
// scenario without its members is encoded once, then each member in turn, and the compact
// JSON is indented on its way into the hash (indenter). Canonical of 100,000 members is some
// hundreds of MB of JSON, built three times over (compact, indented, the buffer); this holds
// one member's at a time.
func (s *Scenario) canonicalHash() (string, error) {
	c := *s
	c.Name, c.Description = "", ""
	c.Members = nil
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(&c); err != nil {
		return "", err
	}
	// Members is the last field encoded: the members-less form ends with its null.
	head, ok := bytes.CutSuffix(buf.Bytes(), []byte(`"members":null}`+"\n"))
	if !ok {
		c, err := s.Canonical()
		if err != nil {
			return "", err
		}
		sum := sha256.Sum256(c)
		return hex.EncodeToString(sum[:]), nil
	}
	h := sha256.New()
	in := &indenter{h: h}
	in.write(head)
	in.write([]byte(`"members":`))
	if s.Members == nil {
		in.write([]byte("null"))
	} else {
		in.write([]byte("["))
		for i := range s.Members {
			if i > 0 {
				in.write([]byte(","))
			}
			buf.Reset()
			if err := enc.Encode(&s.Members[i]); err != nil {
				return "", err
			}
			in.write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		}
		in.write([]byte("]"))
	}
	in.write([]byte("}\n"))
	in.flush()
	return hex.EncodeToString(h.Sum(nil)), nil
}

// indenter indents compact JSON (encoding/json's output: no space outside strings) as
// json.Encoder with SetIndent("", " ") does, writing the result to h in blocks: a newline and
// one space per level after an opening bracket and after a comma, a space after a colon,
// empty objects and arrays kept as {} and [].
type indenter struct {
	h          hash.Hash
	out        []byte
	depth      int
	needIndent bool // after { or [: indent unless the next byte closes it
	inString   bool
	escaped    bool
}

func (x *indenter) write(p []byte) {
	for _, c := range p {
		if x.inString {
			x.out = append(x.out, c)
			switch {
			case x.escaped:
				x.escaped = false
			case c == '\\':
				x.escaped = true
			case c == '"':
				x.inString = false
			}
			continue
		}
		if x.needIndent && c != '}' && c != ']' {
			x.needIndent = false
			x.depth++
			x.newline()
		}
		switch c {
		case '"':
			x.inString = true
			x.out = append(x.out, c)
		case '{', '[':
			x.needIndent = true
			x.out = append(x.out, c)
		case ',':
			x.out = append(x.out, c)
			x.newline()
		case ':':
			x.out = append(x.out, c, ' ')
		case '}', ']':
			if x.needIndent {
				x.needIndent = false
			} else {
				x.depth--
				x.newline()
			}
			x.out = append(x.out, c)
		default:
			x.out = append(x.out, c)
		}
		if len(x.out) >= 1<<16 {
			x.flush()
		}
	}
}

func (x *indenter) newline() {
	x.out = append(x.out, '\n')
	for range x.depth {
		x.out = append(x.out, ' ')
	}
}

func (x *indenter) flush() {
	x.h.Write(x.out)
	x.out = x.out[:0]
}
