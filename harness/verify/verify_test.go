package verify

import (
	"net/http"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/matrix"
)

func TestCheck(t *testing.T) {
	hello := "Hello, World!"
	plain := matrix.Expect{Status: 200, ContentType: "text/plain", Body: &hello}
	js := matrix.Expect{Status: 200, ContentType: "application/json", JSON: map[string]any{"message": "Hello, World!"}}
	hdr := func(ct string, extra ...string) http.Header {
		h := http.Header{"Content-Type": {ct}}
		for i := 0; i+1 < len(extra); i += 2 {
			h.Set(extra[i], extra[i+1])
		}
		return h
	}
	full := hdr("text/plain; charset=utf-8", "Date", "x", "Server", "y")
	jh := hdr("application/json", "Date", "x", "Server", "y")
	arr := matrix.Expect{Status: 200, ContentType: "application/json", JSONArray: &matrix.JSONArray{Length: "{n}", Keys: []string{"Id", "Name", "Time"}}}
	for _, tc := range []struct {
		name          string
		e             matrix.Expect
		r             Response
		problem, warn string
	}{
		{"ok", plain, Response{Status: 200, Header: full, Body: []byte(hello)}, "", ""},
		{"wrong body", plain, Response{Status: 200, Header: full, Body: []byte("Hello World")}, `body "Hello World", want "Hello, World!"`, ""},
		{"wrong status", plain, Response{Status: 404, Header: full, Body: []byte(hello)}, "status 404, want 200", ""},
		{"wrong type", plain, Response{Status: 200, Header: hdr("text/html", "Date", "x", "Server", "y"), Body: []byte(hello)}, `content type "text/html"`, ""},
		{"no answer", plain, Response{Error: "connection refused"}, "no answer: connection refused", ""},
		{"no date", plain, Response{Status: 200, Header: hdr("text/plain", "Server", "y"), Body: []byte(hello)}, "", "no Date header"},
		{"json ok, spacing differs", js, Response{Status: 200, Header: hdr("application/json", "Date", "x", "Server", "y"), Body: []byte(`{ "message" : "Hello, World!" }` + "\n")}, "", ""},
		{"json wrong", js, Response{Status: 200, Header: hdr("application/json", "Date", "x", "Server", "y"), Body: []byte(`{"message":"Hi"}`)}, `JSON body {"message":"Hi"}`, ""},
		{"json extra key", js, Response{Status: 200, Header: hdr("application/json", "Date", "x", "Server", "y"), Body: []byte(`{"message":"Hello, World!","x":1}`)}, "JSON body", ""},
		{"array ok", arr, Response{Status: 200, Header: jh, Body: []byte(`[{"Id":"id_1","Name":"n","Time":1},{"Time":2,"Name":"m","Id":"id_2"}]`)}, "", ""},
		{"array short", arr, Response{Status: 200, Header: jh, Body: []byte(`[{"Id":"id_1","Name":"n","Time":1}]`)}, "JSON array of 1 elements, want 2", ""},
		{"array keys", arr, Response{Status: 200, Header: jh, Body: []byte(`[{"Id":"id_1","Name":"n","Time":1},{"id":"x","Name":"m","Time":2}]`)}, "element 1 has keys [Name Time id]", ""},
		{"array not array", arr, Response{Status: 200, Header: jh, Body: []byte(`{"Id":"id_1"}`)}, "not a JSON array", ""},
		{"not json", js, Response{Status: 200, Header: hdr("application/json", "Date", "x", "Server", "y"), Body: []byte(`nope`)}, "body is not JSON", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, w := Check(tc.e, tc.r, func(s string) string { return strings.ReplaceAll(s, "{n}", "2") })
			ps, ws := strings.Join(p, "|"), strings.Join(w, "|")
			if tc.problem == "" && ps != "" || !strings.Contains(ps, tc.problem) {
				t.Errorf("problems = %q, want %q", ps, tc.problem)
			}
			if tc.warn == "" && ws != "" || !strings.Contains(ws, tc.warn) {
				t.Errorf("warnings = %q, want %q", ws, tc.warn)
			}
		})
	}
}
