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
	"strings"

	"github.com/webbench/webbench/harness/cellid"
	"github.com/webbench/webbench/harness/matrix"
	"github.com/webbench/webbench/harness/results"
)

// Response is one HTTP answer as the probe in the load generator's
// container saw it. Error is set when there was no answer.
type Response struct {
	Status    int         `json:"status"`
	Header    http.Header `json:"header"`
	Body      []byte      `json:"body"`
	WireBytes int64       `json:"wire_bytes"` // read off the connection: status line, headers, body (HTTP/1.1 only)
	Error     string      `json:"error,omitempty"`
	// Negotiated is what the probe and the server agreed: the answer's
	// HTTP version and, over TLS, the handshake's outcome.
	Negotiated *results.Negotiated `json:"negotiated,omitempty"`
	// ClosedAfter: the server closed the connection after answering an
	// HTTP/1.0 keep-alive request (the probe asked as ab -k asks).
	ClosedAfter bool `json:"closed_after,omitempty"`
}

// VerificationFailed begins the probe's error when the server's certificate
// failed verification against the run's authority.
const VerificationFailed = "certificate verification failed"

// Untrusted says whether the server answered the probe's handshake with a
// certificate it could not verify: a server that is up and wrong.
func Untrusted(r Response) bool { return strings.HasPrefix(r.Error, VerificationFailed) }

// Protocol checks that r was spoken in protocol (http1, https, h2, h2c):
// an h2 cell answered over HTTP/1.1 would measure the wrong thing. http10
// says the probe asked with an HTTP/1.0 request line (as ab does): a server
// may answer that in HTTP/1.0 or in the highest 1.x it speaks (RFC 9110
// §6.2), so either is right.
func Protocol(protocol string, http10 bool, r Response) []string {
	n := r.Negotiated
	switch {
	case n == nil && protocol == cellid.ProtoHTTP1:
		return nil // a probe that reports nothing spoke HTTP/1.1
	case n == nil:
		return []string{"the probe reported no protocol (an old load generator image? rebuild it)"}
	}
	var problems []string
	want := "HTTP/1.1"
	if cellid.HTTP2(protocol) {
		want = "HTTP/2.0"
	}
	if n.HTTP != want && !(http10 && protocol == cellid.ProtoHTTP1 && n.HTTP == "HTTP/1.0") {
		problems = append(problems, fmt.Sprintf("answered over %s, want %s (%s)", n.HTTP, want, protocol))
	}
	switch {
	case cellid.TLS(protocol) && n.TLS == "":
		problems = append(problems, "no TLS handshake")
	case protocol == cellid.ProtoH2 && n.ALPN != "h2":
		problems = append(problems, fmt.Sprintf("ALPN agreed %q, want h2", n.ALPN))
	case protocol == cellid.ProtoHTTPS && n.ALPN != "" && n.ALPN != "http/1.1":
		problems = append(problems, fmt.Sprintf("ALPN agreed %q, want http/1.1", n.ALPN))
	}
	return problems
}

// Check compares r with e, whose {param} references subst resolves.
// Problems make the cell fail; warnings are kept beside the result (a
// missing Date or Server header is legal but is work a production server
// does, so it bears on the comparison; TFB's rules, where e.TFB asks for
// them, make it a problem). A problem of a named rule (TFB's, the
// workloads') begins with its name.
func Check(e matrix.Expect, r Response, subst func(string) string) (problems, warnings []string) {
	ps, warnings := check(e, r, subst)
	if len(ps) > 0 {
		problems = Texts(ps)
	}
	return problems, warnings
}

// check is Check, each problem under its rule: none (Rule "") for the
// status, the content type and the body rules of body, json and
// json_array.
func check(e matrix.Expect, r Response, subst func(string) string) (problems []Problem, warnings []string) {
	if r.Error != "" {
		return []Problem{{Detail: "no answer: " + r.Error}}, nil
	}
	if r.Status != e.Status {
		problems = append(problems, Problem{Detail: fmt.Sprintf("status %d, want %d", r.Status, e.Status)})
	}
	if e.ContentType != "" {
		got := r.Header.Get("Content-Type")
		mt, _, err := mime.ParseMediaType(got)
		if err != nil || mt != e.ContentType {
			problems = append(problems, Problem{Detail: fmt.Sprintf("content type %q, want %q", got, e.ContentType)})
		}
	}
	body, encoding, ok := decodeBody(e, r)
	problems = append(problems, encoding...)
	if ok {
		problems = append(problems, checkBody(e, r, body, subst)...)
	}
	for _, h := range []string{"Date", "Server"} {
		if r.Header.Get(h) == "" && e.TFB == nil { // TFB's rules require both: CheckTFB's problems
			warnings = append(warnings, fmt.Sprintf("no %s header", h))
		}
	}
	return problems, warnings
}

// checkBody holds body, r's body decoded, to the one body rule e names.
func checkBody(e matrix.Expect, r Response, body []byte, subst func(string) string) []Problem {
	untyped := func(texts ...string) []Problem {
		var out []Problem
		for _, t := range texts {
			out = append(out, Problem{Detail: t})
		}
		return out
	}
	switch {
	case e.Body != nil:
		if string(body) != *e.Body {
			return untyped(fmt.Sprintf("body %q, want %q", clip(body), *e.Body))
		}
	case e.JSON != nil:
		var got any
		if err := json.Unmarshal(body, &got); err != nil {
			return untyped(fmt.Sprintf("body is not JSON (%v): %q", err, clip(body)))
		} else if !reflect.DeepEqual(got, e.JSON) {
			want, _ := json.Marshal(e.JSON)
			return untyped(fmt.Sprintf("JSON body %s, want %s", clip(bytes.TrimSpace(body)), want))
		}
	case e.JSONArray != nil:
		return untyped(checkArray(*e.JSONArray, body, subst)...)
	case e.TFB != nil:
		r.Body = body
		return CheckTFB(*e.TFB, r, subst)
	case e.SHA256 != "":
		return checkSHA256(e.SHA256, body)
	case e.Compute:
		_, problems := computeResult(body)
		return problems
	}
	return nil
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
