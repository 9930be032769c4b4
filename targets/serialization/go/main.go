// Command server is study 002's Go client service: it calls the records
// API and answers /testNoProcess (the upstream's bytes passed through),
// /testReflection (decoded and re-encoded with encoding/json, which uses
// reflection) and /testNoReflection (the same with easyjson's generated
// code), each for ?records=N.
//
// HTTP_CLIENT=fasthttp calls the records API with valyala/fasthttp's client
// instead of net/http's (the study's suggestion that fasthttp would
// improve Go); the handlers are the same, reading the upstream's body
// either way.
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

// fetch asks the records API for the request's ?records=N and returns its
// body.
func (s *service) fetch(r *http.Request) (io.ReadCloser, error) {
	url := s.upstream + "/?n=" + r.URL.Query().Get("records")
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

func (s *service) noProcess(w http.ResponseWriter, r *http.Request) {
	resp, err := s.fetch(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Close()
	w.Header().Set("Content-Type", "application/json")
	io.Copy(w, resp)
}

func (s *service) reflection(w http.ResponseWriter, r *http.Request) {
	resp, err := s.fetch(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Close()
	var recs []records.Record
	if err := json.NewDecoder(resp).Decode(&recs); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(recs)
}

func (s *service) noReflection(w http.ResponseWriter, r *http.Request) {
	resp, err := s.fetch(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Close()
	body, err := io.ReadAll(resp)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	var recs records.Records
	if err := easyjson.Unmarshal(body, &recs); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	easyjson.MarshalToWriter(recs, w)
}

func main() {
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	// The harness lists the records API's replicas in RECORDS_API_ADDRS.
	addr, _, _ := strings.Cut(os.Getenv("RECORDS_API_ADDRS"), ",")
	if addr == "" {
		addr = "records-api:8080"
	}
	upstream := "http://" + addr
	// One keep-alive connection per concurrent request, as a service under
	// load needs; the default of two idle connections per host would make
	// most upstream calls open a new one.
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.MaxIdleConns, transport.MaxIdleConnsPerHost = 1024, 1024
	s := &service{upstream: strings.TrimRight(upstream, "/"), client: &http.Client{Transport: transport, Timeout: upstreamTimeout}}
	if os.Getenv("HTTP_CLIENT") == "fasthttp" {
		s.fast = &fasthttp.Client{MaxConnsPerHost: 1024, ReadTimeout: upstreamTimeout, WriteTimeout: upstreamTimeout}
	}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /testNoProcess", s.noProcess)
	mux.HandleFunc("GET /testReflection", s.reflection)
	mux.HandleFunc("GET /testNoReflection", s.noReflection)
	// The harness reads this line to record the runtime version.
	fmt.Printf("runtime: %s\n", runtime.Version())
	client := "net/http"
	if s.fast != nil {
		client = "fasthttp"
	}
	log.Printf("listening on :%s, upstream %s through %s's client", port, s.upstream, client)
	log.Fatal(http.ListenAndServe(":"+port, mux))
}
