package matrix

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Setting is one key of the matrix's settings given on the command line
// (--trials 3 is load.trials: 3, --set connections=[64,256] is
// connections: [64, 256]): a key a profile takes, dotted, and its value
// in YAML. Flag is the flag as given, which its errors name in place of a
// file and line.
type Setting struct {
	Flag  string // "--trials 0", "--set load.warmup=2s"
	Key   string // "load.trials", "slo.p99.9"
	Value string // YAML: "0", "[64, 256]", "{from: 1000, to: 8000, steps: 4}"
}

// String is the setting as --set takes it, KEY=VALUE: what results.json
// records (Matrix.Set) and ParseSet reads back.
func (s Setting) String() string { return s.Key + "=" + s.Value }

// ParseSet reads KEY=VALUE, the argument of --set.
func ParseSet(kv string) (Setting, error) {
	key, value, ok := strings.Cut(kv, "=")
	if !ok || key == "" {
		return Setting{}, errors.New("want KEY=VALUE, e.g. load.warmup=2s or connections=[64,256]")
	}
	return Setting{Flag: "--set " + kv, Key: key, Value: value}, nil
}

// WithSettings returns a copy of m with settings applied over it, a later
// one winning where two set one key. They are decoded and checked as one
// profile is, so a value the matrix file could not hold is refused with
// the same message, named by its flag (--trials 0: load.trials: must be at
// least 1, got 0). The copy records them in Set.
func (m *Matrix) WithSettings(settings []Setting) (*Matrix, error) {
	if len(settings) == 0 {
		return m, nil
	}
	d := &decoder{file: settings[0].Flag, at: map[string]*yaml.Node{}, bad: map[string]bool{}, fileOf: map[*yaml.Node]string{}}
	doc := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, s := range settings {
		keys := splitKey(s.Key)
		if slices.Contains(keys, "") {
			return nil, Errors{{File: s.Flag, Field: s.Key, Msg: "an empty key: write KEY or KEY.KEY, e.g. load.warmup"}}
		}
		v, err := valueOf(s)
		if err != nil {
			return nil, err
		}
		mark(v, s.Flag, d.fileOf)
		d.put(doc, keys, v, s.Flag)
	}
	d.at[""] = doc
	d.walk(doc, reflect.TypeFor[profileSchema](), "", "", "")
	var pf profileSchema
	var typeErr *yaml.TypeError
	if err := doc.Decode(&pf); err != nil && !errors.As(err, &typeErr) {
		return nil, Errors{{File: d.file, Msg: "cannot decode: " + strings.TrimPrefix(err.Error(), "yaml: ")}}
	}
	p := d.overlay("", pf, m)
	if len(pf.Loadgens) > 0 {
		for i := range p.LoadgensAt {
			p.LoadgensAt[i].Line, p.LoadgensAt[i].Col = 0, 0 // a flag has no lines: its text names it
		}
	}
	for _, k := range []string{"load.duration", "load.requests"} {
		if d.set(k) && len(p.Requests) > 0 && !d.bad[k] {
			d.errAt(k, "the requests axis %v gives each trial its count, in place of the load's duration or requests: set requests=[N] instead", p.Requests)
		}
	}
	if len(d.errs) > 0 {
		for _, e := range d.errs {
			e.Line, e.Col = 0, 0 // a flag has no lines: its text names it
		}
		return nil, d.errs
	}
	c := m.with(p)
	if p.Only != nil {
		c.ProfileOnly = p.Only
	}
	c.Set = slices.Clone(m.Set)
	for _, s := range settings {
		c.Set = append(c.Set, s.String())
	}
	return c, nil
}

// valueOf parses a setting's value as one YAML node; "" is null. A value
// starting with * (a glob: only=*, only=*/json) is the string it reads as,
// not the YAML alias that * would start, which could name no anchor here.
func valueOf(s Setting) (*yaml.Node, error) {
	fail := func(msg string) error { return Errors{{File: s.Flag, Field: s.Key, Msg: msg}} }
	if err := checkShape(s.Flag, []byte(s.Value)); err != nil {
		return nil, fail(fmt.Sprintf("nested more than %d levels deep", MaxDepth))
	}
	var root, next yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(s.Value))
	switch err := dec.Decode(&root); {
	case errors.Is(err, io.EOF) || err == nil && len(root.Content) == 0:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}, nil
	case err != nil && strings.HasPrefix(strings.TrimSpace(s.Value), "*"):
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.TrimSpace(s.Value)}, nil
	case err != nil && strings.Contains(s.Value, "*"):
		return nil, fail("YAML syntax: " + strings.TrimPrefix(err.Error(), "yaml: ") + `: in YAML a * starts an alias; quote a glob, e.g. '*/json' or "go-*"`)
	case err != nil:
		return nil, fail("YAML syntax: " + strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if err := dec.Decode(&next); !errors.Is(err, io.EOF) {
		return nil, fail("one YAML value, not several documents")
	}
	return root.Content[0], nil
}

// put sets the value at keys under mapping n, making the mappings between
// (marked as flag's) and replacing what an earlier setting put there.
func (d *decoder) put(n *yaml.Node, keys []string, v *yaml.Node, flag string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value != keys[0] {
			continue
		}
		if len(keys) == 1 {
			n.Content[i+1] = v
			return
		}
		if n.Content[i+1].Kind != yaml.MappingNode {
			n.Content[i+1] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			d.fileOf[n.Content[i+1]] = flag
		}
		d.put(n.Content[i+1], keys[1:], v, flag)
		return
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: keys[0]}
	d.fileOf[k] = flag
	if len(keys) == 1 {
		n.Content = append(n.Content, k, v)
		return
	}
	sub := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	d.fileOf[sub] = flag
	n.Content = append(n.Content, k, sub)
	d.put(sub, keys[1:], v, flag)
}

// splitKey splits a dotted key into the keys of a profile, a key that
// itself holds a dot taken whole: slo.p99.9 is slo, p99.9.
func splitKey(key string) []string {
	var keys []string
	t := reflect.TypeFor[profileSchema]()
	for {
		k, rest, more := strings.Cut(key, ".")
		var next reflect.Type
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		for i := 0; t != nil && t.Kind() == reflect.Struct && i < t.NumField(); i++ {
			name := strings.Split(t.Field(i).Tag.Get("yaml"), ",")[0]
			if (key == name || strings.HasPrefix(key, name+".")) && len(name) >= len(k) {
				k, next = name, t.Field(i).Type
				rest, more = strings.CutPrefix(key[len(name):], ".")
			}
		}
		keys = append(keys, k)
		if !more {
			return keys
		}
		key, t = rest, next
	}
}
