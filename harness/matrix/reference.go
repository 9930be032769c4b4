package matrix

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"time"

	units "github.com/docker/go-units"
	"github.com/invopop/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/webbench/webbench/harness/axis"
	"github.com/webbench/webbench/harness/cellid"
)

// Reference is matrix.yaml's reference, read from the schema types the
// decoder walks (fileSchema and the types it holds): every key path with
// its type, bounds, default, description and example, and the JSON Schema
// of the whole file. docs/matrix.md and docs/matrix.schema.json are its
// renderings; TestReference fails when they differ from what it renders.
//
// The JSON Schema is built by hand, from the same walk as the keys, into
// invopop/jsonschema's Schema type, rather than by its Reflector: what a
// value may be is in the check tags, which the Reflector does not read
// (jsonschema tags would say it a second time, and drift); the decoder
// applies a field's check to the entries of its lists and the values of
// its mappings and names to their keys, which no field tag of the
// Reflector can say; durations are strings, and the YAML shapes of
// rateSchema (a list or a sweep) and namesSchema (a name or a list) are
// their UnmarshalYAML, not their fields.
type Reference struct {
	Keys   []Key              // in schema order, a mapping before its keys
	Schema *jsonschema.Schema // of the whole file, draft 2020-12
}

// Key is one key path of matrix.yaml.
type Key struct {
	Path     string // dotted: <name> stands for a name, <key> for any key, [] for a list's entries
	Type     string // in words: duration, list of integer, mapping: name → mapping…
	Required bool   // in the mapping that holds it
	Allowed  string // what its check tag allows, in words
	Default  string // YAML; "as `x`": key x's value; "" when the code has none
	Doc      string // from the field's doc tag
	Example  string // YAML, from the field's example tag

	field  reflect.StructField
	schema *jsonschema.Schema
}

// NewReference walks the schema types. It parses a small matrix (in a
// temporary folder, for its Dockerfile) to read the defaults the decoder
// applies, and fails if an example is not YAML.
func NewReference() (*Reference, error) {
	defs, err := defaults()
	if err != nil {
		return nil, err
	}
	w := &walker{defaults: defs}
	s := w.object(reflect.TypeFor[fileSchema](), "")
	if w.err != nil {
		return nil, w.err
	}
	paths := map[string]bool{}
	for _, k := range w.keys {
		paths[k.Path] = true
	}
	for p := range defs {
		if !paths[p] {
			return nil, fmt.Errorf("a default for %s, which is no key of the schema", p)
		}
	}
	for i, k := range w.keys {
		if from := inherited(k.Path); k.Default == "" && paths[from] {
			w.keys[i].Default = "as `" + from + "`"
		}
	}
	s.Version = jsonschema.Version
	s.ID = "https://github.com/webbench/webbench/docs/matrix.schema.json"
	s.Title = "webbench matrix.yaml"
	s.Description = fmt.Sprintf("A benchmark matrix, schema version %d: docs/matrix.md describes every key.", SchemaVersion)
	return &Reference{Keys: w.keys, Schema: s}, nil
}

// inherited is the key whose value a key starts from when the file does
// not set it: a profile starts from the file's settings (its load key by
// key; slo, rate and report it replaces whole), and a target's limits
// overlay the file's key by key.
func inherited(path string) string {
	if k, ok := strings.CutPrefix(path, "profiles.<name>."); ok && (!strings.Contains(k, ".") || strings.HasPrefix(k, "load.")) {
		return k
	}
	if k, ok := strings.CutPrefix(path, "targets.<name>.limits."); ok {
		return "limits." + k
	}
	return ""
}

// probe is the smallest matrix the decoder accepts with a target, a
// service, a scenario and an engine: what it makes of the keys the probe
// leaves out is their default.
const probe = `version: 1
load: {duration: 1s}
connections: [1]
engines: {e: {host: default}}
placement: {target: e, loadgen: e}
targets: {t: {services: {s: {build: .}}, entry: s, port: 1}}
scenarios: {s: {path: /, expect: {}}}
`

