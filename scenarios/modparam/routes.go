package modparam

import (
	"strconv"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
)

// Text buffer limits of lnet_new_text_buf on a 64-bit kernel: a buffer costs its text, its
// NUL and a 20-byte header (list head and size); one may take 4 KiB, all live ones 64 KiB.
const (
	textBufHeader = 20
	singleTextBuf = 4 << 10
	maxTextBufs   = 64 << 10
)

// UndefinedHops is LNET_UNDEFINED_HOPS: an entry without a hop count.
const UndefinedHops = -1

// RouteEntry is one entry of routes= (lnet_parse_route): routes to every net of Nets
// through every gateway of Gateways, in that order (nets outer), all with the same hop
// count and priority.
type RouteEntry struct {
	// Text is the entry as the kernel keeps it (blanks made spaces), Off where it starts in
	// the option.
	Text string
	Off  int
	Nets []lnet.NetID
	// Gateways' NIDs; lnet.AnyNID for "<?>" (2.16+), which lnet_add_route refuses.
	Gateways []lnet.NID
	// Hops is 1..255, or UndefinedHops.
	Hops int
	// Priority is the priority of the entry's last gateway (0 when it has none): the kernel
	// keeps one priority per entry, which each gateway's ":N" overwrites.
	Priority uint32
}

// textBufs counts live text buffers as lnet_tbnob does.
type textBufs struct{ nob int }

// alloc is lnet_new_text_buf for a text of n bytes; its message on failure.
func (t *textBufs) alloc(n int) string {
	nob := textBufHeader + n + 1
	if nob > singleTextBuf {
		return "text buffer too big"
	}
	if t.nob+nob > maxTextBufs {
		return "Too many text buffers"
	}
	t.nob += nob
	return ""
}

func (t *textBufs) free(n int) { t.nob -= textBufHeader + n + 1 }

// piece is a text buffer: its text and where it starts in the option.
type piece struct {
	text string
	off  int
}

// splitEntries is lnet_str2tbs_sep on option param: entries end at ';', '\n' or '\r'; '#'
// starts a comment to the end of the entry; leading blanks are skipped and the others become
// spaces; empty entries are dropped.
func splitEntries(param, s string, tb *textBufs) ([]piece, *Error) {
	var out []piece
	i := 0
	for {
		for i < len(s) && isSpace(s[i]) {
			i++
		}
		sep := i
		for sep < len(s) && !isSep(s[sep]) && s[sep] != '#' {
			sep++
		}
		if sep > i {
			if msg := tb.alloc(sep - i); msg != "" {
				return nil, &Error{Msg: "Error parsing " + param, Off: i, Width: sep - i, Why: msg}
			}
			b := []byte(s[i:sep])
			for k := range b {
				if isSpace(b[k]) {
					b[k] = ' '
				}
			}
			out = append(out, piece{string(b), i})
		}
		if sep < len(s) && s[sep] == '#' {
			for sep++; sep < len(s) && !isSep(s[sep]); sep++ {
			}
		}
		if sep >= len(s) {
			return out, nil
		}
		i = sep + 1
	}
}

// isSep is lnet_issep.
func isSep(c byte) bool { return c == '\n' || c == '\r' || c == ';' }

// ParseRoutes is lnet_parse_routes: every entry of routes=, in order. On an error it returns
// the entries before the failing one (the kernel has added their routes by then) and the
// error, located in s.
func (d Dialect) ParseRoutes(s string) ([]RouteEntry, *Error) {
	var tb textBufs
	entries, err := splitEntries("routes", s, &tb)
	if err != nil {
		return nil, err
	}
	var out []RouteEntry
	for _, e := range entries {
		re, err := d.parseRoute(e, &tb)
		if err != nil {
			return out, err
		}
		out = append(out, re)
		tb.free(len(e.text))
	}
	return out, nil
}

// parseRoute is lnet_parse_route: the first token is the nets, a second one that reads as
// 1..255 the hop count, the others gateways, each expanded (expand) and then read as a net
// (libcfs_str2net, not lo) or a gateway (lnet_parse_priority, then libcfs_strnid, not
// 0@lo).
func (d Dialect) parseRoute(e piece, tb *textBufs) (RouteEntry, *Error) {
	re := RouteEntry{Text: e.text, Off: e.off, Hops: UndefinedHops}
	str := e.text
	tokErr := func(start, end int, why string) *Error {
		return &Error{Msg: syntaxMsg("routes", str), Off: e.off + start, Width: end - start, Why: why}
	}
	ntokens, gotHops := 0, false
	tokStart, tokEnd := 0, 0
	var live []int // sizes of the entry's text buffers, freed at its end
	defer func() {
		for _, n := range live {
			tb.free(n)
		}
	}()
	for sep := 0; ; {
		for sep < len(str) && isSpace(str[sep]) {
			sep++
		}
		if sep == len(str) {
			need := 2
			if gotHops {
				need = 3
			}
			if ntokens < need {
				return re, tokErr(tokStart, tokEnd, "an entry is a net, an optional hop count and at least one gateway")
			}
			return re, nil
		}
		ntokens++
		tokStart = sep
		for sep < len(str) && !isSpace(str[sep]) {
			sep++
		}
		tokEnd = sep
		token := str[tokStart:tokEnd]
		if ntokens == 2 {
			if h, ok := scanUintAll(token); ok && h > 0 && h < 256 {
				re.Hops, gotHops = int(h), true
				continue
			}
		}
		if msg := tb.alloc(len(token)); msg != "" {
			return re, &Error{Msg: "Error parsing routes", Off: e.off + tokStart, Width: len(token), Why: msg}
		}
		var why string
		var shift int
		ok := expand(token, tb, &live, &why, func(item string) bool {
			if ntokens == 1 {
				net, ok := d.Str2Net(item)
				if !ok || net.Type() == lnet.LOLND {
					why = strconv.Quote(item) + " is not a remote net"
					return false
				}
				re.Nets = append(re.Nets, net)
				return true
			}
			gw := item
			re.Priority = 0
			if c := strings.IndexByte(item, ':'); c >= 0 {
				p, ok := scanUintAll(item[c+1:])
				if !ok {
					shift = c + 1
					why = strconv.Quote(item[c+1:]) + " is not a priority (an unsigned number)"
					return false
				}
				re.Priority, gw = p, item[:c]
			}
			nid, ok := d.strnid(gw)
			if !ok || nid == lnet.LoNID {
				why = strconv.Quote(gw) + " is not a gateway NID"
				return false
			}
			re.Gateways = append(re.Gateways, nid)
			return true
		})
		if !ok {
			return re, tokErr(tokStart+min(shift, len(token)), tokEnd, why)
		}
	}
}

