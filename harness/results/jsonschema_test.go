package results

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/invopop/jsonschema"
	validator "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/webbench/webbench/harness/internal/golden"
)

// SchemaFile is results.json's JSON Schema, generated from the Go types
// that write it (TestSchemaCannotDrift; `go test ./harness/results -run
// TestSchemaCannotDrift -update` rewrites it).
const SchemaFile = "results.schema.json"

// schemaOf reflects Run's types into a JSON Schema (draft 2020-12): the
// fields every harness version wrote are required, no property the
// harness never wrote is allowed.
func schemaOf(t *testing.T) []byte {
	t.Helper()
	r := &jsonschema.Reflector{
		DoNotReference: false,
		Mapper: func(ty reflect.Type) *jsonschema.Schema {
			switch ty {
			case reflect.TypeFor[Duration]():
				return &jsonschema.Schema{Type: "string", Description: `a Go duration: "10s", "1m30s"`}
			case reflect.TypeFor[time.Time]():
				return &jsonschema.Schema{Type: "string", Format: "date-time"}
			}
			return nil
		},
	}
	r.RequiredFromJSONSchemaTags = true // what every harness version wrote: see required below
	s := r.Reflect(&Run{})
	// Required: what every version of the harness that wrote a committed
	// results.json wrote (later fields, such as limits and error_rate,
	// are optional for the older files).
	for def, fields := range map[string][]string{
		"Run": {"schema", "environment", "matrix", "cells"}, "Cell": {"target", "scenario", "cpus", "connections", "status"},
		"Trial": {"rps", "requests", "errors", "latency_ms", "seconds"}, "Settings": {"load", "cpus", "connections", "targets", "scenarios"},
	} {
		s.Definitions[def].Required = fields
	}
	// Written by harness versions before environment values were left out
	// (they may be secrets): kept in the older files, never written now.
	for _, def := range []string{"Variant", "Service"} {
		s.Definitions[def].Properties.Set("env", &jsonschema.Schema{Type: "object",
			Description: "older results only: the environment's values, which the harness no longer records (env_keys has the keys)"})
	}
	s.ID = "https://github.com/webbench/webbench/harness/results/" + SchemaFile
	s.Title = "webbench results.json"
	s.Description = "One run of the harness: its environment, the matrix it was given, and every cell it measured, failed or skipped."
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(data, '\n')
}

// The committed schema is what the types generate: a field added, renamed
// or made optional changes it, and the test says to regenerate it.
func TestSchemaCannotDrift(t *testing.T) {
	golden.Check(t, SchemaFile, schemaOf(t))
}

func compiled(t *testing.T) *validator.Schema {
	t.Helper()
	data, err := os.ReadFile(SchemaFile)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := validator.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := validator.NewCompiler()
	if err := c.AddResource(SchemaFile, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(SchemaFile)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Every committed results.json validates against the schema, with a
// maintained validator (santhosh-tekuri/jsonschema); a results.json with a
// count written as text, or a field no harness writes, does not.
func TestCommittedResultsValidate(t *testing.T) {
	s := compiled(t)
	files, _ := filepath.Glob("../../results/*/results.json")
	if len(files) == 0 {
		t.Fatal("no committed results.json found")
	}
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := validator.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(doc); err != nil {
			t.Errorf("%s: %#v", p, err)
		}
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct{ from, to string }{
		{`"schema": `, `"schema": "2", "was": `},
		{`"cells": [`, `"extra": 1, "cells": [`},
	} {
		text := strings.Replace(string(data), bad.from, bad.to, 1)
		doc, err := validator.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			t.Fatal(err)
		}
		if s.Validate(doc) == nil {
			t.Errorf("%q → %q validated", bad.from, bad.to)
		}
	}
}
