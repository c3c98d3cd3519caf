package scenarios

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/lnetsim/lnetsim/model/lnet"
	"gopkg.in/yaml.v3"
)

// LnetctlExport is a node's configuration in the shape `lnetctl export` prints (and
// `lnetctl import` reads): see lnet-reference section h. Read-only keys that export prints
// (nid status, statistics, health stats, lnd_timeout, ...) are accepted and ignored.
type LnetctlExport struct {
	Net     []LnetctlNet    `yaml:"net"`
	Route   []LnetctlRoute  `yaml:"route"`
	Peer    []LnetctlPeer   `yaml:"peer"`
	Routing *LnetctlRouting `yaml:"routing"`
	Buffers *LnetctlBuffers `yaml:"buffers"`
	Numa    *LnetctlNuma    `yaml:"numa"`
	Global  *LnetctlGlobal  `yaml:"global"`
	UDSP    []LnetctlUDSP   `yaml:"udsp"`
	// Ping and Discover are what `lnetctl import --exec` runs; an import without --exec, and
	// a node's configuration, skip them (lustre_yaml_config's no-op handlers).
	Ping     *LnetctlExec `yaml:"ping"`
	Discover *LnetctlExec `yaml:"discover"`
	// IP2Nets are the rules of an import's ip2nets section (importIP2Nets); a node's
	// configuration refuses them.
	IP2Nets []LnetctlIP2Net `yaml:"ip2nets"`
}

// LnetctlIP2Net is one ip2nets rule of an import: a net, the interfaces it names (none: the
// interfaces whose address matches), the address patterns an interface must match (none:
// any), and the tunables, lnd tunables and CPT list of the NIs it adds.
type LnetctlIP2Net struct {
	NetSpec     string            `yaml:"net-spec"`
	Interfaces  map[string]string `yaml:"interfaces"`
	IPRange     map[string]string `yaml:"ip-range"`
	Tunables    *LnetctlTunables  `yaml:"tunables"`
	LNDTunables *O2IBParams       `yaml:"lnd tunables"`
	CPT         LnetctlCPT        `yaml:"CPT"`
	LocalNIs    ignored           `yaml:"local NI(s)"` // refused (lnetctl: not valid for ip2nets)
}

// LnetctlNet is one `net type:` entry with its local NIs.
type LnetctlNet struct {
	NetType     string           `yaml:"net type"`
	LocalNIs    []LnetctlNI      `yaml:"local NI(s)"`
	Tunables    *LnetctlTunables `yaml:"tunables"`
	LNDTunables *O2IBParams      `yaml:"lnd tunables"`
}

// LnetctlNI is one local NI of an exported net.
type LnetctlNI struct {
	NID         string            `yaml:"nid"`
	Status      string            `yaml:"status"`
	Interfaces  map[string]string `yaml:"interfaces"`
	Tunables    *LnetctlTunables  `yaml:"tunables"`
	LNDTunables *O2IBParams       `yaml:"lnd tunables"`
	CPT         LnetctlCPT        `yaml:"CPT"`
	DevCPT      ignored           `yaml:"dev cpt"`
	TCPBonding  ignored           `yaml:"tcp bonding"`
	Statistics  ignored           `yaml:"statistics"`
	SentStats   ignored           `yaml:"sent_stats"`
	RecvStats   ignored           `yaml:"received_stats"`
	DropStats   ignored           `yaml:"dropped_stats"`
	HealthStats ignored           `yaml:"health stats"`
	UDSPInfo    ignored           `yaml:"udsp info"`
}

// LnetctlRoute is one exported route.
type LnetctlRoute struct {
	Net               string           `yaml:"net"`
	Gateway           string           `yaml:"gateway"`
	Hop               int              `yaml:"hop"`
	Priority          int              `yaml:"priority"`
	HealthSensitivity routeSensitivity `yaml:"health_sensitivity"`
	Type              ignored          `yaml:"type"`
	State             ignored          `yaml:"state"`
}