// expand is lnet_str2tbs_expand applied as lnet_parse_route applies it, depth first: the
// first [list] of a text is replaced by each of its items in turn (a-b or a-b/stride a
// range of numbers, anything else itself), and each result expanded again, the finished
// texts handed to use in order. Every text is a buffer counted in tb while it lives: the
// token's own is counted by the caller; an expanded text is freed once its expansions are
// made; a finished one is added to live, freed when the entry ends. It returns false when
// the kernel fails: a bad list (why says what), no room for a buffer, or use refusing a
// text.
func expand(token string, tb *textBufs, live *[]int, why *string, use func(string) bool) bool {
	stack := []string{token} // the list after the current text, nearest last
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		items, msg := expand1(cur)
		if msg != "" {
			*why = msg
			return false
		}
		if items == nil {
			*live = append(*live, len(cur))
			if !use(cur) {
				return false
			}
			continue
		}
		for _, it := range items {
			if m := tb.alloc(len(it)); m != "" {
				*why = m
				return false
			}
		}
		tb.free(len(cur))
		for k := len(items) - 1; k >= 0; k-- {
			stack = append(stack, items[k])
		}
	}
	return true
}

// expand1 is lnet_str2tbs_expand on one text: nil when it has no '[', else the texts its
// first list expands to; msg says why the kernel refuses the list.
func expand1(s string) (items []string, msg string) {
	open := strings.IndexByte(s, '[')
	if open < 0 {
		return nil, ""
	}
	rel := strings.IndexByte(s[open:], ']')
	if rel < 0 {
		return nil, "[ without ]"
	}
	closeAt := open + rel
	head, tail := s[:open], s[closeAt+1:]
	for parsed := open; parsed < closeAt; {
		parsed++
		end := parsed
		for end < closeAt && s[end] != ',' {
			end++
		}
		if end == parsed {
			return nil, "an empty item in " + s[open:closeAt+1]
		}
		lo, hi, stride, scanned, isRange := scanRange(s, parsed)
		if !isRange {
			items = append(items, head+s[parsed:end]+tail)
			parsed = end
			continue
		}
		item := s[parsed:end]
		switch {
		case end != parsed+scanned:
			return nil, "trailing characters after the range in " + strconv.Quote(item)
		case hi < 0 || lo < 0 || stride < 0 || hi < lo:
			return nil, "the range " + strconv.Quote(item) + " must run up from 0 or more, by a positive stride"
		case stride == 0:
			// lnet_str2tbs_expand divides by the stride: the kernel would oops here.
			return nil, "the stride of " + strconv.Quote(item) + " is 0 (the kernel divides by it and crashes)"
		case (hi-lo)%stride != 0:
			return nil, "the range " + strconv.Quote(item) + " does not end on its stride"
		}
		// The kernel's int wraps negative past INT_MAX, and the loop goes on (until the
		// buffers run out, mostly): so does this one, with as many items as could fit.
		for i := lo; i <= hi; i += stride {
			if len(items) == maxTextBufs/(textBufHeader+2) {
				return nil, "Too many text buffers"
			}
			items = append(items, head+strconv.Itoa(int(i))+tail)
		}
		parsed = end
	}
	return items, ""
}

// scanRange reads "%d-%d/%d%n", else "%d-%d%n", at s[i:] as the kernel's sscanf does
// (through the rest of s, not only the item); isRange is false when neither reads two
// numbers.
func scanRange(s string, i int) (lo, hi, stride int32, scanned int, isRange bool) {
	a, n, ok := scanNum(s, i, 10, true)
	if !ok || n >= len(s) || s[n] != '-' {
		return 0, 0, 0, 0, false
	}
	b, n2, ok := scanNum(s, n+1, 10, true)
	if !ok {
		return 0, 0, 0, 0, false
	}
	lo, hi, stride, scanned = int32(a), int32(b), 1, n2-i
	if n2 < len(s) && s[n2] == '/' {
		if c, n3, ok := scanNum(s, n2+1, 10, true); ok {
			stride, scanned = int32(c), n3-i
		}
	}
	return lo, hi, stride, scanned, true
}
