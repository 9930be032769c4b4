// Command server is a test target that misbehaves in the way MODE names,
// after answering its first requests (readiness, verification) correctly:
//
//	503-under-load  every second request after the first 100 gets a 503
//
// It is never a target of the default matrix: the end-to-end tests use it
// to prove that a misbehaving server fails its cell with a clear reason.
package main

import (
	"fmt"
	"log"
	"net/http"
	"os"
	"runtime"
	"sync/atomic"
)

func main() {
	mode := os.Getenv("MODE")
	port := os.Getenv("PORT")
	if port == "" {
		port = "8080"
	}
	var served atomic.Int64
	http.HandleFunc("/plaintext", func(w http.ResponseWriter, r *http.Request) {
		n := served.Add(1)
		if mode == "503-under-load" && n > 100 && n%2 == 0 {
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("Hello, World!"))
	})
	fmt.Printf("runtime: %s (misbehave MODE=%s)\n", runtime.Version(), mode)
	log.Fatal(http.ListenAndServe(":"+port, nil))
}