// routeSensitivity is an exported route's health_sensitivity (2.15 and 2.16 print it), kept
// as written: a node's configuration does not apply it (it is listed with the keys accepted
// and not applied), an import on a node of those releases hands it to route add
// (importRoute).
type routeSensitivity struct {
	text string
	set  bool
}

func (s *routeSensitivity) decodeYAML(d *decoder, n *yaml.Node, path string) {
	d.ignore(path)
	s.text, s.set = n.Value, true
}

func (r *LnetctlRoute) setDefaults() { r.Hop = -1 }

// LnetctlPeer is one exported peer.
type LnetctlPeer struct {
	PrimaryNID string          `yaml:"primary nid"`
	MultiRail  LnetctlWord     `yaml:"Multi-Rail"`
	PeerState  ignored         `yaml:"peer state"`
	PeerNIs    []LnetctlPeerNI `yaml:"peer ni"`
}

// LnetctlWord is a value kept as written (export prints a peer's Multi-Rail as True or
// False), for the reader to interpret: a node's configuration as a boolean (Bool), lnetctl
// import as the release's lnetctl does (importPeer), where a word that is no boolean fails at
// run time, not at load. A value not written (or null) is the empty word.
type LnetctlWord string

func (w *LnetctlWord) decodeYAML(d *decoder, n *yaml.Node, path string) {
	if s, ok := d.scalar(n, path, "a single value"); ok {
		*w = LnetctlWord(s)
	}
}

// Bool reads the word as the scenario decoder reads a boolean: def when not written, ok false
// when it is no boolean.
func (w LnetctlWord) Bool(def bool) (v, ok bool) {
	switch strings.ToLower(string(w)) {
	case "":
		return def, true
	case "true", "1", "yes", "on":
		return true, true
	case "false", "0", "no", "off":
		return false, true
	}
	return false, false
}

// LnetctlPeerNI is one NI of an exported peer; everything but nid is show-only.
type LnetctlPeerNI struct {
	NID        string  `yaml:"nid"`
	UDSPInfo   ignored `yaml:"udsp info"`
	State      ignored `yaml:"state"`
	MaxCred    ignored `yaml:"max_ni_tx_credits"`
	AvailTx    ignored `yaml:"available_tx_credits"`
	MinTx      ignored `yaml:"min_tx_credits"`
	TxQ        ignored `yaml:"tx_q_num_of_buf"`
	AvailRtr   ignored `yaml:"available_rtr_credits"`
	MinRtr     ignored `yaml:"min_rtr_credits"`
	Refcount   ignored `yaml:"refcount"`
	Statistics ignored `yaml:"statistics"`
	SentStats  ignored `yaml:"sent_stats"`
	RecvStats  ignored `yaml:"received_stats"`
	DropStats  ignored `yaml:"dropped_stats"`
	Health     ignored `yaml:"health stats"`
}

// LnetctlUDSP is one policy as `lnetctl udsp show` (and export) prints it. lnetctl's import
// skips an entry without idx and passes every entry as a priority rule (a preferred-list
// rule then fails the kernel's action check and is ignored); lnetsim adds each entry as
// `lnetctl udsp add` would, appending one without idx.
type LnetctlUDSP struct {
	Idx    int                `yaml:"idx"`
	Src    string             `yaml:"src"`
	Dst    string             `yaml:"dst"`
	Rte    string             `yaml:"rte"`
	Action *LnetctlUDSPAction `yaml:"action"`
}

func (u *LnetctlUDSP) setDefaults() { u.Idx = -1 }

// LnetctlUDSPAction is a policy's `action:` mapping (only priority rules print one).
type LnetctlUDSPAction struct {
	Priority int64 `yaml:"priority"`
}

// LnetctlRouting is `routing:` as export --backup prints it ({enable: 0|1}) or as export
// prints it: a list of `cpt[N]:` pool blocks (show-only) ending with {enable: 0|1}.
type LnetctlRouting struct {
	Enable bool `yaml:"enable"`
}

