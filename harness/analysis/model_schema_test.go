package analysis

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/invopop/jsonschema"
	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/webbench/webbench/harness/internal/golden"
	"github.com/webbench/webbench/harness/results"
)

// ModelSchemaFile is Model's JSON Schema, generated from its Go types
// (`go test ./harness/analysis -run TestModelSchema -update` rewrites it).
const ModelSchemaFile = "../../docs/report.schema.json"

func modelSchema(t *testing.T) []byte {
	t.Helper()
	r := &jsonschema.Reflector{Mapper: func(ty reflect.Type) *jsonschema.Schema {
		switch ty {
		case reflect.TypeFor[results.Duration]():
			return &jsonschema.Schema{Type: "string", Description: `a Go duration: "10s", "1m30s"`}
		case reflect.TypeFor[time.Time]():
			return &jsonschema.Schema{Type: "string", Format: "date-time"}
		}
		return nil
	}}
	s := r.Reflect(&Model{})
	s.ID = "https://github.com/webbench/webbench/docs/report.schema.json"
	s.Title = "webbench report --format json"
	s.Description = "The model a report renders from one results.json (analysis.Model), version 1: per scenario its rows, scaling table and fixed-rate curves, and the run's A/A noise floors."
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(data, '\n')
}

// The committed schema is what Model's types generate: a field added or
// renamed changes it, and the test says to regenerate it.
func TestModelSchemaCannotDrift(t *testing.T) {
	golden.Check(t, ModelSchemaFile, modelSchema(t))
}

// The model of a committed run validates against the schema, and carries
// its version.
func TestModelValidates(t *testing.T) {
	doc, err := validator.UnmarshalJSON(bytes.NewReader(modelSchema(t)))
	if err != nil {
		t.Fatal(err)
	}
	c := validator.NewCompiler()
	if err := c.AddResource("model.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("model.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"../../results/2c-amd-epyc", "../../results/2c-amd-epyc-capacity"} {
		run, err := results.Read(dir)
		if err != nil {
			t.Fatal(err)
		}
		m := Build(run)
		if m.Schema != ModelSchema || len(m.Scenarios) == 0 {
			t.Fatalf("%s: schema %d, %d scenarios", dir, m.Schema, len(m.Scenarios))
		}
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		v, err := validator.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
	}
}
