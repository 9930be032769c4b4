package plan

import (
	"reflect"
	"testing"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/matrix"
)

// A cell's load carries its scenario's request headers, and only its own.
func TestSpecHeaders(t *testing.T) {
	m := &matrix.Matrix{Scenarios: []matrix.Scenario{
		{Name: "json", Path: "/json"},
		{Name: "compression", Path: "/json", Headers: map[string]string{"Accept-Encoding": "gzip", "Accept": "*/*"}},
	}}
	c := matrix.Cell{Key: cellid.Key{Scenario: "compression"}}
	if got, want := Spec(m, c, "http://t/json", 200).Headers, []string{"Accept: */*", "Accept-Encoding: gzip"}; !reflect.DeepEqual(got, want) {
		t.Errorf("compression's headers = %q, want %q", got, want)
	}
	c.Scenario = "json"
	if got := Spec(m, c, "http://t/json", 200).Headers; got != nil {
		t.Errorf("json's headers = %q, want none", got)
	}
}
