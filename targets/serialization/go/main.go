// Command server is study 002's Go client service: it calls the records
// API and answers /testNoProcess (the upstream's bytes passed through),
// /testReflection (decoded and re-encoded with encoding/json, which uses
// reflection) and /testNoReflection (the same with easyjson's generated
// code), each for ?records=N.
//
// Two switches test the study's suggestion that fasthttp would improve Go:
// HTTP_SERVER=fasthttp serves the three routes with valyala/fasthttp's
// server instead of net/http's (the study's words: "fasthttp as a web
// server"), and HTTP_CLIENT=fasthttp calls the records API with fasthttp's
// client instead of net/http's. The routes' work is the same either way.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/mailru/easyjson"
	"github.com/valyala/fasthttp"

	"github.com/webbench/webbench/targets/serialization/go/records"
)

type service struct {
	upstream string
	client   *http.Client
	fast     *fasthttp.Client // set: HTTP_CLIENT=fasthttp
}

// upstreamTimeout bounds one call to the records API.
const upstreamTimeout = 10 * time.Second

// fetch asks the records API for n records and returns its body.
func (s *service) fetch(n string) (io.ReadCloser, error) {
	url := s.upstream + "/?n=" + n
	if s.fast != nil {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(resp)
		req.SetRequestURI(url)
		if err := s.fast.DoTimeout(req, resp, upstreamTimeout); err != nil {
			return nil, err
		}
		if resp.StatusCode() != fasthttp.StatusOK {
			return nil, fmt.Errorf("records API: %d", resp.StatusCode())
		}
		// The response goes back to the pool: keep a copy of its body.
		return io.NopCloser(bytes.NewReader(bytes.Clone(resp.Body()))), nil
	}
	resp, err := s.client.Get(url)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("records API: %s", resp.Status)
	}
	return resp.Body, nil
}

// A route turns the upstream's records into the answer's body. It writes
// nothing to w when it returns an error.
type route func(upstream io.Reader, w io.Writer) error

// noProcess passes the upstream's bytes through.
func noProcess(upstream io.Reader, w io.Writer) error {
	_, err := io.Copy(w, upstream)
	return err
}

// reflection decodes and re-encodes with encoding/json.
func reflection(upstream io.Reader, w io.Writer) error {
	var recs []records.Record
	if err := json.NewDecoder(upstream).Decode(&recs); err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(recs)
}

// noReflection decodes and re-encodes with easyjson's generated code.
func noReflection(upstream io.Reader, w io.Writer) error {
	body, err := io.ReadAll(upstream)
	if err != nil {
		return err
	}
	var recs records.Records
	if err := easyjson.Unmarshal(body, &recs); err != nil {
		return err
	}
	_, err = easyjson.MarshalToWriter(recs, w)
	return err
}

var routes = map[string]route{
	"/testNoProcess":    noProcess,
	"/testReflection":   reflection,
	"/testNoReflection": noReflection,
}

// netHTTP serves rt with net/http.
func (s *service) netHTTP(rt route) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := s.fetch(r.URL.Query().Get("records"))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer body.Close()
		w.Header().Set("Content-Type", "application/json")
		if err := rt(body, w); err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
		}
	}
}

// fastHTTP serves the routes with fasthttp's server.
func (s *service) fastHTTP(ctx *fasthttp.RequestCtx) {
	rt, ok := routes[string(ctx.Path())]
	if !ok || !ctx.IsGet() {
		ctx.Error("not found", fasthttp.StatusNotFound)
		return
	}
	body, err := s.fetch(string(ctx.QueryArgs().Peek("records")))
	if err != nil {
		ctx.Error(err.Error(), fasthttp.StatusBadGateway)
		return
	}
	defer body.Close()
	ctx.SetContentType("application/json")
	if err := rt(body, ctx); err != nil {
		ctx.ResetBody()
		ctx.Error(err.Error(), fasthttp.StatusBadGateway)
	}
}

func newService() *service {
	// The harness lists the records API's replicas in RECORDS_API_ADDRS.
	addr, _, _ := strings.Cut(os.Getenv("RECORDS_API_ADDRS"), ",")
	if addr == "" {
		addr = "records-api:8080"
	}
	// One keep-alive connection per concurrent request, as a service under
	// load needs; the default of two idle connections per host would make
	// most upstream calls open a new one.
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConns, transport.MaxIdleConnsPerHost = 1024, 1024
	s := &service{upstream: "http://" + addr, client: &http.Client{Transport: transport, Timeout: upstreamTimeout}}
	if os.Getenv("HTTP_CLIENT") == "fasthttp" {
		s.fast = &fasthttp.Client{MaxConnsPerHost: 1024, ReadTimeout: upstreamTimeout, WriteTimeout: upstreamTimeout}
	}
	return s
}

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	s := newService()
	client := "net/http"
	if s.fast != nil {
		client = "fasthttp"
	}
	// The harness reads this line to record the runtime version.
	fmt.Printf("runtime: %s\n", runtime.Version())
	if os.Getenv("HTTP_SERVER") == "fasthttp" {
		log.Printf("fasthttp server on :%s, upstream %s through %s's client", port, s.upstream, client)
		log.Fatal(fasthttp.ListenAndServe(":"+port, s.fastHTTP))
	}
	mux := http.NewServeMux()
	for path, rt := range routes {
		mux.HandleFunc("GET "+path, s.netHTTP(rt))
	}
	log.Printf("net/http server on :%s, upstream %s through %s's client", port, s.upstream, client)
	log.Fatal(http.ListenAndServe(":"+port, mux))
}