func (r *LnetctlRouting) decodeYAML(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.SequenceNode {
		d.decodeStruct(n, reflectValue(r), path)
		return
	}
	for i, item := range n.Content {
		p := index(path, i)
		if item.Kind == yaml.MappingNode && len(item.Content) == 2 && item.Content[0].Value == "enable" {
			d.decodeStruct(item, reflectValue(r), path)
			continue
		}
		if item.Kind != yaml.MappingNode || len(item.Content) != 2 || !strings.HasPrefix(item.Content[0].Value, "cpt[") {
			d.errorf(item, p, "paste lnetctl's routing section", "expected cpt[N]: or enable:, got %s", describe(item))
			continue
		}
		d.ignore(p + "." + item.Content[0].Value)
	}
}

// LnetctlTunables is an NI's or net's `tunables:`. Lustre 2.10 and 2.13 on print the LND's
// tunables under `lnd tunables:`; 2.11 and 2.12 print them inside `tunables:` (and leave
// `lnd tunables:` empty), so the o2ib keys found here become the NI's LND tunables. 2.12
// also reads a net-level CPT list here. -1 for an LNet tunable means the module's value
// (kiblnd_tunables_setup takes it for peer_timeout, peer_credits, peer_buffer_credits and
// credits), as if the key were not written.
type LnetctlTunables struct {
	NetTunables
	LND *O2IBParams // the o2ib keys written here, nil when none
	CPT string      // a net-level CPT list
}

func (t *LnetctlTunables) setDefaults() { t.NetTunables.setDefaults() }

// o2ibInTunables are the o2ib tunables lnetctl 2.11 and 2.12 print inside `tunables:`.
var o2ibInTunables = set("peercredits_hiw", "map_on_demand", "concurrent_sends", "fmr_pool_size",
	"fmr_flush_trigger", "fmr_cache", "ntx", "conns_per_peer")

func (t *LnetctlTunables) decodeYAML(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.MappingNode {
		d.decodeStruct(n, reflectValue(&t.NetTunables), path)
		return
	}
	lnetKeys := &yaml.Node{Kind: yaml.MappingNode, Tag: n.Tag, Line: n.Line, Column: n.Column}
	lndKeys := &yaml.Node{Kind: yaml.MappingNode, Tag: n.Tag, Line: n.Line, Column: n.Column}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case o2ibInTunables[k.Value]:
			lndKeys.Content = append(lndKeys.Content, k, v)
		case k.Value == "CPT":
			t.CPT = v.Value
		case v.Kind == yaml.ScalarNode && strings.TrimSpace(v.Value) == "-1":
			// the module's value: left unwritten
		default:
			lnetKeys.Content = append(lnetKeys.Content, k, v)
		}
	}
	d.decodeStruct(lnetKeys, reflectValue(&t.NetTunables), path)
	if len(lndKeys.Content) > 0 {
		t.LND = &O2IBParams{}
		t.LND.setDefaults()
		d.decodeStruct(lndKeys, reflectValue(t.LND), path)
		// The keys both share are the LNet ones written beside them.
		nt := t.NetTunables
		t.LND.PeerTimeout, t.LND.PeerCredits, t.LND.PeerBufferCredits, t.LND.Credits = nt.PeerTimeout, nt.PeerCredits, nt.PeerBufferCredits, nt.Credits
	}
}

// LnetctlBuffers is `buffers: {tiny, small, large}` (router buffer totals).
type LnetctlBuffers struct {
	Tiny  int `yaml:"tiny"`
	Small int `yaml:"small"`
	Large int `yaml:"large"`
}

// LnetctlNuma is `numa: {range: N}`.
type LnetctlNuma struct {
	Range int `yaml:"range"`
}

// LnetctlGlobal is the `global:` section: lnet's global keys, plus lnd_timeout which export
// prints but which is derived (ignored).
type LnetctlGlobal struct {
	Globals    `yaml:",inline"`
	LNDTimeout ignored `yaml:"lnd_timeout"`
	// words are an import document's values as written, by key (max_intf as
	// max_interfaces): lnetctl reads them by release (importGlobal), not as the scenario's
	// own globals are read.
	words map[string]string
}

