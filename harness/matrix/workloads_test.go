package matrix

import (
	"reflect"
	"strings"
	"testing"
)

// The workload scenarios' keys: request headers, a body's digest, an
// encoding and the compute rule, read as written and refused where they
// cannot hold.
const workloads = `version: 1
images: {debian: debian:bookworm-slim, golang: golang:1.26}
load: {duration: 2s, trials: 1}
connections: [64]
targets:
  one: {build: t1, port: 8080}
scenarios:
  static-1k:
    path: /static/1k.bin
    expect: {status: 200, sha256: 2BCE1BA628720664BE4B9FDD77AAE0678E5F0F3F02FC6FF641EC879094F6A404}
  compression:
    path: /json
    headers: {accept-encoding: gzip}
    expect: {status: 200, encoding: gzip, json: {message: "Hello, World!"}}
  compute:
    path: /compute?a=3&b=4
    expect: {status: 200, content_type: application/json, compute: true}
`

func TestWorkloadScenarios(t *testing.T) {
	m, err := parse(t, workloads)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Scenario{}
	for _, sc := range m.Scenarios {
		byName[sc.Name] = sc
	}
	if got := byName["static-1k"].Expect.SHA256; got != "2bce1ba628720664be4b9fdd77aae0678e5f0f3f02fc6ff641ec879094f6a404" {
		t.Errorf("sha256 = %q, want it in lowercase", got)
	}
	c := byName["compression"]
	if !reflect.DeepEqual(c.Headers, map[string]string{"Accept-Encoding": "gzip"}) || c.Expect.Encoding != "gzip" || c.Expect.JSON == nil {
		t.Errorf("compression = %+v", c)
	}
	if !byName["compute"].Expect.Compute || byName["json"].Expect.Compute {
		t.Errorf("compute = %+v", byName["compute"].Expect)
	}
}

func TestWorkloadScenarioErrors(t *testing.T) {
	for _, tc := range []struct{ name, edit, to, want string }{
		{"short digest", "sha256: 2BCE", "sha256: 2BC", "scenarios.static-1k.expect.sha256: want the body's SHA-256 as 64 hex digits"},
		{"digest and body", "expect: {status: 200, sha256", "expect: {status: 200, body: x, sha256", "set only one of body, json, json_array, tfb, sha256 and compute"},
		{"compute and json", "compute: true", "compute: true, json: 1", "set only one of body, json, json_array, tfb, sha256 and compute"},
		{"unknown encoding", ", encoding: gzip", ", encoding: br", `expect.encoding: want "gzip", got "br"`},
		{"header name", "accept-encoding: gzip", `"accept encoding": gzip`, "scenarios.compression.headers.accept encoding: not a header name"},
		{"header value", "accept-encoding: gzip", `accept-encoding: "gzip\r\nX: y"`, "scenarios.compression.headers.accept-encoding: a control character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(workloads, tc.edit, tc.to, 1)
			if text == workloads {
				t.Fatalf("edit %q not found", tc.edit)
			}
			_, err := parse(t, text)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error = %v, want %q", err, tc.want)
			}
		})
	}
}