// defaults reads the default of every key that has one from the code: the
// decoder's result for probe, the axes' expansion, and Defaults, which
// every matrix's load starts from (probe sets its own duration). A
// default changed in the code changes the reference.
func defaults() (map[string]any, error) {
	dir, err := os.MkdirTemp("", "webbench-reference-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM scratch\n"), 0o644); err != nil {
		return nil, err
	}
	m, err := Parse(filepath.Join(dir, "matrix.yaml"), []byte(probe))
	if err != nil {
		return nil, fmt.Errorf("the defaults probe: %w", err)
	}
	t := m.Targets[0]
	var speaks []string
	for _, p := range cellid.Protocols {
		if t.Speaks(p) {
			speaks = append(speaks, p)
		}
	}
	out := map[string]any{
		"network": m.Network, "cpus": m.CPUs, "keepalive": m.KeepAlive, "rate": m.Rate,
		"generator": Generators(m), "pinning": Pinnings(m), "protocol": Protocols(m),
		"limits.memory": units.BytesSize(float64(m.Limits.MemoryBytes)), "limits.pids": m.Limits.Pids,
		"limits.nofile":                           DefaultNoFile, // Limits.NoFile 0 asks for it, or the engine's hard limit where lower
		"engines.<name>.reserve":                  m.Engines["e"].Reserve,
		"targets.<name>.services.<name>.replicas": t.Services[0].Replicas,
		"targets.<name>.protocols":                speaks,
		"scenarios.<name>.expect.status":          m.Scenarios[0].Expect.Status,
	}
	load := reflect.ValueOf(Defaults)
	for i := range load.NumField() {
		if v := load.Field(i); !v.IsZero() {
			out["load."+strings.Split(load.Type().Field(i).Tag.Get("json"), ",")[0]] = v.Interface()
		}
	}
	for k, v := range out {
		out[k] = plain(v)
	}
	return out, nil
}

// plain turns a default into what JSON and YAML write: durations as Go
// writes them (without a trailing 0m or 0s), named strings as strings,
// lists as []any.
func plain(v any) any {
	if d, ok := v.(time.Duration); ok {
		s := d.String()
		for _, zero := range []string{"0s", "0m"} {
			if t := strings.TrimSuffix(s, zero); t != s && strings.ContainsAny(t[len(t)-1:], "mh") {
				s = t
			}
		}
		return s
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return rv.String()
	case reflect.Slice:
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = plain(rv.Index(i).Interface())
		}
		return out
	}
	return v
}

