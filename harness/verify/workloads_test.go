package verify

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/webbench/webbench/harness/matrix"
)

// workloadServer serves the three workload scenarios honestly, or broken
// one way: cheat names how.
type workloadServer struct {
	cheat string // "": honest; "bytes", "unasked", "cached"
	asked []string
}

const helloJSON = `{"message":"Hello, World!"}`

func (s *workloadServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.asked = append(s.asked, r.URL.RequestURI()+" "+r.Header.Get("Accept-Encoding"))
	w.Header().Set("Date", "x")
	w.Header().Set("Server", "y")
	switch r.URL.Path {
	case "/static/1k.bin":
		body := staticBytes(1024)
		if s.cheat == "bytes" {
			body[100] ^= 1
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(body)
	case "/json":
		w.Header().Set("Content-Type", "application/json")
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") && s.cheat != "unasked" {
			io.WriteString(w, helloJSON)
			return
		}
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gzipped(helloJSON))
	case "/compute":
		a, _ := strconv.ParseInt(r.URL.Query().Get("a"), 10, 64)
		b, _ := strconv.ParseInt(r.URL.Query().Get("b"), 10, 64)
		if s.cheat == "cached" {
			a, b = 3, 4
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"result":%d}`, Computed(a, b))
	}
}

// staticBytes is the static files' rule: byte i is i mod 251.
func staticBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}

func gzipped(s string) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	io.WriteString(zw, s)
	zw.Close()
	return buf.Bytes()
}

// ask asks as the probe does: no compression of its own, the headers it
// is given.
func ask(ctx context.Context, url string, headers []string) (Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Response{}, err
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Transport: &http.Transport{DisableCompression: true}}).Do(req)
	if err != nil {
		return Response{Error: err.Error()}, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, nil
}

func workloadScenarios() map[string]matrix.Scenario {
	sum := sha256.Sum256(staticBytes(1024))
	js := map[string]any{"message": "Hello, World!"}
	return map[string]matrix.Scenario{
		"static": {Name: "static-1k", Path: "/static/1k.bin",
			Expect: matrix.Expect{Status: 200, ContentType: "application/octet-stream", SHA256: hex.EncodeToString(sum[:])}},
		"compression": {Name: "compression", Path: "/json", Headers: map[string]string{"Accept-Encoding": "gzip"},
			Expect: matrix.Expect{Status: 200, ContentType: "application/json", JSON: js, Encoding: "gzip"}},
		"compute": {Name: "compute", Path: "/compute?a=3&b=4",
			Expect: matrix.Expect{Status: 200, ContentType: "application/json", Compute: true}},
	}
}

// verifyWorkload verifies sc as the runner does: the first answer, asked
// with sc's headers, by Check, then Workload's further asks.
func verifyWorkload(t *testing.T, srv *workloadServer, sc matrix.Scenario) []string {
	t.Helper()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	url := ts.URL + sc.Path
	first, _ := ask(context.Background(), url, sc.HeaderLines())
	if problems, _ := Check(sc.Expect, first, func(s string) string { return s }); problems != nil {
		return problems
	}
	more, err := Workload{Ask: ask, Rand: rand.New(rand.NewPCG(1, 2))}.Check(context.Background(), sc, url, first)
	if err != nil {
		t.Fatal(err)
	}
	return Texts(more)
}

// Each workload rule passes the honest server and fails the one that
// breaks it, naming the rule.
func TestWorkloadRules(t *testing.T) {
	scs := workloadScenarios()
	for _, tc := range []struct {
		scenario, cheat, want string
	}{
		{"static", "", ""},
		{"static", "bytes", "sha256: a body of 1024 bytes with SHA-256 "},
		{"compression", "", ""},
		{"compression", "unasked", "encoding: asked without Accept-Encoding: Content-Encoding \"gzip\" on an answer the scenario expects unencoded"},
		{"compute", "", ""},
		{"compute", "cached", "compute: a=" /* the first random pair's */},
	} {
		t.Run(tc.scenario+"/"+tc.cheat, func(t *testing.T) {
			srv := &workloadServer{cheat: tc.cheat}
			got := strings.Join(verifyWorkload(t, srv, scs[tc.scenario]), "; ")
			switch {
			case tc.want == "" && got != "":
				t.Errorf("broke %q, want nothing (asked %q)", got, srv.asked)
			case tc.want != "" && !strings.HasPrefix(got, tc.want):
				t.Errorf("broke %q, want it to begin %q (asked %q)", got, tc.want, srv.asked)
			}
		})
	}
}

// Compute is asked at the URL's a and b and at two other pairs, all
// different, each with the scenario's headers; compression once more
// without its headers.
func TestWorkloadAsks(t *testing.T) {
	scs := workloadScenarios()
	srv := &workloadServer{}
	sc := scs["compute"]
	sc.Headers = map[string]string{"Accept-Encoding": "identity"}
	verifyWorkload(t, srv, sc)
	seen := map[string]bool{}
	for _, a := range srv.asked {
		if !strings.HasSuffix(a, " identity") {
			t.Errorf("asked %q without the scenario's header", a)
		}
		seen[a] = true
	}
	if len(srv.asked) != 3 || len(seen) != 3 {
		t.Errorf("asked %q, want three different parameter sets", srv.asked)
	}
	srv = &workloadServer{}
	verifyWorkload(t, srv, scs["compression"])
	if want := []string{"/json gzip", "/json "}; strings.Join(srv.asked, "|") != strings.Join(want, "|") {
		t.Errorf("asked %q, want %q", srv.asked, want)
	}
}

// Check alone: a gzip answer where none was asked for, one not gzip where
// gzip was, and one that does not decode each break the encoding rule.
func TestCheckEncoding(t *testing.T) {
	js := map[string]any{"message": "Hello, World!"}
	h := func(enc string) http.Header {
		hd := http.Header{"Content-Type": {"application/json"}, "Date": {"x"}, "Server": {"y"}}
		if enc != "" {
			hd.Set("Content-Encoding", enc)
		}
		return hd
	}
	plain := matrix.Expect{Status: 200, JSON: js}
	gz := matrix.Expect{Status: 200, JSON: js, Encoding: "gzip"}
	for _, tc := range []struct {
		name string
		e    matrix.Expect
		r    Response
		want string
	}{
		{"gzip unasked", plain, Response{Status: 200, Header: h("gzip"), Body: gzipped(helloJSON)}, `encoding: Content-Encoding "gzip" on an answer the scenario expects unencoded`},
		{"not gzip", gz, Response{Status: 200, Header: h(""), Body: []byte(helloJSON)}, `encoding: Content-Encoding "", want "gzip"`},
		{"not a gzip body", gz, Response{Status: 200, Header: h("gzip"), Body: []byte(helloJSON)}, "encoding: a gzip body of 27 bytes that does not decode"},
		{"decodes to other JSON", gz, Response{Status: 200, Header: h("gzip"), Body: gzipped(`{"message":"Hi"}`)}, `JSON body {"message":"Hi"}`},
		{"gzip ok", gz, Response{Status: 200, Header: h("gzip"), Body: gzipped(helloJSON)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			problems, _ := Check(tc.e, tc.r, func(s string) string { return s })
			got := strings.Join(problems, "; ")
			if tc.want == "" && got != "" || !strings.HasPrefix(got, tc.want) {
				t.Errorf("problems %q, want %q", got, tc.want)
			}
		})
	}
}
