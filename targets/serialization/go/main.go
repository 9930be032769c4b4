// Command server is study 002's Go client service: it calls the records
// API and answers /testNoProcess (the upstream's bytes passed through),
// /testReflection (decoded and re-encoded with encoding/json, which uses
// reflection) and /testNoReflection (the same with easyjson's generated
// code), each for ?records=N.
package main

import (
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

	"github.com/webbench/webbench/targets/serialization/go/records"
)

type service struct {
	upstream string
	client   *http.Client
}

// fetch asks the records API for the request's ?records=N.
func (s *service) fetch(r *http.Request) (*http.Response, error) {
	resp, err := s.client.Get(s.upstream + "/?n=" + r.URL.Query().Get("records"))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("records API: %s", resp.Status)
	}
	return resp, nil
}

func (s *service) noProcess(w http.ResponseWriter, r *http.Request) {
	resp, err := s.fetch(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	w.Header().Set("Content-Type", "application/json")
	io.Copy(w, resp.Body)
}

func (s *service) reflection(w http.ResponseWriter, r *http.Request) {
	resp, err := s.fetch(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	var recs []records.Record
	if err := json.NewDecoder(resp.Body).Decode(&recs); err != nil {
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
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
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
	s := &service{upstream: strings.TrimRight(upstream, "/"), client: &http.Client{Transport: transport, Timeout: 10 * time.Second}}

	mux := http.NewServeMux()
	mux.HandleFunc("GET /testNoProcess", s.noProcess)
	mux.HandleFunc("GET /testReflection", s.reflection)
	mux.HandleFunc("GET /testNoReflection", s.noReflection)
	// The harness reads this line to record the runtime version.
	fmt.Printf("runtime: %s\n", runtime.Version())
	log.Printf("listening on :%s, upstream %s", port, s.upstream)
	log.Fatal(http.ListenAndServe(":"+port, mux))
}