// flow writes a plain value as YAML flow text.
func flow(v any) string {
	if l, ok := v.([]any); ok {
		parts := make([]string, len(l))
		for i, e := range l {
			parts[i] = flow(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// check is a parsed check tag: the rules decoder.walk enforces.
type check map[string]string

func parseCheck(tag string) check {
	c := check{}
	for _, part := range strings.Split(tag, ",") {
		if part != "" {
			k, v, _ := strings.Cut(part, "=")
			c[k] = v
		}
	}
	return c
}

func (c check) has(rule string) bool {
	_, ok := c[rule]
	return ok
}

// walker builds the keys and the JSON Schema in one walk of the types, as
// decoder.walk reads them.
type walker struct {
	keys     []Key
	defaults map[string]any
	err      error // the first example that is not YAML
}

// object is the schema of a mapping of struct type t at path; it adds a
// key for each field, before the keys of its value.
func (w *walker) object(t reflect.Type, path string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Properties: jsonschema.NewProperties(), AdditionalProperties: jsonschema.FalseSchema}
	for i := range t.NumField() {
		f := t.Field(i)
		name := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if f.Type == reflect.TypeFor[declaredSchema]() { // the declared axes' keys
			w.axes(s, path)
			continue
		}
		at := len(w.keys)
		w.keys = append(w.keys, Key{})
		k := w.field(f, join(path, name))
		w.keys[at] = k
		s.Properties.Set(name, k.schema)
		if k.Required {
			s.Required = append(s.Required, name)
		}
	}
	return s
}

// field is the key of struct field f at path, with its schema.
func (w *walker) field(f reflect.StructField, path string) Key {
	c := parseCheck(f.Tag.Get("check"))
	s, typ := w.value(f.Type, path, c)
	k := Key{Path: path, Type: typ, Required: c.has("required"), Allowed: allowed(f.Type, path, c),
		Doc: f.Tag.Get("doc"), Example: f.Tag.Get("example"), field: f, schema: s}
	s.Description = k.Doc
	if elem(f.Type) == reflect.TypeFor[time.Duration]() && k.Allowed != "" {
		s.Description += " Allowed: " + k.Allowed + "." // bounds a JSON Schema cannot check on a string
	}
	if path == "version" { // the decoder's one rule on it beyond its type
		s.Const, k.Allowed = SchemaVersion, fmt.Sprint(SchemaVersion)
	}
	if v, ok := w.defaults[path]; ok {
		k.Default, s.Default = flow(v), v
	}
	var ex any
	if err := yaml.Unmarshal([]byte(k.Example), &ex); err != nil && w.err == nil {
		w.err = fmt.Errorf("%s: example %q: %v", path, k.Example, err)
	}
	if ex != nil {
		s.Examples = []any{ex}
	}
	return k
}

func elem(t reflect.Type) reflect.Type {
	if t.Kind() == reflect.Pointer {
		return t.Elem()
	}
	return t
}

// value is the schema of a value of type t at path under check c, and its
// type in words. As decoder.walk does, it applies c to a list's entries
// and a mapping's values, and names to a mapping's keys.
func (w *walker) value(t reflect.Type, path string, c check) (*jsonschema.Schema, string) {
	t = elem(t)
	switch {
	case t == reflect.TypeFor[rateSchema](): // a list, or a sweep
		list, _ := w.value(reflect.TypeFor[[]int](), path, c)
		sweep := w.object(reflect.TypeFor[sweepSchema](), path)
		return &jsonschema.Schema{OneOf: []*jsonschema.Schema{list, sweep}}, "list of integer, or mapping (a sweep)"
	case t == reflect.TypeFor[namesSchema](): // a name, or a list of names
		one, _ := w.value(reflect.TypeFor[string](), path, c)
		list, _ := w.value(reflect.TypeFor[[]string](), path, c)
		return &jsonschema.Schema{OneOf: []*jsonschema.Schema{one, list}}, "string, or list of string"
	case t.Kind() == reflect.Struct:
		return w.object(t, path), "mapping"
	case t.Kind() == reflect.Map:
		keys, word := keySchema(path, c)
		v, typ := w.value(t.Elem(), path+".<"+word+">", c)
		return &jsonschema.Schema{Type: "object", PropertyNames: keys, AdditionalProperties: v}, "mapping: " + word + " → " + typ
	case t.Kind() == reflect.Slice:
		items, typ := w.value(t.Elem(), path+"[]", c)
		s := &jsonschema.Schema{Type: "array", Items: items, UniqueItems: c.has("unique")}
		if c.has("nonempty") {
			s.MinItems = new(uint64(1))
		}
		return s, "list of " + typ
	case t.Kind() == reflect.Interface: // expect.json: any value
		return &jsonschema.Schema{}, "any"
	}
	return scalar(t, c)
}

// durationPattern is what time.ParseDuration reads, without a sign (the
// decoder refuses negative durations), or "0".
const durationPattern = `^0$|^(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`

// scalar is the schema of a scalar of type t under check c, and its type
// in words.
func scalar(t reflect.Type, c check) (*jsonschema.Schema, string) {
	switch t.Kind() {
	case reflect.Int64:
		if t == reflect.TypeFor[time.Duration]() {
			s := &jsonschema.Schema{Type: "string", Pattern: durationPattern}
			if c.has("zero") { // YAML reads a bare 0 as an integer
				s = &jsonschema.Schema{AnyOf: []*jsonschema.Schema{s, {Const: 0}}}
			}
			return s, "duration"
		}
		fallthrough
	case reflect.Int:
		return &jsonschema.Schema{Type: "integer", Minimum: json.Number(c["min"]), Maximum: json.Number(c["max"])}, "integer"
	case reflect.Float64:
		return &jsonschema.Schema{Type: "number", Minimum: json.Number(c["min"]), Maximum: json.Number(c["max"])}, "number"
	case reflect.Bool:
		return &jsonschema.Schema{Type: "boolean"}, "boolean"
	}
	switch {
	case c.has("oneof"):
		var enum []any
		for _, v := range strings.Split(c["oneof"], "|") {
			enum = append(enum, v)
		}
		return &jsonschema.Schema{Type: "string", Enum: enum}, "string"
	case c.has("str"):
		return &jsonschema.Schema{Type: "string"}, "string"
	}
	// Without str, the decoder reads any scalar as its text.
	return &jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "string"}, {Type: "number"}, {Type: "boolean"}}}, "string"
}

// keySchema is the schema of the keys of the mapping at path, and the word
// its paths use for a key: names are ValidName's; an env mapping's keys
// are what decoder.env accepts.
func keySchema(path string, c check) (*jsonschema.Schema, string) {
	switch {
	case c.has("names"):
		return &jsonschema.Schema{Pattern: validName.String(), MaxLength: new(uint64(maxName))}, "name"
	case isEnv(path):
		return &jsonschema.Schema{Pattern: envKey.String(), Not: &jsonschema.Schema{Pattern: harnessKey.String()}}, "key"
	}
	return nil, "key"
}

// isEnv says whether path is an env mapping, whose keys decoder.env checks.
func isEnv(path string) bool { return path == "env" || strings.HasSuffix(path, ".env") }

// allowed says in words what check c allows a value of type t at path:
// of a mapping, its keys and its values; of a list, its entries and itself.
func allowed(t reflect.Type, path string, c check) string {
	var keys, out []string
	switch {
	case c.has("names"):
		keys = append(keys, "keys are names")
	case isEnv(path) && elem(t).Kind() == reflect.Map:
		keys = append(keys, "keys are environment variable names the harness does not set")
	}
	if v, ok := c["oneof"]; ok {
		out = append(out, "`"+strings.ReplaceAll(v, "|", "`, `")+"`")
	}
	lo, hi := c["min"], c["max"]
	bound := ""
	switch {
	case lo != "" && hi != "":
		bound = lo + " to " + hi
	case lo != "":
		bound = "at least " + lo
	case hi != "":
		bound = "at most " + hi
	}
	if c.has("zero") {
		bound = "0, or " + bound
	}
	if bound != "" {
		out = append(out, bound)
	}
	if c.has("nonempty") {
		out = append(out, "at least one")
	}
	if c.has("unique") {
		out = append(out, "no repeats")
	}
	if c.has("str") {
		out = append(out, "a string")
	}
	if elem(t).Kind() == reflect.Map && len(out) > 0 {
		out = []string{"values: " + strings.Join(out, ", ")}
	}
	return strings.Join(append(keys, out...), "; ")
}

