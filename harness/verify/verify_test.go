package verify

import (
	"net/http"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
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

// A cell is verified in its own protocol: an h2 cell answered over
// HTTP/1.1, an https cell with no handshake or another ALPN, fail; what
// the probe reports of a good handshake passes; a probe that reports
// nothing passes only a cleartext HTTP/1.1 cell. Asked in HTTP/1.0 (as
// ab asks), an http1 cell may be answered in HTTP/1.0 or 1.1, nothing else.
func TestProtocol(t *testing.T) {
	tls13 := func(http, alpn string) Response {
		return Response{Negotiated: &results.Negotiated{HTTP: http, TLS: "TLS 1.3", Cipher: "TLS_AES_128_GCM_SHA256", ALPN: alpn}}
	}
	clear := func(http string) Response { return Response{Negotiated: &results.Negotiated{HTTP: http}} }
	for _, c := range []struct {
		protocol string
		http10   bool
		r        Response
		want     string // "" passes
	}{
		{"http1", false, clear("HTTP/1.0"), "answered over HTTP/1.0, want HTTP/1.1"},
		{"http1", true, clear("HTTP/1.0"), ""},
		{"http1", true, clear("HTTP/1.1"), ""},
		{"http1", true, clear("HTTP/2.0"), "answered over HTTP/2.0, want HTTP/1.1"},
		{"h2c", true, clear("HTTP/1.0"), "want HTTP/2.0 (h2c)"},
		{"http1", false, Response{}, ""},
		{"http1", false, clear("HTTP/1.1"), ""},
		{"http1", false, clear("HTTP/2.0"), "answered over HTTP/2.0, want HTTP/1.1"},
		{"https", false, tls13("HTTP/1.1", "http/1.1"), ""},
		{"https", false, tls13("HTTP/1.1", ""), ""}, // a server without ALPN speaks HTTP/1.1
		{"https", false, clear("HTTP/1.1"), "no TLS handshake"},
		{"https", false, tls13("HTTP/1.1", "h2"), `ALPN agreed "h2", want http/1.1`},
		{"h2", false, tls13("HTTP/2.0", "h2"), ""},
		{"h2", false, tls13("HTTP/1.1", "http/1.1"), "answered over HTTP/1.1, want HTTP/2.0 (h2)"},
		{"h2", false, tls13("HTTP/2.0", ""), `ALPN agreed "", want h2`},
		{"h2c", false, clear("HTTP/2.0"), ""},
		{"h2c", false, clear("HTTP/1.1"), "want HTTP/2.0 (h2c)"},
		{"h2", false, Response{}, "the probe reported no protocol"},
	} {
		got := strings.Join(Protocol(c.protocol, c.http10, c.r), "; ")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s (http10 %v) %+v: %q, want %q", c.protocol, c.http10, c.r.Negotiated, got, c.want)
		}
	}
	if !Untrusted(Response{Error: VerificationFailed + ": the server's certificate (subject \"CN=x\") …"}) ||
		Untrusted(Response{Error: "connection refused"}) {
		t.Error("Untrusted tells a certificate failure from another error wrongly")
	}
}