// decodeYAML reads the section. In an import document (a fault's yaml) each scalar value is
// kept as written in words and the typed fields are read from a copy where it is 0, so that
// no word is refused before the node's release reads it; elsewhere the section is read as
// written.
func (g *LnetctlGlobal) decodeYAML(d *decoder, n *yaml.Node, path string) {
	if !isImportPath(path) || n.Kind != yaml.MappingNode {
		d.decodeStruct(n, reflectValue(g), path)
		return
	}
	cp := *n
	cp.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !slices.Contains(globalKeys, k.Value) {
			d.errorf(k, join(path, k.Value), "keys: "+strings.Join(globalKeys, ", "),
				"import: invalid key '%s' (lnetctl from 2.16 fails with EINVAL)", k.Value)
			continue
		}
		if v.Kind == yaml.ScalarNode && !isNull(v) {
			if g.words == nil {
				g.words = map[string]string{}
			}
			key := k.Value
			if key == "max_intf" {
				key = "max_interfaces" // the legacy name, which the decoder reads as this one
			}
			g.words[key] = v.Value
			z := *v
			z.Value, z.Tag, z.Style = "0", "!!int", 0
			v = &z
		}
		cp.Content = append(cp.Content, k, v)
	}
	d.decodeStruct(&cp, reflectValue(g), path)
}

// isImportPath tells an import document (a timeline entry's yaml) from a node's lnetctl.
func isImportPath(path string) bool { return strings.HasPrefix(path, "faults[") }

func (g *LnetctlGlobal) setDefaults() { g.Globals.setDefaults() }

// decodeYAML accepts the export as YAML in place, or as a block of text (`lnetctl: |`
// followed by the pasted output), whose positions are mapped back into the scenario file.
func (e *LnetctlExport) decodeYAML(d *decoder, n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode {
		if isImportPath(path) {
			n = d.importKeys(n, path)
		}
		d.decodeStruct(n, reflectValue(e), path)
		return
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(n.Value), &doc); err != nil {
		d.errorf(n, path, "paste the output of lnetctl export", "the lnetctl text is not valid YAML: %v", strings.TrimPrefix(err.Error(), "yaml: "))
		return
	}
	if len(doc.Content) == 0 {
		return
	}
	// A literal or folded block starts on the line after its indicator, indented.
	lineOff, colOff := n.Line-1, n.Column-1
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		lineOff = n.Line
		colOff = 0
		if n.Line < len(d.src) {
			l := d.src[n.Line]
			colOff = len(l) - len(bytes.TrimLeft(l, " "))
		}
	}
	shift(doc.Content[0], lineOff, colOff, 0)
	if d.origins[n] != "" {
		markOrigin(doc.Content[0], d.origins[n], d.origins)
	}
	d.decodeStruct(doc.Content[0], reflectValue(e), path)
}

// importKeys refuses an import document's top-level key that names no section, as lnetctl
// does from 2.16 (LU-17895: yaml_lnet_import reads such a key as a global parameter, and
// handle_global_parameter fails with EINVAL, "invalid key"; up to 2.15 lustre_yaml_config
// skips it, which lnetsim refuses as it refuses what lnetctl ignores), and returns the
// document without it. A global parameter written there, which lnetctl from 2.16 sets, is
// refused with where to write it.
func (d *decoder) importKeys(n *yaml.Node, path string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return n
	}
	si := fieldsOf(reflect.TypeOf(LnetctlExport{}))
	cp := *n
	cp.Content = nil
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if _, ok := si.byName[k.Value]; ok {
			cp.Content = append(cp.Content, k, n.Content[i+1])
			continue
		}
		if slices.Contains(globalKeys, k.Value) {
			d.errorf(k, join(path, k.Value), "write it under global: (lnetctl from 2.16 also reads it at the top)",
				"import: %s outside the global section is not modelled", k.Value)
			continue
		}
		d.errorf(k, join(path, k.Value), "sections: "+strings.Join(importSections(si), ", "),
			"import: invalid key '%s' (lnetctl from 2.16 fails with EINVAL; up to 2.15 it skips the key)", k.Value)
	}
	return &cp
}