// Markdown renders the keys as docs/matrix.md: a table per top-level key.
func (r *Reference) Markdown() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `# matrix.yaml reference

<!-- Generated from harness/matrix/decode.go by `+"`go test ./harness/matrix -run Reference -update`"+`: do not edit. -->

Every key of a matrix file (schema version %d), generated from the schema types the decoder
validates against (harness/matrix/decode.go): `+"`go test ./harness/matrix`"+` fails when this file
differs from what the code renders, and `+"`go test ./harness/matrix -run Reference -update`"+`
rewrites it. Defaults are read from the code; — means none.

The same schema as JSON Schema (draft 2020-12) is [matrix.schema.json](matrix.schema.json): editors
that read JSON Schema complete and check matrix.yaml with it (VS Code's YAML extension, for one,
with `+"`# yaml-language-server: $schema=docs/matrix.schema.json`"+` as the file's first line). It
checks each value's type, enum and integer bounds, the names and the required keys; the rules
across keys (duration or requests, build or services, a baseline on its axis, a Dockerfile in each
build folder) are the decoder's: `+"`harness plan`"+` checks them all.

In a path, `+"`<name>`"+` is a name (lowercase letters and digits, separated by '.', '_', '__' or dashes,
at most %d characters), `+"`<key>`"+` any key, `+"`[]`"+` each entry of a list. *required* is within
the mapping that holds the key; a default "as `+"`x`"+`" is the value of key `+"`x`"+`.
`, SchemaVersion, maxName)
	for _, k := range r.Keys {
		if !strings.ContainsAny(k.Path, ".[") {
			fmt.Fprintf(&b, "\n## `%s`\n\n| key | type | required | default | allowed | description | example |\n|---|---|---|---|---|---|---|\n", k.Path)
		}
		req, def := "", "—"
		if k.Required {
			req = "yes"
		}
		if strings.HasPrefix(k.Default, "as `") {
			def = k.Default
		} else if k.Default != "" {
			def = code(k.Default)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", code(k.Path), text(k.Type), req, def, text(k.Allowed), text(k.Doc), code(k.Example))
	}
	return b.Bytes()
}

// code is s as a code span in a table cell.
func code(s string) string { return "`" + strings.ReplaceAll(s, "|", `\|`) + "`" }

// text is s as text in a table cell: no HTML, no column break.
func text(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;", "\n", " ").Replace(s)
}

// JSONSchema renders the schema as docs/matrix.schema.json.
func (r *Reference) JSONSchema() ([]byte, error) {
	data, err := json.MarshalIndent(r.Schema, "", "  ")
	if err != nil {
		return nil, err
	}
	// encoding/json writes <, > and & as \u003c…, which a reader of
	// <SERVICE>_ADDRS should not have to decode; the file means the same
	// (checked).
	out := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(data))
	var a, b any
	if json.Unmarshal(data, &a) != nil || json.Unmarshal([]byte(out), &b) != nil || !reflect.DeepEqual(a, b) {
		return nil, fmt.Errorf("unescaping the JSON Schema changed it")
	}
	return append([]byte(out), '\n'), nil
}

// axes adds a key to s, the schema of the mapping at path, for each
// declared axis (package axis), as the decoder reads it: a list of
// distinct strings.
func (w *walker) axes(s *jsonschema.Schema, path string) {
	for _, a := range axis.All() {
		f := reflect.StructField{Name: "Axes", Type: reflect.TypeFor[[]string](), Tag: reflect.StructTag(`check:"nonempty,unique"`)}
		k := w.field(f, join(path, a.Name))
		k.Doc = "Axis: " + a.Doc
		if a.Default != "" {
			k.Doc += " Without it, every cell's is " + a.Default + "."
		}
		k.Example, k.schema.Description = a.Example, k.Doc
		var ex any
		if err := yaml.Unmarshal([]byte(a.Example), &ex); err == nil && ex != nil {
			k.schema.Examples = []any{ex}
		} else if w.err == nil {
			w.err = fmt.Errorf("%s: example %q is not YAML", k.Path, a.Example)
		}
		w.keys = append(w.keys, k)
		s.Properties.Set(a.Name, k.schema)
	}
}
