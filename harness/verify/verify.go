// Package verify owns the correctness check run before any load: one
// response compared with a scenario's expectation. A wrong server is never
// measured.
package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strconv"

	"github.com/webbench/webbench/harness/matrix"
)

// Response is one HTTP answer as the probe in the load generator's
// container saw it. Error is set when there was no answer.
type Response struct {
	Status    int         `json:"status"`
	Header    http.Header `json:"header"`
	Body      []byte      `json:"body"`
	WireBytes int64       `json:"wire_bytes"` // read off the connection: status line, headers, body
	Error     string      `json:"error,omitempty"`
}

// Check compares r with e, whose {param} references subst resolves.
// Problems make the cell fail; warnings are kept beside the result (a
// missing Date or Server header is legal but is work a production server
// does, so it bears on the comparison).
func Check(e matrix.Expect, r Response, subst func(string) string) (problems, warnings []string) {
	if r.Error != "" {
		return []string{"no answer: " + r.Error}, nil
	}
	if r.Status != e.Status {
		problems = append(problems, fmt.Sprintf("status %d, want %d", r.Status, e.Status))
	}
	if e.ContentType != "" {
		got := r.Header.Get("Content-Type")
		mt, _, err := mime.ParseMediaType(got)
		if err != nil || mt != e.ContentType {
			problems = append(problems, fmt.Sprintf("content type %q, want %q", got, e.ContentType))
		}
	}
	switch {
	case e.Body != nil:
		if string(r.Body) != *e.Body {
			problems = append(problems, fmt.Sprintf("body %q, want %q", clip(r.Body), *e.Body))
		}
	case e.JSON != nil:
		var got any
		if err := json.Unmarshal(r.Body, &got); err != nil {
			problems = append(problems, fmt.Sprintf("body is not JSON (%v): %q", err, clip(r.Body)))
		} else if !reflect.DeepEqual(got, e.JSON) {
			want, _ := json.Marshal(e.JSON)
			problems = append(problems, fmt.Sprintf("JSON body %s, want %s", clip(bytes.TrimSpace(r.Body)), want))
		}
	case e.JSONArray != nil:
		problems = append(problems, checkArray(*e.JSONArray, r.Body, subst)...)
	}
	for _, h := range []string{"Date", "Server"} {
		if r.Header.Get(h) == "" {
			warnings = append(warnings, fmt.Sprintf("no %s header", h))
		}
	}
	return problems, warnings
}

func clip(b []byte) string {
	const n = 200
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

func checkArray(a matrix.JSONArray, body []byte, subst func(string) string) []string {
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(body, &items); err != nil {
		return []string{fmt.Sprintf("body is not a JSON array of objects (%v): %q", err, clip(body))}
	}
	if a.Length != "" {
		want, err := strconv.Atoi(subst(a.Length))
		if err != nil {
			return []string{fmt.Sprintf("expected length %q is not a number", subst(a.Length))}
		}
		if len(items) != want {
			return []string{fmt.Sprintf("JSON array of %d elements, want %d", len(items), want)}
		}
	}
	if len(a.Keys) > 0 {
		want := slices.Sorted(slices.Values(a.Keys))
		for i, it := range items {
			got := slices.Sorted(maps.Keys(it))
			if !slices.Equal(got, want) {
				return []string{fmt.Sprintf("element %d has keys %v, want %v", i, got, want)}
			}
		}
	}
	return nil
}