// globalKeys are the keys of an export's global section (lnet's global parameters).
var globalKeys = []string{"numa_range", "max_interfaces", "max_intf", "discovery", "drop_asym_route", "retry_count",
	"transaction_timeout", "health_sensitivity", "recovery_interval", "router_sensitivity", "lnd_timeout",
	"response_tracking", "recovery_limit", "max_recovery_ping_interval"}

// importSections lists an import document's sections, sorted.
func importSections(si *structInfo) []string {
	var names []string
	for _, f := range si.fields {
		names = append(names, f.name)
	}
	sort.Strings(names)
	return names
}

// shift moves the positions of a parsed sub-document into the enclosing file.
func shift(n *yaml.Node, dl, dc, depth int) {
	if n == nil || depth > maxDepth {
		return
	}
	n.Line += dl
	n.Column += dc
	for _, c := range n.Content {
		shift(c, dl, dc, depth+1)
	}
}

// ignored accepts any value: a key of lnetctl's output the model has no use for. Load
// lists each such key once per node (Scenario.Ignored).
type ignored struct{}

func (ignored) decodeYAML(d *decoder, _ *yaml.Node, path string) { d.ignore(path) }

// ignore records an accepted key the model has no use for.
func (d *decoder) ignore(path string) { d.ignored = append(d.ignored, path) }

// ignoredSummary lists, per lnetctl section ("nodes.client.lnetctl"), the keys ignored there
// once each, sorted: "nodes.client.lnetctl: CPT, dev cpt, statistics".
func ignoredSummary(paths []string) []string {
	keys := map[string][]string{}
	var sections []string
	for _, p := range paths {
		sec, rest, ok := strings.Cut(p, ".lnetctl.")
		if !ok {
			continue
		}
		sec += ".lnetctl"
		if _, seen := keys[sec]; !seen {
			sections = append(sections, sec)
		}
		k := rest[strings.LastIndex(rest, ".")+1:]
		if i := strings.Index(k, "["); i > 0 && !strings.HasPrefix(k, "cpt[") {
			k = k[:i]
		}
		if strings.HasPrefix(k, "cpt[") {
			k = "routing cpt[N]"
		}
		if !slices.Contains(keys[sec], k) {
			keys[sec] = append(keys[sec], k)
		}
	}
	var out []string
	for _, sec := range sections {
		ks := keys[sec]
		sort.Strings(ks)
		out = append(out, sec+": "+strings.Join(ks, ", "))
	}
	return out
}

// LnetctlShowCommands are the commands an lnetctl check reads, besides `which_nid NID...`
// and the net, peer and route shows with levels and filters (ParseShowCommand), of which the
// first three are the forms without them.
var LnetctlShowCommands = []string{"net show -v", "peer show -v", "peer list", "route show -v", "routing show", "udsp show",
	"stats show", "global show", "export", "export --backup",
	"debug recovery --local", "debug recovery -l", "debug recovery --peer", "debug recovery -p",
	"fault drop show", "fault delay show"}

// YAMLDoc is a YAML document a scenario writes for the lnetctl check: a mapping in place, or
// a block of text as lnetctl prints it (`present: |`). It is kept as plain values (see
// PlainYAML) so that it compares the way sanity-lnet compares parsed YAML.
type YAMLDoc struct {
	Value map[string]any
}

func (y *YAMLDoc) decodeYAML(d *decoder, n *yaml.Node, path string) {
	doc := n
	if n.Kind == yaml.ScalarNode {
		var root yaml.Node
		if err := yaml.Unmarshal([]byte(n.Value), &root); err != nil {
			d.errorf(n, path, "write the YAML lnetctl prints", "not valid YAML: %v", strings.TrimPrefix(err.Error(), "yaml: "))
			return
		}
		if len(root.Content) == 0 {
			d.errorf(n, path, "e.g. route: [{net: o2ib1, gateway: 10.0.0.2@o2ib}]", "an empty document")
			return
		}
		doc = root.Content[0]
	}
	budget := maxNodes
	m, ok := plainYAML(doc, 0, &budget).(map[string]any)
	if budget == 0 {
		d.errorf(n, path, "write the YAML without aliases that multiply it", "the document is too large (more than %d values)", maxNodes)
		return
	}
	if !ok {
		d.errorf(n, path, "e.g. route: [{net: o2ib1, gateway: 10.0.0.2@o2ib}]", "expected a mapping of lnetctl's top-level keys, got %s", describe(n))
		return
	}
	y.Value = m
}

