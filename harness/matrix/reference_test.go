package matrix

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	validator "github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/webbench/webbench/harness/internal/golden"
)

// The published reference, from this package's folder.
const (
	referenceFile = "../../docs/matrix.md"
	schemaFile    = "../../docs/matrix.schema.json"
)

func reference(t *testing.T) *Reference {
	t.Helper()
	r, err := NewReference()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// The committed reference and JSON Schema are what the schema types
// render: a key added, renamed, re-bounded or re-described changes them,
// and the test says to regenerate them (`go test ./harness/matrix -run
// Reference -update`).
func TestReference(t *testing.T) {
	r := reference(t)
	golden.Check(t, referenceFile, r.Markdown())
	js, err := r.JSONSchema()
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, schemaFile, js)
}

// A key added to the schema without a doc tag (what it is for) and an
// example tag (one value, in YAML) fails here.
func TestReferenceDocumentsEveryKey(t *testing.T) {
	r := reference(t)
	if len(r.Keys) < 100 {
		t.Fatalf("only %d keys: the walk missed some", len(r.Keys))
	}
	for _, k := range r.Keys {
		if strings.TrimSpace(k.Doc) == "" {
			t.Errorf("%s (field %s): no doc tag: say in one line what the key is for", k.Path, k.field.Name)
		}
		if strings.TrimSpace(k.Example) == "" {
			t.Errorf("%s (field %s): no example tag: give one value, in YAML", k.Path, k.field.Name)
		}
	}
}

// Every example is a value the decoder accepts at its key, and that the
// key's JSON Schema accepts: the two checks agree on it.
func TestReferenceExamples(t *testing.T) {
	for _, k := range reference(t).Keys {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(k.Example), &doc); err != nil || len(doc.Content) == 0 {
			t.Errorf("%s: example %q is not YAML: %v", k.Path, k.Example, err)
			continue
		}
		d := &decoder{file: "example", at: map[string]*yaml.Node{}, bad: map[string]bool{}, fileOf: map[*yaml.Node]string{}}
		d.walk(doc.Content[0], k.field.Type, k.Path, k.field.Tag.Get("check"), k.field.Tag.Get("why"))
		if len(d.errs) > 0 {
			t.Errorf("%s: the decoder refuses example %q: %v", k.Path, k.Example, d.errs)
		}
		data, err := json.Marshal(k.schema)
		if err != nil {
			t.Fatal(err)
		}
		if err := compile(t, data).Validate(jsonValue(t, []byte(k.Example))); err != nil {
			t.Errorf("%s: the JSON Schema refuses example %q: %v", k.Path, k.Example, err)
		}
	}
}

func compile(t *testing.T, schema []byte) *validator.Schema {
	t.Helper()
	doc, err := validator.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := validator.NewCompiler()
	if err := c.AddResource("schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// jsonValue is YAML text as the JSON value a JSON Schema validator checks
// (what an editor's YAML extension does with the file).
func jsonValue(t *testing.T, text []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(text, &v); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := validator.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The committed matrix.yaml validates against the committed JSON Schema
// (santhosh-tekuri/jsonschema, already used for results.json), and the
// schema refuses what the decoder refuses for a value's own shape.
func TestReferenceValidatesMatrix(t *testing.T) {
	schema, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	s := compile(t, schema)
	data, err := os.ReadFile("../../matrix.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(jsonValue(t, data)); err != nil {
		t.Fatalf("matrix.yaml: %v", err)
	}
	if _, err := Parse("../../matrix.yaml", data); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct{ from, to string }{
		{"version: 1", "version: 2"},
		{"connections: [64]", "connections: []"},
		{"connections: [64]", "connections: [0]"},
		{"connections: [64]\n", ""},
		{"  duration: 10s", "  duration: 10"},
		{"  duration: 10s", "  duration: 10s\n  during: 10s"},
		{"  aggregate: median", "  aggregate: mean"},
		{"  go-nethttp:", "  Go_NetHTTP:"},
		{"    port: 8080", "    port: 70000"},
		{"env: {NODE_CLUSTER: \"1\"}", "env: {PORT: \"1\"}"},
		{"    protocols: [http1, https, h2, h2c]", "    protocols: [http1, http1]"},
	} {
		text := strings.Replace(string(data), bad.from, bad.to, 1)
		if text == string(data) {
			t.Fatalf("%q is not in matrix.yaml", bad.from)
		}
		if s.Validate(jsonValue(t, []byte(text))) == nil {
			t.Errorf("%q → %q validated", bad.from, bad.to)
		}
		if _, err := Parse("../../matrix.yaml", []byte(text)); err == nil {
			t.Errorf("%q → %q: the decoder accepts it, the schema does not", bad.from, bad.to)
		}
	}
}