// MarshalJSON writes the document's values.
func (y YAMLDoc) MarshalJSON() ([]byte, error) { return json.Marshal(y.Value) }

// PlainYAML converts a parsed YAML node to plain values as a YAML loader types them:
// mappings to map[string]any (keys as written, so `0: ib0` has key "0"), sequences to []any,
// scalars to bool, int, float64, string or nil. Aliases are followed up to maxDepth.
func PlainYAML(n *yaml.Node) any {
	budget := -1
	return plainYAML(n, 0, &budget)
}

// plainYAML is PlainYAML visiting at most *budget nodes (aliases expanded each time they
// are met; -1 no limit); once it is spent, the rest reads as nil.
func plainYAML(n *yaml.Node, depth int, budget *int) any {
	if n == nil || depth > maxDepth || *budget == 0 {
		return nil
	}
	if *budget > 0 {
		*budget--
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return plainYAML(n.Content[0], depth+1, budget)
	case yaml.AliasNode:
		return plainYAML(n.Alias, depth+1, budget)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = plainYAML(n.Content[i+1], depth+1, budget)
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			s = append(s, plainYAML(c, depth+1, budget))
		}
		return s
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return n.Value
	}
	return v
}

// lnetctlCheck validates an lnetctl check: a node, a known command (which_nid with valid
// NIDs) and at least one of present, absent and equal.
func (r *resolver) lnetctlCheck(p string, e *Expectation) {
	if e.Node == "" {
		r.errorAt(p+".node", "the node whose lnetctl output is read", "an lnetctl check needs node")
	}
	hint := "use " + strings.Join(LnetctlShowCommands, ", ") + ", net|peer|route show with options, udsp show --idx N, or which_nid NID..."
	switch args, ok := strings.CutPrefix(e.Command, "which_nid "); {
	case e.Command == "":
		r.errorAt(p+".command", hint, "an lnetctl check needs command")
	case IsShowCommand(e.Command):
		var prof lnet.Profile
		if m := r.s.Member(e.Node); m != nil {
			prof = r.rel[m.Group].Profile
		}
		sc, err := ParseShowCommandOf(e.Command, prof)
		if err != nil {
			r.errorAt(p+".command", showUsage(e.Command), "%v", err)
		}
		e.Show = sc
	case IsUDSPShow(e.Command):
		var prof lnet.Profile
		rel := ""
		if m := r.s.Member(e.Node); m != nil {
			prof, rel = r.rel[m.Group].Profile, r.rel[m.Group].Name
		}
		if prof.NoUDSP {
			r.errorAt(p+".command", "remove it (lnetctl has udsp from 2.14, LU-9121: 2.15 and later)", "udsp show: no such command in lnetctl (%s runs %s)", e.Node, rel)
		} else if _, err := ParseUDSPShow(e.Command, prof); err != nil {
			r.errorAt(p+".command", "lnetctl udsp show [--idx N]", "%v", err)
		}
	case ok:
		for _, a := range strings.Fields(args) {
			if _, err := ParseNID(a); err != nil {
				r.errorAt(p+".command", "which_nid takes NIDs such as 10.0.0.1@o2ib", "%v", err)
			}
		}
	case !slices.Contains(LnetctlShowCommands, e.Command):
		r.errorAt(p+".command", hint, "unknown command %q", e.Command)
	case strings.HasPrefix(e.Command, "fault "):
		r.faultRelease(p+".command", &Command{Verb: e.Command, node: e.Node})
	}
	if e.Present == nil && e.Absent == nil && e.Equal == nil {
		r.errorAt(p, "e.g. present: {route: [{net: o2ib1, state: up}]}", "give present, absent or equal")
	}
}
